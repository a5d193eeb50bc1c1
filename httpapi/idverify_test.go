package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/idverify"
	"github.com/recruitd/recruitd/internal/idvsim"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

const (
	idvKey    = "idv-sim-key"
	idvSecret = "whsec_aWR2LXRlc3Qtc2VjcmV0LW9mLTMyLWJ5dGVzLWxvbmch"
)

// idvFixture is a fixture whose API verifies identity webhooks with idvSecret, a provider
// simulator that delivers to it, and the feature wired to that simulator as the interview page
// will use it.
type idvFixture struct {
	*fixture
	sim *idvsim.Server
	ver *identity.Verifications
}

func newIDVFixture(t *testing.T, ttl time.Duration) *idvFixture {
	t.Helper()
	f := newFixture(t, withEnv("IDV_WEBHOOK_SECRET="+idvSecret))
	sim := idvsim.New(idvsim.Options{APIKey: idvKey, WebhookURL: f.srv.URL + "/webhook/idverify", WebhookSecret: idvSecret, RetryBase: 20 * time.Millisecond})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	ver := identity.New(f.st, identity.Settings{BaseURL: srv.URL, APIKey: idvKey, WebhookSecret: idvSecret, TTL: ttl}, nil)
	if ver.Provider == nil {
		t.Fatal("identity.New: no provider")
	}
	return &idvFixture{fixture: f, sim: sim, ver: ver}
}

// session creates a job (identity verification on or off), a candidate and an INVITED session
// in the company, and returns the session id.
func (f *idvFixture) session(t *testing.T, co *models.Company, verify bool) uuid.UUID {
	t.Helper()
	ext := uuid.NewString()[:8]
	var job, cand, sess uuid.UUID
	db := f.st.DB()
	if err := db.Raw(`INSERT INTO jobs (company_id, external_id, interviewer_id, title, status, enable_identity_verification)
		VALUES (?, ?, ?, 'Nurse', 'ACTIVE', ?) RETURNING id`, co.ID, ext, co.Slug+"-"+ext, verify).Row().Scan(&job); err != nil {
		t.Fatal(err)
	}
	if err := db.Raw(`INSERT INTO candidates (company_id, first_name, last_name, email) VALUES (?, 'Ada', 'Lovelace', ?) RETURNING id`,
		co.ID, ext+"@example.com").Row().Scan(&cand); err != nil {
		t.Fatal(err)
	}
	if err := db.Raw(`INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type) VALUES (?, ?, ?, 'INVITED', 'VIDEO') RETURNING id`,
		co.ID, cand, job).Row().Scan(&sess); err != nil {
		t.Fatal(err)
	}
	return sess
}

func (f *idvFixture) row(t *testing.T, co *models.Company, id uuid.UUID) store.IdentityVerification {
	t.Helper()
	v, err := f.st.IdentityVerification(t.Context(), co.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// await polls the verification until its status is want.
func (f *idvFixture) await(t *testing.T, co *models.Company, id uuid.UUID, want models.IdentityStatus) store.IdentityVerification {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		v := f.row(t, co, id)
		if v.Status == want {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("verification %s is %s, want %s (deliveries %+v)", id, v.Status, want, f.sim.Deliveries())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// decide submits the provider page's form, as the candidate's browser does.
func decide(t *testing.T, pageURL string, form url.Values) int {
	t.Helper()
	resp, err := http.PostForm(pageURL, form)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// deliver posts a webhook as the provider would: the event body with its id set to id (a
// Stripe event's id is the same on every retry of one delivery), signed with secret at ts in a
// Stripe-Signature header; it checks the answer against the contract.
func (f *idvFixture) deliver(t *testing.T, secret, id string, ts time.Time, body []byte) *http.Response {
	t.Helper()
	var ev map[string]any
	if json.Unmarshal(body, &ev) == nil && ev["object"] == "event" {
		ev["id"] = id
		body, _ = json.Marshal(ev)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL+"/webhook/idverify", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", idvsim.Sign(secret, ts.Unix(), body))
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	f.api.Check(t, req, resp)
	return resp
}

// outcomeBody is a Stripe event concluding the verification session providerID (reference is
// recruitd's id in its metadata): status verified, or failed (requires_input with last_error).
func outcomeBody(providerID string, reference uuid.UUID, status, reason string) []byte {
	obj := map[string]any{"id": providerID, "object": "identity.verification_session", "status": "verified",
		"client_reference_id": reference.String(), "metadata": map[string]string{"reference": reference.String()}, "last_error": nil}
	typ := "identity.verification_session.verified"
	if status == "failed" {
		typ, obj["status"] = "identity.verification_session.requires_input", "requires_input"
		obj["last_error"] = map[string]any{"code": "document_unverified_other", "reason": reason}
	}
	b, _ := json.Marshal(map[string]any{"id": "evt_0", "object": "event", "type": typ, "created": time.Now().Unix(), "data": map[string]any{"object": obj}})
	return b
}

func wantCode(t *testing.T, what string, resp *http.Response, status int, code string) {
	t.Helper()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s = %d %s, want %d %s", what, resp.StatusCode, b, status, code)
	}
	if got := decode[httpapi.ErrorBody](t, resp); got.Code != code {
		t.Fatalf("%s: code %s, want %s", what, got.Code, code)
	}
}

func deliveriesOf(t *testing.T, f *idvFixture, id uuid.UUID) (n int64, outcomes string) {
	t.Helper()
	var rows []string
	if err := f.st.DB().Raw(`SELECT outcome FROM identity_webhook_deliveries WHERE verification_id = ? ORDER BY received_at`, id).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return int64(len(rows)), strings.Join(rows, ",")
}

// TestIdentityVerificationEndToEnd drives verifications through the provider simulator's hosted
// page and its signed webhooks into POST /webhook/idverify, on real HTTP and Postgres: pass ->
// VERIFIED, fail with a reason -> FAILED with it; a replay (the simulator redelivering a
// webhook-id, or the same delivery posted again), a forged signature, a stale timestamp and an
// unknown or another company's verification are refused and change nothing; a late conflicting
// outcome is acknowledged and kept out; the identity rollup stays exact.
func TestIdentityVerificationEndToEnd(t *testing.T) {
	f := newIDVFixture(t, time.Hour)
	ctx := t.Context()
	passS, failS, openS := f.session(t, f.acme, true), f.session(t, f.acme, true), f.session(t, f.acme, true)
	otherS := f.session(t, f.other, true)

	// Start: PENDING with the provider's id and page; a repeat gives the same verification.
	pass, err := f.ver.Start(ctx, f.acme.ID, passS, "http://app.example/interview/1")
	if err != nil {
		t.Fatal(err)
	}
	if !pass.Created || pass.Status != models.IdentityStatusPending || !strings.Contains(pass.URL, "/verify/") || time.Until(pass.ExpiresAt) < 59*time.Minute {
		t.Fatalf("Start = %+v, want a new PENDING verification with the hosted page, expiring in an hour", pass)
	}
	again, err := f.ver.Start(ctx, f.acme.ID, passS, "")
	if err != nil || again.Created || again.VerificationID != pass.VerificationID || again.URL != pass.URL {
		t.Fatalf("Start again = %+v, %v, want the same verification", again, err)
	}
	row := f.row(t, f.acme, pass.VerificationID)
	simV, ok := f.sim.ByReference(pass.VerificationID.String())
	if !ok || row.ProviderVerificationID == nil || *row.ProviderVerificationID != simV.ID || row.HostedURL == nil || *row.HostedURL != simV.URL ||
		row.Provider == nil || *row.Provider != idverify.ProviderName || row.SessionID == nil || *row.SessionID != passS {
		t.Fatalf("stored row %+v does not match the simulator's verification %+v", row, simV)
	}

	// Pass on the hosted page -> VERIFIED.
	if code := decide(t, pass.URL, url.Values{"decision": {"pass"}}); code != http.StatusOK {
		t.Fatalf("pass on the hosted page = %d", code)
	}
	v := f.await(t, f.acme, pass.VerificationID, models.IdentityStatusVerified)
	if v.CompletedAt == nil || v.FailureReason != nil {
		t.Errorf("verified row = %+v, want completed_at and no reason", v)
	}

	// Fail with a reason -> FAILED with that reason.
	fail, err := f.ver.Start(ctx, f.acme.ID, failS, "")
	if err != nil {
		t.Fatal(err)
	}
	reason := idvsim.Reasons[2]
	if code := decide(t, fail.URL, url.Values{"decision": {"fail"}, "reason": {reason}}); code != http.StatusOK {
		t.Fatalf("fail on the hosted page = %d", code)
	}
	v = f.await(t, f.acme, fail.VerificationID, models.IdentityStatusFailed)
	if v.FailureReason == nil || *v.FailureReason != reason || v.CompletedAt == nil {
		t.Errorf("failed row = %+v, want reason %q", v, reason)
	}
	if st, _ := f.ver.Start(ctx, f.acme.ID, failS, ""); st.VerificationID != fail.VerificationID || st.Status != models.IdentityStatusFailed || st.URL != "" || st.Created {
		t.Errorf("Start after the failure = %+v, want the FAILED verification, no page", st)
	}

	// Replay by the provider: the simulator redelivers the pass webhook with its webhook-id.
	if err := f.sim.Redeliver(simV.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds := f.sim.Deliveries()
		last := ds[len(ds)-1]
		if last.Replay && last.LastStatus != 0 {
			if last.LastStatus != http.StatusOK {
				t.Fatalf("the redelivery was answered %d, want 200 (a provider's retry is acknowledged)", last.LastStatus)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the redelivery got no answer: %+v", ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Replay by anyone: the same signed delivery posted again; and a fresh outcome for a
	// concluded verification is acknowledged and kept out.
	failID := *f.row(t, f.acme, fail.VerificationID).ProviderVerificationID
	body := outcomeBody(failID, fail.VerificationID, "verified", "")
	if resp := f.deliver(t, idvSecret, "msg_late_1", time.Now(), body); resp.StatusCode != http.StatusOK {
		t.Fatalf("a late outcome = %d, want 200", resp.StatusCode)
	} else if got := decode[httpapi.IdentityWebhookResponse](t, resp); got.Status != "FAILED" || got.Outcome != "unchanged" {
		t.Fatalf("a late outcome = %+v, want FAILED unchanged", got)
	}
	if resp := f.deliver(t, idvSecret, "msg_late_1", time.Now(), body); resp.StatusCode != http.StatusOK {
		t.Fatalf("the same delivery again = %d, want 200", resp.StatusCode)
	} else if got := decode[httpapi.IdentityWebhookResponse](t, resp); got.Status != "FAILED" || got.Outcome != "duplicate" {
		t.Fatalf("the same delivery again = %+v, want FAILED duplicate", got)
	}
	if n, outcomes := deliveriesOf(t, f, fail.VerificationID); n != 2 || outcomes != "applied,unchanged" {
		t.Errorf("deliveries of the failed verification = %d (%s), want applied,unchanged", n, outcomes)
	}
	if n, outcomes := deliveriesOf(t, f, pass.VerificationID); n != 1 || outcomes != "applied" {
		t.Errorf("deliveries of the passed verification = %d (%s), want one applied", n, outcomes)
	}

	// Forged, stale, unsigned, unknown and another company's: refused, nothing changes.
	open, err := f.ver.Start(ctx, f.acme.ID, openS, "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.ver.Start(ctx, f.other.ID, otherS, "")
	if err != nil {
		t.Fatal(err)
	}
	openID := *f.row(t, f.acme, open.VerificationID).ProviderVerificationID
	good := outcomeBody(openID, open.VerificationID, "verified", "")
	wantCode(t, "forged signature", f.deliver(t, "whsec_Zm9yZ2VkLXNlY3JldA==", "msg_forged", time.Now(), good), http.StatusUnauthorized, "INVALID_SIGNATURE")
	wantCode(t, "timestamp outside the tolerance", f.deliver(t, idvSecret, "msg_stale", time.Now().Add(-10*time.Minute), good), http.StatusUnauthorized, "INVALID_SIGNATURE")
	unsigned, _ := http.Post(f.srv.URL+"/webhook/idverify", "application/json", bytes.NewReader(good))
	unsigned.Body.Close()
	if unsigned.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned delivery = %d, want 401", unsigned.StatusCode)
	}
	wantCode(t, "unknown reference", f.deliver(t, idvSecret, "msg_unknown", time.Now(), outcomeBody(openID, uuid.New(), "verified", "")), http.StatusNotFound, "VERIFICATION_NOT_FOUND")
	wantCode(t, "another company's reference with this provider id", f.deliver(t, idvSecret, "msg_cross", time.Now(), outcomeBody(openID, other.VerificationID, "failed", "x")), http.StatusNotFound, "VERIFICATION_NOT_FOUND")
	wantCode(t, "signed junk", f.deliver(t, idvSecret, "msg_junk", time.Now(), []byte(`{"type":"verification.verified"}`)), http.StatusBadRequest, "INVALID_WEBHOOK")
	for _, id := range []uuid.UUID{open.VerificationID} {
		if v := f.row(t, f.acme, id); v.Status != models.IdentityStatusPending {
			t.Errorf("verification %s is %s after refused deliveries, want PENDING", id, v.Status)
		}
	}
	if v := f.row(t, f.other, other.VerificationID); v.Status != models.IdentityStatusPending {
		t.Errorf("the other company's verification is %s, want PENDING", v.Status)
	}
	// The refused deliveries' webhook-ids were not taken: the good one still applies.
	resp := f.deliver(t, idvSecret, "msg_forged", time.Now(), good)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the good delivery after refusals = %d", resp.StatusCode)
	}
	if got := decode[httpapi.IdentityWebhookResponse](t, resp); got.Status != "VERIFIED" || got.Outcome != "applied" {
		t.Errorf("the good delivery = %+v, want VERIFIED applied", got)
	}

	// Another company's ids reach nothing through the feature either.
	if _, err := f.ver.Start(ctx, f.acme.ID, otherS, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Start(acme, globex's session) = %v, want ErrNotFound", err)
	}
	if _, err := f.ver.Expire(ctx, f.acme.ID, other.VerificationID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Expire(acme, globex's verification) = %v, want ErrNotFound", err)
	}
	if _, err := f.ver.Start(ctx, f.acme.ID, f.session(t, f.acme, false), ""); !errors.Is(err, identity.ErrNotRequired) {
		t.Errorf("Start for a job without identity verification = %v, want ErrNotRequired", err)
	}

	closed := f.session(t, f.acme, true)
	f.st.DB().Exec(`UPDATE interview_sessions SET status = 'CANCELLED' WHERE id = ?`, closed)
	if _, err := f.ver.Start(ctx, f.acme.ID, closed, ""); !errors.Is(err, identity.ErrSessionClosed) {
		t.Errorf("Start for a cancelled session = %v, want ErrSessionClosed", err)
	}
	unconfigured := identity.New(f.st, identity.Settings{WebhookSecret: idvSecret}, nil)
	if _, err := unconfigured.Start(ctx, f.acme.ID, f.session(t, f.acme, true), ""); !errors.Is(err, identity.ErrNotConfigured) {
		t.Errorf("Start without IDV_BASE_URL = %v, want ErrNotConfigured", err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	unreachable := identity.New(f.st, identity.Settings{BaseURL: down.URL, APIKey: idvKey, WebhookSecret: idvSecret}, nil)
	if _, err := unreachable.Start(ctx, f.acme.ID, f.session(t, f.acme, true), ""); !errors.Is(err, identity.ErrProviderUnavailable) {
		t.Errorf("Start with the provider down = %v, want ErrProviderUnavailable", err)
	}

	checkIdentityRollups(t, f, map[string]int64{"VERIFIED|": 2, "FAILED|" + reason: 1}, f.acme)
	checkIdentityRollups(t, f, map[string]int64{"PENDING|": 1}, f.other)
}

// checkIdentityRollups checks the company's rollups against a rebuild (rollup.Check) and its
// identity_daily counts per status and reason against want.
func checkIdentityRollups(t *testing.T, f *idvFixture, want map[string]int64, co *models.Company) {
	t.Helper()
	if err := rollup.Check(t.Context(), f.st.SQL(), co.ID); err != nil {
		t.Errorf("rollups of %s: %v", co.Slug, err)
	}
	var rows []struct {
		Status, Reason string
		N              int64
	}
	if err := f.st.DB().Raw(`SELECT status, reason, sum(verifications) AS n FROM identity_daily WHERE company_id = ?
		GROUP BY 1, 2 HAVING sum(verifications) <> 0`, co.ID).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Status+"|"+r.Reason] = r.N
	}
	if len(got) != len(want) {
		t.Errorf("identity_daily of %s = %v, want %v", co.Slug, got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("identity_daily of %s = %v, want %v", co.Slug, got, want)
			break
		}
	}
}

// TestIdentityVerificationExpires: Expire leaves a verification that is not yet overdue PENDING
// and moves it to EXPIRED once overdue (checked in SQL), repeats safely, keeps a late outcome
// out; Start then creates a new verification. The rollup stays exact.
func TestIdentityVerificationExpires(t *testing.T) {
	f := newIDVFixture(t, 2*time.Second)
	ctx := t.Context()
	s := f.session(t, f.acme, true)
	st, err := f.ver.Start(ctx, f.acme.ID, s, "")
	if err != nil {
		t.Fatal(err)
	}
	early, err := f.ver.Expire(ctx, f.acme.ID, st.VerificationID)
	if err != nil || early.Expired || early.Status != models.IdentityStatusPending || !early.ExpiresAt.Equal(st.ExpiresAt) {
		t.Fatalf("Expire before the expiry = %+v, %v, want PENDING until %s", early, err, st.ExpiresAt)
	}
	time.Sleep(time.Until(st.ExpiresAt) + 200*time.Millisecond)
	res, err := f.ver.Expire(ctx, f.acme.ID, st.VerificationID)
	if err != nil || !res.Expired || res.Status != models.IdentityStatusExpired {
		t.Fatalf("Expire after the expiry = %+v, %v, want EXPIRED", res, err)
	}
	if v := f.row(t, f.acme, st.VerificationID); v.CompletedAt == nil {
		t.Errorf("expired row has no completed_at")
	}
	if res, err := f.ver.Expire(ctx, f.acme.ID, st.VerificationID); err != nil || res.Expired || res.Status != models.IdentityStatusExpired {
		t.Errorf("Expire again = %+v, %v, want EXPIRED, not expired again", res, err)
	}
	providerID := *f.row(t, f.acme, st.VerificationID).ProviderVerificationID
	resp := f.deliver(t, idvSecret, "msg_after_expiry", time.Now(), outcomeBody(providerID, st.VerificationID, "verified", ""))
	if got := decode[httpapi.IdentityWebhookResponse](t, resp); resp.StatusCode != http.StatusOK || got.Status != "EXPIRED" || got.Outcome != "unchanged" {
		t.Errorf("an outcome after the expiry = %d %+v, want 200 EXPIRED unchanged", resp.StatusCode, got)
	}
	next, err := f.ver.Start(ctx, f.acme.ID, s, "")
	if err != nil || !next.Created || next.VerificationID == st.VerificationID || next.Status != models.IdentityStatusPending {
		t.Fatalf("Start after the expiry = %+v, %v, want a new PENDING verification", next, err)
	}
	// An overdue PENDING verification is expired by Start itself, which then creates another.
	time.Sleep(time.Until(next.ExpiresAt) + 200*time.Millisecond)
	third, err := f.ver.Start(ctx, f.acme.ID, s, "")
	if err != nil || !third.Created || third.VerificationID == next.VerificationID {
		t.Fatalf("Start after an unexpired timer = %+v, %v, want a new verification", third, err)
	}
	if v := f.row(t, f.acme, next.VerificationID); v.Status != models.IdentityStatusExpired {
		t.Errorf("the overdue verification is %s, want EXPIRED", v.Status)
	}
	checkIdentityRollups(t, f, map[string]int64{"EXPIRED|": 2, "PENDING|": 1}, f.acme)
}

// TestIdentityVerificationConcurrentStarts: starts of one session at the same moment all give
// the one PENDING verification that was recorded.
func TestIdentityVerificationConcurrentStarts(t *testing.T) {
	f := newIDVFixture(t, time.Hour)
	s := f.session(t, f.acme, true)
	const n = 6
	results := make(chan identity.Started, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			st, err := f.ver.Start(t.Context(), f.acme.ID, s, "")
			results <- st
			errs <- err
		}()
	}
	ids := map[uuid.UUID]int{}
	created := 0
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		st := <-results
		ids[st.VerificationID]++
		if st.Created {
			created++
		}
	}
	var pending int64
	f.st.DB().Raw(`SELECT count(*) FROM identity_verifications WHERE company_id = ? AND session_id = ?`, f.acme.ID, s).Scan(&pending)
	if len(ids) != 1 || created != 1 || pending != 1 {
		t.Fatalf("%d concurrent starts gave verifications %v (%d created), %d rows; want one", n, ids, created, pending)
	}
	checkIdentityRollups(t, f, map[string]int64{"PENDING|": 1}, f.acme)
}
