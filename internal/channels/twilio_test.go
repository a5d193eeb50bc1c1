package channels

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recruitd/recruitd/models"
)

const (
	testSID   = "AC0123456789abcdef0123456789abcdef"
	testToken = "tok-9f8e7d6c5b4a"
)

// twilioRequest is what the fake Twilio API saw.
type twilioRequest struct {
	path       string
	user, pass string
	basicOK    bool
	form       url.Values
}

// twilioPeer is an HTTP server speaking the Messages and Calls resources of the Twilio API.
// respond, when set, answers instead of the default 201.
type twilioPeer struct {
	*httptest.Server
	respond func(w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	reqs []twilioRequest
}

func startTwilioPeer(t *testing.T, respond func(w http.ResponseWriter, r *http.Request)) *twilioPeer {
	t.Helper()
	p := &twilioPeer{respond: respond}
	mux := http.NewServeMux()
	handle := func(prefix string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			user, pass, ok := r.BasicAuth()
			p.mu.Lock()
			n := len(p.reqs)
			p.reqs = append(p.reqs, twilioRequest{path: r.URL.Path, user: user, pass: pass, basicOK: ok, form: r.PostForm})
			p.mu.Unlock()
			if p.respond != nil {
				p.respond(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"sid": "%s%032d", "status": "queued"}`, prefix, n)
		}
	}
	mux.HandleFunc("POST /2010-04-01/Accounts/{sid}/Messages.json", handle("SM"))
	mux.HandleFunc("POST /2010-04-01/Accounts/{sid}/Calls.json", handle("CA"))
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

func (p *twilioPeer) requests() []twilioRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]twilioRequest(nil), p.reqs...)
}

func newTestTwilio(t *testing.T, p *twilioPeer, edit func(*TwilioConfig)) *Twilio {
	t.Helper()
	cfg := TwilioConfig{
		BaseURL: p.URL, AccountSID: testSID, AuthToken: testToken,
		From: "+14155550100", WhatsAppFrom: "+14155550111",
		Timeout: 5 * time.Second, HTTPClient: p.Client(),
	}
	if edit != nil {
		edit(&cfg)
	}
	tw, err := NewTwilio(cfg)
	if err != nil {
		t.Fatalf("NewTwilio: %v", err)
	}
	return tw
}

func TestTwilioSend(t *testing.T) {
	const text = `Hi Ada & co, your <interview> "starts" here: https://interviews.example/i/3f6c?x=1&y=2`
	tests := []struct {
		channel  models.MessageChannel
		to       string
		path     string
		form     map[string]string
		sidStart string
	}{
		{models.MessageChannelSMS, "+447400123456", "/2010-04-01/Accounts/" + testSID + "/Messages.json",
			map[string]string{"To": "+447400123456", "From": "+14155550100", "Body": text}, "SM"},
		{models.MessageChannelWhatsApp, "+447400123456", "/2010-04-01/Accounts/" + testSID + "/Messages.json",
			map[string]string{"To": "whatsapp:+447400123456", "From": "whatsapp:+14155550111", "Body": text}, "SM"},
		{models.MessageChannelWhatsApp, "whatsapp:+447400123456", "/2010-04-01/Accounts/" + testSID + "/Messages.json",
			map[string]string{"To": "whatsapp:+447400123456", "From": "whatsapp:+14155550111", "Body": text}, "SM"},
		{models.MessageChannelPhone, "+14155552671", "/2010-04-01/Accounts/" + testSID + "/Calls.json",
			map[string]string{"To": "+14155552671", "From": "+14155550100",
				"Twiml": `<Response><Say>Hi Ada &amp; co, your &lt;interview&gt; &#34;starts&#34; here: https://interviews.example/i/3f6c?x=1&amp;y=2</Say></Response>`},
			"CA"},
	}
	for _, tt := range tests {
		t.Run(string(tt.channel)+" "+tt.to, func(t *testing.T) {
			peer := startTwilioPeer(t, nil)
			tw := newTestTwilio(t, peer, nil)
			rec, err := tw.Send(context.Background(), Message{Channel: tt.channel, To: tt.to, Text: text})
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if rec.Provider != "twilio" || !strings.HasPrefix(rec.ProviderMessageID, tt.sidStart) {
				t.Errorf("Send receipt = %+v, want twilio and a %s… sid", rec, tt.sidStart)
			}
			reqs := peer.requests()
			if len(reqs) != 1 {
				t.Fatalf("peer got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.path != tt.path {
				t.Errorf("path = %q, want %q", r.path, tt.path)
			}
			if !r.basicOK || r.user != testSID || r.pass != testToken {
				t.Errorf("basic auth = %q:%q (present %v), want the account SID and token", r.user, r.pass, r.basicOK)
			}
			if len(r.form) != len(tt.form) {
				t.Errorf("form = %v, want exactly %v", r.form, tt.form)
			}
			for k, want := range tt.form {
				if got := r.form.Get(k); got != want {
					t.Errorf("form %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestTwilioErrors(t *testing.T) {
	twilioErr := func(status, code int, msg string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "status": status,
				"more_info": fmt.Sprintf("https://www.twilio.com/docs/errors/%d", code)})
		}
	}
	tests := []struct {
		name      string
		respond   func(w http.ResponseWriter, r *http.Request)
		timeout   time.Duration
		permanent bool
		code      string
		is        error
	}{
		{name: "400 invalid To", respond: twilioErr(400, 21211, "The 'To' number +15005550001 is not a valid phone number."),
			permanent: true, code: "21211", is: ErrInvalidAddress},
		{name: "400 unsubscribed", respond: twilioErr(400, 21610, "Attempt to send to unsubscribed recipient"),
			permanent: true, code: "21610"},
		{name: "401", respond: twilioErr(401, 20003, "Authenticate"), permanent: true, code: "20003"},
		{name: "404", respond: twilioErr(404, 20404, "The requested resource was not found"), permanent: true, code: "20404"},
		{name: "408", respond: twilioErr(408, 0, "Request Timeout"), code: "408"},
		{name: "429", respond: twilioErr(429, 20429, "Too Many Requests"), code: "20429"},
		{name: "500", respond: twilioErr(500, 0, "Internal Server Error"), code: "500"},
		{name: "503 without JSON", respond: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
		}, code: "503"},
		{name: "timeout", timeout: 50 * time.Millisecond, respond: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}},
		{name: "2xx without sid", respond: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"status": "queued"}`)
		}, permanent: true},
		{name: "2xx response over 64 KiB", respond: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"sid": "SM1", "pad": "%s"}`, strings.Repeat("x", 70<<10))
		}, permanent: true},
		{name: "server echoes the credentials", respond: func(w http.ResponseWriter, r *http.Request) {
			_, pass, _ := r.BasicAuth()
			twilioErr(401, 20003, "bad token "+pass+" in "+r.Header.Get("Authorization"))(w, r)
		}, permanent: true, code: "20003"},
		{name: "server echoes the credentials without JSON", respond: func(w http.ResponseWriter, r *http.Request) {
			_, pass, _ := r.BasicAuth()
			http.Error(w, strings.Repeat("y", 190)+pass+" "+r.Header.Get("Authorization"), http.StatusForbidden)
		}, permanent: true, code: "403"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer := startTwilioPeer(t, tt.respond)
			tw := newTestTwilio(t, peer, func(c *TwilioConfig) {
				if tt.timeout != 0 {
					c.Timeout = tt.timeout
				}
			})
			_, err := tw.Send(context.Background(), Message{Channel: models.MessageChannelSMS, To: "+14155552671", Text: "Hello"})
			if err == nil {
				t.Fatal("Send succeeded, want an error")
			}
			t.Logf("Send error: %v", err)
			if IsPermanent(err) != tt.permanent {
				t.Errorf("IsPermanent(%v) = %v, want %v", err, IsPermanent(err), tt.permanent)
			}
			var e *Error
			if !errors.As(err, &e) || e.Provider != "twilio" || e.Code != tt.code {
				t.Errorf("Send error = %#v, want an *Error from twilio with code %q", err, tt.code)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Send error = %v, want it to wrap %v", err, tt.is)
			}
			basic := base64.StdEncoding.EncodeToString([]byte(testSID + ":" + testToken))
			if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), basic) {
				t.Errorf("Send error %q shows the auth token", err)
			}
			if s := fmt.Sprintf("%v %+v", tw, TwilioConfig{AuthToken: testToken}); strings.Contains(s, testToken) {
				t.Errorf("printing the provider or its config shows the auth token: %s", s)
			}
		})
	}
}

func TestTwilioRejectsBeforeSending(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*TwilioConfig)
		m    Message
		is   error
	}{
		{"not E.164", nil, Message{Channel: models.MessageChannelSMS, To: "(415) 555-2671", Text: "Hi"}, ErrInvalidAddress},
		{"e-mail address", nil, Message{Channel: models.MessageChannelPhone, To: "ada@example.com", Text: "Hi"}, ErrInvalidAddress},
		{"empty text", nil, Message{Channel: models.MessageChannelSMS, To: "+14155552671", Text: " "}, nil},
		{"e-mail channel", nil, Message{Channel: models.MessageChannelEmail, To: "+14155552671", Text: "Hi"}, ErrUnavailable},
		{"no From", func(c *TwilioConfig) { c.From = "" }, Message{Channel: models.MessageChannelPhone, To: "+14155552671", Text: "Hi"}, ErrUnavailable},
		{"no WhatsApp From", func(c *TwilioConfig) { c.WhatsAppFrom = "" }, Message{Channel: models.MessageChannelWhatsApp, To: "+14155552671", Text: "Hi"}, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer := startTwilioPeer(t, nil)
			_, err := newTestTwilio(t, peer, tt.cfg).Send(context.Background(), tt.m)
			if !IsPermanent(err) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("Send(%+v) error = %v, want a permanent error wrapping %v", tt.m, err, tt.is)
			}
			if n := len(peer.requests()); n != 0 {
				t.Errorf("peer got %d requests, want 0", n)
			}
		})
	}
}

func TestNewTwilioErrors(t *testing.T) {
	tests := []struct {
		cfg  TwilioConfig
		want string
	}{
		{TwilioConfig{AuthToken: testToken}, "TWILIO_ACCOUNT_SID"},
		{TwilioConfig{AccountSID: testSID}, "TWILIO_AUTH_TOKEN"},
		{TwilioConfig{AccountSID: testSID, AuthToken: testToken, BaseURL: "ftp://example.com"}, "TWILIO_BASE_URL"},
		{TwilioConfig{AccountSID: testSID, AuthToken: testToken, BaseURL: "api.twilio.com"}, "TWILIO_BASE_URL"},
	}
	for _, tt := range tests {
		_, err := NewTwilio(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), testToken) {
			t.Errorf("NewTwilio(%v) error = %v, want one naming %s", tt.cfg, err, tt.want)
		}
	}
}

// TestTwilioSendTemplateAndCallback: a template goes as ContentSid with its variables as a
// JSON object and no Body; a StatusCallback is passed on; a call refuses a template.
func TestTwilioSendTemplateAndCallback(t *testing.T) {
	peer := startTwilioPeer(t, nil)
	tw := newTestTwilio(t, peer, nil)
	const tmpl = "HX0123456789abcdef0123456789abcdef"
	_, err := tw.Send(context.Background(), Message{Channel: models.MessageChannelWhatsApp, To: "+447400123456", Text: "Hi Ada, your interview is waiting.",
		TemplateID: tmpl, TemplateVariables: map[string]string{"1": "Ada", "2": "https://i.example/x?a=1&b=2"}, StatusCallback: "https://api.example/webhook/twilio/status"})
	if err != nil {
		t.Fatal(err)
	}
	r := peer.requests()[0]
	var vars map[string]string
	if err := json.Unmarshal([]byte(r.form.Get("ContentVariables")), &vars); err != nil || vars["1"] != "Ada" || vars["2"] != "https://i.example/x?a=1&b=2" {
		t.Errorf("ContentVariables = %q (%v)", r.form.Get("ContentVariables"), err)
	}
	if r.form.Get("ContentSid") != tmpl || r.form.Has("Body") || r.form.Get("StatusCallback") != "https://api.example/webhook/twilio/status" ||
		r.form.Get("To") != "whatsapp:+447400123456" {
		t.Errorf("form = %v", r.form)
	}
	if _, err := tw.Send(context.Background(), Message{Channel: models.MessageChannelSMS, To: "+447400123456", TemplateID: tmpl}); err != nil {
		t.Errorf("template without text: %v", err)
	}
	if r := peer.requests()[1]; r.form.Get("ContentSid") != tmpl || r.form.Has("ContentVariables") || r.form.Has("Body") {
		t.Errorf("template without variables: form = %v", r.form)
	}
	_, err = tw.Send(context.Background(), Message{Channel: models.MessageChannelPhone, To: "+14155552671", Text: "x", TemplateID: tmpl})
	if !IsPermanent(err) || len(peer.requests()) != 2 {
		t.Errorf("call with a template: %v, %d requests", err, len(peer.requests()))
	}
}
