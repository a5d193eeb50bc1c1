package kinds_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/workflows/starter"
)

// TestEveryKindHasAQueue: a kind without a known queue would start on the default queue by
// accident; a partner run's callback is its child, which runs on the parent's queue.
func TestEveryKindHasAQueue(t *testing.T) {
	for _, k := range append(kinds.All, kinds.Ping) {
		if !slices.Contains(kinds.Queues, k.Queue) {
			t.Errorf("kind %s: queue %q is not one of %v", k.Name, k.Queue, kinds.Queues)
		}
	}
	if kinds.Callback.Queue != kinds.PartnerApplication.Queue {
		t.Errorf("partner-callback on %s, its parent partner-application on %s: a child runs on its parent's queue", kinds.Callback.Queue, kinds.PartnerApplication.Queue)
	}
	if kinds.Interview.Queue == kinds.JobImport.Queue || kinds.Interview.Queue == kinds.JobGeneration.Queue ||
		kinds.Invite.Queue == kinds.JobImport.Queue {
		t.Error("an import's runs share a queue with interviews or invitations")
	}
}

func TestQueueNames(t *testing.T) {
	for q, want := range map[kinds.Queue]string{kinds.QueueDefault: "rd", kinds.QueueInterview: "rd-interview", kinds.QueueIngest: "rd-ingest"} {
		if got := q.TaskQueue("rd"); got != want {
			t.Errorf("%s.TaskQueue(rd) = %q, want %q", q, got, want)
		}
	}
	for in, want := range map[string][]kinds.Queue{
		"":                              kinds.Queues,
		"all":                           kinds.Queues,
		"ingest":                        {kinds.QueueIngest},
		" interview ,default,interview": {kinds.QueueDefault, kinds.QueueInterview},
	} {
		got, err := kinds.ParseQueues(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseQueues(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"reports", "default,", "ALL", "interview;ingest"} {
		if _, err := kinds.ParseQueues(bad); err == nil {
			t.Errorf("ParseQueues(%q) took it", bad)
		}
	}
}

// TestStarterStartsEachKindOnItsQueue: with no worker anywhere, the runs the Starter starts are
// found on their kinds' queues (plain starts and signal-with-starts alike).
func TestStarterStartsEachKindOnItsQueue(t *testing.T) {
	tc := temporaltest.New(t).Client(t)
	prefix := temporaltest.TaskQueue(t)
	s := starter.Starter{Client: tc, QueuePrefix: prefix}
	company := uuid.New()
	key := uuid.NewString()
	for _, ws := range []struct {
		kind kinds.Kind
		want string
	}{
		{kinds.JobImport, prefix + "-ingest"},
		{kinds.Interview, prefix + "-interview"},
		{kinds.Callback, prefix},
	} {
		start := ws.kind.Start(company, "queues", key, map[string]string{"CompanyID": company.String()}, make([]string, len(ws.kind.Attrs))...)
		if err := s.Start(t.Context(), &start); err != nil {
			t.Fatal(err)
		}
		d, err := tc.DescribeWorkflowExecution(t.Context(), start.WorkflowID, "")
		if err != nil {
			t.Fatal(err)
		}
		info := d.GetWorkflowExecutionInfo()
		if got := info.GetTaskQueue(); got != ws.want {
			t.Errorf("%s started on %q, want %q", ws.kind.Name, got, ws.want)
		}
		if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			if err := tc.TerminateWorkflow(t.Context(), start.WorkflowID, "", "test done"); err != nil {
				t.Error(err)
			}
		}
	}
}
