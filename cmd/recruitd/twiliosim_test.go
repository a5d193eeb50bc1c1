package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/models"
)

// TestDevTwiliosimAndReplyCommand: recruitd dev's Twilio simulator takes the TWILIO_* settings;
// the channels provider built from them sends through it; `recruitd twiliosim reply` answers
// as the candidate, which reaches PUBLIC_BASE_URL's Twilio webhook signed with the settings'
// auth token; `twiliosim messages` lists the thread. With TWILIO_ACCOUNT_SID set, dev starts
// none.
func TestDevTwiliosimAndReplyCommand(t *testing.T) {
	var cfg *config.Config
	var mu sync.Mutex
	var got []channels.Inbound
	var public string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, err := channels.ReadTwilioWebhook(cfg.TwilioAuthToken, public+r.URL.RequestURI(), r.Header, body)
		var in channels.Inbound
		if err == nil {
			in, err = channels.ParseInbound(form)
		}
		if r.URL.Path != twilioInboundPath || err != nil {
			t.Errorf("webhook to %s: %v", r.URL.Path, err)
			w.WriteHeader(http.StatusForbidden)
			return
		}
		mu.Lock()
		got = append(got, in)
		mu.Unlock()
		_, _ = io.WriteString(w, channels.EmptyTwiML)
	}))
	defer api.Close()
	public = api.URL
	cfg, err := config.Load(func(k string) string { return map[string]string{"PUBLIC_BASE_URL": api.URL}[k] })
	if err != nil {
		t.Fatal(err)
	}
	d, err := startTwiliosim(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if cfg.TwilioBaseURL != d.url || cfg.TwilioAccountSID != twiliosimAccountSID || cfg.TwilioAuthToken != twiliosimAuthToken || cfg.TwilioFrom == "" {
		t.Fatalf("settings after startTwiliosim: %s", cfg.TwilioBaseURL)
	}
	tw, err := channels.NewTwilio(channels.TwilioConfig{BaseURL: cfg.TwilioBaseURL, AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
		From: cfg.TwilioFrom, WhatsAppFrom: cfg.TwilioWhatsAppFrom})
	if err != nil {
		t.Fatal(err)
	}
	const candidate = "+14155550101"
	if _, err := tw.Send(t.Context(), channels.Message{Channel: models.MessageChannelSMS, To: candidate, Text: "Reply YES to start"}); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	getenv := func(string) string { return "" }
	if err := run(t.Context(), []string{"recruitd", "twiliosim", "reply", "--sim", d.url, "--from", candidate, "--body", "YES"}, getenv, &out, &errOut); err != nil {
		t.Fatalf("reply: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "answered 200") || len(got) != 1 || got[0].Body != "YES" || got[0].From != candidate || got[0].To != cfg.TwilioFrom {
		t.Fatalf("reply printed %q; webhooks %+v", out.String(), got)
	}
	out.Reset()
	if err := run(t.Context(), []string{"recruitd", "twiliosim", "messages", "--sim", d.url, "--number", candidate}, getenv, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "Reply YES to start") || !strings.Contains(s, "inbound") || !strings.Contains(s, "YES") {
		t.Errorf("messages printed %q", s)
	}
	if err := run(t.Context(), []string{"recruitd", "twiliosim", "reply", "--sim", d.url, "--from", "+14155550199", "--body", "hi"}, getenv, &out, &errOut); err == nil ||
		!strings.Contains(err.Error(), "no message was sent") {
		t.Errorf("reply to a number never written to: %v", err)
	}

	other := *cfg
	other.TwilioAccountSID = "AC" + strings.Repeat("1", 32)
	if d, err := startTwiliosim(&other, nil); d != nil || err != nil {
		t.Errorf("with TWILIO_ACCOUNT_SID set: %v, %v; want no simulator", d, err)
	}
}

// devTwilioSimulator checks, in a running `recruitd dev` whose output is out, that the Twilio
// simulator it printed serves its page and controls, and takes messages with the credentials
// dev gave recruitd.
func devTwilioSimulator(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`Twilio simulator:\s+(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Errorf("dev did not print the Twilio simulator:\n%s", out)
		return
	}
	resp, err := http.Get(m[1] + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<h1>Twilio simulator</h1>") {
		t.Errorf("Twilio simulator page = %d", resp.StatusCode)
	}
	tw, err := channels.NewTwilio(channels.TwilioConfig{BaseURL: m[1], AccountSID: twiliosimAccountSID, AuthToken: twiliosimAuthToken, From: twiliosimFrom})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := tw.Send(t.Context(), channels.Message{Channel: models.MessageChannelSMS, To: "+14155550123", Text: "dev check"})
	if err != nil {
		t.Fatalf("send through dev's Twilio simulator: %v", err)
	}
	resp, err = http.Get(m[1] + "/sim/messages?number=%2B14155550123")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msgs []struct {
		SID string `json:"sid"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msgs); err != nil || len(msgs) != 1 || msgs[0].SID != rec.ProviderMessageID {
		t.Errorf("dev's Twilio simulator lists %+v (%v), want %s", msgs, err, rec.ProviderMessageID)
	}
}
