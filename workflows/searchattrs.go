package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Typed search attribute keys. Every workflow that recruitd starts carries the ones that apply to
// it, so operators can filter in the Temporal Web UI (for example `CompanySlug = "demo"`). Values
// never hold personal data: slugs, identifiers built from ATS ids, trigger and outcome names.
// (The trigger's key is WorkflowTrigger because "trigger" is an SQL keyword that SQL-backed
// visibility stores reject in queries.)
// temporal.SearchAttributes lists them for registration.
var (
	CompanySlugKey       = temporal.NewSearchAttributeKeyKeyword("CompanySlug")
	InterviewerIDKey     = temporal.NewSearchAttributeKeyKeyword("InterviewerId")
	TriggerKey           = temporal.NewSearchAttributeKeyKeyword("WorkflowTrigger")
	OutcomeKey           = temporal.NewSearchAttributeKeyKeyword("Outcome")
	ApplicationStatusKey = temporal.NewSearchAttributeKeyKeyword("ApplicationStatus")
	// ImportStateKey is a job import's state: importing, idle, waiting_for_sync, needs_attention, failed.
	ImportStateKey = temporal.NewSearchAttributeKeyKeyword("ImportState")
)

// SearchAttributeKeys lists every key above.
func SearchAttributeKeys() []temporal.SearchAttributeKeyKeyword {
	return []temporal.SearchAttributeKeyKeyword{CompanySlugKey, InterviewerIDKey, TriggerKey, OutcomeKey, ApplicationStatusKey, ImportStateKey}
}

// upsertOutcome records a run's outcome for filtering in the Temporal UI. Failing to record it
// must not fail the run.
func upsertOutcome(ctx workflow.Context, outcome string) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, OutcomeKey.ValueSet(outcome)); err != nil {
		workflow.GetLogger(ctx).Warn("search attribute not recorded", "err", err)
	}
}
