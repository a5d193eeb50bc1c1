package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// receiver is a partner's callback endpoint that verifies every callback like a partner should.
type receiver struct {
	t        *testing.T
	srv      *httptest.Server
	secrets  store.PartnerSecrets
	mu       sync.Mutex
	got      []callbacks.Payload
	failures int // answer 500 to this many requests first
	calls    int
}

func newReceiver(t *testing.T, sec store.PartnerSecrets) *receiver {
	r := &receiver{t: t, secrets: sec}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls++
		if r.failures > 0 {
			r.failures--
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		if err := callbacks.Verify(req.Header, body, sec.CallbackSecret, sec.SigningSecret, time.Now()); err != nil {
			t.Errorf("callback does not verify: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var p callbacks.Payload
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("callback body %s: %v", body, err)
		}
		r.got = append(r.got, p)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) callbacks() []callbacks.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]callbacks.Payload(nil), r.got...)
}

// await waits until n callbacks arrived.
func (r *receiver) await(t *testing.T, n int) []callbacks.Payload {
	t.Helper()
	return r.awaitWithin(t, n, 30*time.Second)
}

// awaitWithin waits up to d until n callbacks arrived.
func (r *receiver) awaitWithin(t *testing.T, n int, d time.Duration) []callbacks.Payload {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if got := r.callbacks(); len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("received %d callbacks after %s, want %d", len(r.callbacks()), d, n)
	return nil
}

type partnerFixture struct {
	*fixture
	sim      *atssim.Server
	recv     *receiver
	key      string // bound to the partner
	plainKey string // not bound to a partner
}

const (
	simJob       = "5001"
	simApplicant = "1001"
	simCandidate = "7001"
)

func newPartnerFixture(t *testing.T, env ...string) *partnerFixture {
	t.Helper()
	return newPartnerFixtureWith(t, withEnv(env...))
}

func newPartnerFixtureWith(t *testing.T, opts ...fixtureOpt) *partnerFixture {
	t.Helper()
	sim := atssim.New([]atssim.Record{
		{ATSType: models.ATSTypeA, ApplicantID: 1001, JobID: 5001, CandidateID: 7001, FirstName: "Ada", LastName: "Quinn", Email: "ada@example.com", Phone: "+14155550101"},
		{ATSType: models.ATSTypeA, ApplicantID: 1002, JobID: 5001, CandidateID: 7002, FirstName: "Ben", Email: "ben@example.com"},
		{ATSType: models.ATSTypeA, ApplicantID: 1003, JobID: 5002, CandidateID: 7003, FirstName: "Cy", Email: "cy@example.com"},
	}, atssim.Credentials{RestToken: "sim-token"})
	simSrv := httptest.NewServer(sim.Handler())
	t.Cleanup(simSrv.Close)
	f := &partnerFixture{fixture: newFixture(t, opts...), sim: sim}
	ctx := t.Context()
	// Workflow ids hold the slug, and tests share one Temporal server: a slug per test keeps
	// their partner-application runs apart.
	f.acme.Slug = fmt.Sprintf("acme-%d", time.Now().UnixNano())
	if err := f.st.DB().Model(f.acme).Updates(map[string]any{"ats_type": models.ATSTypeA, "slug": f.acme.Slug}).Error; err != nil {
		t.Fatal(err)
	}
	if err := f.st.SetATSCredentials(ctx, f.acme.ID, f.box, map[string]string{"baseUrl": simSrv.URL, "restToken": "sim-token"}); err != nil {
		t.Fatal(err)
	}
	sec := store.PartnerSecrets{CallbackSecret: "cbs_test_secret", SigningSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
	f.recv = newReceiver(t, sec)
	p := &models.Partner{CompanyID: f.acme.ID, Name: "jobboard", CallbackURL: f.recv.srv.URL + "/callbacks"}
	if err := f.st.CreatePartner(ctx, f.box, p, sec); err != nil {
		t.Fatal(err)
	}
	f.key, _ = apikey.Generate()
	k, err := f.st.CreateAPIKey(ctx, f.acme.ID, "partner", f.key)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.BindAPIKey(ctx, f.acme.ID, k.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	f.plainKey = f.acmeKey
	f.job(t, simJob, models.JobStatusActive, true)
	f.definition(t, flow.Defaults()[models.TriggerPartnerApplication])
	return f
}

func (f *partnerFixture) job(t *testing.T, ext string, status models.JobStatus, open bool) {
	t.Helper()
	j := &models.Job{CompanyID: f.acme.ID, ExternalID: ext, InterviewerID: "acme-" + ext, Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: status, IsOpen: open}
	if err := f.st.DB().Create(j).Error; err != nil {
		t.Fatal(err)
	}
	if status == models.JobStatusActive || status == models.JobStatusPaused {
		interviewReady(t, f.st, j)
	}
}

func (f *partnerFixture) definition(t *testing.T, d *flow.Definition) {
	t.Helper()
	raw, _ := json.Marshal(d)
	if _, err := f.st.SaveFlowDefinition(t.Context(), f.acme.ID, models.TriggerPartnerApplication, raw, d.Enabled, flow.Hash(d)); err != nil {
		t.Fatal(err)
	}
}

func (f *partnerFixture) submit(t *testing.T, key string, body string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL+"/v2/api/partner-applications", strings.NewReader(body))
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	f.api.Check(t, req, resp)
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m, resp.Header
}

func TestPartnerApplicationInvited(t *testing.T) {
	f := newPartnerFixture(t)
	status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001","atsCandidateId":"7001"}`)
	if status != 202 || body["created"] != true || body["applicationId"] == "" {
		t.Fatalf("submit = %d %v, want 202 created", status, body)
	}
	got := f.recv.await(t, 1)
	if got[0].Status != "invited" || !strings.HasPrefix(got[0].InterviewLink, f.srv.URL+"/interview/") || got[0].ApplicationID != body["applicationId"] {
		t.Fatalf("callback = %+v", got[0])
	}
	if !strings.Contains(f.outbox.String(), "ada@example.com") {
		t.Errorf("the applicant was not invited: outbox %q", f.outbox.String())
	}

	// A repeat after settlement: same id, created false, a replay with the original link, no new invite.
	invites := strings.Count(f.outbox.String(), "outbox ·")
	status, again, _ := f.submit(t, f.key, `{"atsApplicantId":"1001"}`)
	if status != 202 || again["created"] != false || again["applicationId"] != body["applicationId"] {
		t.Fatalf("repeat = %d %v", status, again)
	}
	got = f.recv.await(t, 2)
	if got[1].Status != "invited" || got[1].Reason != "repeat_submission" || got[1].InterviewLink != got[0].InterviewLink {
		t.Errorf("replay = %+v, want invited/repeat_submission with the original link", got[1])
	}
	time.Sleep(300 * time.Millisecond)
	if n := strings.Count(f.outbox.String(), "outbox ·"); n != invites {
		t.Errorf("the repeat contacted the candidate again (%d messages, was %d)", n, invites)
	}
	if n := len(f.recv.callbacks()); n != 2 {
		t.Errorf("%d callbacks, want the terminal one and one replay", n)
	}
}

// TestPartnerApplicationErrorsInOrder: each refusal of a submission reaches the partner as the
// spec's status and code (success false, Retry-After on 503), and none is followed by a
// callback. The order of the checks and which of them call the ATS are the feature's rules:
// internal/partners TestSubmitChecksInOrder.
func TestPartnerApplicationErrorsInOrder(t *testing.T) {
	f := newPartnerFixture(t)
	f.job(t, "5009", models.JobStatusActive, false)
	f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 1500, JobID: 5001, CandidateID: 7500, Email: "x@example.com", Status: 503})
	tests := []struct {
		name   string
		key    string
		body   string
		status int
		code   string
	}{
		{"no key", "", `{"atsApplicantId":"1001"}`, 401, "MISSING_API_KEY"},
		{"no applicant id", f.key, `{"atsJobId":"5001"}`, 400, "MISSING_REQUIRED_FIELDS"},
		{"non-integer id", f.key, `{"atsApplicantId":"12a"}`, 400, "INVALID_FIELD"},
		{"key without partner", f.plainKey, `{"atsApplicantId":"1001"}`, 409, "NO_CALLBACK_ENDPOINT"},
		{"unknown job", f.key, `{"atsApplicantId":"1001","atsJobId":"9999"}`, 404, "JOB_NOT_FOUND"},
		{"closed job", f.key, `{"atsApplicantId":"1001","atsJobId":"5009"}`, 409, "JOB_CLOSED"},
		{"unknown applicant", f.key, `{"atsApplicantId":"424242"}`, 404, "APPLICANT_NOT_FOUND"},
		{"ATS 503", f.key, `{"atsApplicantId":"1500"}`, 503, "ATS_UNAVAILABLE"},
		{"candidate mismatch", f.key, `{"atsApplicantId":"1002","atsJobId":"5001","atsCandidateId":"7999"}`, 422, "ID_MISMATCH"},
		{"job mismatch", f.key, `{"atsApplicantId":"1003","atsJobId":"5001"}`, 422, "ID_MISMATCH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, h := f.submit(t, tt.key, tt.body)
			if status != tt.status || body["code"] != tt.code || body["success"] != false {
				t.Errorf("= %d %v, want %d %s", status, body, tt.status, tt.code)
			}
			if status == 503 && h.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
		})
	}
	// The fields' refusals name the fields.
	if _, body, _ := f.submit(t, f.key, `{"atsApplicantId":"12a"}`); body["message"] != "atsApplicantId must be a positive integer id, as a string" {
		t.Errorf("non-integer id message = %v", body["message"])
	}
	// A job without a partner_application trigger.
	f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: false, Steps: flow.Defaults()[models.TriggerPartnerApplication].Steps})
	if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`); status != 409 || body["code"] != "NO_PARTNER_TRIGGER" {
		t.Errorf("disabled trigger = %d %v, want 409 NO_PARTNER_TRIGGER", status, body)
	}
	// An ATS type partner applications do not support.
	if err := f.st.DB().Model(f.acme).Update("ats_type", models.ATSTypeD).Error; err != nil {
		t.Fatal(err)
	}
	if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1002"}`); status != 422 || body["code"] != "UNSUPPORTED_ATS" {
		t.Errorf("ATS-D = %d %v, want 422 UNSUPPORTED_ATS", status, body)
	}
	if n := len(f.recv.callbacks()); n != 0 {
		t.Errorf("%d callbacks after non-202 answers, want none", n)
	}
}

// TestPartnerApplicationRateLimit: a key over its submission rate gets 429 naming the
// submissions, and one over its request rate first gets 429 naming the requests.
func TestPartnerApplicationRateLimit(t *testing.T) {
	for _, c := range []struct {
		env  []string
		says string
	}{
		{[]string{"PARTNER_RATE_LIMIT=0.01", "PARTNER_RATE_BURST=2"}, "too many submissions"},
		{[]string{"API_RATE_LIMIT=0.01", "API_RATE_BURST=2", "PARTNER_RATE_LIMIT=0.01", "PARTNER_RATE_BURST=5"}, "too many requests"},
	} {
		f := newPartnerFixture(t, c.env...)
		for i := range 2 {
			if status, _, _ := f.submit(t, f.key, `{"atsApplicantId":"424242"}`); status != 404 {
				t.Fatalf("%v: request %d = %d, want 404 within the burst", c.env, i, status)
			}
		}
		status, body, h := f.submit(t, f.key, `{"atsApplicantId":"424242"}`)
		msg, _ := body["message"].(string)
		if status != 429 || body["code"] != "RATE_LIMITED" || h.Get("Retry-After") == "" || !strings.HasPrefix(msg, c.says) {
			t.Errorf("%v: third request = %d %v Retry-After %q, want 429 %q... with Retry-After", c.env, status, body, h.Get("Retry-After"), c.says)
		}
	}
}

func TestFiftyIdenticalSubmissions(t *testing.T) {
	f := newPartnerFixture(t)
	// The run waits before it settles, so every submission arrives while it is in flight (one
	// arriving after the callback is a repeat of a settled applicant, which gets a replay).
	f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: true, Steps: []flow.Step{
		{Type: flow.StepWait, Wait: &flow.WaitStep{Duration: "2s"}},
		{Type: flow.StepInvite, Invite: &flow.InviteStep{Channels: []models.MessageChannel{models.MessageChannelEmail}, MediumType: models.MediumTypeVideo}},
		{Type: flow.StepPartnerCallback, PartnerCallback: &flow.PartnerCallbackStep{Status: flow.CallbackInvited}},
	}})
	const n = 50
	results := make([]string, n)
	ids := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/v2/api/partner-applications", bytes.NewReader([]byte(`{"atsApplicantId":"1002","atsJobId":"5001"}`)))
			req.Header.Set("X-API-Key", f.key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				results[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var r httpapi.PartnerApplicationResponse
			_ = json.NewDecoder(resp.Body).Decode(&r)
			mu.Lock()
			ids[r.ApplicationID]++
			mu.Unlock()
			results[i] = fmt.Sprintf("%d %v", resp.StatusCode, r.Created)
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for _, r := range results {
		count[r]++
	}
	if count["202 true"] != 1 || count["202 false"] != n-1 || len(ids) != 1 {
		t.Fatalf("50 submissions gave %v with %d application ids, want one created and 49 repeats of one id", count, len(ids))
	}
	f.recv.await(t, 1)
	time.Sleep(500 * time.Millisecond)
	if got := f.recv.callbacks(); len(got) != 1 {
		t.Errorf("%d callbacks, want exactly one", len(got))
	}
	var apps, cbs int64
	f.st.DB().Model(&models.PartnerApplication{}).Count(&apps)
	f.st.DB().Model(&models.Callback{}).Count(&cbs)
	if apps != 1 || cbs != 1 {
		t.Errorf("%d applications and %d callbacks stored, want 1 and 1", apps, cbs)
	}
}

func TestDefinitionWithoutCallbackGetsFallback(t *testing.T) {
	f := newPartnerFixture(t)
	f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: true, Steps: []flow.Step{
		{Type: flow.StepSetStatus, SetStatus: &flow.SetStatusStep{Target: flow.TargetApplication, Status: "screened"}},
	}})
	if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`); status != 202 {
		t.Fatalf("submit = %d %v", status, body)
	}
	got := f.recv.await(t, 1)
	if got[0].Status != "not_eligible" || got[0].Reason != "workflow_completed_without_callback" || got[0].InterviewLink != "" {
		t.Errorf("callback = %+v, want not_eligible/workflow_completed_without_callback", got[0])
	}
}

func TestCallbackRetriedUntilDelivered(t *testing.T) {
	f := newPartnerFixture(t)
	f.recv.mu.Lock()
	f.recv.failures = 1
	f.recv.mu.Unlock()
	if status, _, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`); status != 202 {
		t.Fatal("not accepted")
	}
	got := f.recv.await(t, 1) // the second attempt comes after the schedule's 5 s
	// The receiver answers before the attempt is recorded: wait for the record.
	var cb models.Callback
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := f.st.DB().First(&cb).Error; err != nil {
			t.Fatal(err)
		}
		if cb.State == models.CallbackStateDelivered || time.Now().After(deadline) {
			break
		}
	}
	var attempts []models.CallbackAttempt
	f.st.DB().Where("callback_id = ?", cb.ID).Order("number").Find(&attempts)
	if got[0].Status != "invited" || cb.State != models.CallbackStateDelivered || cb.Attempts != 2 || len(attempts) != 2 ||
		attempts[0].StatusCode == nil || *attempts[0].StatusCode != 500 || attempts[1].StatusCode == nil || *attempts[1].StatusCode != 204 {
		t.Errorf("callback %+v attempts %+v, want delivered on attempt 2 after a 500", cb, attempts)
	}
}

// TestWorkerRestartAfterAccept stops the worker right after the 202, while the application's run
// waits, and starts a new one: the run resumes from its history and exactly one callback arrives.
func TestWorkerRestartAfterAccept(t *testing.T) {
	f := newPartnerFixture(t)
	f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: true, Steps: []flow.Step{
		{Type: flow.StepWait, Wait: &flow.WaitStep{Duration: "2s"}},
		{Type: flow.StepInvite, Invite: &flow.InviteStep{Channels: []models.MessageChannel{models.MessageChannelEmail}, MediumType: models.MediumTypeVideo}},
		{Type: flow.StepPartnerCallback, PartnerCallback: &flow.PartnerCallbackStep{Status: flow.CallbackInvited}},
	}})
	if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`); status != 202 {
		t.Fatalf("submit = %d %v", status, body)
	}
	time.Sleep(300 * time.Millisecond) // the run has started and is in its wait
	f.worker.Stop()
	time.Sleep(2500 * time.Millisecond) // the wait's timer fires while no worker runs
	if n := len(f.recv.callbacks()); n != 0 {
		t.Fatalf("%d callbacks while no worker ran", n)
	}
	f.worker = f.startWorker()
	got := f.recv.await(t, 1)
	time.Sleep(time.Second)
	if got = f.recv.callbacks(); len(got) != 1 || got[0].Status != "invited" {
		t.Errorf("callbacks after the restart = %+v, want exactly one invited", got)
	}
}

// TestPartnerCannotReadAnotherPartnersApplicant: partner B, with its own key of the same company,
// repeats partner A's applicant, before and after A's callback. B gets 409 and no callback, and A
// gets nothing but its own one callback.
func TestPartnerCannotReadAnotherPartnersApplicant(t *testing.T) {
	f := newPartnerFixture(t)
	ctx := t.Context()
	sec := store.PartnerSecrets{CallbackSecret: "cbs_other_secret", SigningSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
	other := newReceiver(t, sec)
	p := &models.Partner{CompanyID: f.acme.ID, Name: "otherboard", CallbackURL: other.srv.URL + "/callbacks"}
	if err := f.st.CreatePartner(ctx, f.box, p, sec); err != nil {
		t.Fatal(err)
	}
	otherKey, _ := apikey.Generate()
	k, err := f.st.CreateAPIKey(ctx, f.acme.ID, "other partner", otherKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.BindAPIKey(ctx, f.acme.ID, k.ID, p.ID); err != nil {
		t.Fatal(err)
	}

	status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`)
	if status != http.StatusAccepted {
		t.Fatalf("A's submission = %d %v", status, body)
	}
	// While in flight, then after A's callback: the same answer, nothing of A's submission.
	for _, when := range []string{"in flight", "settled"} {
		if when == "settled" {
			f.recv.await(t, 1)
		}
		for _, req := range []string{`{"atsApplicantId":"1001"}`, `{"atsApplicantId":"1001","atsJobId":"5001"}`} {
			st, b, _ := f.submit(t, otherKey, req)
			if st != http.StatusConflict || b["code"] != "SUBMITTED_BY_ANOTHER_PARTNER" || b["applicationId"] != nil {
				t.Errorf("B's repeat %s (%s) = %d %v, want 409 SUBMITTED_BY_ANOTHER_PARTNER without an application id", req, when, st, b)
			}
		}
	}
	time.Sleep(500 * time.Millisecond)
	if got := other.callbacks(); len(got) != 0 {
		t.Errorf("partner B received %d callbacks of A's applicant: %+v", len(got), got)
	}
	if got := f.recv.callbacks(); len(got) != 1 {
		t.Errorf("partner A received %d callbacks, want its one", len(got))
	}
	// B's own applicant is B's.
	if st, b, _ := f.submit(t, otherKey, `{"atsApplicantId":"1002","atsJobId":"5001"}`); st != http.StatusAccepted {
		t.Fatalf("B's own submission = %d %v", st, b)
	}
	if got := other.await(t, 1); got[0].Status != "invited" {
		t.Errorf("B's callback = %+v", got[0])
	}
}

// TestFallbackTimeoutStopsTheWorkflow: the customer workflow waits longer than the company's
// deadline before it would invite. The partner gets one not_eligible/fallback_timeout callback,
// and the candidate gets no message, then or after the workflow's wait would have ended; the
// run records its workflow as stopped for fallback_timeout.
func TestFallbackTimeoutStopsTheWorkflow(t *testing.T) {
	f := newPartnerFixture(t)
	const deadline = 10 // seconds, the smallest the companies table allows
	if err := f.st.DB().Model(f.acme).Update("partner_deadline_seconds", deadline).Error; err != nil {
		t.Fatal(err)
	}
	f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: true, Steps: []flow.Step{
		{Type: flow.StepWait, Wait: &flow.WaitStep{Duration: "13s"}},
		{Type: flow.StepInvite, Invite: &flow.InviteStep{Channels: []models.MessageChannel{models.MessageChannelEmail, models.MessageChannelSMS}, MediumType: models.MediumTypeVideo}},
		{Type: flow.StepPartnerCallback, PartnerCallback: &flow.PartnerCallbackStep{Status: flow.CallbackInvited}},
	}})
	begin := time.Now()
	status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`)
	if status != 202 {
		t.Fatalf("submit = %d %v", status, body)
	}
	got := f.recv.awaitWithin(t, 1, 40*time.Second)
	if got[0].Status != "not_eligible" || got[0].Reason != "fallback_timeout" || got[0].InterviewLink != "" {
		t.Fatalf("callback = %+v, want not_eligible/fallback_timeout", got[0])
	}
	if waited := time.Since(begin); waited < deadline*time.Second {
		t.Errorf("fallback after %s, before the %ds deadline", waited, deadline)
	}
	// The run ends once the callback is decided; its result says why the workflow stopped.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var res workflows.PartnerResult
	if err := f.tc.GetWorkflow(ctx, kinds.PartnerApplication.ID(f.acme.Slug, "1001"), "").Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "not_eligible" || res.Flow.Result != flow.ResultStopped || res.Flow.Reason != "fallback_timeout" {
		t.Errorf("run result = %+v, want the workflow stopped for fallback_timeout", res)
	}
	// Past the point where the workflow's wait would have ended and its invitation gone out.
	time.Sleep(time.Until(begin.Add(16 * time.Second)))
	if out := f.outbox.String(); strings.Contains(out, "ada@example.com") || strings.Contains(out, "+14155550101") {
		t.Errorf("the candidate was contacted after the fallback callback: outbox %q", out)
	}
	var messages, sessions int64
	f.st.DB().Model(&models.Message{}).Where("company_id = ?", f.acme.ID).Count(&messages)
	f.st.DB().Model(&models.InterviewSession{}).Where("company_id = ?", f.acme.ID).Count(&sessions)
	if messages != 0 || sessions != 0 {
		t.Errorf("%d messages and %d sessions stored, want none", messages, sessions)
	}
	var pa models.PartnerApplication
	if err := f.st.DB().First(&pa, "company_id = ? AND ats_applicant_id = ?", f.acme.ID, "1001").Error; err != nil {
		t.Fatal(err)
	}
	if pa.Status != models.PartnerStatusNotEligible || pa.Reason == nil || *pa.Reason != "fallback_timeout" {
		t.Errorf("application = %s %v, want not_eligible for fallback_timeout", pa.Status, pa.Reason)
	}
	if n := len(f.recv.callbacks()); n != 1 {
		t.Errorf("%d callbacks, want exactly one", n)
	}
}

// TestSubmissionDoesNotWaitForTheCompanysStatistics: another transaction has an uncommitted
// candidate of the company (the way every other submission, invitation or HR-suite ingest of
// the company has until it commits). A first submission is answered 202 at once all the same,
// and since the company's statistics of new candidates are insert-only deltas (migration
// 00056) its run stores the candidate and calls back while the other transaction is still
// open; before, the run waited for the other's commit on the company's row of the day.
func TestSubmissionDoesNotWaitForTheCompanysStatistics(t *testing.T) {
	f := newPartnerFixture(t)
	tx := f.st.DB().Begin()
	if err := tx.Exec(`INSERT INTO candidates (company_id, first_name, last_name, status) VALUES (?, 'Held', 'Open', 'interviewing')`, f.acme.ID).Error; err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	begin := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL+"/v2/api/partner-applications", strings.NewReader(`{"atsApplicantId":"1001","atsJobId":"5001"}`))
	req.Header.Set("X-API-Key", f.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("submission while the statistics rows are held: %v after %s", err, time.Since(begin))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submission = %d, want 202", resp.StatusCode)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("202 after %s, want it without waiting for the other transaction", took)
	}
	if got := f.recv.await(t, 1); got[0].Status != "invited" {
		t.Errorf("callback = %+v, want invited", got[0])
	}
	if err := tx.Rollback().Error; err != nil {
		t.Fatal(err)
	}
	var pa models.PartnerApplication
	if err := f.st.DB().First(&pa, "company_id = ? AND ats_applicant_id = ?", f.acme.ID, "1001").Error; err != nil {
		t.Fatal(err)
	}
	var cand models.Candidate
	if pa.CandidateID == nil || f.st.DB().First(&cand, "company_id = ? AND id = ?", f.acme.ID, *pa.CandidateID).Error != nil ||
		cand.FirstName != "Ada" || cand.Email == nil || *cand.Email != "ada@example.com" || cand.Phone == nil || *cand.Phone != "+14155550101" ||
		cand.ExternalID == nil || *cand.ExternalID != simCandidate {
		t.Errorf("candidate %+v of application %+v, want Ada from the ATS record", cand, pa)
	}
	if pa.Applicant.V != nil {
		t.Errorf("the applicant is still kept on the partner application after its run stored it: %+v", pa.Applicant.V)
	}
}

// TestPartnerApplicationMisconfiguredATS: a company whose ATS credentials lack a field answers
// a first submission 500 INTERNAL_ERROR with a request id (documented in api/openapi.yaml, which
// submit checks every answer against), and no callback; an applicant accepted before the
// misconfiguration is still answered and replayed.
func TestPartnerApplicationMisconfiguredATS(t *testing.T) {
	f := newPartnerFixture(t)
	if st, b, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`); st != 202 {
		t.Fatalf("submit = %d %v", st, b)
	}
	first := f.recv.await(t, 1)[0]
	if err := f.st.SetATSCredentials(t.Context(), f.acme.ID, f.box, map[string]string{"baseUrl": "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	st, b, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`)
	if st != http.StatusInternalServerError || b["code"] != "INTERNAL_ERROR" || !strings.Contains(fmt.Sprint(b["message"]), "request id") {
		t.Errorf("first submission with a misconfigured ATS = %d %v, want 500 INTERNAL_ERROR with a request id", st, b)
	}
	if st, b, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`); st != 202 || b["created"] != false {
		t.Fatalf("repeat = %d %v, want 202 created:false", st, b)
	}
	if replay := f.recv.await(t, 2)[1]; replay.Reason != "repeat_submission" || replay.InterviewLink != first.InterviewLink {
		t.Errorf("replay = %+v", replay)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(f.recv.callbacks()); n != 2 {
		t.Errorf("%d callbacks, want the first submission's and its replay", n)
	}
}
