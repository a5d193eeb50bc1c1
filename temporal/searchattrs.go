package temporal

import (
	"go.temporal.io/sdk/temporal"
)

// Typed search attribute keys. Every workflow that recruitd starts carries the ones that apply to
// it, so operators can filter in the Temporal Web UI (for example `CompanySlug = "demo"`).
// Values never hold personal data: slugs, identifiers built from ATS ids, trigger and outcome names.
var (
	CompanySlugKey       = temporal.NewSearchAttributeKeyKeyword("CompanySlug")
	InterviewerIDKey     = temporal.NewSearchAttributeKeyKeyword("InterviewerId")
	TriggerKey           = temporal.NewSearchAttributeKeyKeyword("Trigger")
	OutcomeKey           = temporal.NewSearchAttributeKeyKeyword("Outcome")
	ApplicationStatusKey = temporal.NewSearchAttributeKeyKeyword("ApplicationStatus")
)

// SearchAttribute is a custom search attribute as the Temporal CLI names it
// (`temporal operator search-attribute create --name N --type T`).
type SearchAttribute struct {
	Name string
	Type string
}

// SearchAttributes lists every custom search attribute this project uses. `make dev` and the test
// harness register them on the dev server; production operators register them once per namespace
// (see README, "Temporal search attributes").
func SearchAttributes() []SearchAttribute {
	keys := []temporal.SearchAttributeKeyKeyword{
		CompanySlugKey, InterviewerIDKey, TriggerKey, OutcomeKey, ApplicationStatusKey,
	}
	out := make([]SearchAttribute, 0, len(keys))
	for _, k := range keys {
		out = append(out, SearchAttribute{Name: k.GetName(), Type: "Keyword"})
	}
	return out
}
