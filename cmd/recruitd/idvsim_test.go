package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/idverify"
)

// TestDevIdvsimPointsSettingsAtIt: recruitd dev's simulator takes the IDV_* settings (a fresh
// webhook secret) and posts outcomes, signed with that secret, to PUBLIC_BASE_URL's
// /webhook/idverify; with IDV_BASE_URL set, dev starts none.
func TestDevIdvsimPointsSettingsAtIt(t *testing.T) {
	got := make(chan idverify.Delivery, 1)
	var cfg *config.Config
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d, err := idverify.VerifyWebhook(r.Header, body, cfg.IDVWebhookSecret, time.Now())
		if r.URL.Path != "/webhook/idverify" || err != nil {
			t.Errorf("delivery to %s: %v", r.URL.Path, err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		got <- d
	}))
	defer api.Close()
	cfg, err := config.Load(func(k string) string { return map[string]string{"PUBLIC_BASE_URL": api.URL}[k] })
	if err != nil {
		t.Fatal(err)
	}
	d, err := startIdvsim(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if cfg.IDVBaseURL != d.url || cfg.IDVAPIKey != idvsimAPIKey || len(cfg.IDVWebhookSecret) < 40 {
		t.Fatalf("settings after startIdvsim: base %q key %q secret of %d characters", cfg.IDVBaseURL, cfg.IDVAPIKey, len(cfg.IDVWebhookSecret))
	}
	c, err := idverify.New(idverify.Config{BaseURL: cfg.IDVBaseURL, APIKey: cfg.IDVAPIKey})
	if err != nil {
		t.Fatal(err)
	}
	ref := uuid.New()
	v, err := c.Create(t.Context(), idverify.CreateRequest{Reference: ref, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.sim.Pass(v.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case dl := <-got:
		if dl.Event.Reference != ref || dl.Event.Type != idverify.EventVerified {
			t.Errorf("delivery = %+v", dl)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery")
	}

	other := *cfg
	other.IDVBaseURL = "https://idv.example"
	if d, err := startIdvsim(&other, nil); d != nil || err != nil || other.IDVBaseURL != "https://idv.example" {
		t.Errorf("with IDV_BASE_URL set: %v, %v, base %s; want no simulator", d, err, other.IDVBaseURL)
	}
}

// devIdentityWebhook checks, in a running `recruitd dev` whose output is out, that the
// identity-verification simulator it printed delivers to the API's webhook with the secret dev
// gave both: an outcome for a verification recruitd never started is signed right, so it is
// answered 404 VERIFICATION_NOT_FOUND, not 401.
func devIdentityWebhook(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`ID-verification simulator:\s+(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("dev did not print the ID-verification simulator:\n%s", out)
	}
	ref := uuid.NewString()
	body := url.Values{"type": {"document"}, "client_reference_id": {ref}, "metadata[reference]": {ref}}.Encode()
	r := call(t, "POST", m[1]+"/v1/identity/verification_sessions", map[string]string{"Authorization": "Bearer " + idvsimAPIKey,
		"Content-Type": "application/x-www-form-urlencoded"}, body)
	var v struct {
		ID string `json:"id"`
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &v) != nil {
		t.Fatalf("create at the simulator = %d %s", r.status, r.body)
	}
	if r := call(t, "POST", m[1]+"/sim/verifications/"+v.ID+"/pass", nil, ""); r.status != http.StatusNoContent {
		t.Fatalf("pass at the simulator = %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ds []struct {
			VerificationID string `json:"verification_id"`
			LastStatus     int    `json:"last_status"`
		}
		_ = json.Unmarshal([]byte(call(t, "GET", m[1]+"/sim/deliveries", nil, "").body), &ds)
		if len(ds) > 0 && ds[len(ds)-1].VerificationID == v.ID && ds[len(ds)-1].LastStatus != 0 {
			if got := ds[len(ds)-1].LastStatus; got != http.StatusNotFound {
				t.Errorf("dev's API answered the simulator's webhook %d, want 404 (a signed delivery for an unknown verification)", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the simulator's webhook got no answer: %+v", ds)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
