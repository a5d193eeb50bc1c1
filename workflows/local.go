package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// localScheduleToClose bounds a local activity with all its retries. It is measured from the
// workflow time at which the step was first scheduled, and a worker that dies mid-step leaves
// that time behind: the run replays on another worker after the workflow task times out, often
// minutes later under load, and schedules the step again with the old time. Left at the SDK's
// default (the start-to-close timeout), that budget is spent by the crash alone and a quick
// Postgres step fails without a retry (an application settled processing_failed, a flow
// failed without its invitation). An hour mirrors ordinary activities, which retry until they
// succeed: a step fails for good on a permanent error, or after an hour of failures.
const localScheduleToClose = time.Hour

// localOptions runs a local activity whose attempts each have startToClose and whose retries,
// as retry says, may go on for localScheduleToClose.
func localOptions(ctx workflow.Context, startToClose time.Duration, retry *temporal.RetryPolicy) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: localScheduleToClose,
		StartToCloseTimeout:    startToClose,
		RetryPolicy:            retry,
	})
}
