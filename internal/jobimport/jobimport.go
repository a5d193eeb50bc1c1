// Package jobimport is the import of a company's jobs from its HR suite or ATS through an
// integration aggregator, and for an ATS of its candidates and applications too: the
// integration card's Connect action (Connect), the aggregator's webhook events (ReceiveEvent),
// which move the card and start or wake the company's import, and the rules of an application
// page (SyncApplicationPage). The import passes themselves run in the JobImport workflow.
//
// Its files carry its name in every layer: the card, Connect and the aggregator webhook's
// handlers in httpapi/jobimport.go, the queries in internal/store/jobimport.go, the workflow in
// workflows/jobimport.go and its activity (an import pass) in activities/jobimport.go; the
// operator CLI is cmd/recruitd/jobimport.go. The aggregator itself is reached only through its
// adapter, internal/aggregator, which never touches the store. (The REST paths and JSON the spec
// fixes keep their names: GET /v1/api/integrations/hrsuite is the card.)
package jobimport

import (
	"log/slog"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
)

// Integrations runs the feature for the companies' aggregator integrations. Box seals and opens
// their credentials and webhook secrets; Launcher starts the job imports (ReceiveEvent only);
// Metrics may be nil.
type Integrations struct {
	Store    *store.Store
	Box      *secretbox.Box
	Launcher *outbox.Launcher
	Log      *slog.Logger
	Metrics  *aggregator.Metrics
}
