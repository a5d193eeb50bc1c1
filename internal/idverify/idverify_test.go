package idverify_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/idverify"
	"github.com/recruitd/recruitd/internal/idvsim"
	"github.com/recruitd/recruitd/internal/webhooksig"
	"github.com/recruitd/recruitd/models"
)

const (
	simKey    = "idv-test-key"
	simSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)

// receiver is a webhook endpoint that verifies each delivery with idverify.VerifyWebhook and
// keeps what it verified; it answers fail first with the given statuses.
type receiver struct {
	mu        sync.Mutex
	got       []idverify.Delivery
	refused   []error
	failFirst []int
	srv       *httptest.Server
}

func newReceiver(t *testing.T, failFirst ...int) *receiver {
	rc := &receiver{failFirst: failFirst}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if len(rc.failFirst) > 0 {
			w.WriteHeader(rc.failFirst[0])
			rc.failFirst = rc.failFirst[1:]
			return
		}
		d, err := idverify.VerifyWebhook(r.Header, body, simSecret, time.Now())
		if err != nil {
			rc.refused = append(rc.refused, err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rc.got = append(rc.got, d)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) await(t *testing.T, n int) []idverify.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc.mu.Lock()
		got, refused := append([]idverify.Delivery(nil), rc.got...), append([]error(nil), rc.refused...)
		rc.mu.Unlock()
		if len(refused) > 0 {
			t.Fatalf("the receiver refused a simulator delivery: %v", refused)
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries verified, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newSim(t *testing.T, webhookURL string) (*idvsim.Server, *httptest.Server) {
	t.Helper()
	sim := idvsim.New(idvsim.Options{APIKey: simKey, WebhookURL: webhookURL, WebhookSecret: simSecret, RetryBase: 20 * time.Millisecond})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	return sim, srv
}

func client(t *testing.T, base, key string) *idverify.Client {
	t.Helper()
	c, err := idverify.New(idverify.Config{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// decide submits the hosted page's form as a browser does.
func decide(t *testing.T, pageURL string, form url.Values) *http.Response {
	t.Helper()
	resp, err := http.PostForm(pageURL, form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp
}

// TestCreateAndOutcomesAgainstSimulator: Create over HTTP gives the provider id and a hosted
// page; passing and failing on that page sends signed webhooks that VerifyWebhook accepts, with
// the reference given at creation and the reason chosen.
func TestCreateAndOutcomesAgainstSimulator(t *testing.T) {
	rc := newReceiver(t)
	sim, srv := newSim(t, rc.srv.URL)
	c := client(t, srv.URL, simKey)
	ctx := t.Context()
	expires := time.Now().Add(time.Hour).Truncate(time.Second)

	refA, refB := uuid.New(), uuid.New()
	a, err := c.Create(ctx, idverify.CreateRequest{Reference: refA, ExpiresAt: expires, ReturnURL: "http://app.example/interview/x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.ID, "vs_") || !strings.HasPrefix(a.URL, srv.URL+"/verify/") || !a.ExpiresAt.Equal(expires) {
		t.Fatalf("Create = %+v, want a vs_ id, a page under %s and expiry %s", a, srv.URL, expires)
	}
	again, err := c.Create(ctx, idverify.CreateRequest{Reference: refA, ExpiresAt: expires})
	if err != nil || again.ID != a.ID || again.URL != a.URL {
		t.Fatalf("Create with the same reference = %+v, %v, want the same verification %+v", again, err, a)
	}
	b, err := c.Create(ctx, idverify.CreateRequest{Reference: refB, ExpiresAt: expires})
	if err != nil || b.ID == a.ID {
		t.Fatalf("Create(other reference) = %+v, %v, want a new verification", b, err)
	}

	page, err := http.Get(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != http.StatusOK || !strings.Contains(string(html), `id="pass"`) {
		t.Fatalf("hosted page = %d, want 200 with the pass button", page.StatusCode)
	}

	if resp := decide(t, a.URL, url.Values{"decision": {"pass"}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("pass on the page = %d, want 200 after the redirect", resp.StatusCode)
	}
	if resp := decide(t, b.URL, url.Values{"decision": {"fail"}, "reason": {"other"}, "reason_other": {"  Name on ID differs\tfrom application "}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("fail on the page = %d", resp.StatusCode)
	}
	got := rc.await(t, 2)
	byRef := map[uuid.UUID]idverify.Delivery{}
	for _, d := range got {
		byRef[d.Event.Reference] = d
	}
	pass, fail := byRef[refA], byRef[refB]
	if st, ok := pass.Event.Outcome(); !ok || st != models.IdentityStatusVerified || pass.Event.VerificationID != a.ID || pass.Event.FailureReason != "" {
		t.Errorf("pass delivery = %+v, want VERIFIED for %s", pass, a.ID)
	}
	if st, ok := fail.Event.Outcome(); !ok || st != models.IdentityStatusFailed || fail.Event.VerificationID != b.ID || fail.Event.FailureReason != "Name on ID differs from application" {
		t.Errorf("fail delivery = %+v, want FAILED for %s with the cleaned reason", fail, b.ID)
	}
	if !strings.HasPrefix(pass.ID, "evt_") || pass.ID == fail.ID || pass.Event.ID != pass.ID || time.Since(pass.SignedAt) > time.Minute {
		t.Errorf("webhook ids %q, %q and signed time %s: want distinct ids, signed now", pass.ID, fail.ID, pass.SignedAt)
	}
	if v, _ := sim.Get(a.ID); v.Status != idvsim.StatusVerified {
		t.Errorf("simulator status of %s = %s", a.ID, v.Status)
	}
	// A decided verification takes no second decision.
	if resp := decide(t, a.URL, url.Values{"decision": {"fail"}, "reason": {idvsim.Reasons[0]}}); resp.StatusCode != http.StatusConflict {
		t.Errorf("second decision = %d, want 409", resp.StatusCode)
	}
}

// TestSimulatorRetriesWithSameWebhookID: a receiver that answers 503 twice gets the delivery a
// third time, with the same event id.
func TestSimulatorRetriesWithSameWebhookID(t *testing.T) {
	rc := newReceiver(t, http.StatusServiceUnavailable, http.StatusInternalServerError)
	sim, srv := newSim(t, rc.srv.URL)
	v, err := client(t, srv.URL, simKey).Create(t.Context(), idverify.CreateRequest{Reference: uuid.New(), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Fail(v.ID, "Document expired"); err != nil {
		t.Fatal(err)
	}
	got := rc.await(t, 1)
	// The simulator records the answer after the receiver sent it: wait for the record.
	ds := sim.Deliveries()
	for deadline := time.Now().Add(5 * time.Second); (len(ds) != 1 || !ds[0].Delivered) && time.Now().Before(deadline); ds = sim.Deliveries() {
		time.Sleep(10 * time.Millisecond)
	}
	if len(ds) != 1 || ds[0].Attempts != 3 || !ds[0].Delivered || ds[0].WebhookID != got[0].ID {
		t.Fatalf("deliveries = %+v, want one delivered at the third attempt with webhook-id %s", ds, got[0].ID)
	}
}

// TestCreateRefusals: each failure of the provider maps to one error of the package.
func TestCreateRefusals(t *testing.T) {
	_, srv := newSim(t, "")
	req := idverify.CreateRequest{Reference: uuid.New(), ExpiresAt: time.Now().Add(time.Hour)}
	if _, err := client(t, srv.URL, "wrong-key").Create(t.Context(), req); !errors.Is(err, idverify.ErrUnauthorized) {
		t.Errorf("wrong key: %v, want ErrUnauthorized", err)
	}
	if _, err := client(t, srv.URL, simKey).Create(t.Context(), idverify.CreateRequest{Reference: uuid.New()}); !errors.Is(err, idverify.ErrPermanent) {
		t.Errorf("no expiry: %v, want ErrPermanent", err)
	}
	var calls atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			_, _ = w.Write([]byte(`{"id":"vs_1","object":"identity.verification_session","url":"javascript:alert(1)","metadata":{"reference":"` +
				req.Reference.String() + `"}}`))
		default:
			_, _ = w.Write([]byte(`{"id":"vs_1","object":"identity.verification_session","url":"https://verify.stripe.example/start/1","metadata":{"reference":"` +
				uuid.NewString() + `"}}`))
		}
	}))
	defer flaky.Close()
	c := client(t, flaky.URL, simKey)
	if _, err := c.Create(t.Context(), req); !errors.Is(err, idverify.ErrTransient) {
		t.Errorf("503: %v, want ErrTransient", err)
	}
	if _, err := c.Create(t.Context(), req); !errors.Is(err, idverify.ErrPermanent) {
		t.Errorf("a hosted URL that is not http(s): %v, want ErrPermanent", err)
	}
	if _, err := c.Create(t.Context(), req); !errors.Is(err, idverify.ErrPermanent) {
		t.Errorf("an answer for another reference: %v, want ErrPermanent", err)
	}
	flaky.Close()
	if _, err := c.Create(t.Context(), req); !errors.Is(err, idverify.ErrTransient) {
		t.Errorf("connection refused: %v, want ErrTransient", err)
	}
	if _, err := idverify.New(idverify.Config{BaseURL: "ftp://x", APIKey: "k"}); !errors.Is(err, idverify.ErrPermanent) {
		t.Errorf("New(ftp URL) = %v, want ErrPermanent", err)
	}
}

func signed(secret string, ts time.Time, body []byte) http.Header {
	h := http.Header{}
	h.Set("Stripe-Signature", idverify.Sign(secret, ts.Unix(), body))
	return h
}

// event is a Stripe event of type typ about the verification session vs (recruitd's reference
// ref in its metadata) in status, with the session's other fields in extra (raw JSON, may be "").
func event(id, typ, vs, ref, status, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"id":"` + id + `","object":"event","api_version":"2025-06-30.basil","created":1735689600,"type":"` + typ + `","data":{"object":{"id":"` + vs +
		`","object":"identity.verification_session","status":"` + status + `","client_reference_id":"` + ref + `","metadata":{"reference":"` + ref + `"}` + extra + `}}}`
}

// TestVerifyWebhookRefusals: a wrong secret, a timestamp outside the tolerance, a missing or
// malformed header and no secret are ErrSignature; a signed body that is not an event ErrBadEvent.
func TestVerifyWebhookRefusals(t *testing.T) {
	now := time.Now()
	body := []byte(event("evt_1", idverify.EventVerified, "vs_1", uuid.NewString(), "verified", ""))
	if d, err := idverify.VerifyWebhook(signed(simSecret, now, body), body, simSecret, now); err != nil || d.ID != "evt_1" {
		t.Fatalf("a good delivery: %+v, %v", d, err)
	}
	// Stripe's documented form: several v1 signatures (a rolled secret) and a v0 that is ignored.
	h := http.Header{}
	h.Set("Stripe-Signature", idverify.Sign("whsec_old", now.Unix(), body)+",v0=abc,"+strings.Split(idverify.Sign(simSecret, now.Unix(), body), ",")[1])
	if _, err := idverify.VerifyWebhook(h, body, simSecret, now); err != nil {
		t.Errorf("two v1 signatures, one good: %v", err)
	}
	header := func(v string) http.Header { h := http.Header{}; h.Set("Stripe-Signature", v); return h }
	cases := []struct {
		name   string
		h      http.Header
		body   []byte
		secret string
		want   error
	}{
		{"forged", signed("whsec_other", now, body), body, simSecret, idverify.ErrSignature},
		{"old", signed(simSecret, now.Add(-webhooksig.Tolerance-time.Minute), body), body, simSecret, idverify.ErrSignature},
		{"future", signed(simSecret, now.Add(webhooksig.Tolerance+time.Minute), body), body, simSecret, idverify.ErrSignature},
		{"no header", http.Header{}, body, simSecret, idverify.ErrSignature},
		{"no timestamp", header("v1=" + strings.Repeat("ab", 32)), body, simSecret, idverify.ErrSignature},
		{"no v1", header("t=" + strconv.FormatInt(now.Unix(), 10) + ",v0=ab"), body, simSecret, idverify.ErrSignature},
		{"v1 not hex", header("t=" + strconv.FormatInt(now.Unix(), 10) + ",v1=zz"), body, simSecret, idverify.ErrSignature},
		{"no secret", signed("", now, body), body, "", idverify.ErrSignature},
		{"body changed", signed(simSecret, now, body), append([]byte(" "), body...), simSecret, idverify.ErrSignature},
		{"signed junk", signed(simSecret, now, []byte(`[]`)), []byte(`[]`), simSecret, idverify.ErrBadEvent},
	}
	for _, c := range cases {
		_, err := idverify.VerifyWebhook(c.h, c.body, c.secret, now)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestParseEvent: exact results for the shapes the parser accepts and refuses.
func TestParseEvent(t *testing.T) {
	ref := "0b5c4a52-58a6-4a43-9d7e-0d4f1a7d2b11"
	r := uuid.MustParse(ref)
	long := strings.Repeat("é", idverify.MaxReasonLen+10)
	cases := []struct {
		name string
		body string
		want idverify.Event
		bad  bool
	}{
		{name: "verified", body: event("evt_1", idverify.EventVerified, "vs_1", ref, "verified", `"last_error":null,"extra":1`),
			want: idverify.Event{ID: "evt_1", Type: idverify.EventVerified, VerificationID: "vs_1", Reference: r, Status: "verified"}},
		{name: "requires input", body: event("evt_2", idverify.EventRequiresInput, "vs_2", ref, "requires_input",
			`"last_error":{"code":"document_expired","reason":" Document\u0000 expired\n "}`),
			want: idverify.Event{ID: "evt_2", Type: idverify.EventRequiresInput, VerificationID: "vs_2", Reference: r, Status: "requires_input", FailureReason: "Document expired"}},
		{name: "requires input, code only", body: event("evt_2", idverify.EventRequiresInput, "vs_2", ref, "requires_input", `"last_error":{"code":"selfie_face_mismatch","reason":null}`),
			want: idverify.Event{ID: "evt_2", Type: idverify.EventRequiresInput, VerificationID: "vs_2", Reference: r, Status: "requires_input", FailureReason: "selfie_face_mismatch"}},
		{name: "long reason cut", body: event("evt_3", idverify.EventRequiresInput, "v", ref, "requires_input", `"last_error":{"code":"x","reason":"`+long+`"}`),
			want: idverify.Event{ID: "evt_3", Type: idverify.EventRequiresInput, VerificationID: "v", Reference: r, Status: "requires_input", FailureReason: long[:2*idverify.MaxReasonLen]}},
		{name: "canceled", body: event("evt_4", idverify.EventCanceled, "vs_4", ref, "canceled", ""),
			want: idverify.Event{ID: "evt_4", Type: idverify.EventCanceled, VerificationID: "vs_4", Reference: r, Status: "canceled", FailureReason: "canceled"}},
		{name: "other type", body: event("evt_5", "identity.verification_session.processing", "vs_3", ref, "processing", ""),
			want: idverify.Event{ID: "evt_5", Type: "identity.verification_session.processing", VerificationID: "vs_3", Reference: r, Status: "processing"}},
		{name: "status disagrees", body: event("evt_1", idverify.EventVerified, "vs_1", ref, "requires_input", ""), bad: true},
		{name: "not an event", body: strings.Replace(event("evt_1", idverify.EventVerified, "vs_1", ref, "verified", ""), `"object":"event"`, `"object":"charge"`, 1), bad: true},
		{name: "not a session", body: strings.Replace(event("evt_1", idverify.EventVerified, "vs_1", ref, "verified", ""), `"identity.verification_session","status"`, `"charge","status"`, 1), bad: true},
		{name: "no event id", body: event("", idverify.EventVerified, "vs_1", ref, "verified", ""), bad: true},
		{name: "no data", body: `{"id":"evt_1","object":"event","type":"identity.verification_session.verified"}`, bad: true},
		{name: "reference not uuid", body: event("evt_1", idverify.EventVerified, "vs_1", "x", "verified", ""), bad: true},
		{name: "references differ", body: strings.Replace(event("evt_1", idverify.EventVerified, "vs_1", ref, "verified", ""), `"client_reference_id":"`+ref, `"client_reference_id":"`+uuid.NewString(), 1), bad: true},
		{name: "nil reference", body: event("evt_1", idverify.EventVerified, "vs_1", "00000000-0000-0000-0000-000000000000", "verified", ""), bad: true},
		{name: "id with space", body: event("evt_1", idverify.EventVerified, "vs 1", ref, "verified", ""), bad: true},
		{name: "id too long", body: event("evt_1", idverify.EventVerified, strings.Repeat("a", 201), ref, "verified", ""), bad: true},
		{name: "reason not text", body: event("evt_1", idverify.EventRequiresInput, "v", ref, "requires_input", `"last_error":{"reason":7}`), bad: true},
		{name: "two values", body: event("evt_1", idverify.EventVerified, "vs_1", ref, "verified", "") + ` {}`, bad: true},
		{name: "array", body: `[]`, bad: true},
		{name: "not utf-8", body: event("evt_1", idverify.EventRequiresInput, "v", ref, "requires_input", "\"last_error\":{\"reason\":\"\xff\"}"), bad: true},
		{name: "too large", body: `{"id":"evt_1","pad":"` + strings.Repeat("x", idverify.MaxBody) + `"}`, bad: true},
	}
	for _, c := range cases {
		got, err := idverify.ParseEvent([]byte(c.body))
		if c.bad {
			if !errors.Is(err, idverify.ErrBadEvent) {
				t.Errorf("%s: ParseEvent = %+v, %v, want ErrBadEvent", c.name, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: ParseEvent = %+v, %v, want %+v", c.name, got, err, c.want)
		}
	}
}

// FuzzParseEvent: no input panics; an error is always ErrBadEvent; an accepted event has the
// ids set, a reason within bounds and free of control characters, and an outcome that agrees
// with its status.
func FuzzParseEvent(f *testing.F) {
	ref := "0b5c4a52-58a6-4a43-9d7e-0d4f1a7d2b11"
	f.Add([]byte(event("evt_1", idverify.EventVerified, "vs_1", ref, "verified", "")))
	f.Add([]byte(event("evt_2", idverify.EventRequiresInput, "vs_2", ref, "requires_input", `"last_error":{"code":"document_expired","reason":"Document expired"}`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := idverify.ParseEvent(body)
		if err != nil {
			if !errors.Is(err, idverify.ErrBadEvent) {
				t.Fatalf("ParseEvent error %v is not ErrBadEvent", err)
			}
			return
		}
		if ev.ID == "" || ev.Type == "" || ev.VerificationID == "" || ev.Reference == uuid.Nil {
			t.Fatalf("ParseEvent = %+v, want type and ids set", ev)
		}
		if n := len([]rune(ev.FailureReason)); n > idverify.MaxReasonLen || strings.ContainsAny(ev.FailureReason, "\x00\n\r\t") || strings.TrimSpace(ev.FailureReason) != ev.FailureReason {
			t.Fatalf("reason %q: %d characters, want at most %d, trimmed, without controls", ev.FailureReason, n, idverify.MaxReasonLen)
		}
		if st, ok := ev.Outcome(); ok && map[string]models.IdentityStatus{"verified": models.IdentityStatusVerified,
			"requires_input": models.IdentityStatusFailed, "canceled": models.IdentityStatusFailed}[ev.Status] != st {
			t.Fatalf("outcome %s with status %q", st, ev.Status)
		}
	})
}
