package workflows

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// The lifecycle tests run the real activities on real Postgres in the time-skipping
// environment: the run's clock (workflow.Now, passed to the activities) decides what is due, so
// the dates are fixed (in 2027, after the machine's clock) and quiet hours, zones and DST are the
// real ones.

// lockedBuffer is the outbox channel's destination, written by the activities' goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lifeFixture is a company with a job on real Postgres.
type lifeFixture struct {
	st  *store.Store
	co  *models.Company
	job *models.Job
	out *lockedBuffer
}

// newLifeFixture makes the company with the interview settings given as columns (the defaults
// otherwise) and a job titled title.
func newLifeFixture(t *testing.T, title string, settings map[string]any) *lifeFixture {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	co := &models.Company{Slug: "acme", Name: "Acme", DefaultJobStatus: models.JobStatusActive}
	if err := st.CreateCompany(t.Context(), co); err != nil {
		t.Fatal(err)
	}
	if len(settings) > 0 {
		if err := st.DB().Model(&models.Company{}).Where("id = ?", co.ID).Updates(settings).Error; err != nil {
			t.Fatal(err)
		}
	}
	if co, err = st.Company(t.Context(), co.ID); err != nil {
		t.Fatal(err)
	}
	job := &models.Job{CompanyID: co.ID, ExternalID: "J-1", InterviewerID: "acme-J-1", Title: title, ExternalTitle: title,
		Description: "Care for patients on a busy ward.", Status: models.JobStatusActive, IsOpen: true}
	if err := st.DB().Create(job).Error; err != nil {
		t.Fatal(err)
	}
	return &lifeFixture{st: st, co: co, job: job, out: &lockedBuffer{}}
}

// session makes a candidate (with phone when not empty) and a session invited at invited, in
// status (INVITED or STARTED, started at invited), with its deadline from the company's
// settings; delivered adds its delivered invitation (SMS with a phone, else e-mail).
func (f *lifeFixture) session(t *testing.T, invited time.Time, phone string, status models.SessionStatus, delivered bool) *models.InterviewSession {
	t.Helper()
	cand := &models.Candidate{CompanyID: f.co.ID, FirstName: "Ada", LastName: "Lovelace"}
	email := fmt.Sprintf("ada.%s@example.com", uuid.NewString()[:8])
	cand.Email = &email
	if phone != "" {
		cand.Phone = &phone
	}
	if err := f.st.DB().Create(cand).Error; err != nil {
		t.Fatal(err)
	}
	invited = invited.UTC()
	expires := invited.Add(time.Duration(f.co.InterviewExpirySeconds) * time.Second)
	flow := "invite/acme/acme-J-1/" + cand.ID.String()
	sess := &models.InterviewSession{CompanyID: f.co.ID, CandidateID: cand.ID, JobID: f.job.ID, Status: status,
		MediumType: models.MediumTypeVideo, InvitedAt: invited, Decision: models.DecisionNone, FlowWorkflowID: &flow}
	if status == models.SessionStatusStarted {
		expires = invited.Add(time.Duration(f.co.InterviewIncompleteSeconds) * time.Second)
		sess.StartedAt, sess.ConsentedAt = &invited, &invited
	}
	sess.ExpiresAt = &expires
	if err := f.st.DB().Create(sess).Error; err != nil {
		t.Fatal(err)
	}
	if delivered {
		ch, to := models.MessageChannelEmail, email
		if phone != "" {
			ch, to = models.MessageChannelSMS, phone
		}
		m := &models.Message{CompanyID: f.co.ID, CandidateID: cand.ID, SessionID: &sess.ID, Direction: models.MessageDirectionOutbound,
			Channel: ch, Status: models.MessageStatusSent, ToAddress: to, Body: "invitation"}
		if err := f.st.CreateMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	return sess
}

// lifeRun is one run of a session's workflow in a time-skipping environment.
type lifeRun struct {
	e       *testsuite.TestWorkflowEnvironment
	upserts []string // SessionStatus values upserted, in order
}

// env is a time-skipping environment that starts at start, with the real activities on the
// fixture's database, and records the SessionStatus upserts.
func (f *lifeFixture) env(t *testing.T, start time.Time, sess *models.InterviewSession) *lifeRun {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	e := s.NewTestWorkflowEnvironment()
	e.SetStartTime(start)
	e.RegisterWorkflow(InterviewSession)
	router, err := channels.NewRouter(channels.Config{Mode: channels.ModeOutbox}, f.out)
	if err != nil {
		t.Fatal(err)
	}
	e.RegisterActivity(&activities.Activities{Store: f.st, Log: slog.New(slog.DiscardHandler), Channels: router, Links: links.New("https://app.example.com", "")})
	if err := e.SetTypedSearchAttributesOnStart(temporal.NewSearchAttributes(
		kinds.CompanySlugKey.ValueSet(f.co.Slug), kinds.JobIDKey.ValueSet(sess.JobID.String()), kinds.SessionStatusKey.ValueSet(string(sess.Status)),
	)); err != nil {
		t.Fatal(err)
	}
	r := &lifeRun{e: e}
	e.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		v, _ := args.Get(0).(temporal.SearchAttributes).GetKeyword(kinds.SessionStatusKey)
		r.upserts = append(r.upserts, v)
	}).Return(nil).Maybe()
	return r
}

// run runs the session's workflow to its end and returns its error.
func (r *lifeRun) run(t *testing.T, f *lifeFixture, sess *models.InterviewSession) error {
	t.Helper()
	r.e.ExecuteWorkflow(InterviewSession, kinds.InterviewInput{CompanyID: f.co.ID, SessionID: sess.ID})
	if !r.e.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	return r.e.GetWorkflowError()
}

// signal does what the candidate page or an operator does after committing a change: it wakes
// the run.
func (r *lifeRun) signal() { r.e.SignalWorkflow(kinds.Interview.Signal, nil) }

func (f *lifeFixture) reload(t *testing.T, sess *models.InterviewSession) *models.InterviewSession {
	t.Helper()
	s, err := f.st.Session(t.Context(), f.co.ID, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// events lists the session's timeline as "kind" or, for reminders, "kind reminder at" (the run's
// time of sending) and "kind reminder reason".
func (f *lifeFixture) events(t *testing.T, sess *models.InterviewSession) []string {
	t.Helper()
	evs, err := f.st.InterviewEvents(t.Context(), f.co.ID, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		s := ev.Kind
		switch ev.Kind {
		case models.EventReminderSent:
			s += fmt.Sprintf(" %v %v", ev.Detail.V["reminder"], ev.Detail.V["at"])
		case models.EventReminderSkipped:
			s += fmt.Sprintf(" %v %v", ev.Detail.V["reminder"], ev.Detail.V["reason"])
		}
		out = append(out, s)
	}
	return out
}

// reminderMessages lists the channels of the session's reminder messages.
func (f *lifeFixture) reminderMessages(t *testing.T, sess *models.InterviewSession) []string {
	t.Helper()
	ms, err := f.st.SessionMessages(t.Context(), f.co.ID, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if m.Reminder {
			out = append(out, string(m.Channel)+" "+string(m.Status))
		}
	}
	return out
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func sameTime(a *time.Time, want string) bool { return a != nil && a.Equal(at(want)) }

// TestInterviewRemindsThenExpires: with the defaults (expiry 7 days, reminders a day after the
// invitation and a day before the deadline, quiet 21:00-08:00) a New York candidate invited at
// 10:00 is reminded at 10:00 the next day and six days later, by SMS like the invitation, and
// the session is EXPIRED at its deadline; the run upserts SessionStatus and ends.
func TestInterviewRemindsThenExpires(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", nil)
	invited := at("2027-06-10T14:00:00Z")
	sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, true)
	r := f.env(t, invited.Add(time.Second), sess)
	if err := r.run(t, f, sess); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	want := []string{
		"reminder_sent first 2027-06-11T14:00:00Z",
		"reminder_sent last 2027-06-16T14:00:00Z",
		"expired",
	}
	if got := f.events(t, sess); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if got := f.reminderMessages(t, sess); !slices.Equal(got, []string{"sms sent", "sms sent"}) {
		t.Errorf("reminder messages = %q, want two SMS sent", got)
	}
	got := f.reload(t, sess)
	if got.Status != models.SessionStatusExpired || !sameTime(got.EndedAt, "2027-06-17T14:00:00Z") {
		t.Errorf("session = %s ended %v, want EXPIRED at its deadline", got.Status, got.EndedAt)
	}
	if !r.e.Now().Equal(at("2027-06-17T14:00:00Z")) {
		t.Errorf("run ended at %s, want at the deadline", r.e.Now())
	}
	if !slices.Equal(r.upserts, []string{"EXPIRED"}) {
		t.Errorf("SessionStatus upserts = %q, want EXPIRED", r.upserts)
	}
	out := f.out.String()
	if strings.Count(out, "https://app.example.com/interview/"+sess.LinkToken) != 2 || !strings.Contains(out, "Reminder from Acme") {
		t.Errorf("outbox = %q, want two reminders with the interview link", out)
	}
}

// TestInterviewReminderQuietHoursAcrossZones: the same reminder, due at 12:30 UTC (14:30 in
// the company's Berlin), goes at 08:00 on the candidate's clock: Los Angeles from the phone;
// Texas (Central or Mountain) from the job's place when there is no phone; Berlin, at once, when
// nothing places the candidate.
func TestInterviewReminderQuietHoursAcrossZones(t *testing.T) {
	invited := at("2027-06-10T12:30:00Z")
	for _, tt := range []struct {
		name, title, phone string
		want               string
	}{
		{"phone in Los Angeles", "Registered Nurse", "+14155552671", "reminder_sent first 2027-06-11T15:00:00Z"},
		{"job in Austin, TX", "Registered Nurse - Austin, TX", "", "reminder_sent first 2027-06-11T14:00:00Z"},
		{"the company's Berlin", "Registered Nurse", "", "reminder_sent first 2027-06-11T12:30:00Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newLifeFixture(t, tt.title, map[string]any{"time_zone": "Europe/Berlin"})
			sess := f.session(t, invited, tt.phone, models.SessionStatusInvited, true)
			if err := f.env(t, invited.Add(time.Second), sess).run(t, f, sess); err != nil {
				t.Fatalf("workflow: %v", err)
			}
			if got := f.events(t, sess); len(got) == 0 || got[0] != tt.want {
				t.Errorf("events = %q, want first %q", got, tt.want)
			}
		})
	}
}

// TestInterviewReminderAcrossDST: 08:00 in New York is 12:00 UTC the day the clocks go forward
// (2027-03-14) and 13:00 UTC the day they go back (2027-11-07); a reminder due at 07:30 local
// waits for it, by the rules of the day it goes, not those of the invitation's day.
func TestInterviewReminderAcrossDST(t *testing.T) {
	for _, tt := range []struct {
		name    string
		invited string
		want    []string
	}{
		{"spring forward", "2027-03-13T11:30:00Z", []string{
			"reminder_sent first 2027-03-14T12:00:00Z", "reminder_sent last 2027-03-19T12:00:00Z", "expired"}},
		{"fall back", "2027-11-06T12:30:00Z", []string{
			"reminder_sent first 2027-11-07T13:00:00Z", "reminder_sent last 2027-11-12T13:00:00Z", "expired"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newLifeFixture(t, "Registered Nurse", nil)
			invited := at(tt.invited)
			sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, true)
			if err := f.env(t, invited.Add(time.Second), sess).run(t, f, sess); err != nil {
				t.Fatalf("workflow: %v", err)
			}
			if got := f.events(t, sess); !slices.Equal(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInterviewIncomplete: a candidate who starts two hours after the invitation (the page
// commits STARTED with a 96-hour window and signals) gets no first reminder, the last a day
// before the window ends, and the session is INCOMPLETE when it ends: past the invitation's own
// expiry (3 days), since a started interview gets its full window.
func TestInterviewIncomplete(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", map[string]any{"interview_expiry_seconds": 3 * 86400})
	invited := at("2027-06-10T14:00:00Z")
	sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, true)
	r := f.env(t, invited.Add(time.Second), sess)
	started := invited.Add(2 * time.Hour)
	r.e.RegisterDelayedCallback(func() {
		now := r.e.Now().UTC()
		expires := now.Add(96 * time.Hour)
		if err := f.st.DB().Model(&models.InterviewSession{}).Where("company_id = ? AND id = ?", f.co.ID, sess.ID).
			Updates(map[string]any{"status": models.SessionStatusStarted, "started_at": now, "consented_at": now, "expires_at": expires}).Error; err != nil {
			t.Error(err)
		}
		r.signal()
	}, 2*time.Hour-time.Second)
	if err := r.run(t, f, sess); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	want := []string{"reminder_sent last 2027-06-13T16:00:00Z", "incomplete"}
	if got := f.events(t, sess); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	got := f.reload(t, sess)
	if got.Status != models.SessionStatusIncomplete || !sameTime(got.EndedAt, started.Add(96*time.Hour).Format(time.RFC3339)) {
		t.Errorf("session = %s ended %v, want INCOMPLETE 96 hours after it started", got.Status, got.EndedAt)
	}
	if !slices.Equal(r.upserts, []string{"STARTED", "INCOMPLETE"}) {
		t.Errorf("SessionStatus upserts = %q", r.upserts)
	}

	// A session STARTED from the run's first look: the same, without any first reminder.
	sess = f.session(t, invited, "+12125550123", models.SessionStatusStarted, true)
	if err := f.env(t, invited.Add(time.Second), sess).run(t, f, sess); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	if got, want := f.events(t, sess), []string{"reminder_sent last 2027-06-13T14:00:00Z", "incomplete"}; !slices.Equal(got, want) {
		t.Errorf("started session: events = %q, want %q", got, want)
	}
}

// TestInterviewCancelled: cancelled two hours after the invitation (store.CancelSession, then
// the signal its launch sends), the run ends at once: no reminder, CANCELLED upserted.
func TestInterviewCancelled(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", nil)
	invited := at("2027-06-10T14:00:00Z")
	sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, true)
	r := f.env(t, invited.Add(time.Second), sess)
	r.e.RegisterDelayedCallback(func() {
		// What the API, a flow's step and the CLI call; without a launcher the test signals.
		l := &interview.Lifecycle{Store: f.st}
		if _, err := l.Cancel(context.Background(), f.co, sess.ID, interview.Cancellation{By: store.CancelledByAPI, Reason: "position filled"}); err != nil {
			t.Error(err)
		}
		r.signal()
	}, 2*time.Hour)
	if err := r.run(t, f, sess); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	if got := f.events(t, sess); !slices.Equal(got, []string{"cancelled"}) {
		t.Errorf("events = %q, want cancelled only", got)
	}
	if got := f.reminderMessages(t, sess); len(got) != 0 {
		t.Errorf("reminders %q after the cancellation", got)
	}
	if took := r.e.Now().Sub(invited); took > 2*time.Hour+time.Minute {
		t.Errorf("run ended %s after the invitation, want at the cancellation", took)
	}
	if !slices.Equal(r.upserts, []string{"CANCELLED"}) {
		t.Errorf("SessionStatus upserts = %q", r.upserts)
	}
	// The cancel refuses a session that is no longer open.
	start := kinds.InterviewStart(f.co.Slug, f.co.ID, sess.ID, sess.JobID, models.SessionStatusCancelled)
	if _, _, err := f.st.CancelSession(t.Context(), store.CancelSessionInput{CompanyID: f.co.ID, SessionID: sess.ID, Start: start}); !errors.Is(err, store.ErrSessionNotOpen) {
		t.Errorf("cancel a cancelled session: %v, want ErrSessionNotOpen", err)
	}
}

// TestInterviewExtended: an extension moves the deadline of a running session (the run hears the
// signal and waits for the new one), and reopens an EXPIRED session to INVITED and an
// INCOMPLETE one to STARTED, whose new runs wait out the new deadline.
func TestInterviewExtended(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", map[string]any{
		"interview_expiry_seconds": 86400, "interview_incomplete_seconds": 86400, "interview_reminders_enabled": false,
	})
	invited := at("2027-06-10T14:00:00Z")
	extend := func(sess *models.InterviewSession, from, to models.SessionStatus, by time.Duration, now time.Time) *models.InterviewSession {
		t.Helper()
		start := kinds.InterviewStart(f.co.Slug, f.co.ID, sess.ID, sess.JobID, to)
		got, _, err := f.st.ExtendSession(context.Background(), store.ExtendSessionInput{
			CompanyID: f.co.ID, SessionID: sess.ID, From: from, To: to, By: by, Now: now, Start: start,
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t.Run("while running", func(t *testing.T) {
		sess := f.session(t, invited, "", models.SessionStatusInvited, true)
		r := f.env(t, invited.Add(time.Second), sess)
		r.e.RegisterDelayedCallback(func() {
			extend(sess, models.SessionStatusInvited, models.SessionStatusInvited, 48*time.Hour, r.e.Now())
			r.signal()
		}, 12*time.Hour)
		if err := r.run(t, f, sess); err != nil {
			t.Fatalf("workflow: %v", err)
		}
		got := f.reload(t, sess)
		if got.Status != models.SessionStatusExpired || !sameTime(got.EndedAt, "2027-06-13T14:00:00Z") {
			t.Errorf("session = %s ended %v, want EXPIRED at the moved deadline (+3 days)", got.Status, got.EndedAt)
		}
		if ev := f.events(t, sess); !slices.Equal(ev, []string{"extended", "expired"}) {
			t.Errorf("events = %q", ev)
		}
	})

	for _, tt := range []struct {
		name           string
		status, closed models.SessionStatus
	}{
		{"expired reopens", models.SessionStatusInvited, models.SessionStatusExpired},
		{"incomplete reopens", models.SessionStatusStarted, models.SessionStatusIncomplete},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sess := f.session(t, invited, "", tt.status, true)
			if err := f.env(t, invited.Add(time.Second), sess).run(t, f, sess); err != nil {
				t.Fatalf("first run: %v", err)
			}
			if got := f.reload(t, sess); got.Status != tt.closed {
				t.Fatalf("after the first run: %s, want %s", got.Status, tt.closed)
			}
			// A day after it closed, an operator gives it 72 hours more: a new run (the renewed
			// start signals-with-start) waits for the new deadline.
			now := invited.Add(48 * time.Hour)
			ext := extend(sess, tt.closed, tt.status, 72*time.Hour, now)
			if ext.Status != tt.status || ext.EndedAt != nil || !ext.ExpiresAt.Equal(now.Add(72*time.Hour)) {
				t.Fatalf("extended = %s ended %v expires %v, want %s until 72 hours from now", ext.Status, ext.EndedAt, ext.ExpiresAt, tt.status)
			}
			r := f.env(t, now.Add(time.Second), ext)
			if err := r.run(t, f, ext); err != nil {
				t.Fatalf("second run: %v", err)
			}
			got := f.reload(t, sess)
			if got.Status != tt.closed || !got.EndedAt.Equal(now.Add(72*time.Hour)) {
				t.Errorf("after the second run: %s ended %v, want %s at the new deadline", got.Status, got.EndedAt, tt.closed)
			}
			if !slices.Equal(r.upserts, []string{string(tt.closed)}) {
				t.Errorf("second run's upserts = %q", r.upserts)
			}
		})
	}
}

// TestInterviewCompleted: the page commits COMPLETED; the run records the transcript final once
// (a second run of the same session does not again), signals the customer flow that invited the
// session (SignalRun, which takes a flow that is gone as done), and ends. A signal that fails is
// no error of the session's.
func TestInterviewCompleted(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", nil)
	invited := at("2027-06-10T14:00:00Z")
	complete := func(sess *models.InterviewSession, now time.Time) {
		for i, q := range []string{"Tell me about a shift.", "Why nursing?"} {
			answer, when := "An answer.", now
			turn := &models.InterviewTurn{CompanyID: f.co.ID, SessionID: sess.ID, Seq: i + 1, StepIndex: i + 1, Source: string(models.TurnSourceGuide),
				Question: q, AskedAt: now, Answer: &answer, AnsweredAt: &when}
			if err := f.st.DB().Omit("id").Create(turn).Error; err != nil {
				t.Error(err)
			}
		}
		if err := f.st.DB().Model(&models.InterviewSession{}).Where("company_id = ? AND id = ?", f.co.ID, sess.ID).
			Updates(map[string]any{"status": models.SessionStatusCompleted, "started_at": now.Add(-time.Hour), "completed_at": now, "duration_seconds": 600}).Error; err != nil {
			t.Error(err)
		}
	}
	for _, tt := range []struct {
		name   string
		err    error
		before bool // a run recorded before version local-activities: a signal command
	}{
		{"flow signalled", nil, false},
		{"signal failed", temporal.NewNonRetryableApplicationError("temporal unavailable", activities.ErrTypePermanent, nil), false},
		{"before local-activities, flow waiting", nil, true},
		{"before local-activities, flow gone", &temporal.UnknownExternalWorkflowExecutionError{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, true)
			var a *activities.Activities
			expect := func(e *testsuite.TestWorkflowEnvironment) {
				if tt.before {
					e.OnGetVersion(localActivitiesChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
					e.OnSignalExternalWorkflow(mock.Anything, *sess.FlowWorkflowID, "", SessionCompletedSignal, mock.Anything).Return(tt.err).Once()
					return
				}
				e.OnActivity(a.SignalRun, mock.Anything, *sess.FlowWorkflowID, SessionCompletedSignal).Return(tt.err).Once()
			}
			r := f.env(t, invited.Add(time.Second), sess)
			expect(r.e)
			r.e.RegisterDelayedCallback(func() { complete(sess, r.e.Now()); r.signal() }, 3*time.Hour)
			if err := r.run(t, f, sess); err != nil {
				t.Fatalf("workflow: %v", err)
			}
			r.e.AssertExpectations(t)
			if !slices.Equal(r.upserts, []string{"COMPLETED"}) {
				t.Errorf("SessionStatus upserts = %q", r.upserts)
			}
			// A later run (a repeated start) records nothing twice.
			again := f.env(t, invited.Add(4*time.Hour), f.reload(t, sess))
			expect(again.e)
			if err := again.run(t, f, sess); err != nil {
				t.Fatalf("second run: %v", err)
			}
			if got := f.events(t, sess); !slices.Equal(got, []string{"transcript_final"}) {
				t.Errorf("events = %q, want transcript_final once and no reminder", got)
			}
			evs, _ := f.st.InterviewEvents(t.Context(), f.co.ID, sess.ID)
			if len(evs) != 1 || fmt.Sprint(evs[0].Detail.V["answers"]) != "2" {
				t.Errorf("transcript_final detail = %v, want 2 answers", evs)
			}
		})
	}
}

// TestInterviewReminderWithoutDeliveredInvitation: no invitation went out (every channel
// failed): the reminders are skipped and recorded so, nothing is sent, the session expires.
func TestInterviewReminderWithoutDeliveredInvitation(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", nil)
	invited := at("2027-06-10T14:00:00Z")
	sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, false)
	if err := f.env(t, invited.Add(time.Second), sess).run(t, f, sess); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	want := []string{"reminder_skipped first no_delivered_invitation", "reminder_skipped last no_delivered_invitation", "expired"}
	if got := f.events(t, sess); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if ms, _ := f.st.SessionMessages(t.Context(), f.co.ID, sess.ID); len(ms) != 0 {
		t.Errorf("messages %+v, want none", ms)
	}
}

// TestInterviewRemindersOff: companies.interview_reminders_enabled false: no reminder.
func TestInterviewRemindersOff(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", map[string]any{"interview_reminders_enabled": false})
	invited := at("2027-06-10T14:00:00Z")
	sess := f.session(t, invited, "+12125550123", models.SessionStatusInvited, true)
	if err := f.env(t, invited.Add(time.Second), sess).run(t, f, sess); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	if got := f.events(t, sess); !slices.Equal(got, []string{"expired"}) {
		t.Errorf("events = %q, want expired only", got)
	}
}

// TestInterviewContinuesAsNew: a run woken a hundred times continues as new with the same input.
func TestInterviewContinuesAsNew(t *testing.T) {
	f := newLifeFixture(t, "Registered Nurse", map[string]any{"interview_reminders_enabled": false})
	invited := at("2027-06-10T14:00:00Z")
	sess := f.session(t, invited, "", models.SessionStatusInvited, true)
	r := f.env(t, invited.Add(time.Second), sess)
	for i := 1; i <= interviewRounds+5; i++ {
		r.e.RegisterDelayedCallback(r.signal, time.Duration(i)*time.Minute)
	}
	err := r.run(t, f, sess)
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("workflow = %v, want continue-as-new", err)
	}
	if can.WorkflowType == nil || can.WorkflowType.Name != "InterviewSession" {
		t.Errorf("continued as %v, want InterviewSession", can.WorkflowType)
	}
	if got := f.reload(t, sess); got.Status != models.SessionStatusInvited {
		t.Errorf("status = %s, want INVITED still", got.Status)
	}
}

// TestInterviewReminderAfterStop: the candidate texts STOP after the first reminder went (the run
// skips in time past the last reminder's date): the last reminder is skipped as opted_out and
// nothing more reaches the number. A candidate who opted out and texted START before a reminder
// gets it again.
func TestInterviewReminderAfterStop(t *testing.T) {
	const phone = "+12125550123"
	invited := at("2027-06-10T14:00:00Z")
	for _, tt := range []struct {
		name     string
		stopped  bool // opted out at the invitation
		at3Days  func(f *lifeFixture) error
		want     []string
		messages []string
	}{
		{"STOP after the first reminder", false, func(f *lifeFixture) error {
			_, err := f.st.OptOut(context.Background(), f.co.ID, phone, "STOP")
			return err
		}, []string{"reminder_sent first 2027-06-11T14:00:00Z", "reminder_skipped last opted_out", "expired"}, []string{"sms sent"}},
		{"START before the last reminder", true, func(f *lifeFixture) error {
			_, err := f.st.OptIn(context.Background(), f.co.ID, phone)
			return err
		}, []string{"reminder_skipped first opted_out", "reminder_sent last 2027-06-16T14:00:00Z", "expired"}, []string{"sms sent"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newLifeFixture(t, "Registered Nurse", nil)
			sess := f.session(t, invited, phone, models.SessionStatusInvited, true)
			if tt.stopped {
				if _, err := f.st.OptOut(t.Context(), f.co.ID, phone, "STOP"); err != nil {
					t.Fatal(err)
				}
			}
			r := f.env(t, invited.Add(time.Second), sess)
			r.e.RegisterDelayedCallback(func() {
				if err := tt.at3Days(f); err != nil {
					t.Error(err)
				}
			}, 3*24*time.Hour)
			if err := r.run(t, f, sess); err != nil {
				t.Fatalf("workflow: %v", err)
			}
			if got := f.events(t, sess); !slices.Equal(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
			if got := f.reminderMessages(t, sess); !slices.Equal(got, tt.messages) {
				t.Errorf("reminder messages = %q, want %q", got, tt.messages)
			}
			if n := strings.Count(f.out.String(), "Reminder from Acme"); n != 1 {
				t.Errorf("%d reminders reached the outbox, want 1", n)
			}
		})
	}
}
