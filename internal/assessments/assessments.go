// Package assessments is the home of assessment-link pushes (POST /v2/api/assessment-links):
// which application a push is for (PickApplication), its recording for delivery with the start
// of the application's delivery run, the hold of a push whose application is not managed (yet)
// with the start of the hold's run, the launch of those starts after the commit, and the counts
// of what became of pushes. The entrance (httpapi/assessments.go) checks the push's shape; the
// runs are workflows/assessment.go with their activities in activities/assessment.go.
package assessments

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Links records pushed assessment links. cmd/recruitd wires it; Metrics may be nil.
type Links struct {
	Store    *store.Store
	Launcher *outbox.Launcher
	Log      *slog.Logger
	Metrics  *Metrics
}

// Push is a pushed link whose fields have their shapes checked: the application's id in the
// provider's order (required), the link (an absolute https URL), the optional cross-check ids
// and order id ("" when absent), and when it was received. RequestID names the request in logs.
type Push struct {
	Company                     *models.Company
	ApplicationID, URL          string
	CandidateID, JobID, OrderID string
	ReceivedAt                  time.Time
	RequestID                   string
}

// What became of a push (Outcome).
const (
	// Accepted: a new current link for the application (Replaced, too, when it replaced one).
	Accepted = "accepted"
	// Duplicate: the current link again.
	Duplicate = "duplicate"
	// Stale: older than the current link; kept, already replaced.
	Stale = "stale"
	// Held: no such application (yet); held store.AssessmentHoldWindow in case it is ingested.
	Held = "held"
	// DiscardedMismatch: the cross-check ids match none of the applications with the id.
	DiscardedMismatch = "discarded_mismatch"
)

// Outcome is what became of a push, one of the constants above.
type Outcome = string

// Record finds the company's application the push is for (PickApplication) and records the link
// for delivery, starting the application's delivery run when the link waits to be sent. A push
// for an application that is not there (yet) is held, seen by nothing but its run, in case the
// application is ingested meanwhile (an HR-suite delivery or an ATS import may lag the
// provider), then discarded; a cross-check mismatch is discarded at once. Neither is an error,
// as the draft contract asks. A delivery start Temporal does not take is an error
// (outbox.ErrUnavailable); a hold's is left to the reconciler, since the hold is stored. The URL
// is never logged.
func (l *Links) Record(ctx context.Context, p Push) (Outcome, error) {
	co := p.Company
	log := l.Log.With("request_id", p.RequestID, "company", co.Slug, "order_id", p.OrderID)
	apps, err := l.Store.ApplicationsByExternalID(ctx, co.ID, p.ApplicationID)
	if err != nil {
		return "", err
	}
	if len(apps) == 0 {
		return l.hold(ctx, p, log)
	}
	app, ok := PickApplication(apps, p.CandidateID, p.JobID)
	if !ok {
		l.Metrics.push(DiscardedMismatch)
		log.WarnContext(ctx, "assessment link discarded: candidateId or jobId does not match the application",
			"application_id", apps[0].ID, "candidate_id_given", p.CandidateID != "", "job_id_given", p.JobID != "")
		return DiscardedMismatch, nil
	}
	res, err := l.Store.PushAssessmentLink(ctx, store.AssessmentPush{
		CompanyID: co.ID, ApplicationID: app.ID, URL: p.URL, OrderID: p.OrderID, ReceivedAt: p.ReceivedAt,
		Start: kinds.AssessmentLinkStart(co.Slug, co.ID, app.ID),
	})
	if err != nil {
		return "", fmt.Errorf("push assessment link: %w", err)
	}
	if res.Start != nil {
		if err := l.Launcher.Accept(ctx, res.Start); err != nil {
			return "", err
		}
	}
	outcome := map[store.AssessmentOutcome]Outcome{store.AssessmentNew: Accepted, store.AssessmentSame: Duplicate, store.AssessmentStale: Stale}[res.Outcome]
	l.Metrics.push(outcome)
	attrs := []any{"application_id", app.ID, "link_id", res.Link.ID, "outcome", outcome}
	if res.Replaced != nil {
		l.Metrics.push("replaced")
		attrs = append(attrs, "replaced_link_id", res.Replaced.ID, "replaced_was_sent", res.Replaced.SentAt != nil)
	}
	log.InfoContext(ctx, "assessment link accepted", attrs...)
	return outcome, nil
}

// PickApplication chooses, among the applications with a pushed id (ATS ones first, as
// store.ApplicationsByExternalID orders them), the first whose candidate and job agree with the
// push's optional cross-check ids. An id is checked only when both the push and the record have
// one. ok is false when none agrees.
func PickApplication(apps []store.ApplicationRef, candidateID, jobID string) (store.ApplicationRef, bool) {
	for _, a := range apps {
		if candidateID != "" && a.CandidateExternalID != "" && a.CandidateExternalID != candidateID {
			continue
		}
		if jobID != "" && a.JobExternalID != "" && a.JobExternalID != jobID {
			continue
		}
		return a, true
	}
	return store.ApplicationRef{}, false
}

// hold holds a push whose application is not managed (yet) and starts, or nudges, the hold's
// run, which delivers the link if the application appears within the window and discards it
// otherwise. A start Temporal does not take is left to the reconciler (a provider's retry would
// only renew the hold).
func (l *Links) hold(ctx context.Context, p Push, log *slog.Logger) (Outcome, error) {
	co := p.Company
	h := &store.AssessmentHold{CompanyID: co.ID, ApplicationRef: p.ApplicationID, URL: p.URL, CandidateRef: p.CandidateID,
		JobRef: p.JobID, ReceivedAt: p.ReceivedAt}
	if p.OrderID != "" {
		h.OrderID = &p.OrderID
	}
	start, err := l.commitHold(ctx, co, h)
	if err != nil {
		return "", fmt.Errorf("hold assessment link: %w", err)
	}
	if err := l.Launcher.LaunchMany(ctx, []models.WorkflowStart{*start}); err != nil {
		log.WarnContext(ctx, "assessment link held; its workflow starts when Temporal is back (reconciler)", "hold_id", h.ID, "err", err)
	}
	l.Metrics.push(Held)
	synced, err := l.Store.SyncsApplications(ctx, co.ID)
	if err != nil {
		log.WarnContext(ctx, "application sync of the company not known; the push is not counted as unsynced", "err", err)
	}
	if synced {
		atsType := "none"
		if co.ATSType != nil {
			atsType = string(*co.ATSType)
		}
		l.Metrics.unsynced(atsType)
	}
	log.InfoContext(ctx, "assessment link held: application not managed yet", "hold_id", h.ID, "until", h.ExpiresAt, "ats_synced", synced)
	return Held, nil
}

// commitHold holds h and writes the start of the hold's run, built from the id the hold has (a
// renewed hold keeps its own), in one transaction, and returns the start to launch.
func (l *Links) commitHold(ctx context.Context, co *models.Company, h *store.AssessmentHold) (*models.WorkflowStart, error) {
	tx, err := l.Store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := tx.HoldAssessmentLink(h); err != nil {
		return nil, err
	}
	start, err := tx.RenewStart(kinds.AssessmentLinkHoldStart(co.Slug, kinds.AssessmentLinkHoldInput{CompanyID: co.ID, HoldID: h.ID}))
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return start, nil
}

// Metrics count pushes by what became of them, and those for an application that the company's
// ATS sync has not brought (yet). A nil *Metrics records nothing.
type Metrics struct {
	pushes    *prometheus.CounterVec
	unsyncedN *prometheus.CounterVec
}

// NewMetrics registers the pushes' counters on reg, or takes those registered on it before
// (reg may be nil: the counters are then registered nowhere).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{pushes: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recruitd_assessment_links_total",
		Help: "Assessment-link pushes answered 200, by outcome: accepted (a new current link), duplicate (the current link again), " +
			"stale (older than the current link), replaced (accepted, replacing an earlier link), held (no such application yet: held 15 minutes in case it " +
			"is ingested; recruitd_assessment_link_holds_total says what became of it), discarded_mismatch.",
	}, []string{"outcome"}), unsyncedN: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recruitd_assessment_links_unsynced_total",
		Help: "Assessment-link pushes (also counted as held) for an application id that no application synced from the company's ATS " +
			"through the aggregator has, by the company's ATS type: a rate that rises means the application sync lags the provider's orders.",
	}, []string{"ats_type"})}
	if reg != nil {
		m.pushes = registerCounter(reg, m.pushes)
		m.unsyncedN = registerCounter(reg, m.unsyncedN)
	}
	return m
}

// registerCounter registers c on reg, or returns the collector registered before under its name.
func registerCounter(reg prometheus.Registerer, c *prometheus.CounterVec) *prometheus.CounterVec {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return c
}

func (m *Metrics) push(outcome string) {
	if m != nil {
		m.pushes.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) unsynced(atsType string) {
	if m != nil {
		m.unsyncedN.WithLabelValues(atsType).Inc()
	}
}
