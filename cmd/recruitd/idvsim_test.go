package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
