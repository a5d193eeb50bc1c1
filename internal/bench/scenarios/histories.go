package scenarios

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// historySample is how many runs of a workflow type historyCounts reads.
const historySample = 20

// historyCounts prints, for each workflow type, what one run costs in Temporal (the mean over
// the latest runs that have settled, waiting up to a minute for the sample's busy ones):
// history events, workflow tasks, activity tasks (each a task-queue round trip) and local
// activities (run inside a workflow task). The counts do not depend on the machine's load, so
// they explain a ratio to the floor (one workflow task pair around one activity task) where
// timings on a busy machine cannot.
func (r *rig) historyCounts(ctx context.Context, types ...string) {
	fmt.Fprintf(r.out, "  Temporal work per run (mean of up to %d runs of each type):\n", historySample)
	for _, typ := range types {
		resp, err := r.tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowType = '%s'", typ), PageSize: historySample,
		})
		if err != nil {
			fmt.Fprintf(r.out, "    %-22s not listed: %v\n", typ, err)
			continue
		}
		var runs, busy, heldRuns, events, wfts, acts, locals int
		deadline := time.Now().Add(time.Minute)
		for _, ex := range resp.GetExecutions() {
			var h []*historypb.HistoryEvent
			for {
				h = r.history(ctx, ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId())
				if settled(h) || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if !settled(h) {
				busy++
				continue
			}
			if held(h) {
				heldRuns++
			}
			for _, ev := range h {
				events++
				switch ev.GetEventType() {
				case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
					wfts++
				case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
					acts++
				case enumspb.EVENT_TYPE_MARKER_RECORDED:
					if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
						locals++
					}
				}
			}
			runs++
		}
		if runs == 0 {
			fmt.Fprintf(r.out, "    %-22s no settled runs (%d still busy)\n", typ, busy)
			continue
		}
		n := float64(runs)
		fmt.Fprintf(r.out, "    %-22s %5.1f events, %4.1f workflow tasks, %4.1f activity tasks, %4.1f local activities (%d runs, %d of them held by a start delay, %d still busy left out)\n",
			typ, float64(events)/n, float64(wfts)/n, float64(acts)/n, float64(locals)/n, runs, heldRuns, busy)
	}
}

// history reads a run's events (those read before an error, if one comes).
func (r *rig) history(ctx context.Context, workflowID, runID string) []*historypb.HistoryEvent {
	var h []*historypb.HistoryEvent
	it := r.tc.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			break
		}
		h = append(h, ev)
	}
	return h
}

// settled reports whether a run's history has nothing in progress: the run ended, it waits
// on a timer (a session's deadline, a flow's wait_for_session) with no task pending, or it is
// held (started with a delay whose first task has not come: a flow-opened session's run).
func settled(h []*historypb.HistoryEvent) bool {
	if len(h) == 0 {
		return false
	}
	if held(h) {
		return true
	}
	switch h[len(h)-1].GetEventType() {
	case enumspb.EVENT_TYPE_TIMER_STARTED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
		return true
	}
	return false
}

// held reports whether a run started with a delay has not had its first workflow task yet.
func held(h []*historypb.HistoryEvent) bool {
	if len(h) == 0 || h[0].GetWorkflowExecutionStartedEventAttributes().GetFirstWorkflowTaskBackoff().AsDuration() <= 0 {
		return false
	}
	for _, ev := range h {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED {
			return false
		}
	}
	return true
}
