package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// runCost is what one run costs in Temporal: what `bench` prints per run.
type runCost struct {
	events, workflowTasks, activityTasks, localActivities int
}

func costOf(h []*historypb.HistoryEvent) runCost {
	c := runCost{events: len(h)}
	for _, ev := range h {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			c.workflowTasks++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			c.activityTasks++
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
				c.localActivities++
			}
		}
	}
	return c
}

// TestRunCosts runs a partner application and an HR-suite invitation of the default definitions
// on a real Temporal server (activities answering as the real ones would) and counts their
// history: a partner run that invites by e-mail and calls back at once is one workflow task with
// three local activities (prepare; open, send; settle, call back) in 12 events, an HR-suite
// invitation by SMS one workflow task with two (load; open, quiet hours, send) in 10. Before
// mergedSteps they were 5 local activities in 18 events and 4 in 16. The floor (one workflow
// with one activity) is 11 events, two workflow tasks and an activity task.
func TestRunCosts(t *testing.T) {
	c := temporaltest.New(t).Client(t)
	queue := temporaltest.TaskQueue(t)
	co, job, cand, app, _ := workflows.StubWorker(t, c, queue)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	history := func(id, runID string) []*historypb.HistoryEvent {
		var h []*historypb.HistoryEvent
		it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			h = append(h, ev)
		}
		return h
	}

	hr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "invite/acme/" + uuid.NewString(), TaskQueue: queue}, workflows.CustomerFlow,
		kinds.FlowInput{CompanyID: co, Trigger: models.TriggerNewApplicationWebhook, CandidateID: cand, ApplicationID: app, JobID: job})
	if err != nil {
		t.Fatal(err)
	}
	if err := hr.Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := costOf(history(hr.GetID(), hr.GetRunID())), (runCost{events: 10, workflowTasks: 1, localActivities: 2}); got != want {
		t.Errorf("HR-suite invitation run costs %+v, want %+v", got, want)
	}

	id := "partner-application/acme/" + uuid.NewString()
	pa, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, workflows.PartnerApplication,
		kinds.PartnerInput{CompanyID: co, PartnerApplicationID: uuid.New(), Deadline: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.TerminateWorkflow(context.WithoutCancel(ctx), id, pa.GetRunID(), "measured") }()
	// The run keeps waiting for the session (wait_for_session): measured once its timers are set.
	var h []*historypb.HistoryEvent
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		h = history(id, pa.GetRunID())
		timers := 0
		for _, ev := range h {
			if ev.GetEventType() == enumspb.EVENT_TYPE_TIMER_STARTED {
				timers++
			}
		}
		if timers == 2 && h[len(h)-1].GetEventType() == enumspb.EVENT_TYPE_TIMER_STARTED {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("partner run did not reach its session wait: %d events", len(h))
		}
	}
	if got, want := costOf(h), (runCost{events: 12, workflowTasks: 1, localActivities: 3}); got != want {
		t.Errorf("partner run costs %+v, want %+v", got, want)
	}
}
