package activities

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// ImportInput asks for one pass of a company's job import; Full lists every job instead of
// those changed since the stored cursor.
type ImportInput struct {
	CompanyID uuid.UUID
	Full      bool
}

// ImportResult counts what a pass did. State is set when the pass could not run: waiting_for_sync
// (the aggregator's first sync is not finished, or the card is not connected) or needs_attention.
// Pending says a data-changed was recorded while the pass ran: run again. SyncApplications
// says the company's candidates and applications come through the aggregator too: the pass
// goes on with SyncApplications. FullEvery is the worker's period of full passes (0: the
// workflow's own).
type ImportResult struct {
	Created, Updated, Closed, Pages int
	Pending                         bool
	State                           string
	SyncApplications                bool
	FullEvery                       time.Duration
}

// importPageSize is the aggregator page size (Kombo's maximum).
const importPageSize = 250

// cursorOverlap re-reads the last moments before the cursor: a job changed in the same instant
// as the cursor's is read twice rather than missed (the upsert is idempotent).
const cursorOverlap = time.Second

// ImportJobs runs one import pass: pages of jobs from the aggregator, each page upserted in one
// transaction with the starts of the jobs it created, then launched. A full pass then closes the
// jobs it did not see. Nothing is written to the HR suite.
func (a *Activities) ImportJobs(ctx context.Context, in ImportInput) (ImportResult, error) {
	var res ImportResult
	pass, err := a.openAggregatorPass(ctx, in.CompanyID, "imported jobs")
	switch {
	case err != nil:
		return res, err
	case pass.State != "":
		return ImportResult{State: pass.State}, nil
	case pass.refused != nil:
		return a.importRefused(ctx, in.CompanyID, pass.refused)
	}
	co, integ := pass.co, pass.integ
	// Starts a crashed attempt committed but did not launch.
	for _, kind := range []string{kinds.NewJob.Name, kinds.JobGeneration.Name} {
		if err := a.Launcher.LaunchPending(ctx, co.ID, kind, 1000, nil); err != nil {
			return res, err
		}
	}

	p := resumePass[store.ImportCounts](ctx)
	q := aggregator.JobQuery{PageSize: importPageSize}
	if !in.Full && integ.ImportCursor != nil {
		q.UpdatedAfter = integ.ImportCursor.Add(-cursorOverlap)
	}
	log := a.Log.With("company", co.Slug, "full", in.Full)
	var refused error
	err = p.pages(ctx, func(cursor string) (string, time.Time, error) {
		q.Cursor = cursor
		page, err := pass.client.ListJobs(ctx, *integ.IntegrationID, q)
		if err != nil {
			refused = err
			return "", time.Time{}, err
		}
		jobs, maxSeen := importedJobs(co, page.Jobs)
		counts, starts, err := jobimport.WriteJobPage(ctx, a.Store, co, jobs)
		if err != nil {
			return "", time.Time{}, err
		}
		if err := a.Launcher.LaunchMany(ctx, starts); err != nil {
			log.WarnContext(ctx, "new-job runs not started; the next pass or the reconciler starts them", "err", err)
		}
		p.Counts.Created += counts.Created
		p.Counts.Updated += counts.Updated
		p.Counts.Closed += counts.Closed
		p.Counts.Generating += counts.Generating
		a.ImportMetrics.imported(counts)
		if (p.Pages+1)%20 == 0 {
			log.InfoContext(ctx, "import progress", "pages", p.Pages+1, "created", p.Counts.Created, "updated", p.Counts.Updated, "closed", p.Counts.Closed)
		}
		return page.Next, maxSeen, nil
	})
	if refused != nil {
		return a.importRefused(ctx, in.CompanyID, refused)
	}
	if err != nil {
		return res, err
	}
	// Starts a page could not launch (Temporal slow or away) get one more try before the pass ends.
	for _, kind := range []string{kinds.NewJob.Name, kinds.JobGeneration.Name} {
		if err := a.Launcher.LaunchPending(ctx, co.ID, kind, 1000, nil); err != nil {
			log.WarnContext(ctx, "new-job runs not started; the next pass or the reconciler starts them", "err", err)
		}
	}
	closed, pending, err := a.Store.FinishImportPass(ctx, in.CompanyID, p.Began, p.cursor(), in.Full)
	if err != nil {
		return res, err
	}
	p.Counts.Closed += closed
	a.ImportMetrics.imported(store.ImportCounts{Closed: closed})
	if !p.MaxSeen.IsZero() {
		a.ImportMetrics.importLag(time.Since(p.MaxSeen))
	}
	log.InfoContext(ctx, "import pass done", "pages", p.Pages, "created", p.Counts.Created, "updated", p.Counts.Updated,
		"closed", p.Counts.Closed, "took_ms", time.Since(p.Began).Milliseconds())
	return ImportResult{Created: p.Counts.Created, Updated: p.Counts.Updated, Closed: p.Counts.Closed, Pages: p.Pages, Pending: pending,
		SyncApplications: jobimport.SyncsApplications(co), FullEvery: a.FullPassEvery}, nil
}

// importRefused turns an aggregator error into the pass's outcome: waiting for the first sync,
// the card needing attention, a permanent failure, or a retry.
func (a *Activities) importRefused(ctx context.Context, companyID uuid.UUID, err error) (ImportResult, error) {
	switch {
	case errors.Is(err, aggregator.ErrSetupPending):
		return ImportResult{State: "waiting_for_sync"}, nil
	case errors.Is(err, aggregator.ErrUnauthorized):
		if serr := a.Store.SetIntegrationAttention(ctx, companyID, "the aggregator refused the connection: connect again"); serr != nil {
			return ImportResult{}, serr
		}
		return ImportResult{State: "needs_attention"}, nil
	case errors.Is(err, aggregator.ErrPermanent):
		return ImportResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	return ImportResult{}, err
}

// importedJobs converts a page for the store: one entry per external id (the latest change
// wins), text without NUL characters, each with the id, interviewer id (<companySlug>-<external
// id>) and 'New Job from ATS' start it has if the upsert creates it. It also returns the latest
// change seen.
func importedJobs(co *models.Company, page []aggregator.Job) ([]store.ImportedJob, time.Time) {
	clean := func(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\x00", "") }
	idx := map[string]int{}
	var out []store.ImportedJob
	var maxSeen time.Time
	for _, j := range page {
		if j.ChangedAt.After(maxSeen) {
			maxSeen = j.ChangedAt
		}
		ext := clean(j.ExternalID())
		if ext == "" {
			continue
		}
		ij := store.ImportedJob{RemoteID: clean(j.ID), ExternalID: ext, Title: clean(j.Name), Description: clean(j.Description),
			RemoteStatus: clean(j.Status), Location: clean(j.Location), Open: j.Open(),
			RemoteCreatedAt: j.RemoteCreatedAt, RemoteDeletedAt: j.RemoteDeletedAt, ChangedAt: j.ChangedAt}
		if i, ok := idx[ext]; ok {
			if !j.ChangedAt.Before(out[i].ChangedAt) {
				out[i] = ij
			}
			continue
		}
		idx[ext] = len(out)
		out = append(out, ij)
	}
	for i := range out {
		j := &out[i]
		j.ID, j.InterviewerID = uuid.New(), co.Slug+"-"+j.ExternalID
		j.Start = kinds.NewJobStart(co.Slug, co.ID, j.ID, j.ExternalID, j.InterviewerID)
	}
	return out, maxSeen
}

// ImportMetrics count the job import's work and the application sync's. A nil *ImportMetrics
// records nothing.
type ImportMetrics struct {
	jobs    *prometheus.CounterVec
	lag     prometheus.Histogram
	apps    *prometheus.CounterVec
	appsLag prometheus.Histogram
}

// NewImportMetrics registers the import's metrics on reg.
func NewImportMetrics(reg prometheus.Registerer) *ImportMetrics {
	m := &ImportMetrics{
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_jobs_imported_total", Help: "Jobs written by the HR-suite job import, by what happened (created, updated, closed).",
		}, []string{"change"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recruitd_job_import_lag_seconds", Help: "Time from the latest change an import pass read to the end of the pass.",
			Buckets: []float64{.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400},
		}),
		apps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_applications_synced_total",
			Help: "Applications written by the application sync from an ATS through the aggregator, by what happened (created, updated, closed, skipped: job not imported).",
		}, []string{"change"}),
		appsLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recruitd_application_sync_lag_seconds", Help: "Time from the latest change an application sync pass read to the end of the pass.",
			Buckets: []float64{.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400},
		}),
	}
	reg.MustRegister(m.jobs, m.lag, m.apps, m.appsLag)
	return m
}

func (m *ImportMetrics) imported(c store.ImportCounts) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues("created").Add(float64(c.Created))
	m.jobs.WithLabelValues("updated").Add(float64(c.Updated))
	m.jobs.WithLabelValues("closed").Add(float64(c.Closed))
}

func (m *ImportMetrics) importLag(d time.Duration) {
	if m != nil {
		m.lag.Observe(d.Seconds())
	}
}

func (m *ImportMetrics) synced(c store.SyncCounts) {
	if m == nil {
		return
	}
	m.apps.WithLabelValues("created").Add(float64(c.Created))
	m.apps.WithLabelValues("updated").Add(float64(c.Updated))
	m.apps.WithLabelValues("closed").Add(float64(c.Closed))
	m.apps.WithLabelValues("skipped").Add(float64(c.Skipped))
}

func (m *ImportMetrics) syncLag(d time.Duration) {
	if m != nil {
		m.appsLag.Observe(d.Seconds())
	}
}
