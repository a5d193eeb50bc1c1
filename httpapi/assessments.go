package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// AssessmentLinkResponse answers an accepted push, whether or not the application is managed.
type AssessmentLinkResponse struct {
	Success bool `json:"success"`
}

// Bounds of an assessment-link push (docs/assessment-links.md).
const (
	maxAssessmentID  = 128
	maxAssessmentURL = 2048
)

// assessmentFields are the fields of the draft contract; anything else is refused, so that an
// integration sending personal data or report fields learns it at once.
var assessmentFields = []string{"applicationId", "assessmentUrl", "candidateId", "jobId", "orderId"}

// assessmentPush is a validated push.
type assessmentPush struct {
	applicationID, url, candidateID, jobID, orderID string
}

// parseAssessmentPush validates a push body: an object of the contract's fields only, each a
// string (null counts as absent); applicationId and assessmentUrl present. Messages name fields,
// never values: a rejected body may hold personal data and is neither stored nor logged.
func parseAssessmentPush(body map[string]json.RawMessage) (*assessmentPush, error) {
	var unknown []string
	for k := range body {
		if !slices.Contains(assessmentFields, k) {
			unknown = append(unknown, fieldName(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		if len(unknown) > 10 {
			unknown = append(unknown[:10], fmt.Sprintf("and %d more", len(unknown)-10))
		}
		return nil, newError(http.StatusBadRequest, "UNKNOWN_FIELDS", "fields outside the contract: "+strings.Join(unknown, ", ")+
			"; send only "+strings.Join(assessmentFields, ", ")+", and no names, contacts, scores or report data")
	}
	var f fieldErrors
	str := func(name string) string {
		raw, ok := body[name]
		if !ok || string(raw) == "null" {
			return ""
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			f.add("%s must be a string", name)
			return ""
		}
		return v
	}
	p := &assessmentPush{
		applicationID: strings.TrimSpace(str("applicationId")), url: str("assessmentUrl"),
		candidateID: strings.TrimSpace(str("candidateId")), jobID: strings.TrimSpace(str("jobId")), orderID: strings.TrimSpace(str("orderId")),
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	var missing []string
	if p.applicationID == "" {
		missing = append(missing, "applicationId")
	}
	if strings.TrimSpace(p.url) == "" {
		missing = append(missing, "assessmentUrl")
	}
	if len(missing) > 0 {
		return nil, newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "missing required fields: "+strings.Join(missing, ", "))
	}
	for _, fv := range []struct{ name, v string }{
		{"applicationId", p.applicationID}, {"candidateId", p.candidateID}, {"jobId", p.jobID}, {"orderId", p.orderID},
	} {
		f.maxLen(fv.name, fv.v, maxAssessmentID)
		if hasControl(fv.v) {
			f.add("%s may not contain control characters", fv.name)
		}
	}
	if problem := checkAssessmentURL(p.url); problem != "" {
		f.add("assessmentUrl %s", problem)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkAssessmentURL says what is wrong with a link ("" when nothing): it must be an absolute
// https URL with a host and without user info, at most maxAssessmentURL bytes, with no spaces,
// control or invisible formatting characters such as bidi overrides (it is delivered verbatim,
// in e-mail and SMS, where those could disguise it).
func checkAssessmentURL(s string) string {
	if len(s) > maxAssessmentURL {
		return fmt.Sprintf("is longer than %d bytes", maxAssessmentURL)
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
	}) >= 0 {
		return "may not contain spaces, control or invisible formatting characters"
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || !u.IsAbs():
		return "must be an absolute https URL"
	case u.Scheme != "https":
		return "must use https"
	case u.Opaque != "" || u.Hostname() == "":
		return "must be an absolute https URL with a host"
	case u.User != nil:
		return "may not carry user info (user:password@)"
	}
	return ""
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0
}

// fieldName shows an unknown field's name in a message, cut short: it is the caller's text.
func fieldName(k string) string {
	k = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, k)
	if utf8.RuneCountInString(k) > 40 {
		k = string([]rune(k)[:40]) + "…"
	}
	return fmt.Sprintf("%q", k)
}

// pickApplication chooses the application a push is for (store.PickApplication).
var pickApplication = store.PickApplication

// assessmentMetrics count pushes by what became of them, and those for an application that the
// company's ATS sync has not brought (yet).
type assessmentMetrics struct {
	pushes   *prometheus.CounterVec
	unsynced *prometheus.CounterVec
}

func newAssessmentMetrics(g prometheus.Gatherer) *assessmentMetrics {
	m := &assessmentMetrics{pushes: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recruitd_assessment_links_total",
		Help: "Assessment-link pushes answered 200, by outcome: accepted (a new current link), duplicate (the current link again), " +
			"stale (older than the current link), replaced (accepted, replacing an earlier link), held (no such application yet: held 15 minutes in case it " +
			"is ingested; recruitd_assessment_link_holds_total says what became of it), discarded_mismatch.",
	}, []string{"outcome"}), unsynced: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recruitd_assessment_links_unsynced_total",
		Help: "Assessment-link pushes (also counted as held) for an application id that no application synced from the company's ATS " +
			"through the aggregator has, by the company's ATS type: a rate that rises means the application sync lags the provider's orders.",
	}, []string{"ats_type"})}
	// The process's registry, which its private metrics listener serves, is the Gatherer.
	if reg, ok := g.(prometheus.Registerer); ok {
		m.pushes = registerCounter(reg, m.pushes)
		m.unsynced = registerCounter(reg, m.unsynced)
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

// assessmentLinks returns the handler of POST /v2/api/assessment-links with its metrics.
func (s *server) assessmentLinks() gin.HandlerFunc {
	m := newAssessmentMetrics(s.Gatherer)
	return func(c *gin.Context) { s.pushAssessmentLink(c, m) }
}

// pushAssessmentLink validates the push (400), finds the managed application by the pushed id
// within the key's company, and records the link for delivery. A push for an application that is
// not there (yet) is held for 15 minutes, seen by nothing but its workflow, in case the
// application is ingested meanwhile (an HR-suite delivery or an ATS import may lag the
// provider), then discarded; cross-check mismatches are discarded at once. Both are answered 200,
// as the draft contract asks; the URL is never logged.
func (s *server) pushAssessmentLink(c *gin.Context, m *assessmentMetrics) {
	received := time.Now().UTC()
	var body map[string]json.RawMessage
	if err := decodeJSON(c, &body); err != nil {
		s.fail(c, err)
		return
	}
	push, err := parseAssessmentPush(body)
	if err != nil {
		s.fail(c, err)
		return
	}
	co := company(c)
	ctx := c.Request.Context()
	log := s.Log.With("request_id", requestID(c), "company", co.Slug, "order_id", push.orderID)
	apps, err := s.Store.ApplicationsByExternalID(ctx, co.ID, push.applicationID)
	if err != nil {
		s.fail(c, err)
		return
	}
	if len(apps) == 0 {
		s.holdAssessmentLink(c, m, push, received, log)
		return
	}
	app, ok := pickApplication(apps, push.candidateID, push.jobID)
	if !ok {
		m.pushes.WithLabelValues("discarded_mismatch").Inc()
		log.WarnContext(ctx, "assessment link discarded: candidateId or jobId does not match the application",
			"application_id", apps[0].ID, "candidate_id_given", push.candidateID != "", "job_id_given", push.jobID != "")
		c.JSON(http.StatusOK, AssessmentLinkResponse{Success: true})
		return
	}
	res, err := s.Store.PushAssessmentLink(ctx, store.AssessmentPush{
		CompanyID: co.ID, ApplicationID: app.ID, URL: push.url, OrderID: push.orderID, ReceivedAt: received,
		Start: kinds.AssessmentLinkStart(co.Slug, co.ID, app.ID),
	})
	if err != nil {
		s.fail(c, fmt.Errorf("push assessment link: %w", err))
		return
	}
	if res.Start != nil {
		if err := s.Launcher.Launch(ctx, res.Start); err != nil {
			s.fail(c, err)
			return
		}
	}
	outcome := map[store.AssessmentOutcome]string{store.AssessmentNew: "accepted", store.AssessmentSame: "duplicate", store.AssessmentStale: "stale"}[res.Outcome]
	m.pushes.WithLabelValues(outcome).Inc()
	attrs := []any{"application_id", app.ID, "link_id", res.Link.ID, "outcome", outcome}
	if res.Replaced != nil {
		m.pushes.WithLabelValues("replaced").Inc()
		attrs = append(attrs, "replaced_link_id", res.Replaced.ID, "replaced_was_sent", res.Replaced.SentAt != nil)
	}
	log.InfoContext(ctx, "assessment link accepted", attrs...)
	c.JSON(http.StatusOK, AssessmentLinkResponse{Success: true})
}

// holdLink holds h and writes the start of the hold's workflow, built from the id the hold has
// (a renewed hold keeps its own), in one transaction, and returns the start to launch.
func (s *server) holdLink(ctx context.Context, co *models.Company, h *store.AssessmentHold) (*models.WorkflowStart, error) {
	tx, err := s.Store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := tx.HoldAssessmentLink(h); err != nil {
		return nil, err
	}
	start, err := tx.RenewStart(workflows.AssessmentLinkHoldStart(co.Slug, workflows.AssessmentLinkHoldInput{CompanyID: co.ID, HoldID: h.ID}))
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return start, nil
}

// holdAssessmentLink holds a push whose application is not managed (yet) and starts, or nudges,
// the hold's workflow, which delivers the link if the application appears within the window and
// discards it otherwise. The answer is 200 even when Temporal does not take the start: the hold
// is stored, and the reconciler starts its workflow (a provider's retry would only renew it).
func (s *server) holdAssessmentLink(c *gin.Context, m *assessmentMetrics, push *assessmentPush, received time.Time, log *slog.Logger) {
	ctx := c.Request.Context()
	co := company(c)
	h := &store.AssessmentHold{CompanyID: co.ID, ApplicationRef: push.applicationID, URL: push.url, CandidateRef: push.candidateID,
		JobRef: push.jobID, ReceivedAt: received}
	if push.orderID != "" {
		h.OrderID = &push.orderID
	}
	start, err := s.holdLink(ctx, co, h)
	if err != nil {
		s.fail(c, fmt.Errorf("hold assessment link: %w", err))
		return
	}
	if err := s.Launcher.LaunchMany(ctx, []models.WorkflowStart{*start}); err != nil {
		log.WarnContext(ctx, "assessment link held; its workflow starts when Temporal is back (reconciler)", "hold_id", h.ID, "err", err)
	}
	m.pushes.WithLabelValues("held").Inc()
	synced, err := s.Store.SyncsApplications(ctx, co.ID)
	if err != nil {
		log.WarnContext(ctx, "application sync of the company not known; the push is not counted as unsynced", "err", err)
	}
	if synced {
		atsType := "none"
		if co.ATSType != nil {
			atsType = string(*co.ATSType)
		}
		m.unsynced.WithLabelValues(atsType).Inc()
	}
	log.InfoContext(ctx, "assessment link held: application not managed yet", "hold_id", h.ID, "until", h.ExpiresAt, "ats_synced", synced)
	c.JSON(http.StatusOK, AssessmentLinkResponse{Success: true})
}
