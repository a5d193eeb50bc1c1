package twiliosim_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

const (
	accountSID = "AC0123456789abcdef0123456789abcdef"
	authToken  = "sim-token-1"
	ourNumber  = "+15005550006"
	candidate  = "+14155550101"
	templateID = "HX0123456789abcdef0123456789abcdef"
)

// receiver is recruitd's side: it verifies every webhook with internal/channels and records
// what it parsed. reply, when set, is the TwiML answered to inbound messages.
type receiver struct {
	*httptest.Server
	reply string

	mu       sync.Mutex
	inbound  []channels.Inbound
	statuses []channels.StatusCallback
	refused  int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	mux := http.NewServeMux()
	handle := func(parse func(url.Values) error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, channels.MaxWebhookBody+1))
			form, err := channels.ReadTwilioWebhook(authToken, rc.URL+r.URL.RequestURI(), r.Header, body)
			if err == nil {
				err = parse(form)
			}
			if err != nil {
				rc.mu.Lock()
				rc.refused++
				rc.mu.Unlock()
				http.Error(w, err.Error(), http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "text/xml")
			if rc.reply != "" && strings.HasPrefix(r.URL.Path, "/inbound") {
				_, _ = io.WriteString(w, rc.reply)
				return
			}
			_, _ = io.WriteString(w, channels.EmptyTwiML)
		}
	}
	mux.HandleFunc("POST /inbound", handle(func(f url.Values) error {
		in, err := channels.ParseInbound(f)
		if err == nil {
			rc.mu.Lock()
			rc.inbound = append(rc.inbound, in)
			rc.mu.Unlock()
		}
		return err
	}))
	mux.HandleFunc("POST /status", handle(func(f url.Values) error {
		cb, err := channels.ParseStatusCallback(f)
		if err == nil {
			rc.mu.Lock()
			rc.statuses = append(rc.statuses, cb)
			rc.mu.Unlock()
		}
		return err
	}))
	rc.Server = httptest.NewServer(mux)
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) statusesOf(sid string) []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, cb := range rc.statuses {
		if cb.MessageSID == sid {
			s := string(cb.Status)
			if cb.ErrorCode != "" {
				s += ":" + cb.ErrorCode
			}
			out = append(out, s)
		}
	}
	return out
}

// waitStatuses waits until sid has n callbacks and returns them.
func (rc *receiver) waitStatuses(t *testing.T, sid string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got := rc.statusesOf(sid); len(got) >= n {
			time.Sleep(50 * time.Millisecond) // no more than n
			return rc.statusesOf(sid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: callbacks %v, want %d", sid, rc.statusesOf(sid), n)
	return nil
}

func start(t *testing.T, rc *receiver) (*twiliosim.Server, *httptest.Server) {
	t.Helper()
	sim := twiliosim.New(twiliosim.Options{AccountSID: accountSID, AuthToken: authToken, InboundURL: rc.URL + "/inbound?src=twilio",
		StatusStep: 5 * time.Millisecond, Templates: map[string]string{templateID: "Hi {{1}}, your interview is waiting. Reply to continue."}})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	return sim, srv
}

// send posts to the Messages API as Twilio's clients do.
func send(t *testing.T, base string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/2010-04-01/Accounts/"+accountSID+"/Messages.json", strings.NewReader(form.Encode()))
	req.SetBasicAuth(accountSID, authToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestAdapterSendsThroughSimulator: internal/channels' Twilio provider, pointed at the
// simulator by base URL, sends SMS and WhatsApp; the simulator records them as sent.
func TestAdapterSendsThroughSimulator(t *testing.T) {
	rc := newReceiver(t)
	sim, srv := start(t, rc)
	tw, err := channels.NewTwilio(channels.TwilioConfig{BaseURL: srv.URL, AccountSID: accountSID, AuthToken: authToken, From: ourNumber, WhatsAppFrom: ourNumber})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := tw.Send(context.Background(), channels.Message{Channel: models.MessageChannelSMS, To: candidate, Text: "Reply YES to start"})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := sim.Message(rec.ProviderMessageID)
	if !ok || m.Body != "Reply YES to start" || m.From != ourNumber || m.To != candidate || m.Channel != "sms" || m.Direction != "outbound-api" {
		t.Fatalf("message %+v (%v)", m, ok)
	}
	rec, err = tw.Send(context.Background(), channels.Message{Channel: models.MessageChannelWhatsApp, To: candidate, Text: "Hello"})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := sim.Message(rec.ProviderMessageID); m.To != "whatsapp:"+candidate || m.Channel != "whatsapp" {
		t.Fatalf("whatsapp message %+v", m)
	}
	// outside the window: free text fails with 63016, the template goes; callbacks reach recruitd
	rec, err = tw.Send(context.Background(), channels.Message{Channel: models.MessageChannelWhatsApp, To: candidate, Text: "Are you still there?",
		StatusCallback: rc.URL + "/status"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.waitStatuses(t, rec.ProviderMessageID, 2); strings.Join(got, ",") != "queued,failed:63016" {
		t.Errorf("free text outside the window: %v", got)
	}
	rec, err = tw.Send(context.Background(), channels.Message{Channel: models.MessageChannelWhatsApp, To: candidate, Text: "Hi Sam, your interview is waiting.",
		TemplateID: templateID, TemplateVariables: map[string]string{"1": "Sam"}, StatusCallback: rc.URL + "/status"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.waitStatuses(t, rec.ProviderMessageID, 3); strings.Join(got, ",") != "queued,sent,delivered" {
		t.Errorf("template outside the window: %v", got)
	}
	if m, _ := sim.Message(rec.ProviderMessageID); m.Body != "Hi Sam, your interview is waiting. Reply to continue." {
		t.Errorf("template body %q", m.Body)
	}
	bad, _ := channels.NewTwilio(channels.TwilioConfig{BaseURL: srv.URL, AccountSID: accountSID, AuthToken: "wrong", From: ourNumber})
	_, err = bad.Send(context.Background(), channels.Message{Channel: models.MessageChannelSMS, To: candidate, Text: "x"})
	var ce *channels.Error
	if !errors.As(err, &ce) || ce.Code != "20003" || !ce.Permanent {
		t.Fatalf("wrong token: %v", err)
	}
}

// TestStatusCallbacks: queued, sent, delivered in order, each signed for the StatusCallback
// URL; then duplicated, reversed and failing on request.
func TestStatusCallbacks(t *testing.T) {
	rc := newReceiver(t)
	sim, srv := start(t, rc)
	cbURL := rc.URL + "/status?message=1"
	code, res := send(t, srv.URL, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"Question 1"}, "StatusCallback": {cbURL}})
	if code != http.StatusCreated || res["status"] != "queued" || res["account_sid"] != accountSID || res["direction"] != "outbound-api" {
		t.Fatalf("send = %d %v", code, res)
	}
	sid := res["sid"].(string)
	if got := rc.waitStatuses(t, sid, 3); strings.Join(got, ",") != "queued,sent,delivered" {
		t.Errorf("callbacks %v", got)
	}
	if err := sim.SetFaults(twiliosim.Faults{Duplicate: true, OutOfOrder: true}); err != nil {
		t.Fatal(err)
	}
	_, res = send(t, srv.URL, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"Question 2"}, "StatusCallback": {cbURL}})
	sid = res["sid"].(string)
	if got := rc.waitStatuses(t, sid, 6); strings.Join(got, ",") != "delivered,delivered,sent,sent,queued,queued" {
		t.Errorf("duplicated, out of order: %v", got)
	}
	if m, _ := sim.Message(sid); m.Status != "delivered" {
		t.Errorf("message status %s", m.Status)
	}
	_ = sim.SetFaults(twiliosim.Faults{Fail: "undelivered"})
	_, res = send(t, srv.URL, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"Question 3"}, "StatusCallback": {cbURL}})
	if got := rc.waitStatuses(t, res["sid"].(string), 3); strings.Join(got, ",") != "queued,sent,undelivered:30003" {
		t.Errorf("undelivered: %v", got)
	}
	_ = sim.SetFaults(twiliosim.Faults{Fail: "failed"})
	_, res = send(t, srv.URL, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"Question 4"}, "StatusCallback": {cbURL}})
	if got := rc.waitStatuses(t, res["sid"].(string), 2); strings.Join(got, ",") != "queued,failed:30008" {
		t.Errorf("failed: %v", got)
	}
	if err := sim.SetFaults(twiliosim.Faults{Fail: "lost"}); err == nil {
		t.Error("SetFaults took an unknown failure")
	}
	if rc.refused != 0 {
		t.Errorf("%d callbacks failed recruitd's signature check", rc.refused)
	}
}

// TestWhatsAppWindow: free text before the candidate wrote, or 24 hours after, fails with
// 63016; inside the window it is delivered; a template always is.
func TestWhatsAppWindow(t *testing.T) {
	rc := newReceiver(t)
	sim, srv := start(t, rc)
	cbURL := rc.URL + "/status"
	wa := func(kv ...string) string {
		f := url.Values{"To": {"whatsapp:" + candidate}, "From": {"whatsapp:" + ourNumber}, "StatusCallback": {cbURL}}
		for i := 0; i < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		code, res := send(t, srv.URL, f)
		if code != http.StatusCreated {
			t.Fatalf("send = %d %v", code, res)
		}
		return res["sid"].(string)
	}
	sid := wa("Body", "Next question")
	if got := rc.waitStatuses(t, sid, 2); strings.Join(got, ",") != "queued,failed:63016" {
		t.Errorf("free form outside the window: %v", got)
	}
	sid = wa("ContentSid", templateID, "ContentVariables", `{"1":"Sam"}`)
	if got := rc.waitStatuses(t, sid, 3); got[2] != "delivered" {
		t.Errorf("template: %v", got)
	}
	if m, _ := sim.Message(sid); m.Body != "Hi Sam, your interview is waiting. Reply to continue." || m.ContentSID != templateID {
		t.Errorf("template message %+v", m)
	}
	if _, err := sim.Reply(twiliosim.Reply{From: "whatsapp:" + candidate, Body: "Hi"}); err != nil {
		t.Fatal(err)
	}
	if !sim.WindowOpen(ourNumber, candidate) {
		t.Fatal("window closed after the candidate's message")
	}
	sid = wa("Body", "Next question")
	if got := rc.waitStatuses(t, sid, 3); got[2] != "delivered" {
		t.Errorf("free form inside the window: %v", got)
	}
	sim.Advance(twiliosim.WindowLength + time.Minute)
	sid = wa("Body", "Are you still there?")
	if got := rc.waitStatuses(t, sid, 2); got[1] != "failed:63016" {
		t.Errorf("free form after 24 hours: %v", got)
	}
	// the window is per thread: another number's message does not open it
	if _, err := sim.Reply(twiliosim.Reply{From: "whatsapp:+14155550102", To: ourNumber, Body: "Hi"}); err != nil {
		t.Fatal(err)
	}
	if sim.WindowOpen(ourNumber, candidate) {
		t.Error("another candidate's message opened this thread's window")
	}
}

// TestReplies: a candidate's reply reaches recruitd as Twilio's signed webhook (every field
// verified by internal/channels), goes to the number that wrote to the candidate, carries
// WhatsApp button payloads, and a TwiML <Message> answer is sent back; a redelivery repeats the
// MessageSid.
func TestReplies(t *testing.T) {
	rc := newReceiver(t)
	sim, srv := start(t, rc)
	if _, err := sim.Reply(twiliosim.Reply{From: candidate, Body: "hello"}); !errors.Is(err, twiliosim.ErrNoThread) {
		t.Fatalf("reply without a thread: %v", err)
	}
	send(t, srv.URL, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"Reply YES to start"}})
	rc.reply = `<?xml version="1.0" encoding="UTF-8"?><Response><Message>Question 1: why this job?</Message></Response>`
	res, err := sim.Reply(twiliosim.Reply{From: candidate, Body: "YES"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Delivery.HTTPStatus != http.StatusOK || len(rc.inbound) != 1 {
		t.Fatalf("delivery %+v, inbound %+v", res.Delivery, rc.inbound)
	}
	in := rc.inbound[0]
	if in.Body != "YES" || in.From != candidate || in.To != ourNumber || in.Channel != models.MessageChannelSMS || in.MessageSID != res.Message.SID || in.AccountSID != accountSID {
		t.Errorf("inbound %+v", in)
	}
	if len(res.Replies) != 1 || res.Replies[0].Body != "Question 1: why this job?" || res.Replies[0].To != candidate || res.Replies[0].Direction != "outbound-reply" {
		t.Errorf("TwiML replies %+v", res.Replies)
	}
	rc.reply = ""
	d, err := sim.Redeliver(res.Message.SID)
	if err != nil || d.HTTPStatus != http.StatusOK || len(rc.inbound) != 2 || rc.inbound[1].MessageSID != in.MessageSID {
		t.Errorf("redeliver %+v %v, inbound %d", d, err, len(rc.inbound))
	}

	send(t, srv.URL, url.Values{"To": {"whatsapp:" + candidate}, "From": {"whatsapp:" + ourNumber}, "ContentSid": {templateID}})
	if _, err := sim.Reply(twiliosim.Reply{From: candidate, Body: "Evenings", ButtonPayload: "2", ButtonText: "Evenings"}); err != nil {
		t.Fatal(err)
	}
	wa := rc.inbound[len(rc.inbound)-1]
	if wa.Channel != models.MessageChannelWhatsApp || wa.ButtonPayload != "2" || wa.ButtonText != "Evenings" || wa.From != candidate {
		t.Errorf("whatsapp button reply %+v", wa)
	}
	if rc.refused != 0 {
		t.Errorf("%d webhooks failed recruitd's signature check", rc.refused)
	}
	// a receiver with another token refuses the simulator's webhooks
	sim.SetInboundURL(rc.URL + "/inbound")
	other := twiliosim.New(twiliosim.Options{AccountSID: accountSID, AuthToken: "other", InboundURL: rc.URL + "/inbound"})
	defer other.Close()
	if res, err := other.Reply(twiliosim.Reply{From: candidate, To: ourNumber, Body: "x"}); err != nil || res.Delivery.HTTPStatus != http.StatusForbidden {
		t.Errorf("webhook signed with another token: %+v %v", res.Delivery, err)
	}
}

func TestAPIErrors(t *testing.T) {
	rc := newReceiver(t)
	_, srv := start(t, rc)
	post := func(account, user, pass string, f url.Values) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/2010-04-01/Accounts/"+account+"/Messages.json", strings.NewReader(f.Encode()))
		req.SetBasicAuth(user, pass)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	ok := url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"x"}}
	cases := []struct {
		name          string
		account, pass string
		form          url.Values
		status        int
		code          float64
	}{
		{"wrong token", accountSID, "nope", ok, 401, 20003},
		{"other account in path", "AC" + strings.Repeat("1", 32), authToken, ok, 401, 20003},
		{"no To", accountSID, authToken, url.Values{"From": {ourNumber}, "Body": {"x"}}, 400, 21604},
		{"no From", accountSID, authToken, url.Values{"To": {candidate}, "Body": {"x"}}, 400, 21603},
		{"bad To", accountSID, authToken, url.Values{"To": {"12"}, "From": {ourNumber}, "Body": {"x"}}, 400, 21211},
		{"no body", accountSID, authToken, url.Values{"To": {candidate}, "From": {ourNumber}}, 400, 21602},
		{"mixed channels", accountSID, authToken, url.Values{"To": {"whatsapp:" + candidate}, "From": {ourNumber}, "Body": {"x"}}, 400, 21910},
		{"long body", accountSID, authToken, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {strings.Repeat("a", 1601)}}, 400, 21617},
		{"bad ContentSid", accountSID, authToken, url.Values{"To": {candidate}, "From": {ourNumber}, "ContentSid": {"HX1"}}, 400, 21655},
		{"bad variables", accountSID, authToken, url.Values{"To": {candidate}, "From": {ourNumber}, "ContentSid": {templateID}, "ContentVariables": {"[1]"}}, 400, 21656},
		{"bad callback", accountSID, authToken, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"x"}, "StatusCallback": {"ftp://x"}}, 400, 21609},
	}
	for _, c := range cases {
		status, body := post(c.account, accountSID, c.pass, c.form)
		if status != c.status || body["code"] != c.code || body["more_info"] == nil {
			t.Errorf("%s: %d %v, want %d code %v", c.name, status, body, c.status, c.code)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/2010-04-01/Accounts/"+accountSID+"/Messages/SM"+strings.Repeat("0", 32)+".json", nil)
	req.SetBasicAuth(accountSID, authToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown message = %d", resp.StatusCode)
	}
}

// TestControlsOverHTTP: the page, /sim/reply, /sim/messages, /sim/faults, /sim/advance and the
// page's reply form.
func TestControlsOverHTTP(t *testing.T) {
	rc := newReceiver(t)
	sim, srv := start(t, rc)
	_, res := send(t, srv.URL, url.Values{"To": {candidate}, "From": {ourNumber}, "Body": {"Which shift suits you?\n1. Mornings\n2. Evenings"}})
	jsonPost := func(path, body string) (int, []byte) {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, body := jsonPost("/sim/reply", `{"from":"`+candidate+`","body":"2"}`)
	var rr twiliosim.ReplyResult
	if err := json.Unmarshal(body, &rr); code != http.StatusOK || err != nil || rr.Message.To != ourNumber || rr.Delivery.HTTPStatus != http.StatusOK {
		t.Fatalf("/sim/reply = %d %s", code, body)
	}
	if code, body := jsonPost("/sim/reply", `{"from":"nobody","body":"2"}`); code != http.StatusBadRequest {
		t.Errorf("bad reply = %d %s", code, body)
	}
	if code, _ := jsonPost("/sim/reply", `{"from":"`+candidate+`","body":"2","extra":1}`); code != http.StatusBadRequest {
		t.Errorf("unknown field = %d", code)
	}
	resp, err := http.Get(srv.URL + "/sim/messages?number=" + url.QueryEscape(candidate))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []twiliosim.Message
	_ = json.NewDecoder(resp.Body).Decode(&msgs)
	resp.Body.Close()
	if len(msgs) != 2 || msgs[0].SID != res["sid"] || msgs[1].Direction != "inbound" || msgs[1].Body != "2" || msgs[1].WebhookStatus != http.StatusOK {
		t.Errorf("/sim/messages = %+v", msgs)
	}
	if code, _ := jsonPost("/sim/faults", `{"duplicate":true,"out_of_order":false,"fail":""}`); code != http.StatusOK || !sim.Faults().Duplicate {
		t.Errorf("/sim/faults = %d %+v", code, sim.Faults())
	}
	if code, _ := jsonPost("/sim/faults", `{"fail":"boom"}`); code != http.StatusBadRequest {
		t.Errorf("bad fault = %d", code)
	}
	if code, _ := jsonPost("/sim/advance", `{"by":"25h"}`); code != http.StatusNoContent {
		t.Errorf("/sim/advance = %d", code)
	}
	if code, _ := jsonPost("/sim/messages/"+rr.Message.SID+"/redeliver", ``); code != http.StatusOK {
		t.Errorf("redeliver = %d", code)
	}

	page, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	for _, want := range []string{`<html lang="en">`, "Which shift suits you?", candidate[1:], `action="/sim/reply-form"`, `<label for="new-body">`, "recruitd answered 200"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.PostForm(srv.URL+"/sim/reply-form", url.Values{"from": {candidate}, "to": {ourNumber}, "body": {"Mornings after all"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(sim.Messages(candidate)) != 3 {
		t.Errorf("reply form = %d, %d messages", resp.StatusCode, len(sim.Messages(candidate)))
	}
	rc.mu.Lock()
	n := len(rc.inbound)
	rc.mu.Unlock()
	if n != 3 { // the reply, its redelivery, the form's reply
		t.Errorf("recruitd got %d inbound webhooks, want 3", n)
	}
}
