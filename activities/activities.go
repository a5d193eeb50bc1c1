// Package activities holds every side effect of recruitd's workflows. Activities are methods on
// structs that hold their dependencies; workflows call them as method values.
package activities

import (
	"log/slog"

	"github.com/recruitd/recruitd/internal/store"
)

// Activities is the root activity struct registered on every worker.
type Activities struct {
	Store *store.Store
	Log   *slog.Logger
}
