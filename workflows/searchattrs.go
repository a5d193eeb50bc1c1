package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/internal/kinds"
)

// upsertOutcome records a run's outcome for filtering in the Temporal UI. Failing to record it
// must not fail the run.
func upsertOutcome(ctx workflow.Context, outcome string) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, kinds.OutcomeKey.ValueSet(outcome)); err != nil {
		workflow.GetLogger(ctx).Warn("search attribute not recorded", "err", err)
	}
}
