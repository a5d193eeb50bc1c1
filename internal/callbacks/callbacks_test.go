package callbacks

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

const (
	testCallbackSecret = "cbs_test-callback-secret-0123456789"
	testSigningSecret  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)

var testPayload = Payload{ApplicationID: "0d8f6a52-4a5e-4d53-9a53-7f0b1c1f6e01", Status: "invited", InterviewLink: "https://interview.example/i/abc?lang=en&src=partner"}

// loopback is a Sender that may reach httptest servers.
func loopback(t *testing.T, o Options) *Sender {
	t.Helper()
	o.AllowedNets, o.AllowHTTP = PrivateNets(), true
	return NewSender(o)
}

func target(url string) Target {
	return Target{URL: url, CallbackSecret: testCallbackSecret, SigningSecret: testSigningSecret}
}

type request struct {
	header http.Header
	body   []byte
	err    error // of Verify
}

func TestDeliverVerifiedAndStableID(t *testing.T) {
	var (
		mu   sync.Mutex
		got  []request
		fail = true
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := Verify(r.Header, body, testCallbackSecret, testSigningSecret, time.Now())
		mu.Lock()
		got = append(got, request{header: r.Header.Clone(), body: body, err: err})
		first := fail
		fail = false
		mu.Unlock()
		if err != nil {
			http.Error(w, "unverified", http.StatusUnauthorized)
			return
		}
		if first {
			// A careless receiver echoing the request: the secret must not reach the Attempt.
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "try later; you sent %q", r.Header.Get("X-Service-Callback-Secret"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	s := loopback(t, Options{UserAgent: "recruitd-test/1"})
	ctx := context.Background()
	a1, o1 := s.Deliver(ctx, target(srv.URL+"/hooks/recruitd"), "cb-1234", testPayload, 1)
	if o1 != Retry || a1.StatusCode != 500 || a1.ErrorClass != ClassHTTP5xx {
		t.Fatalf("attempt 1 = %+v, %v; want 500 http_5xx, retry", a1, o1)
	}
	if strings.Contains(a1.ResponseBody, testCallbackSecret) || !strings.Contains(a1.ResponseBody, redacted) {
		t.Errorf("attempt 1 ResponseBody = %q, want the echoed secret redacted", a1.ResponseBody)
	}
	a2, o2 := s.Deliver(ctx, target(srv.URL+"/hooks/recruitd"), "cb-1234", testPayload, 2)
	if o2 != Delivered || a2.StatusCode != 204 || a2.ErrorClass != "" || a2.Number != 2 {
		t.Fatalf("attempt 2 = %+v, %v; want 204 delivered", a2, o2)
	}
	if a2.At.IsZero() || a2.Duration <= 0 {
		t.Errorf("attempt 2 At = %v, Duration = %v; want both set", a2.At, a2.Duration)
	}

	if len(got) != 2 {
		t.Fatalf("receiver got %d requests, want 2", len(got))
	}
	want := `{"applicationId":"0d8f6a52-4a5e-4d53-9a53-7f0b1c1f6e01","status":"invited","interviewLink":"https://interview.example/i/abc?lang=en&src=partner"}`
	for i, r := range got {
		if r.err != nil {
			t.Errorf("request %d: Verify = %v", i+1, r.err)
		}
		if string(r.body) != want {
			t.Errorf("request %d body = %s, want %s", i+1, r.body, want)
		}
		for h, v := range map[string]string{
			"Content-Type":              "application/json",
			"User-Agent":                "recruitd-test/1",
			"X-Service-Callback-Secret": testCallbackSecret,
			"Webhook-Id":                "cb-1234",
		} {
			if g := r.header.Get(h); g != v {
				t.Errorf("request %d header %s = %q, want %q", i+1, h, g, v)
			}
		}
		if ts, err := strconv.ParseInt(r.header.Get("Webhook-Timestamp"), 10, 64); err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
			t.Errorf("request %d webhook-timestamp = %q, want unix seconds of now", i+1, r.header.Get("Webhook-Timestamp"))
		}
	}
}

func TestDeliverOptionalFieldsOmitted(t *testing.T) {
	body := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body <- string(b)
	}))
	defer srv.Close()
	p := Payload{ApplicationID: "a-1", Status: "not_eligible", Reason: "repeat_submission"}
	if _, o := loopback(t, Options{}).Deliver(context.Background(), target(srv.URL), "cb-1", p, 1); o != Delivered {
		t.Fatalf("Deliver outcome = %v, want delivered", o)
	}
	if got, want := <-body, `{"applicationId":"a-1","status":"not_eligible","reason":"repeat_submission"}`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
}

func TestDeliverStatusMapping(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var redirected atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { redirected.Add(1) }))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		if v := r.URL.Query().Get("retry_after"); v != "" {
			w.Header().Set("Retry-After", v)
		}
		if code >= 300 && code < 400 {
			w.Header().Set("Location", elsewhere.URL+"/moved")
		}
		w.WriteHeader(code)
	}))
	defer srv.Close()

	tests := []struct {
		query      string
		code       int
		class      string
		outcome    Outcome
		retryAfter time.Duration
	}{
		{"code=200", 200, "", Delivered, 0},
		{"code=201", 201, "", Delivered, 0},
		{"code=204", 204, "", Delivered, 0},
		{"code=301", 301, ClassRedirect, Retry, 0},
		{"code=302", 302, ClassRedirect, Retry, 0},
		{"code=307", 307, ClassRedirect, Retry, 0},
		{"code=400", 400, ClassHTTP4xx, Retry, 0},
		{"code=401", 401, ClassHTTP4xx, Retry, 0},
		{"code=404", 404, ClassHTTP4xx, Retry, 0},
		{"code=408", 408, ClassHTTP4xx, Retry, 0},
		{"code=410", 410, ClassGone, GiveUp, 0},
		{"code=429&retry_after=120", 429, ClassHTTP429, Retry, 2 * time.Minute},
		{"code=429", 429, ClassHTTP429, Retry, 0},
		{"code=503&retry_after=" + strings.ReplaceAll(now.Add(90*time.Second).Format(http.TimeFormat), " ", "+"), 503, ClassHTTP5xx, Retry, 90 * time.Second},
		{"code=503&retry_after=999999999", 503, ClassHTTP5xx, Retry, 24 * time.Hour},
		{"code=500&retry_after=120", 500, ClassHTTP5xx, Retry, 0}, // Retry-After counts on 429 and 503 only
		{"code=502", 502, ClassHTTP5xx, Retry, 0},
		{"code=299", 299, "", Delivered, 0},
		{"code=600", 600, ClassHTTPOther, Retry, 0},
	}
	s := loopback(t, Options{Now: func() time.Time { return now }})
	for _, tc := range tests {
		a, o := s.Deliver(context.Background(), target(srv.URL+"/?"+tc.query), "cb-1", testPayload, 3)
		if a.StatusCode != tc.code || a.ErrorClass != tc.class || o != tc.outcome || a.RetryAfter != tc.retryAfter {
			t.Errorf("Deliver(%s) = status %d, class %q, %v, retry after %v; want %d, %q, %v, %v",
				tc.query, a.StatusCode, a.ErrorClass, o, a.RetryAfter, tc.code, tc.class, tc.outcome, tc.retryAfter)
		}
		if !a.At.Equal(now) || a.Number != 3 {
			t.Errorf("Deliver(%s) At = %v, Number = %d; want %v, 3", tc.query, a.At, a.Number, now)
		}
	}
	if n := redirected.Load(); n != 0 {
		t.Errorf("redirect target got %d requests, want 0", n)
	}
}

func TestDeliverTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // after the body, the server notices the client hanging up
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	a, o := loopback(t, Options{Timeout: 100 * time.Millisecond}).Deliver(context.Background(), target(srv.URL), "cb-1", testPayload, 1)
	if a.ErrorClass != ClassTimeout || o != Retry || a.StatusCode != 0 {
		t.Errorf("Deliver to a sleeping receiver = %+v, %v; want class timeout, retry", a, o)
	}
	if a.Duration < 100*time.Millisecond || a.Duration > 2*time.Second {
		t.Errorf("Duration = %v, want about the 100ms timeout", a.Duration)
	}
}

func TestDeliverCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		cancel()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	a, o := loopback(t, Options{}).Deliver(ctx, target(srv.URL), "cb-1", testPayload, 1)
	if a.ErrorClass != ClassCanceled || o != Retry {
		t.Errorf("Deliver with a canceled context = %+v, %v; want class canceled, retry", a, o)
	}
}

func TestDeliverConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	a, o := loopback(t, Options{}).Deliver(context.Background(), target("http://"+addr+"/"), "cb-1", testPayload, 1)
	if a.ErrorClass != ClassConnection || o != Retry || a.StatusCode != 0 {
		t.Errorf("Deliver to a closed port = %+v, %v; want class connection, retry", a, o)
	}
}

func TestDeliverSSRF(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	guarded := NewSender(Options{Timeout: 2 * time.Second, AllowHTTP: true}) // the SSRF guard, not the scheme, refuses these
	dev := loopback(t, Options{Timeout: 2 * time.Second})
	tests := []struct {
		s       *Sender
		url     string
		outcome Outcome
	}{
		{guarded, srv.URL, GiveUp},
		{guarded, "http://localhost:" + port + "/", GiveUp},
		{guarded, "http://[::ffff:127.0.0.1]:" + port + "/", GiveUp},
		{guarded, "http://[::1]:" + port + "/", GiveUp},
		{guarded, "http://10.1.2.3:" + port + "/", GiveUp},
		{guarded, "http://100.64.0.1:" + port + "/", GiveUp},
		{guarded, "http://0.0.0.0:" + port + "/", GiveUp},
		{dev, "http://169.254.169.254/latest/meta-data/", GiveUp}, // link-local stays refused in dev
	}
	for _, tc := range tests {
		a, o := tc.s.Deliver(context.Background(), target(tc.url), "cb-1", testPayload, 1)
		if a.ErrorClass != ClassSSRFBlocked || o != tc.outcome || a.StatusCode != 0 {
			t.Errorf("Deliver(%s) = %+v, %v; want class ssrf_blocked, %v", tc.url, a, o, tc.outcome)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("receiver got %d requests, want 0", n)
	}
}

// TestFixedAddress covers which refused hosts are given up on; a name that resolves to a refused
// address is retried, which would need a DNS server to test end to end.
func TestFixedAddress(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "::1": true, "::ffff:10.0.0.1": true, "localhost": true, "LOCALHOST.": true,
		"api.localhost": true, "example.com": false, "localhost.example.com": false, "10.0.0.1.nip.io": false,
	} {
		if got := fixedAddress(host); got != want {
			t.Errorf("fixedAddress(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestDeliverInvalidTarget(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	s := loopback(t, Options{})

	for _, u := range []string{
		"",
		"ftp://" + host + "/",
		"file:///etc/passwd",
		"http://user:pass@" + host + "/",
		"http://user@" + host + "/",
		"//" + host + "/",
		"/relative",
		"http:///nohost",
		"javascript:alert(1)",
		"http://" + host + "/%zz",
		"gopher://" + host + "/",
	} {
		a, o := s.Deliver(context.Background(), target(u), "cb-1", testPayload, 1)
		if a.ErrorClass != ClassInvalidURL || o != GiveUp {
			t.Errorf("Deliver(%q) = class %q, %v; want invalid_url, give up", u, a.ErrorClass, o)
		}
	}
	// Outside development an http URL is refused: the secret header and links would travel in clear.
	strict := NewSender(Options{AllowedNets: PrivateNets()})
	if a, o := strict.Deliver(context.Background(), target(srv.URL), "cb-1", testPayload, 1); a.ErrorClass != ClassInvalidURL || o != GiveUp {
		t.Errorf("Deliver(%q) without AllowHTTP = class %q, %v; want invalid_url, give up", srv.URL, a.ErrorClass, o)
	}
	if _, err := CheckURL("https://partner.example.com/cb?token=x", false); err != nil {
		t.Errorf("CheckURL(https) = %v", err)
	}
	for name, tc := range map[string]struct {
		target Target
		id     string
	}{
		"no callback secret": {Target{URL: srv.URL, SigningSecret: testSigningSecret}, "cb-1"},
		"no signing secret":  {Target{URL: srv.URL, CallbackSecret: testCallbackSecret}, "cb-1"},
		"no webhook id":      {target(srv.URL), ""},
		"newline in id":      {target(srv.URL), "cb-1\r\nx-evil: 1"},
	} {
		a, o := s.Deliver(context.Background(), tc.target, tc.id, testPayload, 1)
		if a.ErrorClass != ClassInvalidTarget || o != GiveUp {
			t.Errorf("Deliver(%s) = class %q, %v; want invalid_target, give up", name, a.ErrorClass, o)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("receiver got %d requests, want 0", n)
	}
}

func TestDeliverHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := Verify(r.Header, body, testCallbackSecret, testSigningSecret, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
		}
	}))
	defer srv.Close()

	untrusting := loopback(t, Options{})
	if a, o := untrusting.Deliver(context.Background(), target(srv.URL), "cb-1", testPayload, 1); a.ErrorClass != ClassTLS || o != Retry {
		t.Errorf("Deliver to an untrusted certificate = %+v, %v; want class tls, retry", a, o)
	}

	trusting := loopback(t, Options{})
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	trusting.client.Transport.(*http.Transport).TLSClientConfig.RootCAs = pool
	if a, o := trusting.Deliver(context.Background(), target(srv.URL), "cb-1", testPayload, 1); o != Delivered {
		t.Errorf("Deliver over https = %+v, %v; want delivered", a, o)
	}
}

func TestDeliverBoundsResponseBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(strings.Repeat("a", 1<<20)))
	}))
	defer srv.Close()
	a, o := loopback(t, Options{}).Deliver(context.Background(), target(srv.URL), "cb-1", testPayload, 1)
	if o != Retry || a.ErrorClass != ClassHTTP4xx || len(a.ResponseBody) != 4096 || strings.Trim(a.ResponseBody, "a") != "" {
		t.Errorf("Deliver with a 1 MiB answer = %v, class %q, body of %d bytes; want retry, http_4xx, 4096 bytes of a", o, a.ErrorClass, len(a.ResponseBody))
	}
}

func TestReadBody(t *testing.T) {
	tgt := target("")
	tests := []struct {
		name, in, want string
	}{
		{"short", "ok", "ok"},
		{"nul and invalid utf-8", "a\x00b\xffc", "a\uFFFDb\uFFFDc"},
		{"rune across the cut", strings.Repeat("a", 4095) + "é", strings.Repeat("a", 4095)},
		{"secret", "x " + testCallbackSecret + " y", "x " + redacted + " y"},
		{"signing key", "k=MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "k=" + redacted},
		{"secret across the cut", strings.Repeat("a", 4090) + testCallbackSecret, strings.Repeat("a", 4090) + redacted[:6]},
	}
	for _, tc := range tests {
		got := readBody(strings.NewReader(tc.in), tgt)
		if got != tc.want {
			t.Errorf("readBody(%s) = %q (%d bytes), want %q", tc.name, trim(got), len(got), trim(tc.want))
		}
		if !utf8.ValidString(got) || len(got) > 4096 {
			t.Errorf("readBody(%s) is %d bytes, valid UTF-8 %v; want at most 4096, valid", tc.name, len(got), utf8.ValidString(got))
		}
	}
}

func trim(s string) string {
	if len(s) > 40 {
		return "…" + s[len(s)-40:]
	}
	return s
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"1.5", 0},
		{"soon", 0},
		{"86401", 24 * time.Hour},
		{"99999999999999999999999", 0}, // overflows uint64: unparsable
		{now.Add(time.Hour).Format(http.TimeFormat), time.Hour},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{now.Add(72 * time.Hour).Format(http.TimeFormat), 24 * time.Hour},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.in, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestOutcomeZeroIsRetry(t *testing.T) {
	var o Outcome
	if o != Retry || o.String() != "retry" || Delivered.String() != "delivered" || GiveUp.String() != "give_up" {
		t.Errorf("zero Outcome = %v; want retry", o)
	}
}
