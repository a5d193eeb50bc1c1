package hrsuite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// IngestRequest names a stored delivery to (re)process. Replay marks a support replay (for logs
// and metrics; the processing is the same). Done is how many chunks an earlier attempt committed:
// they are not processed again. Retry says an earlier attempt ran, whose committed runs may not
// have been launched.
type IngestRequest struct {
	CompanyID  uuid.UUID
	DeliveryID uuid.UUID
	Replay     bool
	Done       int
	Retry      bool
}

// IngestResult counts a processing: rows by outcome (invalid ones as invalid:<reason>),
// applications in the delivery, and runs started. Nothing personal.
type IngestResult struct {
	Rows         int
	Applications int
	Counts       map[string]int
	Started      int
	Duplicate    bool // the delivery repeats an earlier body and was not processed
}

// ChunkSize is how many applications one transaction processes: a few statements per chunk,
// whatever its size, and a progress report after each.
const ChunkSize = 500

// launchBatch is how many starts are launched between two progress reports: a Temporal that
// answers slowly must not make a live attempt look dead.
const launchBatch = 64

// Ingest applies the row rules (package report) to a stored delivery and processes its
// applications in chunks, each one transaction of bulk statements (applyChunk)
// with the starts of the runs of the applications it accepted, followed by their launch. Every
// step is idempotent (the records the chunk writes), so an attempt retried after a worker died
// gives the same outcomes and counts and invites nobody twice; Done only spares it the chunks
// already committed. progress is called with the chunks done after each chunk and launch batch
// (the activity's heartbeat).
//
// A company or delivery that is not stored is an error wrapping store.ErrNotFound (a replay's
// delivery the retention deleted is skipped), a stored body that does not parse one wrapping
// hrsuitereport.ErrNotArray: retrying fixes neither.
func (d *Deliveries) Ingest(ctx context.Context, in IngestRequest, progress func(done int)) (IngestResult, error) {
	var res IngestResult
	co, err := d.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return res, err
	}
	del, err := d.Store.HRSuiteDelivery(ctx, in.CompanyID, in.DeliveryID)
	if in.Replay && errors.Is(err, store.ErrNotFound) {
		// The retention deleted it after the replay listed it: nothing is left to reprocess.
		d.Log.InfoContext(ctx, "hr-suite delivery of a replay no longer stored; skipped", "company", co.Slug, "delivery_id", in.DeliveryID)
		return res, nil
	}
	if err != nil {
		return res, err
	}
	log := d.Log.With("company", co.Slug, "delivery_id", del.ID, "replay", in.Replay)
	if del.DuplicateOf != nil {
		log.InfoContext(ctx, "hr-suite delivery repeats an earlier body; nothing to do", "first_delivery_id", *del.DuplicateOf)
		return IngestResult{Rows: del.RowCount, Duplicate: true}, nil
	}
	began := time.Now()
	batch, err := hrsuitereport.Parse(del.Body)
	if err != nil {
		// The webhook stores only arrays; a body that does not parse cannot start to.
		return res, fmt.Errorf("parse stored delivery %s: %w", del.ID, err)
	}
	// Without a saved, enabled definition nobody is invited (no_trigger), as partner
	// applications are refused: the platform default is a starting point, not consent to text.
	enabled, err := d.Store.EnabledTrigger(ctx, co.ID, models.TriggerNewApplicationWebhook)
	if err != nil {
		return res, err
	}
	done := in.Done
	// Runs a crashed attempt committed but did not launch. A first attempt has none of its own:
	// the company's pending runs then belong to other deliveries' ingests, which launch them
	// (the reconciler too), so only a retry looks.
	if in.Retry {
		beat := func() { progress(done) }
		if err := d.Launcher.LaunchPending(ctx, co.ID, kinds.NewApplication.Name, launchBatch, beat); err != nil {
			log.WarnContext(ctx, "application runs not started; the reconciler starts them", "err", err)
		}
	}
	invalid := make([]store.HRSuiteRowOutcome, 0, len(batch.Invalid))
	for _, r := range batch.Invalid {
		invalid = append(invalid, store.HRSuiteRowOutcome{Index: r.Index, Outcome: hrsuitereport.Invalid(r.Reason)})
	}
	if err := d.Store.RecordHRSuiteRows(ctx, co.ID, del.ID, invalid); err != nil {
		return res, err
	}
	for _, r := range batch.Invalid {
		log.InfoContext(ctx, "hr-suite row skipped", "row", r.Index, "reason", r.Reason)
	}
	for _, n := range batch.Notes {
		log.InfoContext(ctx, "hr-suite row note", "row", n.Index, "note", n.Reason)
	}

	apps := batch.Applications
	for n := done; n*ChunkSize < len(apps); n++ {
		part := apps[n*ChunkSize : min(len(apps), (n+1)*ChunkSize)]
		starts, err := d.ingestChunk(ctx, chunk{Company: co, DeliveryID: del.ID, TriggerEnabled: enabled, Applications: part})
		if err != nil {
			return res, err
		}
		progress(n + 1)
		res.Started += d.launch(ctx, starts, func() { progress(n + 1) }, log)
		log.InfoContext(ctx, "hr-suite delivery progress", "applications_done", min(len(apps), (n+1)*ChunkSize), "applications", len(apps))
	}
	counts, err := d.Store.FinishHRSuiteDelivery(ctx, co.ID, del.ID, pendingOutcomes)
	if err != nil {
		return res, err
	}
	res.Rows, res.Applications, res.Counts = batch.Rows, len(apps), counts
	d.Metrics.processed(counts, time.Since(del.ReceivedAt), in.Replay)
	log.InfoContext(ctx, "hr-suite delivery processed", "rows", res.Rows, "applications", res.Applications,
		"started", res.Started, "counts", counts, "took_ms", time.Since(began).Milliseconds())
	return res, nil
}

// ingestChunk applies one chunk and writes the starts of the applications it accepted in the
// same transaction, and returns the starts to launch.
func (d *Deliveries) ingestChunk(ctx context.Context, c chunk) ([]models.WorkflowStart, error) {
	tx, err := d.Store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out, err := applyChunk(tx, c)
	if err != nil {
		return nil, err
	}
	starts := make([]models.WorkflowStart, 0, len(out.Accepted))
	for _, a := range out.Accepted {
		starts = append(starts, kinds.NewApplicationStart(c.Company.Slug, c.Company.ID, a.JobID, a.CandidateID, a.ApplicationID, a.InterviewerID))
	}
	if starts, err = tx.InsertStarts(starts); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return starts, nil
}

// launch launches starts a batch at a time, calling beat between batches, and returns how many
// were taken. Starts not taken stay pending for the reconciler.
func (d *Deliveries) launch(ctx context.Context, starts []models.WorkflowStart, beat func(), log *slog.Logger) int {
	taken := 0
	for i := 0; i < len(starts); i += launchBatch {
		part := starts[i:min(len(starts), i+launchBatch)]
		if err := d.Launcher.LaunchMany(ctx, part); err != nil {
			log.WarnContext(ctx, "application runs not started; the reconciler starts them", "err", err)
		} else {
			taken += len(part)
		}
		beat()
	}
	return taken
}

// Metrics count the ingest's work. A nil *Metrics records nothing.
type Metrics struct {
	rows *prometheus.CounterVec
	lag  prometheus.Histogram
}

// NewMetrics registers the ingest's metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_hrsuite_rows_total",
			Help: "HR-suite report rows processed, by outcome (invalid rows as invalid) and whether a support replay processed them.",
		}, []string{"outcome", "replay"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recruitd_hrsuite_delivery_seconds", Help: "Time from a delivery's receipt to every row's outcome recorded (first processing only).",
			Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800},
		}),
	}
	reg.MustRegister(m.rows, m.lag)
	return m
}

func (m *Metrics) processed(counts map[string]int, sinceReceipt time.Duration, replay bool) {
	if m == nil {
		return
	}
	r := "false"
	if replay {
		r = "true"
	}
	for outcome, n := range counts {
		if strings.HasPrefix(outcome, "invalid:") {
			outcome = "invalid" // the reasons stay in the rows and the logs; the label stays bounded
		}
		m.rows.WithLabelValues(outcome, r).Add(float64(n))
	}
	if !replay {
		m.lag.Observe(sinceReceipt.Seconds())
	}
}
