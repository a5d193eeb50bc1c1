package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

// setQuietHours sets acme's quiet hours ("HH:MM" each; equal: none).
func (f *fixture) setQuietHours(t *testing.T, start, end string) {
	t.Helper()
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).
		Updates(map[string]any{"quiet_hours_start": start, "quiet_hours_end": end}).Error; err != nil {
		t.Fatal(err)
	}
}

// inviteByWhatsApp invites a candidate with phone to a mediumType WHATSAPP interview by
// WhatsApp, for a generated job with a structured question; it returns the session.
func (f *fixture) inviteByWhatsApp(t *testing.T, ext, phone string) uuid.UUID {
	t.Helper()
	job := f.createJob(t, f.acmeKey, map[string]any{
		"externalJobId": ext, "jobDescription": description, "jobTitle": "Backend Engineer",
		"structuredAdditionalQuestions": []map[string]any{{"question": "Do you hold an EU work permit?", "answers": []string{"Yes", "No"}}},
	})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": job.Payload, "channels": []string{"whatsapp"}, "mediumType": "WHATSAPP",
		"candidate": map[string]any{"firstName": "Wanda", "lastName": "Thread", "phone": phone},
	})
	if resp.StatusCode != 200 {
		t.Fatalf("inviteCandidate = %d", resp.StatusCode)
	}
	return uuid.MustParse(decode[httpapi.InviteCandidateResponse](t, resp).SessionID)
}

// reply sends r as the candidate and returns what recruitd sent back in the thread.
func reply(t *testing.T, sim *twiliosim.Server, r twiliosim.Reply) string {
	t.Helper()
	r.To = ourSMS
	res, err := sim.Reply(r)
	if err != nil {
		t.Fatalf("reply %+v: %v", r, err)
	}
	if res.Delivery.HTTPStatus != http.StatusOK {
		t.Fatalf("reply %+v: the webhook answered %d %s", r, res.Delivery.HTTPStatus, res.Delivery.Error)
	}
	var out []string
	for _, m := range res.Replies {
		out = append(out, m.Body)
	}
	return strings.Join(out, "\n")
}

// TestWhatsAppInterview takes a whole interview in the candidate's WhatsApp thread through the
// Twilio simulator, which fails a free-form message outside the 24-hour window with 63016 as
// Twilio does. The invitation goes as a template (recruitd writes first); YES starts; then the
// window closes (the stored window set back a day, the simulator's clock moved on) and the
// interview's last reminder falls due: a nudge template goes, never free text. The candidate's
// late reply reopens the window and the interview goes on in free-form replies, a structured
// question answered by a reply button's payload, to COMPLETED with one report.
func TestWhatsAppInterview(t *testing.T) {
	f, sim := smsFixture(t)
	const phone = "+14155550142"
	wa := "whatsapp:" + phone
	// Started in the thread, the session's deadline is an hour away and its last reminder (the
	// nudge) due 15 s after the start.
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).Updates(map[string]any{
		"interview_reminders_enabled": true, "interview_incomplete_seconds": 3600, "interview_last_reminder_seconds": 3585}).Error; err != nil {
		t.Fatal(err)
	}
	session := f.inviteByWhatsApp(t, "wa-1", phone)
	var invitation twiliosim.Message
	await(t, 30*time.Second, "the WhatsApp invitation", func() bool {
		for _, m := range sim.Messages(phone) {
			invitation = m
			return true
		}
		return false
	})
	if invitation.Channel != "whatsapp" || invitation.ContentSID != conversation.DevTemplateIDs[conversation.TemplateInviteText] ||
		!strings.Contains(invitation.Body, "Reply YES") || !strings.Contains(invitation.Body, "Hi Wanda, Acme") || !strings.Contains(invitation.ContentVariables, "/interview/") {
		t.Fatalf("invitation = %+v, want the text-invitation template with the name, company and link", invitation)
	}
	if got := reply(t, sim, twiliosim.Reply{From: wa, Body: "YES"}); !strings.Contains(got, "Question 1") {
		t.Fatalf("after YES: %q, want the first question", got)
	}
	// A day without a word from the candidate: the window closes, here and at the provider.
	res := f.st.DB().Exec(`UPDATE thread_windows SET last_inbound_at = last_inbound_at - interval '25 hours' WHERE company_id = ? AND channel = 'whatsapp' AND address = ?`, f.acme.ID, phone)
	if res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("set the window back: %v, %d rows", res.Error, res.RowsAffected)
	}
	sim.Advance(25 * time.Hour)
	if sim.WindowOpen(ourSMS, wa) {
		t.Fatal("the simulator's window is still open")
	}
	var nudge twiliosim.Message
	await(t, 90*time.Second, "the nudge", func() bool {
		for _, m := range sim.Messages(phone) {
			if m.Direction == "outbound-api" && m.SID != invitation.SID {
				nudge = m
				return true
			}
		}
		return false
	})
	if nudge.ContentSID != conversation.DevTemplateIDs[conversation.TemplateNudge] || !strings.Contains(nudge.Body, "Reply here to continue") {
		t.Fatalf("reminder outside the window = %+v, want the nudge template", nudge)
	}
	var lastInbound time.Time
	for _, m := range sim.Messages(phone) {
		if m.Direction == "inbound" && m.CreatedAt.Before(nudge.CreatedAt) {
			lastInbound = m.CreatedAt
		}
	}
	if gap := nudge.CreatedAt.Sub(lastInbound); gap < 24*time.Hour {
		t.Fatalf("the nudge went %s after the candidate's last message, want it outside the window", gap)
	}

	// The late reply reopens the window: the interview goes on in free-form replies.
	got := reply(t, sim, twiliosim.Reply{From: wa, Body: goodAnswer})
	choices := 0
	for i := 0; ; i++ {
		if i == 30 {
			t.Fatalf("no end after 30 messages; last: %q", got)
		}
		if strings.Contains(got, "Thank") && !strings.Contains(got, "?") {
			break
		}
		if strings.Contains(got, "\n1. Yes\n2. No") {
			choices++
			got = reply(t, sim, twiliosim.Reply{From: wa, ButtonPayload: "1", ButtonText: "Yes"})
			continue
		}
		got = reply(t, sim, twiliosim.Reply{From: wa, Body: goodAnswer})
	}
	if choices != 1 {
		t.Errorf("structured questions %d, want 1 (numbered, answered by a button)", choices)
	}
	f.completedWithOneReport(t, f.acme, f.acmeKey, session)
	var permit string
	f.st.DB().Raw(`SELECT coalesce(answer, '') FROM interview_turns WHERE company_id = ? AND session_id = ? AND question LIKE '%EU work permit%'`, f.acme.ID, session).Row().Scan(&permit)
	if permit != "Yes" {
		t.Errorf("the button's answer was stored as %q, want Yes", permit)
	}

	// Nothing free-form was attempted outside the window: no 63016, every message recruitd
	// initiated was a template, and none was refused on our side either.
	for _, m := range sim.Messages(phone) {
		if m.ErrorCode == twiliosim.ErrorOutsideWindow {
			t.Errorf("free-form outside the window reached the provider: %+v", m)
		}
		if m.Direction == "outbound-api" && m.ContentSID == "" {
			t.Errorf("an initiated WhatsApp message without a template: %+v", m)
		}
	}
	var failed int64
	f.st.DB().Raw(`SELECT count(*) FROM messages WHERE company_id = ? AND session_id = ? AND status = 'failed'`, f.acme.ID, session).Scan(&failed)
	if failed != 0 {
		t.Errorf("%d messages failed", failed)
	}

	// An interview on the web page, invited by WhatsApp: the invitation template with the link.
	const other = "+14155550143"
	resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": f.acme.Slug + "-wa-1", "channels": []string{"whatsapp"}, "mediumType": "VIDEO",
		"candidate": map[string]any{"firstName": "Vic", "lastName": "Web", "phone": other},
	})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("inviteCandidate (VIDEO) = %d", resp.StatusCode)
	}
	await(t, 30*time.Second, "the web interview's WhatsApp invitation", func() bool { return len(sim.Messages(other)) > 0 })
	if m := sim.Messages(other)[0]; m.ContentSID != conversation.DevTemplateIDs[conversation.TemplateInvite] ||
		strings.Contains(m.Body, "Reply YES") || !strings.Contains(m.Body, "/interview/") {
		t.Errorf("invitation to a web interview = %+v, want the invitation template with the link", m)
	}
}

// TestTextQuietHours: an SMS invitation due inside the candidate's quiet hours (their phone's
// zone) waits, durably, until they end; a reply to the candidate's own message inside quiet
// hours goes at once.
func TestTextQuietHours(t *testing.T) {
	f, sim := smsFixture(t)
	const phone = "+14155550177" // America/Los_Angeles
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().In(la)
	end := now.Truncate(time.Minute).Add(2 * time.Minute) // 60 to 120 s away
	f.setQuietHours(t, now.Add(-time.Hour).Format("15:04"), end.Format("15:04"))
	f.inviteByText(t, "sms-quiet", phone)
	time.Sleep(5 * time.Second)
	if msgs := sim.Messages(phone); len(msgs) != 0 {
		t.Fatalf("%d messages reached the number in its quiet hours (until %s): %+v", len(msgs), end.Format("15:04 MST"), msgs)
	}
	await(t, 3*time.Minute, "the held invitation", func() bool { return len(sim.Messages(phone)) > 0 })
	inv := sim.Messages(phone)[0]
	if inv.CreatedAt.Before(end.Add(-time.Second)) || !strings.Contains(inv.Body, "Reply YES") {
		t.Errorf("invitation %q at %s, want it at the end of the quiet hours %s", inv.Body, inv.CreatedAt, end)
	}
	// Quiet hours again: the candidate writes, and the answer goes at once.
	now = time.Now().In(la)
	f.setQuietHours(t, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04"))
	begin := time.Now()
	if got := say(t, sim, phone, "YES"); !strings.Contains(got, "Question 1") {
		t.Errorf("YES in quiet hours: %q, want the first question at once", got)
	}
	if took := time.Since(begin); took > 30*time.Second {
		t.Errorf("the reply took %s", took)
	}
}
