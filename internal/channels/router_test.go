package channels

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

var phoneChannels = []models.MessageChannel{models.MessageChannelSMS, models.MessageChannelWhatsApp, models.MessageChannelPhone}

func TestOutbox(t *testing.T) {
	var out bytes.Buffer
	o := NewOutbox(&out)
	rec, err := o.Send(context.Background(), Message{
		Channel: models.MessageChannelEmail,
		To:      "ada@example.com",
		Subject: "Your interview with Acme",
		Text:    "Start here: https://interviews.example/i/3f6c\n",
		HTML:    "<p>Start here</p>",
	})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	id, ok := strings.CutPrefix(rec.ProviderMessageID, "outbox-")
	if _, err := uuid.Parse(id); rec.Provider != "outbox" || !ok || err != nil {
		t.Errorf("Send receipt = %+v, want outbox and outbox-<uuid>", rec)
	}
	want := "" +
		"── outbox · email → ada@example.com ──────────────\n" +
		"Subject: Your interview with Acme\n" +
		"Start here: https://interviews.example/i/3f6c\n" +
		"(+ HTML part, 17 bytes)\n" +
		"──────────────────────────────────────────────────\n"
	if out.String() != want {
		t.Errorf("outbox printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestRouterOutboxMode(t *testing.T) {
	for _, mode := range []string{ModeOutbox, ""} {
		var out bytes.Buffer
		// Live settings are ignored in outbox mode.
		r, err := NewRouter(Config{Mode: mode, SMTP: SMTPConfig{Host: "mail.example", From: "a@b.example"}}, &out)
		if err != nil {
			t.Fatalf("NewRouter(mode %q): %v", mode, err)
		}
		for _, ch := range append([]models.MessageChannel{models.MessageChannelEmail, models.MessageChannelOutbox}, phoneChannels...) {
			to := "+14155552671"
			if ch == models.MessageChannelEmail {
				to = "ada@example.com"
			}
			text := fmt.Sprintf("%s link https://interviews.example/i/%s", ch, ch)
			rec, provider, err := r.Send(context.Background(), Message{Channel: ch, To: to, Text: text})
			if err != nil || provider != "outbox" || rec.Provider != "outbox" {
				t.Errorf("Send(%s) = %+v, %q, %v, want the outbox", ch, rec, provider, err)
			}
			if !strings.Contains(out.String(), fmt.Sprintf("── outbox · %s → %s ─", ch, to)) || !strings.Contains(out.String(), text) {
				t.Errorf("outbox output lacks the %s message:\n%s", ch, out.String())
			}
		}
		if len(r.Unavailable()) != 0 {
			t.Errorf("Unavailable() = %v, want none", r.Unavailable())
		}
	}
}

func TestRouterLiveMode(t *testing.T) {
	peer := startSMTPPeer(t, nil)
	twilio := startTwilioPeer(t, nil)
	var out bytes.Buffer
	r, err := NewRouter(Config{
		Mode: ModeLive,
		SMTP: SMTPConfig{Host: peer.addr, Port: peer.port, TLS: "none", From: "jobs@acme.example", Timeout: 5 * time.Second},
		Twilio: TwilioConfig{BaseURL: twilio.URL, AccountSID: testSID, AuthToken: testToken,
			From: "+14155550100", WhatsAppFrom: "+14155550111", HTTPClient: twilio.Client()},
	}, &out)
	if err != nil {
		t.Fatalf("NewRouter: %v", err)
	}
	tests := []struct {
		ch       models.MessageChannel
		to       string
		provider string
	}{
		{models.MessageChannelEmail, "ada@example.com", "smtp"},
		{models.MessageChannelSMS, "+14155552671", "twilio"},
		{models.MessageChannelWhatsApp, "+14155552671", "twilio"},
		{models.MessageChannelPhone, "+14155552671", "twilio"},
		{models.MessageChannelOutbox, "ada@example.com", "outbox"},
	}
	for _, tt := range tests {
		rec, provider, err := r.Send(context.Background(), Message{Channel: tt.ch, To: tt.to, Subject: "Interview", Text: "Hello"})
		if err != nil || provider != tt.provider || rec.Provider != tt.provider || rec.ProviderMessageID == "" {
			t.Errorf("Send(%s) = %+v, %q, %v, want a receipt from %s", tt.ch, rec, provider, err, tt.provider)
		}
	}
	if n := len(peer.received()); n != 1 {
		t.Errorf("SMTP peer received %d messages, want 1", n)
	}
	if n := len(twilio.requests()); n != 3 {
		t.Errorf("Twilio peer got %d requests, want 3", n)
	}
	if !strings.Contains(out.String(), "outbox · outbox → ada@example.com") || strings.Count(out.String(), "── outbox ·") != 1 {
		t.Errorf("outbox output = %q, want the outbox-channel message only", out.String())
	}
}

func TestRouterLiveConfig(t *testing.T) {
	smtp := SMTPConfig{Host: "mail.example", From: "jobs@acme.example"}
	twilio := TwilioConfig{AccountSID: testSID, AuthToken: testToken, From: "+14155550100", WhatsAppFrom: "+14155550111"}
	without := func(edit func(*TwilioConfig)) TwilioConfig {
		c := twilio
		edit(&c)
		return c
	}

	constructionErrors := []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown mode", Config{Mode: "send"}, `messaging mode "send"`},
		{"no SMTP host", Config{Mode: ModeLive, SMTP: SMTPConfig{From: "jobs@acme.example"}, Twilio: twilio}, "SMTP.Host (SMTP_HOST)"},
		{"no SMTP from", Config{Mode: ModeLive, SMTP: SMTPConfig{Host: "mail.example"}, Twilio: twilio}, "SMTP.From (SMTP_FROM)"},
		{"no Twilio SID", Config{Mode: ModeLive, SMTP: smtp, Twilio: without(func(c *TwilioConfig) { c.AccountSID = "" })}, "Twilio.AccountSID (TWILIO_ACCOUNT_SID)"},
		{"no Twilio token", Config{Mode: ModeLive, SMTP: smtp, Twilio: without(func(c *TwilioConfig) { c.AuthToken = "" })}, "Twilio.AuthToken (TWILIO_AUTH_TOKEN)"},
	}
	for _, tt := range constructionErrors {
		if _, err := NewRouter(tt.cfg, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewRouter error = %v, want one naming %s", tt.name, err, tt.want)
		}
	}

	unavailable := []struct {
		name   string
		twilio TwilioConfig
		want   map[models.MessageChannel]string // channel → setting named in its error; others available
	}{
		{"no Twilio", TwilioConfig{}, map[models.MessageChannel]string{
			models.MessageChannelSMS: "TWILIO_ACCOUNT_SID", models.MessageChannelWhatsApp: "TWILIO_ACCOUNT_SID", models.MessageChannelPhone: "TWILIO_ACCOUNT_SID"}},
		{"no From", without(func(c *TwilioConfig) { c.From = "" }), map[models.MessageChannel]string{
			models.MessageChannelSMS: "Twilio.From (TWILIO_FROM)", models.MessageChannelPhone: "Twilio.From (TWILIO_FROM)"}},
		{"no WhatsApp From", without(func(c *TwilioConfig) { c.WhatsAppFrom = "" }), map[models.MessageChannel]string{
			models.MessageChannelWhatsApp: "Twilio.WhatsAppFrom (TWILIO_WHATSAPP_FROM)"}},
		{"complete", twilio, nil},
	}
	for _, tt := range unavailable {
		r, err := NewRouter(Config{Mode: ModeLive, SMTP: smtp, Twilio: tt.twilio}, nil)
		if err != nil {
			t.Fatalf("%s: NewRouter: %v", tt.name, err)
		}
		if p, err := r.Provider(models.MessageChannelEmail); err != nil || p.Name() != "smtp" {
			t.Errorf("%s: Provider(email) = %v, %v, want smtp", tt.name, p, err)
		}
		for _, ch := range phoneChannels {
			p, err := r.Provider(ch)
			want, missing := tt.want[ch]
			switch {
			case !missing && (err != nil || p.Name() != "twilio"):
				t.Errorf("%s: Provider(%s) = %v, %v, want twilio", tt.name, ch, p, err)
			case missing && (err == nil || !IsPermanent(err) || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), want)):
				t.Errorf("%s: Provider(%s) error = %v, want a permanent ErrUnavailable naming %s", tt.name, ch, err, want)
			}
			if missing {
				if _, provider, sendErr := r.Send(context.Background(), Message{Channel: ch, To: "+14155552671", Text: "Hi"}); provider != "" || sendErr == nil || sendErr.Error() != err.Error() {
					t.Errorf("%s: Send(%s) = %q, %v, want the Provider error %v", tt.name, ch, provider, sendErr, err)
				}
			}
		}
		if len(r.Unavailable()) != len(tt.want) {
			t.Errorf("%s: Unavailable() = %v, want %d channels", tt.name, r.Unavailable(), len(tt.want))
		}
	}

	r, err := NewRouter(Config{Mode: ModeLive, SMTP: smtp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Provider("fax"); !IsPermanent(err) || !errors.Is(err, ErrUnavailable) {
		t.Errorf(`Provider("fax") error = %v, want a permanent ErrUnavailable`, err)
	}
}

func TestIsPermanent(t *testing.T) {
	perm := &Error{Provider: "twilio", Permanent: true, Err: errors.New("Authenticate")}
	temp := &Error{Provider: "twilio", Err: errors.New("Service Unavailable")}
	tests := []struct {
		err  error
		want bool
	}{
		{perm, true},
		{fmt.Errorf("invite attempt 2: %w", perm), true},
		{temp, false},
		{fmt.Errorf("invite attempt 2: %w", temp), false},
		{context.Canceled, false},
		{errors.New("anything else"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsPermanent(tt.err); got != tt.want {
			t.Errorf("IsPermanent(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestAddress(t *testing.T) {
	const (
		email    = "ada@example.com"
		usPhone  = "+14155552671"  // fixed line or mobile
		ukMobile = "+447400123456" // mobile
		ukFixed  = "+442079460958" // fixed line
		tollFree = "+18005551234"
	)
	tests := []struct {
		ch           models.MessageChannel
		email, phone string
		want         string
		ok           bool
	}{
		{models.MessageChannelEmail, email, usPhone, email, true},
		{models.MessageChannelEmail, "", usPhone, "", false},
		{models.MessageChannelSMS, email, usPhone, usPhone, true},
		{models.MessageChannelSMS, email, ukMobile, ukMobile, true},
		{models.MessageChannelSMS, email, ukFixed, "", false},
		{models.MessageChannelSMS, email, tollFree, "", false},
		{models.MessageChannelSMS, email, "+11234567890", "", false}, // not a valid number
		{models.MessageChannelSMS, email, "", "", false},
		{models.MessageChannelWhatsApp, email, ukFixed, ukFixed, true},
		{models.MessageChannelWhatsApp, email, "", "", false},
		{models.MessageChannelPhone, email, tollFree, tollFree, true},
		{models.MessageChannelPhone, email, " ", "", false},
		{models.MessageChannelOutbox, email, usPhone, email, true},
		{models.MessageChannelOutbox, "", usPhone, usPhone, true},
		{models.MessageChannelOutbox, "", "", "", false},
		{"fax", email, usPhone, "", false},
	}
	for _, tt := range tests {
		got, ok := Address(tt.ch, tt.email, tt.phone)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Address(%s, %q, %q) = %q, %v, want %q, %v", tt.ch, tt.email, tt.phone, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRedacted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"twilio: 21610 unsubscribed recipient +14155550101", "twilio: 21610 unsubscribed recipient [redacted]"},
		{"smtp 550 5.1.1 <ada.quinn@example.com>: user unknown", "smtp 550 5.1.1 <[redacted]>: user unknown"},
		{"to (415) 555-0101 failed", "to [redacted] failed"},
		{"timeout after 10s (attempt 3)", "timeout after 10s (attempt 3)"},
	}
	for _, tt := range tests {
		if got := Redacted(errors.New(tt.in)); got != tt.want {
			t.Errorf("Redacted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
