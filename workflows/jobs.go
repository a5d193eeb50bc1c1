package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
)

// JobGenerationInput identifies the job to generate.
type JobGenerationInput = kinds.JobGenerationInput

// JobGeneration writes a job's interview guide and moves it from GENERATING to ACTIVE or PAUSED,
// or to FAILED with a reason when generation fails for good (a permanent error, or retries
// exhausted). It returns the job's final status.
func JobGeneration(ctx workflow.Context, in JobGenerationInput) (string, error) {
	var a *activities.Activities
	gen := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 3 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        5,
			NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
		},
	})
	var res activities.GenerateResult
	err := workflow.ExecuteActivity(gen, a.GenerateGuide, in.CompanyID, in.JobID).Get(ctx, &res)
	if err == nil {
		upsertOutcome(ctx, res.Status)
		return res.Status, nil
	}
	workflow.GetLogger(ctx).Warn("generation failed", "job_id", in.JobID, "err", err)
	db := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute},
	})
	if ferr := workflow.ExecuteActivity(db, a.FailJob, in.CompanyID, in.JobID, failureReason(err)).Get(ctx, nil); ferr != nil {
		return "", ferr
	}
	upsertOutcome(ctx, "FAILED")
	return "FAILED", nil
}

// failureReason is what the job's failureReason says: the activity's own message, without the
// SDK's wrapping.
func failureReason(err error) string {
	var app *temporal.ApplicationError
	for e := err; e != nil; {
		if ae, ok := e.(*temporal.ApplicationError); ok {
			app = ae
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	if app != nil {
		return app.Message()
	}
	return "interview generation failed"
}
