// Package activities holds every side effect of recruitd's workflows. Activities are methods on
// structs that hold their dependencies; workflows call them as method values.
package activities

import (
	"context"
	"errors"
	"log/slog"

	"go.temporal.io/sdk/activity"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
)

// ErrTypePermanent is the application error type of failures that retrying cannot fix; workflows
// list it in NonRetryableErrorTypes.
const ErrTypePermanent = "PermanentError"

// Activities is the root activity struct registered on every worker.
type Activities struct {
	Store     *store.Store
	Log       *slog.Logger
	Generator generate.Generator
	Channels  *channels.Router
	// AppURL is the base of candidate-facing interview links.
	AppURL string
	// Box opens partner secrets; Sender delivers their callbacks.
	Box    *secretbox.Box
	Sender *callbacks.Sender
	// Metrics may be nil.
	Metrics *Metrics
}

// rowGraceAttempts is how many attempts an activity gives a row that its workflow's starter has
// not committed yet. Handlers start a workflow inside the transaction that inserts the row, so the
// first activity can run before the commit is visible; only after these attempts (about a
// minute with the default backoff) does a missing row mean the transaction rolled back.
const rowGraceAttempts = 7

// errRowNotVisible asks Temporal to retry an activity whose row is not committed yet.
var errRowNotVisible = errors.New("row not visible yet (its transaction may still be committing)")

// stillCommitting reports whether a missing row may yet appear.
func stillCommitting(ctx context.Context) bool {
	return activity.IsActivity(ctx) && activity.GetInfo(ctx).Attempt < rowGraceAttempts
}
