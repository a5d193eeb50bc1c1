// Package hrsuite is the HR-suite report webhook (POST /webhook/hrsuite): receiving a delivery
// (Receive), ingesting its rows into candidates, applications and their 'New Applications via
// Webhook' runs (Ingest), and what support does with stored deliveries, through the support
// endpoints (/v1/support/hrsuite) and the operator CLI (recruitd hrsuite): list, show, plan and
// replay them.
//
// Its files carry its name in every layer: the webhook's handler in httpapi/hrsuite.go and the
// support endpoints' in httpapi/hrsuite_replay.go, the row rules of a body in the leaf package
// internal/hrsuitereport, the outcome of each application here (chunk.go: duplicate,
// do-not-hire, unknown job, accepted or no trigger, and which outcomes a replay may still
// change), the queries in internal/store/hrsuite.go and hrsuite_replay.go, the ingest and replay
// workflows in workflows/hrsuite.go, and their activities, which call Ingest, in
// activities/hrsuite.go; the operator CLI is cmd/recruitd/hrsuite.go.
package hrsuite

import (
	"log/slog"

	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
)

// Deliveries runs the feature. Launcher starts the runs it commits; an operator command that
// only reads (listing, planning) leaves it nil. Metrics may be nil.
type Deliveries struct {
	Store    *store.Store
	Launcher *outbox.Launcher
	Log      *slog.Logger
	Metrics  *Metrics
}
