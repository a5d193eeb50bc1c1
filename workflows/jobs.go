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
	retry := &temporal.RetryPolicy{
		InitialInterval:        time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        time.Minute,
		MaximumAttempts:        5,
		NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
	}
	dbRetry := &temporal.RetryPolicy{MaximumInterval: time.Minute}
	// In runs of localActivitiesChange the generation runs in this workflow's worker, as the
	// interview's report does: a worker that dies in the middle of it leaves the workflow task
	// to time out, and another worker generates again (GenerateGuide is idempotent).
	local := localActivities(ctx)
	run := func(timeout time.Duration, retry *temporal.RetryPolicy, fn any, args ...any) workflow.Future {
		if local {
			return workflow.ExecuteLocalActivity(localOptions(ctx, timeout, retry), fn, args...)
		}
		return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: timeout, RetryPolicy: retry}), fn, args...)
	}
	var res activities.GenerateResult
	err := run(3*time.Minute, retry, a.GenerateGuide, in.CompanyID, in.JobID).Get(ctx, &res)
	if err == nil {
		upsertOutcome(ctx, res.Status)
		return res.Status, nil
	}
	workflow.GetLogger(ctx).Warn("generation failed", "job_id", in.JobID, "err", err)
	if ferr := run(30*time.Second, dbRetry, a.FailJob, in.CompanyID, in.JobID, failureReason(err)).Get(ctx, nil); ferr != nil {
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
