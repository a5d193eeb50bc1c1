// Package workflows holds recruitd's Temporal workflow code: deterministic, inputs are IDs, every
// side effect is an activity.
package workflows

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
)

// Ping runs the one-activity round trip worker → Postgres → worker.
func Ping(ctx workflow.Context, companyID uuid.UUID) (activities.PingResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var a *activities.Activities
	var res activities.PingResult
	err := workflow.ExecuteActivity(ctx, a.Ping, companyID).Get(ctx, &res)
	return res, err
}
