package temporal

import (
	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/workflows"
)

// SearchAttribute is a custom search attribute as the Temporal CLI names it
// (`temporal operator search-attribute create --name N --type T`).
type SearchAttribute = devstack.SearchAttribute

// SearchAttributes lists every custom search attribute recruitd's workflows use (the typed keys
// live with the workflows, in workflows.SearchAttributeKeys). `make dev` and the test harness
// register them on the dev server; production operators register them once per namespace (see
// README, "Temporal search attributes").
func SearchAttributes() []SearchAttribute {
	keys := workflows.SearchAttributeKeys()
	out := make([]SearchAttribute, 0, len(keys))
	for _, k := range keys {
		out = append(out, SearchAttribute{Name: k.GetName(), Type: "Keyword"})
	}
	return out
}
