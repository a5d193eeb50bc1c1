package httpapi_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/twiliosim"
)

// postText posts the Messaging webhook of a text with the given MessageSid, signed as Twilio
// signs it, and returns the answer's status and TwiML.
func postText(t *testing.T, f *fixture, sid, from, body string) (int, string) {
	t.Helper()
	u := f.srv.URL + "/webhook/twilio/messages"
	form := url.Values{"MessageSid": {sid}, "SmsMessageSid": {sid}, "AccountSid": {simSID}, "From": {from}, "To": {ourSMS}, "Body": {body},
		"NumMedia": {"0"}, "NumSegments": {"1"}, "SmsStatus": {"received"}, "ApiVersion": {"2010-04-01"}}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", twiliosim.Sign(simToken, u, form))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTextRedeliveredAfterCrash: an api killed while it handled a candidate's text leaves the
// message id recorded and the text not handled. The redelivery of the same MessageSid (the front
// retrying on another replica, or Twilio) is handled, not dropped as a duplicate: when the
// process died before the answer was stored, the answer is stored and the next question asked;
// when it died after, the answer is not stored again (nor taken for the next question) and the
// next question is asked. A text handled to the end stays a duplicate.
func TestTextRedeliveredAfterCrash(t *testing.T) {
	f, sim := smsFixture(t)
	const phone = "+14155550177"
	session := f.inviteByText(t, "sms-crash", phone)
	await(t, 30*time.Second, "the SMS invitation", func() bool { return len(sim.Messages(phone)) > 0 })
	if got := say(t, sim, phone, "YES"); !strings.Contains(got, "Question 1") {
		t.Fatalf("after YES: %q, want the first question", got)
	}
	answered := func() (n int64) {
		t.Helper()
		if err := f.st.DB().Raw(`SELECT count(*) FROM interview_turns WHERE company_id = ? AND session_id = ? AND answer IS NOT NULL`, f.acme.ID, session).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Died after recording the id, before the answer: the redelivery answers.
	sid := "SM" + strings.ReplaceAll(uuid.NewString(), "-", "")
	if err := f.st.DB().Exec(`INSERT INTO inbound_messages (provider, message_id) VALUES ('twilio', ?)`, sid).Error; err != nil {
		t.Fatal(err)
	}
	before := answered()
	status, twiml := postText(t, f, sid, phone, goodAnswer)
	if status != http.StatusOK || !strings.Contains(twiml, "<Message>") {
		t.Fatalf("the redelivered text whose handler died = %d %q, want the next question", status, twiml)
	}
	if after := answered(); after != before+1 {
		t.Errorf("%d answers stored by the redelivery, want 1", after-before)
	}

	// Died after storing the answer, before marking the text handled: the redelivery asks what
	// comes next and stores nothing.
	res, err := sim.Reply(twiliosim.Reply{From: phone, To: ourSMS, Body: goodAnswer})
	if err != nil || res.Delivery.HTTPStatus != http.StatusOK || len(res.Replies) == 0 {
		t.Fatalf("an answer = %+v, %v", res.Delivery, err)
	}
	next := res.Replies[len(res.Replies)-1].Body
	if err := f.st.DB().Exec(`UPDATE inbound_messages SET handled_at = NULL WHERE provider = 'twilio' AND message_id = ?`, res.Message.SID).Error; err != nil {
		t.Fatal(err)
	}
	before = answered()
	status, twiml = postText(t, f, res.Message.SID, phone, goodAnswer)
	if status != http.StatusOK || !strings.Contains(twiml, "<Message>") {
		t.Fatalf("the redelivered text whose answer was stored = %d %q, want what comes next", status, twiml)
	}
	if after := answered(); after != before {
		t.Errorf("the redelivery stored %d more answers, want none (the answer was stored once)", after-before)
	}
	if want := strings.TrimSpace(next); len(want) > 20 && !strings.Contains(html.UnescapeString(twiml), want[:20]) {
		t.Errorf("the redelivery answered %q, want the question asked after the answer (%q)", twiml, next)
	}

	// Handled to the end: a duplicate, answered with nothing.
	before = answered()
	if status, twiml := postText(t, f, res.Message.SID, phone, goodAnswer); status != http.StatusOK || strings.Contains(twiml, "<Message>") || answered() != before {
		t.Errorf("a handled text delivered again = %d %q (%d answers more), want an empty answer and nothing stored", status, twiml, answered()-before)
	}
}
