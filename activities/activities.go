// Package activities holds every side effect of recruitd's workflows. Activities are methods on
// structs that hold their dependencies; workflows call them as method values.
package activities

import (
	"errors"
	"log/slog"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/report"
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
	// Evaluator writes the reports of completed interviews; nil is the local evaluator.
	Evaluator report.Evaluator
	Channels  *channels.Router
	// WhatsAppTemplates are the provider's ids of the WhatsApp templates that invitations and
	// reminders go as (TWILIO_WHATSAPP_TEMPLATE_*); nil is conversation.DevTemplateIDs.
	WhatsAppTemplates conversation.TemplateIDs
	// Links builds the interview links of invitations, reminders and callbacks and the report
	// links of ATS notes.
	Links links.Builder
	// Box opens partner secrets; Sender delivers their callbacks.
	Box    *secretbox.Box
	Sender *callbacks.Sender
	// Metrics may be nil.
	Metrics *Metrics
	// Launcher starts the runs an activity commits: the job import's 'New Job from ATS' runs, an
	// HR-suite delivery's 'New Applications via Webhook' runs and a held assessment link's delivery.
	Launcher *outbox.Launcher
	// ImportMetrics and HRSuiteMetrics may be nil.
	ImportMetrics  *ImportMetrics
	HRSuiteMetrics *hrsuite.Metrics
	// FullPassEvery is the period of the aggregator imports' full passes that ImportJobs reports
	// to its workflow (AGGREGATOR_FULL_PASS_EVERY); 0 leaves the workflow's own.
	FullPassEvery time.Duration
}

// permanentIfMissing makes a missing row a non-retryable error: workflows start only after
// the rows they work on are committed, so a row that is not there will not appear.
func permanentIfMissing(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	return err
}
