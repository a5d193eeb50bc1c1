package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/assessments"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// PlanAssessmentLinkInput names the application whose current link is due.
type PlanAssessmentLinkInput struct {
	CompanyID     uuid.UUID
	ApplicationID uuid.UUID
}

// AssessmentPlan is how to deliver an application's current link: its id (uuid.Nil when no link
// waits to be sent) and the channels to try, in order. It holds no URL and no contact.
type AssessmentPlan struct {
	LinkID   uuid.UUID
	Channels []models.MessageChannel
}

// assessmentFallback is the order channels are tried in after the conversation's own, the
// default order of invitations.
var assessmentFallback = []models.MessageChannel{models.MessageChannelEmail, models.MessageChannelSMS}

// PlanAssessmentLink finds the application's link that waits to be sent and the channels to
// send it through: the candidate's conversation channel first (the channel of their latest
// message, an invitation included), then e-mail and SMS, each only when the candidate can be
// reached on it. A phone call cannot carry a link, so a conversation held by phone continues by
// SMS.
func (a *Activities) PlanAssessmentLink(ctx context.Context, in PlanAssessmentLinkInput) (AssessmentPlan, error) {
	link, err := a.Store.PendingAssessmentLink(ctx, in.CompanyID, in.ApplicationID)
	if errors.Is(err, store.ErrNotFound) {
		return AssessmentPlan{}, nil
	}
	if err != nil {
		return AssessmentPlan{}, err
	}
	app, err := a.Store.Application(ctx, in.CompanyID, in.ApplicationID)
	if err != nil {
		return AssessmentPlan{}, permanentIfMissing(err)
	}
	cand, err := a.Store.Candidate(ctx, in.CompanyID, app.CandidateID)
	if err != nil {
		return AssessmentPlan{}, permanentIfMissing(err)
	}
	conv, ok, err := a.Store.ConversationChannel(ctx, in.CompanyID, cand.ID)
	if err != nil {
		return AssessmentPlan{}, err
	}
	return AssessmentPlan{LinkID: link.ID, Channels: assessmentChannels(conv, ok, deref(cand.Email), deref(cand.Phone))}, nil
}

// assessmentChannels orders the channels a link is tried on: the conversation's (when ok), then
// the fallback, without repeats, each only when the candidate has an address for it.
func assessmentChannels(conv models.MessageChannel, ok bool, email, phoneE164 string) []models.MessageChannel {
	var order []models.MessageChannel
	if ok {
		switch conv {
		case models.MessageChannelPhone:
			conv = models.MessageChannelSMS
		case models.MessageChannelOutbox:
			conv = models.MessageChannelEmail
		}
		order = append(order, conv)
	}
	order = append(order, assessmentFallback...)
	var out []models.MessageChannel
	for _, ch := range order {
		if slices.Contains(out, ch) {
			continue
		}
		if _, ok := channels.Address(ch, email, phoneE164); ok {
			out = append(out, ch)
		}
	}
	return out
}

// SendAssessmentLinkInput is one delivery attempt of a link through one channel.
type SendAssessmentLinkInput struct {
	CompanyID uuid.UUID
	LinkID    uuid.UUID
	Channel   models.MessageChannel
}

// SendAssessmentLinkResult is a finished attempt: the message that carried the link, or Replaced
// when a newer link took its place before it went out (nothing was sent).
type SendAssessmentLinkResult struct {
	MessageID uuid.UUID
	Replaced  bool
}

// SendAssessmentLink sends the link to the candidate through one channel, in the company's
// words, and records the attempt in the candidate's conversation, delivered or failed. A link
// already sent is not sent again. A channel the candidate cannot be reached on, or a provider's
// permanent refusal, is a non-retryable error, so the workflow falls back to the next channel at
// once; other failures are retried.
func (a *Activities) SendAssessmentLink(ctx context.Context, in SendAssessmentLinkInput) (SendAssessmentLinkResult, error) {
	link, err := a.Store.AssessmentLink(ctx, in.CompanyID, in.LinkID)
	if err != nil {
		return SendAssessmentLinkResult{}, permanentIfMissing(err)
	}
	switch {
	case link.SentAt != nil:
		out := SendAssessmentLinkResult{}
		if link.MessageID != nil {
			out.MessageID = *link.MessageID
		}
		return out, nil
	case link.ReplacedAt != nil:
		return SendAssessmentLinkResult{Replaced: true}, nil
	case link.FailedAt != nil:
		return SendAssessmentLinkResult{}, temporal.NewNonRetryableApplicationError("assessment link "+link.ID.String()+" failed before", ErrTypePermanent, nil)
	}
	app, err := a.Store.Application(ctx, in.CompanyID, link.ApplicationID)
	if err != nil {
		return SendAssessmentLinkResult{}, permanentIfMissing(err)
	}
	cand, err := a.Store.Candidate(ctx, in.CompanyID, app.CandidateID)
	if err != nil {
		return SendAssessmentLinkResult{}, permanentIfMissing(err)
	}
	job, err := a.Store.Job(ctx, in.CompanyID, app.JobID)
	if err != nil {
		return SendAssessmentLinkResult{}, permanentIfMissing(err)
	}
	company, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return SendAssessmentLinkResult{}, err
	}
	to, ok := channels.Address(in.Channel, deref(cand.Email), deref(cand.Phone))
	if !ok {
		return SendAssessmentLinkResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("candidate has no address for %s", in.Channel), ErrTypePermanent, nil)
	}
	msg := assessmentMessage(in.Channel, to, cand, job, company, link.URL)
	row := &models.Message{
		CompanyID: in.CompanyID, CandidateID: cand.ID, ApplicationID: &app.ID,
		Direction: models.MessageDirectionOutbound, Channel: in.Channel, Status: models.MessageStatusQueued,
		ToAddress: to, Body: msg.Text,
	}
	// The key names the link and channel, not the activity: a local activity's id is reused when
	// its workflow task is retried (a push's signal arrived meanwhile), and the retry may plan a
	// newer link, which must not find the older link's message.
	_, provider, sendErr, err := a.deliverOnce(ctx, assessmentSendKey(link.ID, in.Channel), row, msg)
	if err != nil {
		return SendAssessmentLinkResult{}, err
	}
	if sendErr != nil {
		a.Log.WarnContext(ctx, "assessment link not delivered", "company", company.Slug, "link_id", link.ID, "channel", in.Channel, "err", channels.Redacted(sendErr))
		// The error goes to Temporal: its text without the addresses a provider may quote.
		if channels.IsPermanent(sendErr) {
			return SendAssessmentLinkResult{}, temporal.NewNonRetryableApplicationError(channels.Redacted(sendErr), ErrTypePermanent, nil)
		}
		return SendAssessmentLinkResult{}, fmt.Errorf("send %s assessment link: %s", in.Channel, channels.Redacted(sendErr))
	}
	sent, err := a.Store.MarkAssessmentLinkSent(ctx, in.CompanyID, link.ID, row.ID)
	if err != nil {
		return SendAssessmentLinkResult{}, err
	}
	a.Metrics.assessmentSent(in.Channel, sent.SentAt.Sub(link.ReceivedAt))
	a.Log.InfoContext(ctx, "assessment link sent", "company", company.Slug, "link_id", link.ID, "order_id", deref(link.OrderID),
		"channel", in.Channel, "provider", provider, "replaced_meanwhile", sent.ReplacedAt != nil)
	return SendAssessmentLinkResult{MessageID: row.ID}, nil
}

// assessmentSendKey is the send key (models.Message.SendKey) of a link's message on a channel:
// each link goes out at most once per channel, across retries and runs.
func assessmentSendKey(linkID uuid.UUID, ch models.MessageChannel) string {
	return "assessment-link/" + linkID.String() + "/" + string(ch)
}

// FailAssessmentLinkInput names a link that no channel delivered.
type FailAssessmentLinkInput struct {
	CompanyID uuid.UUID
	LinkID    uuid.UUID
	Tried     []models.MessageChannel
}

// FailAssessmentLink records that no channel delivered the link; a newer push is the way to try
// again.
func (a *Activities) FailAssessmentLink(ctx context.Context, in FailAssessmentLinkInput) error {
	l, err := a.Store.FailAssessmentLink(ctx, in.CompanyID, in.LinkID)
	if errors.Is(err, store.ErrLinkNotPending) {
		return nil
	}
	if err != nil {
		return err
	}
	a.Metrics.assessmentFailed()
	tried := make([]string, len(in.Tried))
	for i, ch := range in.Tried {
		tried[i] = string(ch)
	}
	a.Log.WarnContext(ctx, "assessment link not delivered on any channel", "link_id", l.ID, "order_id", deref(l.OrderID), "tried", strings.Join(tried, ","))
	return nil
}

// assessmentMessage writes the company's message that carries the link, for a channel.
func assessmentMessage(ch models.MessageChannel, to string, cand *models.Candidate, job *models.Job, co *models.Company, link string) channels.Message {
	name, title := addressee(cand, job)
	m := channels.Message{Channel: ch, To: to}
	switch ch {
	case models.MessageChannelEmail:
		m.Subject = fmt.Sprintf("Your assessment for %s at %s", title, co.Name)
		m.Text = fmt.Sprintf("Hi %s,\n\nThe next step of your application for the %s role at %s is an assessment. Take it here:\n\n%s\n\nThis link is yours alone; please do not share it.\n\nGood luck!\n%s", name, title, co.Name, link, co.Name)
	default:
		m.Text = fmt.Sprintf("Hi %s, %s here: the next step for %s is an assessment. Take it here: %s", name, co.Name, title, link)
	}
	return m
}

// Outcomes of a look at a held link (CheckAssessmentHoldResult.Outcome).
const (
	HoldWaiting   = "waiting"   // the application is not there yet and the hold has not expired
	HoldDelivered = "delivered" // the application appeared: the link is its assessment link now
	HoldMismatch  = "mismatch"  // it appeared, but the push's candidateId or jobId disagree: discarded
	HoldExpired   = "expired"   // the window passed without it: discarded
	HoldGone      = "gone"      // no such hold (another run ended it)
)

// CheckAssessmentHoldInput is one look at a held link. Now is the run's clock (workflow.Now),
// against which the hold's expiry is judged.
type CheckAssessmentHoldInput struct {
	CompanyID uuid.UUID
	HoldID    uuid.UUID
	Now       time.Time
}

// CheckAssessmentHoldResult says what the look found; Remaining is the time left until the hold
// expires when the outcome is HoldWaiting.
type CheckAssessmentHoldResult struct {
	Outcome   string
	Remaining time.Duration
}

// CheckAssessmentHold looks for the application of a held link. When it is there and agrees with
// the push's cross-check ids, the hold becomes the application's assessment link (as the push
// would have made it on receipt) and the link's delivery run is launched; when it disagrees the
// hold is discarded, as a push would have been. When it is not there, the hold waits until it
// expires at in.Now, then is discarded. Nothing here logs the URL.
func (a *Activities) CheckAssessmentHold(ctx context.Context, in CheckAssessmentHoldInput) (CheckAssessmentHoldResult, error) {
	h, err := a.Store.AssessmentHold(ctx, in.CompanyID, in.HoldID)
	if errors.Is(err, store.ErrNotFound) {
		return CheckAssessmentHoldResult{Outcome: HoldGone}, nil
	}
	if err != nil {
		return CheckAssessmentHoldResult{}, err
	}
	log := a.Log.With("company_id", in.CompanyID, "hold_id", h.ID, "order_id", deref(h.OrderID))
	apps, err := a.Store.ApplicationsByExternalID(ctx, in.CompanyID, h.ApplicationRef)
	if err != nil {
		return CheckAssessmentHoldResult{}, err
	}
	if len(apps) == 0 {
		if in.Now.Before(h.ExpiresAt) {
			return CheckAssessmentHoldResult{Outcome: HoldWaiting, Remaining: h.ExpiresAt.Sub(in.Now)}, nil
		}
		expired, err := a.Store.ExpireAssessmentHold(ctx, in.CompanyID, h.ID, in.Now)
		if err != nil || !expired {
			return CheckAssessmentHoldResult{Outcome: HoldWaiting}, err // renewed meanwhile: look again
		}
		a.Metrics.assessmentHold(HoldExpired)
		log.InfoContext(ctx, "assessment link discarded: application not managed within the hold", "received_at", h.ReceivedAt)
		return CheckAssessmentHoldResult{Outcome: HoldExpired}, nil
	}
	app, ok := assessments.PickApplication(apps, h.CandidateRef, h.JobRef)
	if !ok {
		dropped, err := a.Store.DropAssessmentHold(ctx, in.CompanyID, h.ID, h.ReceivedAt)
		if err != nil || !dropped {
			return CheckAssessmentHoldResult{Outcome: HoldWaiting}, err
		}
		a.Metrics.assessmentHold(HoldMismatch)
		log.WarnContext(ctx, "assessment link discarded: candidateId or jobId does not match the application",
			"application_id", apps[0].ID, "candidate_id_given", h.CandidateRef != "", "job_id_given", h.JobRef != "")
		return CheckAssessmentHoldResult{Outcome: HoldMismatch}, nil
	}
	if a.Launcher == nil {
		return CheckAssessmentHoldResult{}, temporal.NewNonRetryableApplicationError("the worker has no start launcher for assessment links", ErrTypePermanent, nil)
	}
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return CheckAssessmentHoldResult{}, permanentIfMissing(err)
	}
	res, released, err := a.Store.ReleaseAssessmentHold(ctx, in.CompanyID, h.ID, h.ReceivedAt, store.AssessmentPush{
		CompanyID: in.CompanyID, ApplicationID: app.ID, URL: h.URL, OrderID: deref(h.OrderID), ReceivedAt: h.ReceivedAt,
		Start: kinds.AssessmentLinkStart(co.Slug, co.ID, app.ID),
	})
	if err != nil || !released {
		return CheckAssessmentHoldResult{Outcome: HoldWaiting}, err
	}
	if res.Start != nil {
		if err := a.Launcher.LaunchMany(ctx, []models.WorkflowStart{*res.Start}); err != nil {
			log.WarnContext(ctx, "held assessment link recorded; its delivery starts when Temporal is back (reconciler)", "err", err)
		}
	}
	a.Metrics.assessmentHold(HoldDelivered)
	log.InfoContext(ctx, "held assessment link accepted: the application appeared", "application_id", app.ID, "link_id", res.Link.ID,
		"outcome", string(res.Outcome), "held_for", in.Now.Sub(h.ReceivedAt).Round(time.Second))
	return CheckAssessmentHoldResult{Outcome: HoldDelivered}, nil
}

// assessmentMetrics are the worker's assessment-link metrics.
type assessmentMetrics struct {
	delivered *prometheus.CounterVec
	failed    prometheus.Counter
	latency   prometheus.Histogram
	holds     *prometheus.CounterVec
}

func newAssessmentMetrics(reg prometheus.Registerer) *assessmentMetrics {
	m := &assessmentMetrics{
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_assessment_links_delivered_total", Help: "Assessment links sent to the candidate, by channel.",
		}, []string{"channel"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recruitd_assessment_links_failed_total", Help: "Assessment links that no channel delivered.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recruitd_assessment_link_delivery_seconds", Help: "Time from an assessment link's receipt to its message being sent.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}),
	}
	m.holds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recruitd_assessment_link_holds_total",
		Help: "Assessment links held for an application not ingested yet, by how the hold ended: delivered (the application appeared), mismatch, expired.",
	}, []string{"outcome"})
	reg.MustRegister(m.delivered, m.failed, m.latency, m.holds)
	return m
}

func (m *Metrics) assessmentSent(ch models.MessageChannel, latency time.Duration) {
	if m == nil || m.assessment == nil {
		return
	}
	m.assessment.delivered.WithLabelValues(string(ch)).Inc()
	m.assessment.latency.Observe(latency.Seconds())
}

func (m *Metrics) assessmentFailed() {
	if m != nil && m.assessment != nil {
		m.assessment.failed.Inc()
	}
}

func (m *Metrics) assessmentHold(outcome string) {
	if m != nil && m.assessment != nil {
		m.assessment.holds.WithLabelValues(outcome).Inc()
	}
}
