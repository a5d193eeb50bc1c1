package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

const (
	simSID   = "AC00000000000000000000000000000001"
	simToken = "sim-auth-token"
	ourSMS   = "+15005550006"
)

// smsFixture is a fixture whose texts go through the Twilio simulator, which posts the
// candidates' replies, signed, to the fixture's webhook.
func smsFixture(t *testing.T) (*fixture, *twiliosim.Server) {
	t.Helper()
	templates := map[string]string{}
	for key, id := range conversation.DevTemplateIDs {
		templates[id] = conversation.TemplateBodies[key]
	}
	sim := twiliosim.New(twiliosim.Options{AccountSID: simSID, AuthToken: simToken, Templates: templates})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	f := newFixture(t, withEnv("TWILIO_AUTH_TOKEN="+simToken, "INTERVIEW_RATE_BURST=1000"), withMessaging(channels.Config{Mode: channels.ModeLive,
		SMTP:   channels.SMTPConfig{Host: "127.0.0.1", From: "interviews@example.com"},
		Twilio: channels.TwilioConfig{BaseURL: srv.URL, AccountSID: simSID, AuthToken: simToken, From: ourSMS, WhatsAppFrom: ourSMS}}))
	sim.SetInboundURL(f.srv.URL + "/webhook/twilio/messages")
	f.setQuietHours(t, "00:00", "00:00") // texts go at once, whatever the hour (TestTextQuietHours sets them)
	return f, sim
}

// inviteByText creates a generated job with a structured question and invites a candidate with
// phone to a mediumType SMS interview by SMS; it returns the session.
func (f *fixture) inviteByText(t *testing.T, ext, phone string) uuid.UUID {
	t.Helper()
	job := f.createJob(t, f.acmeKey, map[string]any{
		"externalJobId": ext, "jobDescription": description, "jobTitle": "Backend Engineer",
		"structuredAdditionalQuestions": []map[string]any{{"question": "Do you hold an EU work permit?", "answers": []string{"Yes", "No"}}},
	})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": job.Payload, "channels": []string{"sms"}, "mediumType": "SMS",
		"candidate": map[string]any{"firstName": "Tex", "lastName": "Thread", "phone": phone},
	})
	if resp.StatusCode != 200 {
		t.Fatalf("inviteCandidate = %d", resp.StatusCode)
	}
	return uuid.MustParse(decode[httpapi.InviteCandidateResponse](t, resp).SessionID)
}

// say replies body as the candidate by SMS and returns what recruitd sent back in the thread.
func say(t *testing.T, sim *twiliosim.Server, from, body string) string {
	t.Helper()
	return reply(t, sim, twiliosim.Reply{From: from, Body: body})
}

// TestTextInterviewBySMS takes a whole interview in the candidate's SMS thread through the Twilio
// simulator (signed webhooks, TwiML answers): the invitation asks for YES; the questions come
// numbered, a structured one answered by its number, a short answer followed up; the closing
// message ends it, and the session is COMPLETED with one report. The web link opens the same
// session. A redelivered webhook (same MessageSid) changes nothing, and a forged one is refused.
func TestTextInterviewBySMS(t *testing.T) {
	f, sim := smsFixture(t)
	const phone = "+14155550123"
	session := f.inviteByText(t, "sms-1", phone)
	await(t, 30*time.Second, "the SMS invitation", func() bool {
		for _, m := range sim.Messages(phone) {
			if strings.Contains(m.Body, "Reply YES") {
				return true
			}
		}
		return false
	})
	if got := say(t, sim, phone, "hello?"); !strings.Contains(got, "Reply YES to start") {
		t.Fatalf("before consent: %q, want the consent request", got)
	}
	got := say(t, sim, phone, "YES")
	choices, followUps := 0, 0
	for i := 0; ; i++ {
		if i == 30 {
			t.Fatalf("no end after 30 messages; last: %q", got)
		}
		if strings.Contains(got, "Thank") && !strings.Contains(got, "?") {
			break
		}
		switch {
		case strings.Contains(got, "\n1. Yes") || strings.Contains(got, "1. Yes"):
			choices++
			got = say(t, sim, phone, "1")
		case i == 0:
			got = say(t, sim, phone, "Go, mostly.") // short: followed up
		default:
			if !strings.Contains(got, "Question") {
				followUps++
			}
			got = say(t, sim, phone, goodAnswer)
		}
	}
	if choices != 1 || followUps < 1 {
		t.Errorf("structured questions %d, follow-ups %d; want 1 and at least 1", choices, followUps)
	}
	f.completedWithOneReport(t, f.acme, f.acmeKey, session)
	var answers int64
	f.st.DB().Raw(`SELECT count(*) FROM interview_turns WHERE company_id = ? AND session_id = ? AND answer IS NOT NULL`, f.acme.ID, session).Scan(&answers)
	if answers < 3 {
		t.Errorf("%d answers stored, want the whole interview", answers)
	}
	// A message after the end changes nothing and says so.
	if got := say(t, sim, phone, "one more thing"); !strings.Contains(got, "has ended") {
		t.Errorf("after the end: %q", got)
	}
	// The provider redelivers a message it already delivered: answered once.
	last := sim.Messages(phone)
	var inbound string
	for _, m := range last {
		if m.Direction == "inbound" {
			inbound = m.SID
		}
	}
	d, err := sim.Redeliver(inbound)
	if err != nil || d.HTTPStatus != http.StatusOK {
		t.Errorf("redelivered webhook = %+v, %v; want 200 with no message", d, err)
	}
	// A forged signature is refused.
	form := url.Values{"MessageSid": {"SM" + strings.Repeat("f", 32)}, "AccountSid": {simSID}, "From": {phone}, "To": {ourSMS}, "Body": {"YES"}}
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/webhook/twilio/messages", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", "bm90IGEgc2lnbmF0dXJl")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged webhook = %d, want 401", resp.StatusCode)
	}
	var channels []string
	f.st.DB().Raw(`SELECT DISTINCT channel FROM interview_turns WHERE company_id = ? AND session_id = ? AND answer IS NOT NULL`, f.acme.ID, session).Scan(&channels)
	if len(channels) != 1 || channels[0] != "sms" {
		t.Errorf("the answers' channels = %v, want sms", channels)
	}
	f.scanThreadHistories(t, sim, phone, session, 3)
}

// TestTextOptOut: STOP in the middle of an interview is confirmed once, then the number gets
// nothing (replies, invitations) from the company; START resumes; a refusal in words is STOP.
func TestTextOptOut(t *testing.T) {
	f, sim := smsFixture(t)
	const phone = "+14155550199"
	session := f.inviteByText(t, "sms-stop", phone)
	await(t, 30*time.Second, "the SMS invitation", func() bool { return len(sim.Messages(phone)) > 0 })
	if got := say(t, sim, phone, "YES"); !strings.Contains(got, "Question 1") {
		t.Fatalf("after YES: %q, want the first question", got)
	}
	if got := say(t, sim, phone, "STOP"); !strings.Contains(got, "unsubscribed") {
		t.Fatalf("STOP: %q, want the confirmation", got)
	}
	if got := say(t, sim, phone, "STOP"); got != "" {
		t.Errorf("a second STOP got %q, want silence", got)
	}
	if got := say(t, sim, phone, "my answer"); got != "" {
		t.Errorf("a message after STOP got %q, want silence", got)
	}
	var optedOut int64
	f.st.DB().Raw(`SELECT count(*) FROM channel_opt_outs WHERE company_id = ? AND address = ? AND keyword = 'STOP'`, f.acme.ID, phone).Scan(&optedOut)
	if optedOut != 1 {
		t.Errorf("opt-out recorded %d times, want once with its keyword", optedOut)
	}
	// No new invitation reaches the number by SMS while it is opted out.
	before := len(sim.Messages(phone))
	resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": f.acme.Slug + "-sms-stop", "channels": []string{"sms"},
		"candidate": map[string]any{"firstName": "Tex", "lastName": "Again", "phone": phone},
	})
	resp.Body.Close()
	time.Sleep(3 * time.Second)
	if after := len(sim.Messages(phone)); after != before {
		t.Errorf("%d messages reached the opted-out number after STOP", after-before)
	}
	if got := say(t, sim, phone, "START"); !strings.Contains(got, "subscribed again") {
		t.Errorf("START: %q", got)
	}
	if got := say(t, sim, phone, "Please stop texting me"); !strings.Contains(got, "unsubscribed") {
		t.Errorf("a refusal in words: %q, want the opt-out confirmation", got)
	}
	var keyword string
	f.st.DB().Raw(`SELECT keyword FROM channel_opt_outs WHERE company_id = ? AND address = ?`, f.acme.ID, phone).Row().Scan(&keyword)
	if keyword != "free-text" {
		t.Errorf("keyword = %q, want free-text", keyword)
	}
	_ = models.SessionStatusStarted
	f.scanThreadHistories(t, sim, phone, session, 3)
}
