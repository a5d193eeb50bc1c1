package activities

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/models"
)

// TestSendReminderOnce: a reminder goes once whatever crashes. An attempt that sent it but died
// before recording its event is repeated (another run of the session's workflow, so another
// activity): the message is found sent by its key and the event recorded, nothing sent again.
// Once recorded, the reminder is no longer due. A session cancelled meanwhile, or a time inside
// the candidate's quiet hours, gets nothing.
func TestSendReminderOnce(t *testing.T) {
	st, co, job := acmeNurse(t)
	ctx := t.Context()
	invited := time.Date(2027, 6, 10, 14, 0, 0, 0, time.UTC) // 10:00 in New York
	session := func(phone string, status models.SessionStatus) *models.InterviewSession {
		t.Helper()
		cand := &models.Candidate{CompanyID: co.ID, FirstName: "Ada", Phone: &phone}
		if err := st.DB().Create(cand).Error; err != nil {
			t.Fatal(err)
		}
		expires := invited.Add(7 * 24 * time.Hour)
		s := &models.InterviewSession{CompanyID: co.ID, CandidateID: cand.ID, JobID: job.ID, Status: status, MediumType: models.MediumTypeVideo,
			InvitedAt: invited, Decision: models.DecisionNone, ExpiresAt: &expires}
		if err := st.DB().Create(s).Error; err != nil {
			t.Fatal(err)
		}
		if err := st.CreateMessage(ctx, &models.Message{CompanyID: co.ID, CandidateID: cand.ID, SessionID: &s.ID, Direction: models.MessageDirectionOutbound,
			Channel: models.MessageChannelSMS, Status: models.MessageStatusSent, ToAddress: phone, Body: "invitation"}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	out := &lockedBuffer{}
	router, err := channels.NewRouter(channels.Config{Mode: channels.ModeOutbox}, out)
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Channels: router, Links: links.New("https://app.example.com", "")}
	due := invited.Add(24 * time.Hour)
	send := func(s *models.InterviewSession, now time.Time) string {
		t.Helper()
		res, err := a.SendReminder(ctx, SendReminderInput{CompanyID: co.ID, SessionID: s.ID, Key: "reminder/first", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return res.Outcome
	}
	count := func(s *models.InterviewSession, kind string) int {
		t.Helper()
		evs, err := st.InterviewEvents(ctx, co.ID, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range evs {
			if ev.Kind == kind {
				n++
			}
		}
		return n
	}

	s := session("+12125550101", models.SessionStatusInvited)
	st0, err := a.LoadInterview(ctx, InterviewAt{CompanyID: co.ID, SessionID: s.ID, Now: invited})
	if err != nil || st0.Reminder != "reminder/first" || !st0.ReminderAt.Equal(due) {
		t.Fatalf("LoadInterview = %+v, %v; want the first reminder a day later", st0, err)
	}
	if got := send(s, due); got != ReminderSent {
		t.Fatalf("SendReminder = %s, want sent", got)
	}
	if err := st.DB().Where("company_id = ? AND session_id = ? AND kind = ?", co.ID, s.ID, models.EventReminderSent).Delete(&models.InterviewEvent{}).Error; err != nil {
		t.Fatal(err)
	}
	if got := send(s, due.Add(time.Minute)); got != ReminderSent {
		t.Fatalf("repeated SendReminder = %s, want sent (found sent, recorded)", got)
	}
	if n := strings.Count(out.String(), "+12125550101"); n != 1 {
		t.Errorf("the reminder went out %d times, want once", n)
	}
	if n := count(s, models.EventReminderSent); n != 1 {
		t.Errorf("%d reminder_sent events, want 1", n)
	}
	if got := send(s, due.Add(2*time.Minute)); got != ReminderNotDue {
		t.Errorf("SendReminder after it was recorded = %s, want not_due", got)
	}
	msgs, err := st.SessionMessages(ctx, co.ID, s.ID)
	if err != nil || len(msgs) != 2 || msgs[0].Reminder || !msgs[1].Reminder || msgs[1].Channel != models.MessageChannelSMS {
		t.Errorf("messages = %+v, %v; want the invitation and one SMS reminder", msgs, err)
	}
	if !strings.Contains(out.String(), "https://app.example.com/interview/"+s.LinkToken) || !strings.Contains(out.String(), "Thu 17 Jun 10:00 EDT") {
		t.Errorf("reminder = %q, want the link and the deadline on the candidate's clock", out.String())
	}

	cancelled := session("+12125550102", models.SessionStatusCancelled)
	if got := send(cancelled, due); got != ReminderNotDue {
		t.Errorf("SendReminder of a cancelled session = %s, want not_due", got)
	}
	night := session("+12125550103", models.SessionStatusInvited)
	if got := send(night, time.Date(2027, 6, 12, 3, 0, 0, 0, time.UTC)); got != ReminderNotDue { // 23:00 in New York
		t.Errorf("SendReminder in the quiet hours = %s, want not_due", got)
	}
	if strings.Contains(out.String(), "+12125550102") || strings.Contains(out.String(), "+12125550103") {
		t.Error("a reminder went to the cancelled session or in the night")
	}
	if count(cancelled, models.EventReminderSkipped)+count(night, models.EventReminderSkipped) != 0 {
		t.Error("a reminder that was not due was recorded skipped")
	}
}
