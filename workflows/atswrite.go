package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
)

// ATSWriteAttempts bounds the attempts at one write back to the ATS (about 9 hours with the
// backoff below) before it is recorded failed.
const ATSWriteAttempts = 20

// ATSWrite runs one write back to the company's ATS (an ats_writes row): attempts with backoff
// until done, a permanent refusal (recorded by the attempt) or ATSWriteAttempts, after which
// the row is recorded failed. The start-to-close timeout is short so that an attempt whose
// worker stopped is retried soon; the row's key makes a repeated attempt write once.
func ATSWrite(ctx workflow.Context, in kinds.ATSWriteInput) error {
	var a *activities.Activities
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 20 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Hour,
			MaximumAttempts: ATSWriteAttempts, NonRetryableErrorTypes: []string{activities.ErrTypePermanent}},
	})
	var res activities.ATSWriteResult
	err := workflow.ExecuteActivity(actx, a.PerformATSWrite, in).Get(ctx, &res)
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &appErr) && appErr.Type() == activities.ErrTypePermanent:
		workflow.GetLogger(ctx).Warn("ATS write refused", "write_id", in.WriteID, "err", err)
		return nil
	}
	workflow.GetLogger(ctx).Warn("ATS write gave up", "write_id", in.WriteID, "err", err)
	return workflow.ExecuteActivity(shortActivity(ctx), a.GiveUpATSWrite, in).Get(ctx, nil)
}
