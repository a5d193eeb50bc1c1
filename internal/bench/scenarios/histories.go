package scenarios

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// historySample is how many runs of a workflow type historyCounts reads.
const historySample = 20

// historyCounts prints, for each workflow type, what one run costs in Temporal (a sample's mean):
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
		var runs, events, wfts, acts, locals int
		for _, ex := range resp.GetExecutions() {
			it := r.tc.GetWorkflowHistory(ctx, ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					break
				}
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
			fmt.Fprintf(r.out, "    %-22s no runs\n", typ)
			continue
		}
		n := float64(runs)
		fmt.Fprintf(r.out, "    %-22s %5.1f events, %4.1f workflow tasks, %4.1f activity tasks, %4.1f local activities (%d runs)\n",
			typ, float64(events)/n, float64(wfts)/n, float64(acts)/n, float64(locals)/n, runs)
	}
}
