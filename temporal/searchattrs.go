package temporal

import (
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/kinds"
)

// SearchAttributes lists every custom search attribute recruitd's workflows use, as the SDK's
// typed keys (kinds.SearchAttributeKeys). `make dev` and the test harness register them on the
// dev server; production operators register them once per namespace (see README, "Temporal
// search attributes").
func SearchAttributes() []sdktemporal.SearchAttributeKey {
	keys := kinds.SearchAttributeKeys()
	out := make([]sdktemporal.SearchAttributeKey, 0, len(keys))
	for _, k := range keys {
		out = append(out, k)
	}
	return out
}
