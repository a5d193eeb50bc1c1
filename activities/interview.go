package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/models"
)

// InterviewAt names a session at an instant of its run's clock (workflow.Now), which decides
// what is due: the run and its activities agree on the time, also in the time-skipping tests.
type InterviewAt struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Now       time.Time
}

// InterviewState is what a session's run waits on. It holds ids, enums, times and counts only:
// the candidate's time zone and contacts stay in the activities.
type InterviewState struct {
	Status    models.SessionStatus
	InvitedAt time.Time
	StartedAt *time.Time
	// ExpiresAt is the deadline; nil for a session without one (the demo seed's).
	ExpiresAt *time.Time
	// RemindersDone counts the reminders sent or skipped.
	RemindersDone int
	// Reminder is the key of the next reminder (interview.ReminderKey), "" when none is to come
	// before the deadline; ReminderAt is when it goes, already out of the quiet hours.
	Reminder   string
	ReminderAt time.Time
	// IdentityID and IdentityExpiresAt are the session's identity verification waiting for the
	// provider's outcome (PENDING), which expires at IdentityExpiresAt; nil when none waits.
	IdentityID        *uuid.UUID
	IdentityExpiresAt *time.Time
}

// deadline is the next deadline the run keeps: the session's while it is open, an identity
// check's until the provider's outcome or its expiry (also after the interview ended); nil when
// none is left, and the run ends.
func (st InterviewState) deadline() *time.Time {
	var deadline *time.Time
	if st.Status.Open() {
		deadline = st.ExpiresAt
	}
	if st.IdentityExpiresAt != nil && (deadline == nil || st.IdentityExpiresAt.Before(*deadline)) {
		deadline = st.IdentityExpiresAt
	}
	return deadline
}

// NextWake is when the run has something to do, unless a change signals it first: the earlier
// of its deadline and its next reminder. ok is false when there is no deadline.
func (st InterviewState) NextWake() (at time.Time, ok bool) {
	deadline := st.deadline()
	if deadline == nil {
		return time.Time{}, false
	}
	at = *deadline
	if st.Status.Open() && st.Reminder != "" && st.ReminderAt.Before(at) {
		at = st.ReminderAt
	}
	return at, true
}

// LoadInterview reads a session's lifecycle at in.Now: its status and times and its next
// reminder.
func (a *Activities) LoadInterview(ctx context.Context, in InterviewAt) (InterviewState, error) {
	lc, err := a.Store.InterviewLifecycle(ctx, in.CompanyID, in.SessionID)
	if err != nil {
		return InterviewState{}, permanentIfMissing(err)
	}
	st := InterviewState{Status: lc.Status, InvitedAt: lc.InvitedAt, StartedAt: lc.StartedAt, ExpiresAt: lc.ExpiresAt, RemindersDone: len(lc.RemindersDone)}
	if lc.IdentityRequired {
		v, err := a.Store.LatestIdentityVerification(ctx, in.CompanyID, in.SessionID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return InterviewState{}, err
		}
		if err == nil && v.Status == models.IdentityStatusPending && v.ExpiresAt != nil {
			st.IdentityID, st.IdentityExpiresAt = &v.ID, v.ExpiresAt
		}
	}
	if r, ok, err := a.nextReminder(ctx, in, lc); err != nil {
		return InterviewState{}, err
	} else if ok {
		st.Reminder, st.ReminderAt = r.Key, r.At
	}
	return st, nil
}

// nextReminder applies the company's reminder settings to the session (interview.ReminderSchedule),
// resolving the candidate's time zones only when a reminder may come.
func (a *Activities) nextReminder(ctx context.Context, in InterviewAt, lc *store.InterviewLifecycle) (interview.Reminder, bool, error) {
	sched, err := a.reminderSchedule(ctx, in, lc)
	if err != nil || sched == nil {
		return interview.Reminder{}, false, err
	}
	r, ok := sched.Next(in.Now)
	return r, ok, nil
}

func (a *Activities) reminderSchedule(ctx context.Context, in InterviewAt, lc *store.InterviewLifecycle) (*interview.ReminderSchedule, error) {
	if !lc.RemindersEnabled || !lc.Status.Open() || lc.ExpiresAt == nil || !in.Now.Before(*lc.ExpiresAt) {
		return nil, nil
	}
	q, zones, err := a.candidateQuiet(ctx, in.CompanyID, lc)
	if err != nil {
		return nil, err
	}
	done := make(map[string]bool, len(lc.RemindersDone))
	for _, k := range lc.RemindersDone {
		done[k] = true
	}
	return &interview.ReminderSchedule{
		Status: lc.Status, InvitedAt: lc.InvitedAt, ExpiresAt: *lc.ExpiresAt, Enabled: true,
		FirstAfter: time.Duration(lc.FirstReminderSeconds) * time.Second, LastBefore: time.Duration(lc.LastReminderSeconds) * time.Second,
		Quiet: q, Zones: zones, Done: done,
	}, nil
}

// candidateQuiet is the company's quiet hours and the candidate's time zones
// (interview.ResolveZones from the phone number, the job's place and the company's zone).
func (a *Activities) candidateQuiet(ctx context.Context, companyID uuid.UUID, lc *store.InterviewLifecycle) (interview.QuietHours, interview.CandidateZones, error) {
	q, err := interview.ParseQuietHours(lc.QuietHoursStart, lc.QuietHoursEnd)
	if err != nil {
		q = interview.DefaultQuietHours // the columns' CHECK keeps this from happening
	}
	var phoneZones []string
	if lc.Phone != nil {
		phoneZones = phone.TimeZones(*lc.Phone)
	}
	jobZones := interview.JobZones(lc.JobExternalTitle, lc.JobTitle)
	if len(phoneZones) == 0 && len(jobZones) == 0 {
		job, err := a.Store.Job(ctx, companyID, lc.JobID)
		if err != nil {
			return interview.QuietHours{}, interview.CandidateZones{}, err
		}
		jobZones = interview.JobZones(job.Description)
	}
	return q, interview.ResolveZones(q, phoneZones, jobZones, lc.TimeZone), nil
}

// SendReminderInput asks for the reminder Key of a session, due at Now.
type SendReminderInput struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Key       string
	Now       time.Time
}

// Reminder outcomes (SendReminderResult.Outcome).
const (
	ReminderSent    = "sent"
	ReminderSkipped = "skipped" // recorded as reminder_skipped: no delivered invitation, no address, refused
	ReminderNotDue  = "not_due" // the session changed: nothing sent, nothing recorded
)

// SendReminderResult says what became of a reminder.
type SendReminderResult struct {
	Outcome string
}

// SendReminder sends the session's reminder in.Key if it is still the one due at in.Now (the
// status is read again: a session started, completed or cancelled meanwhile gets nothing), in
// the channel of the session's delivered invitation, with the interview link; it records the
// message and a reminder_sent event. It sends once whatever crashes: the message's send key
// names the reminder (store.ReminderSendKey), so a retry, or another run of the session's
// workflow, finds it sent; the event's once key is the reminder's. Without a delivered
// invitation, an address in its channel, or with a provider's permanent refusal, it records
// reminder_skipped instead, so the reminder is not tried again.
func (a *Activities) SendReminder(ctx context.Context, in SendReminderInput) (SendReminderResult, error) {
	at := InterviewAt{CompanyID: in.CompanyID, SessionID: in.SessionID, Now: in.Now}
	lc, err := a.Store.InterviewLifecycle(ctx, in.CompanyID, in.SessionID)
	if err != nil {
		return SendReminderResult{}, permanentIfMissing(err)
	}
	sched, err := a.reminderSchedule(ctx, at, lc)
	if err != nil {
		return SendReminderResult{}, err
	}
	if sched == nil {
		return SendReminderResult{Outcome: ReminderNotDue}, nil
	}
	r, ok := sched.Next(in.Now)
	if !ok || r.Key != in.Key || r.At.After(in.Now) {
		return SendReminderResult{Outcome: ReminderNotDue}, nil
	}
	skip := func(reason string, extra map[string]any) (SendReminderResult, error) {
		detail := map[string]any{"reminder": r.Kind, "reason": reason}
		for k, v := range extra {
			detail[k] = v
		}
		if err := a.Store.RecordInterviewEvent(ctx, in.CompanyID, in.SessionID, models.EventReminderSkipped, detail, r.Key); err != nil {
			return SendReminderResult{}, err
		}
		a.Log.InfoContext(ctx, "interview reminder skipped", "company", lc.CompanySlug, "session_id", in.SessionID, "reminder", r.Kind, "reason", reason)
		return SendReminderResult{Outcome: ReminderSkipped}, nil
	}
	inv, err := a.Store.DeliveredInvitation(ctx, in.CompanyID, in.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return skip("no_delivered_invitation", nil)
	}
	if err != nil {
		return SendReminderResult{}, err
	}
	sess, err := a.Store.Session(ctx, in.CompanyID, in.SessionID)
	if err != nil {
		return SendReminderResult{}, err
	}
	cand, err := a.Store.Candidate(ctx, in.CompanyID, sess.CandidateID)
	if err != nil {
		return SendReminderResult{}, err
	}
	job, err := a.Store.Job(ctx, in.CompanyID, sess.JobID)
	if err != nil {
		return SendReminderResult{}, err
	}
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return SendReminderResult{}, err
	}
	to, ok := channels.Address(inv.Channel, deref(cand.Email), deref(cand.Phone))
	if !ok {
		return skip("no_address", map[string]any{"channel": inv.Channel})
	}
	if inv.Channel != models.MessageChannelEmail {
		out, err := a.Store.OptedOut(ctx, in.CompanyID, to)
		if err != nil {
			return SendReminderResult{}, err
		}
		if out {
			return skip("opted_out", map[string]any{"channel": inv.Channel})
		}
	}
	deadline := sched.ExpiresAt.In(sched.Zones.Zones[0])
	msg := reminderMessage(inv.Channel, to, sess.Status, cand, job, co, a.Links.Interview(sess.LinkToken), deadline)
	if inv.Channel == models.MessageChannelWhatsApp {
		// A reminder is initiated: a template, in the window or out of it. A candidate who
		// started in the thread is asked to reply to continue.
		_, title := addressee(cand, job)
		key := conversation.TemplateReminder
		if sess.Status == models.SessionStatusStarted && textInterview(sess.MediumType) {
			key = conversation.TemplateNudge
		}
		msg = thread.WhatsAppTemplate(a.WhatsAppTemplates, key, to, co.Name, title, deadline.Format("Mon 2 Jan 15:04 MST"), a.Links.Interview(sess.LinkToken))
	}
	row := &models.Message{
		CompanyID: in.CompanyID, CandidateID: cand.ID, ApplicationID: sess.ApplicationID, SessionID: &sess.ID,
		Direction: models.MessageDirectionOutbound, Channel: inv.Channel, Status: models.MessageStatusQueued,
		ToAddress: to, Body: msg.Text,
	}
	_, provider, sendErr, err := a.deliverOnce(ctx, store.ReminderSendKey(in.SessionID, r.Key), row, msg)
	if err != nil {
		return SendReminderResult{}, err
	}
	if sendErr != nil {
		a.Log.WarnContext(ctx, "interview reminder not delivered", "company", co.Slug, "session_id", in.SessionID, "channel", inv.Channel, "err", channels.Redacted(sendErr))
		if channels.IsPermanent(sendErr) {
			return skip("send_failed", map[string]any{"channel": inv.Channel, "messageId": row.ID})
		}
		return SendReminderResult{}, temporal.NewApplicationError(fmt.Sprintf("send %s reminder: %s", inv.Channel, channels.Redacted(sendErr)), "SendFailed")
	}
	detail := map[string]any{
		"reminder": r.Kind, "channel": inv.Channel, "messageId": row.ID, "due": r.Due.UTC(), "at": in.Now.UTC(),
		"zoneSource": sched.Zones.Source, "zones": sched.Zones.Names(), "quietHours": sched.Quiet.String(),
	}
	if err := a.Store.RecordInterviewEvent(ctx, in.CompanyID, in.SessionID, models.EventReminderSent, detail, r.Key); err != nil {
		return SendReminderResult{}, err
	}
	a.Log.InfoContext(ctx, "interview reminder sent", "company", co.Slug, "session_id", in.SessionID, "reminder", r.Kind, "channel", inv.Channel, "provider", provider)
	return SendReminderResult{Outcome: ReminderSent}, nil
}

// SkipReminderInput names a reminder that could not be sent.
type SkipReminderInput struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Key       string
}

// SkipReminder records that the reminder Key was given up after its sending failed on every
// attempt (reminder_skipped, reason send_failed), so the run does not try it again.
func (a *Activities) SkipReminder(ctx context.Context, in SkipReminderInput) error {
	kind := interview.ReminderLast
	if in.Key == interview.ReminderKey(interview.ReminderFirst, time.Time{}) {
		kind = interview.ReminderFirst
	}
	return a.Store.RecordInterviewEvent(ctx, in.CompanyID, in.SessionID, models.EventReminderSkipped,
		map[string]any{"reminder": kind, "reason": "send_failed"}, in.Key)
}

// CloseOverdueInterview ends the session if its deadline has passed at in.Now: EXPIRED when it
// was INVITED, INCOMPLETE when STARTED. It returns the new status, "" when the session was not
// open and overdue (the check is the UPDATE's own, so a session completed or extended meanwhile
// stays as it is).
func (a *Activities) CloseOverdueInterview(ctx context.Context, in InterviewAt) (models.SessionStatus, error) {
	st, err := a.Store.CloseOverdueSession(ctx, in.CompanyID, in.SessionID, in.Now)
	if err != nil {
		return "", err
	}
	if st != "" {
		a.Log.InfoContext(ctx, "interview session closed at its deadline", "session_id", in.SessionID, "status", st)
	}
	return st, nil
}

// FinalizeInterview is the step after a session completes: it records, once, that the
// transcript is final, and returns the customer-flow run to signal ("" when none invited it).
// The reports attach here.
func (a *Activities) FinalizeInterview(ctx context.Context, companyID, sessionID uuid.UUID) (string, error) {
	id, err := a.Store.FinalizeTranscript(ctx, companyID, sessionID)
	if errors.Is(err, store.ErrSessionNotOpen) {
		return "", temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, nil)
	}
	return id, permanentIfMissing(err)
}

// SignalRun sends signal (no payload) to the running workflow of workflowID: the customer flow
// told that its session completed. A workflow that is not running is no error (nothing waits
// there); a worker without a Temporal client is a permanent one.
func (a *Activities) SignalRun(ctx context.Context, workflowID, signal string) error {
	if a.Launcher == nil {
		return temporal.NewNonRetryableApplicationError("no Temporal client to signal "+workflowID, ErrTypePermanent, nil)
	}
	return a.Launcher.Starter.SignalRunning(ctx, workflowID, signal)
}

// reminderMessage writes a reminder for a channel: short, with the link and the deadline on
// the candidate's clock.
func reminderMessage(ch models.MessageChannel, to string, status models.SessionStatus, cand *models.Candidate, job *models.Job, co *models.Company, link string, deadline time.Time) channels.Message {
	name, title := addressee(cand, job)
	until := deadline.Format("Mon 2 Jan 15:04 MST")
	started := status == models.SessionStatusStarted
	m := channels.Message{Channel: ch, To: to}
	switch ch {
	case models.MessageChannelEmail:
		m.Subject = fmt.Sprintf("Reminder: your interview for %s at %s", title, co.Name)
		if started {
			m.Text = fmt.Sprintf("Hi %s,\n\nYou started your interview for the %s role at %s. Your answers are saved: pick up where you left off, until %s:\n\n%s\n\n%s", name, title, co.Name, until, link, co.Name)
		} else {
			m.Text = fmt.Sprintf("Hi %s,\n\nA reminder that your short interview for the %s role at %s is waiting for you. Take it whenever it suits you, until %s:\n\n%s\n\n%s", name, title, co.Name, until, link, co.Name)
		}
	case models.MessageChannelPhone:
		m.Text = fmt.Sprintf("Hello %s. This is %s with a reminder about your interview for %s. It is open until %s; the link is in the message we sent you. Thank you.", name, co.Name, title, spoken(deadline))
	default:
		if started {
			m.Text = fmt.Sprintf("Reminder from %s: finish your interview for %s by %s (your answers are saved): %s", co.Name, title, until, link)
		} else {
			m.Text = fmt.Sprintf("Reminder from %s: your interview for %s is open until %s: %s", co.Name, title, until, link)
		}
	}
	return m
}

// spoken is a deadline as a voice reads it: "Monday 2 June at 3:04 PM".
func spoken(t time.Time) string {
	return strings.Replace(t.Format("Monday 2 January at 3:04 PM"), ":00 ", " ", 1)
}
