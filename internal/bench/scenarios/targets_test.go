package scenarios

import (
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/types/known/durationpb"
)

func TestTargetsPrintIssue32sFigures(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{ratioTarget(0.9), "target >= 0.9: meets target"},
		{ratioTarget(0.89), "target >= 0.9: MISSES target"},
		{acceptTarget(100, 24*time.Millisecond), "target p99 < 25ms at 100 req/s: meets target"},
		{acceptTarget(100, 25*time.Millisecond), "target p99 < 25ms at 100 req/s: MISSES target"},
		{acceptTarget(20, time.Millisecond), "target p99 < 25ms at 100 req/s: not measured (--rate 20)"},
	} {
		if tc.got != tc.want {
			t.Errorf("target = %q, want %q", tc.got, tc.want)
		}
	}
	if callbackP50Target != 100*time.Millisecond || smsTurnP99Target != 100*time.Millisecond {
		t.Errorf("callback p50 target %s, SMS turn p99 target %s; want 100ms each", callbackP50Target, smsTurnP99Target)
	}
	if !strings.Contains(ratioTarget(1), "0.9") {
		t.Error("the ratio target does not name 0.9")
	}
}

// delayed is a run started with a start delay (0: none), then the events of types.
func delayed(backoff time.Duration, types ...enumspb.EventType) []*historypb.HistoryEvent {
	h := []*historypb.HistoryEvent{{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
			FirstWorkflowTaskBackoff: durationpb.New(backoff),
		}}}}
	for _, typ := range types {
		h = append(h, &historypb.HistoryEvent{EventType: typ})
	}
	return h
}

func TestSettledHistories(t *testing.T) {
	ev := func(types ...enumspb.EventType) []*historypb.HistoryEvent {
		var h []*historypb.HistoryEvent
		for _, typ := range types {
			h = append(h, &historypb.HistoryEvent{EventType: typ})
		}
		return h
	}
	for _, tc := range []struct {
		name string
		h    []*historypb.HistoryEvent
		want bool
	}{
		{"empty", nil, false},
		{"completed", ev(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED), true},
		{"waiting on a timer", ev(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, enumspb.EVENT_TYPE_TIMER_STARTED), true},
		{"activity pending", ev(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), false},
		{"workflow task pending", ev(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED), false},
		{"held by a start delay", delayed(time.Hour, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), true},
		{"its delay ended", delayed(time.Hour, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED), false},
		{"signalled without a delay", delayed(0, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), false},
	} {
		if got := settled(tc.h); got != tc.want {
			t.Errorf("settled(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
