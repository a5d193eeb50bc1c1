package activities

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/kinds"
)

// HRSuiteIngestInput names a stored delivery to (re)process. Replay marks a support replay (for
// logs and metrics; the processing is the same).
type HRSuiteIngestInput struct {
	CompanyID  uuid.UUID
	DeliveryID uuid.UUID
	Replay     bool
}

// HRSuiteIngestResult counts a processing: rows by outcome (invalid ones as invalid:<reason>),
// applications in the delivery, and runs started. Nothing personal.
type HRSuiteIngestResult struct {
	Rows         int
	Applications int
	Counts       map[string]int
	Started      int
	Duplicate    bool // the delivery repeats an earlier body and was not processed
}

// hrsuiteChunk is how many applications one transaction processes: a few statements per chunk,
// whatever its size, and a heartbeat after each.
const hrsuiteChunk = 500

// IngestHRSuiteDelivery applies the row rules (internal/hrsuite) to a stored delivery and
// processes its applications in chunks, each one transaction of bulk statements followed by the
// launch of the runs it committed. Every step is idempotent (the records of
// store.IngestHRSuiteChunk), so an attempt retried after a worker died gives the same outcomes
// and counts and invites nobody twice; the heartbeat only spares it the chunks already done.
func (a *Activities) IngestHRSuiteDelivery(ctx context.Context, in HRSuiteIngestInput) (HRSuiteIngestResult, error) {
	var res HRSuiteIngestResult
	if a.Launcher == nil {
		return res, temporal.NewNonRetryableApplicationError("the worker has no start launcher for HR-suite applications", ErrTypePermanent, nil)
	}
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return res, permanentIfMissing(err)
	}
	d, err := a.Store.HRSuiteDelivery(ctx, in.CompanyID, in.DeliveryID)
	if in.Replay && errors.Is(err, store.ErrNotFound) {
		// The retention deleted it after the replay listed it: nothing is left to reprocess.
		a.Log.InfoContext(ctx, "hr-suite delivery of a replay no longer stored; skipped", "company", co.Slug, "delivery_id", in.DeliveryID)
		return res, nil
	}
	if err != nil {
		return res, permanentIfMissing(err)
	}
	log := a.Log.With("company", co.Slug, "delivery_id", d.ID, "replay", in.Replay)
	if d.DuplicateOf != nil {
		log.InfoContext(ctx, "hr-suite delivery repeats an earlier body; nothing to do", "first_delivery_id", *d.DuplicateOf)
		return HRSuiteIngestResult{Rows: d.RowCount, Duplicate: true}, nil
	}
	began := time.Now()
	batch, err := hrsuite.Parse(d.Body)
	if err != nil {
		// The webhook stores only arrays; a body that does not parse cannot start to.
		return res, temporal.NewNonRetryableApplicationError("stored delivery is not a JSON array", ErrTypePermanent, err)
	}
	// Without a saved, enabled definition nobody is invited (no_trigger), as partner
	// applications are refused: the platform default is a starting point, not consent to text.
	enabled, err := a.Store.EnabledTrigger(ctx, co.ID, models.TriggerNewApplicationWebhook)
	if err != nil {
		return res, err
	}
	done := 0 // chunks committed by an earlier attempt
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &done)
	}
	// Runs a crashed attempt committed but did not launch. A first attempt has none of its own:
	// the company's pending runs then belong to other deliveries' ingests, which launch them
	// (the reconciler too), so only a retry looks.
	if activity.GetInfo(ctx).Attempt > 1 {
		beat := func() { activity.RecordHeartbeat(ctx, done) }
		if err := a.launchPending(ctx, co.ID, kinds.NewApplication, launchBatch, beat); err != nil {
			log.WarnContext(ctx, "application runs not started; the reconciler starts them", "err", err)
		}
	}
	invalid := make([]store.HRSuiteRowOutcome, 0, len(batch.Invalid))
	for _, r := range batch.Invalid {
		invalid = append(invalid, store.HRSuiteRowOutcome{Index: r.Index, Outcome: hrsuite.Invalid(r.Reason)})
	}
	if err := a.Store.RecordHRSuiteRows(ctx, co.ID, d.ID, invalid); err != nil {
		return res, err
	}
	for _, r := range batch.Invalid {
		log.InfoContext(ctx, "hr-suite row skipped", "row", r.Index, "reason", r.Reason)
	}
	for _, n := range batch.Notes {
		log.InfoContext(ctx, "hr-suite row note", "row", n.Index, "note", n.Reason)
	}

	apps := batch.Applications
	for chunk := done; chunk*hrsuiteChunk < len(apps); chunk++ {
		part := apps[chunk*hrsuiteChunk : min(len(apps), (chunk+1)*hrsuiteChunk)]
		out, err := a.Store.IngestHRSuiteChunk(ctx, store.HRSuiteChunk{
			Company: co, DeliveryID: d.ID, TriggerEnabled: enabled, Applications: part,
			Start: func(jobID, candidateID, applicationID uuid.UUID, interviewerID string) models.WorkflowStart {
				return kinds.NewApplicationStart(co.Slug, co.ID, jobID, candidateID, applicationID, interviewerID)
			},
		})
		if err != nil {
			return res, err
		}
		activity.RecordHeartbeat(ctx, chunk+1)
		res.Started += a.launchHeartbeating(ctx, out.Starts, chunk+1, log)
		log.InfoContext(ctx, "hr-suite delivery progress", "applications_done", min(len(apps), (chunk+1)*hrsuiteChunk), "applications", len(apps))
	}
	counts, err := a.Store.FinishHRSuiteDelivery(ctx, co.ID, d.ID)
	if err != nil {
		return res, err
	}
	res.Rows, res.Applications, res.Counts = batch.Rows, len(apps), counts
	a.HRSuiteMetrics.processed(counts, time.Since(d.ReceivedAt), in.Replay)
	log.InfoContext(ctx, "hr-suite delivery processed", "rows", res.Rows, "applications", res.Applications,
		"started", res.Started, "counts", counts, "took_ms", time.Since(began).Milliseconds())
	return res, nil
}

// launchBatch is how many starts are launched between two heartbeats: a Temporal that answers
// slowly must not make a live attempt look dead.
const launchBatch = 64

// launchHeartbeating launches starts a batch at a time, heartbeating progress between batches,
// and returns how many were taken. Starts not taken stay pending for the reconciler.
func (a *Activities) launchHeartbeating(ctx context.Context, starts []models.WorkflowStart, progress int, log *slog.Logger) int {
	taken := 0
	for i := 0; i < len(starts); i += launchBatch {
		part := starts[i:min(len(starts), i+launchBatch)]
		if err := a.Launcher.LaunchMany(ctx, part); err != nil {
			log.WarnContext(ctx, "application runs not started; the reconciler starts them", "err", err)
		} else {
			taken += len(part)
		}
		activity.RecordHeartbeat(ctx, progress)
	}
	return taken
}

// launchPending launches the company's pending starts of k, batch at a time, calling beat
// (when set) after each batch: however many a crashed attempt left and however slowly Temporal
// answers, a heartbeating caller is not timed out. It stops at the first batch not taken.
func (a *Activities) launchPending(ctx context.Context, companyID uuid.UUID, k kinds.Kind, batch int, beat func()) error {
	for {
		pending, err := a.Store.PendingCompanyStarts(ctx, companyID, k.Name, batch)
		if err != nil || len(pending) == 0 {
			return err
		}
		err = a.Launcher.LaunchMany(ctx, pending)
		if beat != nil {
			beat()
		}
		if err != nil || len(pending) < batch {
			return err
		}
	}
}

// HRSuiteReplayDeliveries lists the company's deliveries of a replay not reprocessed yet.
func (a *Activities) HRSuiteReplayDeliveries(ctx context.Context, companyID, replayID uuid.UUID) ([]uuid.UUID, error) {
	return a.Store.HRSuiteReplayDeliveries(ctx, companyID, replayID)
}

// FinishReplayDeliveryInput records one reprocessed delivery of a replay with its counts.
type FinishReplayDeliveryInput struct {
	CompanyID, ReplayID, DeliveryID uuid.UUID
	Counts                          map[string]int
}

// FinishHRSuiteReplayDelivery records a replay's progress.
func (a *Activities) FinishHRSuiteReplayDelivery(ctx context.Context, in FinishReplayDeliveryInput) error {
	err := a.Store.FinishHRSuiteReplayDelivery(ctx, in.CompanyID, in.ReplayID, in.DeliveryID, in.Counts)
	if errors.Is(err, store.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	return err
}

// HRSuiteMetrics count the HR-suite ingest's work. A nil *HRSuiteMetrics records nothing.
type HRSuiteMetrics struct {
	rows *prometheus.CounterVec
	lag  prometheus.Histogram
}

// NewHRSuiteMetrics registers the ingest's metrics on reg.
func NewHRSuiteMetrics(reg prometheus.Registerer) *HRSuiteMetrics {
	m := &HRSuiteMetrics{
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

func (m *HRSuiteMetrics) processed(counts map[string]int, sinceReceipt time.Duration, replay bool) {
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
