package idvsim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/idvsim"
)

// create makes a VerificationSession as Stripe Identity's API takes it.
func create(t *testing.T, base, reference string) idvsim.Verification {
	t.Helper()
	form := url.Values{"type": {"document"}, "options[document][require_matching_selfie]": {"true"}, "client_reference_id": {reference},
		"metadata[reference]": {reference}, "return_url": {"http://app.example/i/1"}}
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/identity/verification_sessions", strings.NewReader(form.Encode()))
	req.Header.Set("Authorization", "Bearer k")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create = %d", resp.StatusCode)
	}
	var v idvsim.Verification
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var (
	controlRe = regexp.MustCompile(`<(select|input|textarea)\b[^>]*>`)
	idRe      = regexp.MustCompile(`\bid="([^"]+)"`)
	buttonRe  = regexp.MustCompile(`<button\b[^>]*>([^<]*)</button>`)
)

// TestHostedPageIsAccessible: the page declares its language and title; every visible control
// has a label naming it by id; every button has text; nothing takes focus out of document order
// or is a click target that a keyboard cannot reach (only native controls).
func TestHostedPageIsAccessible(t *testing.T) {
	sim := idvsim.New(idvsim.Options{APIKey: "k"})
	srv := httptest.NewServer(sim.Handler())
	defer func() { srv.Close(); sim.Close() }()
	v := create(t, srv.URL, "ref-1")
	status, page := get(t, v.URL)
	if status != http.StatusOK {
		t.Fatalf("page = %d", status)
	}
	for _, want := range []string{`<html lang="en">`, `<title>Verify your identity</title>`, `<main>`, `<h1>`, `<legend>Fail verification</legend>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	controls := 0
	for _, c := range controlRe.FindAllString(page, -1) {
		if strings.Contains(c, `type="hidden"`) {
			continue
		}
		controls++
		id := idRe.FindStringSubmatch(c)
		if id == nil || !strings.Contains(page, `<label for="`+id[1]+`">`) {
			t.Errorf("control %s has no label", c)
		}
	}
	if controls != 2 {
		t.Errorf("%d visible controls, want the reason select and the other-reason field", controls)
	}
	buttons := buttonRe.FindAllStringSubmatch(page, -1)
	if len(buttons) != 2 || buttons[0][1] != "Pass verification" || buttons[1][1] != "Fail verification" {
		t.Errorf("buttons = %q, want Pass verification and Fail verification", buttons)
	}
	for _, bad := range []string{"tabindex", "onclick", "<div role=\"button\""} {
		if strings.Contains(page, bad) {
			t.Errorf("page uses %s", bad)
		}
	}

	// "Other" without a text is refused, announced as an alert, and the verification stays pending.
	resp, err := http.PostForm(v.URL, url.Values{"decision": {"fail"}, "reason": {"other"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `role="alert"`) {
		t.Errorf("fail without a reason = %d, want 400 with an alert", resp.StatusCode)
	}
	if got, _ := sim.Get(v.ID); got.Status != idvsim.StatusPending {
		t.Errorf("status after a refused decision = %s", got.Status)
	}
	// A decision shows the outcome as a status and the way back.
	resp, err = http.PostForm(v.URL, url.Values{"decision": {"fail"}, "reason": {idvsim.Reasons[2]}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `<p role="status" id="outcome">Verification failed: `+idvsim.Reasons[2]) ||
		!strings.Contains(string(b), `<a id="return" href="http://app.example/i/1">`) {
		t.Errorf("page after failing = %d %s", resp.StatusCode, b)
	}

	if status, _ := get(t, srv.URL+"/verify/unknown"); status != http.StatusNotFound {
		t.Errorf("unknown token = %d, want 404", status)
	}
}

// TestExpiredPageTakesNoDecision: past its expiry the page says so (410) and refuses decisions.
func TestExpiredPageTakesNoDecision(t *testing.T) {
	sim := idvsim.New(idvsim.Options{APIKey: "k", PageLifetime: 1100 * time.Millisecond})
	srv := httptest.NewServer(sim.Handler())
	defer func() { srv.Close(); sim.Close() }()
	v := create(t, srv.URL, "ref-2")
	time.Sleep(1200 * time.Millisecond)
	status, page := get(t, v.URL)
	if status != http.StatusGone || !strings.Contains(page, "has expired") || strings.Contains(page, `id="pass"`) {
		t.Errorf("expired page = %d, want 410 without the decision forms", status)
	}
	if err := sim.Pass(v.ID); err != idvsim.ErrExpired {
		t.Errorf("Pass(expired) = %v, want ErrExpired", err)
	}
}
