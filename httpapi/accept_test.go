package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// gatedTemporal is a Temporal client whose workflow starts wait delay before they reach the
// server, or fail at once while down, and which counts the starts made per workflow id.
type gatedTemporal struct {
	client.Client
	delay time.Duration
	down  atomic.Bool

	mu     sync.Mutex
	starts map[string]int
}

var errTemporalAway = errors.New("test: the Temporal frontend is away")

func (c *gatedTemporal) gate(ctx context.Context, id string) error {
	c.mu.Lock()
	c.starts[id]++
	c.mu.Unlock()
	if c.down.Load() {
		return errTemporalAway
	}
	select {
	case <-time.After(c.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *gatedTemporal) started(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts[id]
}

func (c *gatedTemporal) ExecuteWorkflow(ctx context.Context, opts client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	if err := c.gate(ctx, opts.ID); err != nil {
		return nil, err
	}
	return c.Client.ExecuteWorkflow(ctx, opts, wf, args...)
}

func (c *gatedTemporal) SignalWithStartWorkflow(ctx context.Context, id, signal string, arg any, opts client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	if err := c.gate(ctx, id); err != nil {
		return nil, err
	}
	return c.Client.SignalWithStartWorkflow(ctx, id, signal, arg, opts, wf, args...)
}

// gateTemporal puts a gatedTemporal between the fixture's launcher and the server.
func (f *fixture) gateTemporal(delay time.Duration) *gatedTemporal {
	g := &gatedTemporal{Client: f.launcher.Starter.Client, delay: delay, starts: map[string]int{}}
	f.launcher.Starter.Client = g
	return g
}

// TestAcceptAnswersBeforeItsStart: with every workflow start taking 1.5 s at Temporal, a partner
// submission is answered 202 and a createJob 200 right after their commit, not after the start;
// a repeat while the start is in flight is answered as the repeat of an accepted request
// (202 created:false; DUPLICATE_EXTERNAL_JOB_ID, as once its start is taken) and starts nothing
// again; the run follows, with exactly one callback, and the job is generated.
func TestAcceptAnswersBeforeItsStart(t *testing.T) {
	f := newPartnerFixture(t)
	g := f.gateTemporal(1500 * time.Millisecond)

	begin := time.Now()
	status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`)
	took := time.Since(begin)
	if status != http.StatusAccepted || body["created"] != true {
		t.Fatalf("submit = %d %v, want 202 created", status, body)
	}
	if took >= g.delay {
		t.Errorf("202 after %s, want before the %s start completes", took, g.delay)
	}
	status, again, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`)
	if status != http.StatusAccepted || again["created"] != false || again["applicationId"] != body["applicationId"] {
		t.Errorf("repeat while the start is in flight = %d %v, want 202 created:false with the same id", status, again)
	}

	begin = time.Now()
	resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, map[string]any{"externalJobId": "accept-1", "jobDescription": description})
	took = time.Since(begin)
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("createJob = %d %s", resp.StatusCode, b)
	}
	if took >= g.delay {
		t.Errorf("createJob answered after %s, want before the %s start completes", took, g.delay)
	}
	resp = f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, map[string]any{"externalJobId": "accept-1", "jobDescription": description})
	if body := decode[map[string]any](t, resp); resp.StatusCode != http.StatusBadRequest || body["code"] != "DUPLICATE_EXTERNAL_JOB_ID" {
		t.Errorf("createJob again while its start is in flight = %d %v, want DUPLICATE_EXTERNAL_JOB_ID", resp.StatusCode, body)
	}

	got := f.recv.await(t, 1)
	if got[0].Status != "invited" || got[0].ApplicationID != body["applicationId"] {
		t.Errorf("callback = %+v, want invited for %v", got[0], body["applicationId"])
	}
	if job := f.awaitGenerated(t, f.acmeKey, f.acme.Slug+"-accept-1"); job.Status != models.JobStatusActive {
		t.Errorf("job after its background start = %s, want ACTIVE", job.Status)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(f.recv.callbacks()); n != 1 {
		t.Errorf("%d callbacks, want exactly one", n)
	}
	for _, id := range []string{kinds.PartnerApplication.ID(f.acme.Slug, "1001"), kinds.JobGeneration.ID(f.acme.Slug, "accept-1")} {
		if n := g.started(id); n != 1 {
			t.Errorf("%s started %d times, want once (the repeat found it in flight)", id, n)
		}
	}
}

// TestAcceptWhileTemporalIsAway: the first submission after Temporal went away is answered 202
// (the launcher believed it healthy) and its start, failed in the background, is left pending,
// not refused; from then on submissions and createJob are answered 503 TEMPORARILY_UNAVAILABLE,
// except a repeat of the accepted one (202 created:false). When Temporal is back the launcher's
// retry starts the accepted run without any request, and each 503's retry is accepted: one
// callback per applicant.
func TestAcceptWhileTemporalIsAway(t *testing.T) {
	f := newPartnerFixture(t)
	g := f.gateTemporal(0)
	g.down.Store(true)

	status, first, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`)
	if status != http.StatusAccepted || first["created"] != true {
		t.Fatalf("first submission with Temporal away = %d %v, want 202 created (the launcher does not know yet)", status, first)
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.launcher.Healthy() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if f.launcher.Healthy() {
		t.Fatal("the launcher still believes Temporal healthy 10s after a start failed")
	}
	accepted, err := f.st.WorkflowStart(t.Context(), f.acme.ID, kinds.PartnerApplication.ID(f.acme.Slug, "1001"))
	if err != nil || accepted.RefusedAt != nil || accepted.StartedAt != nil {
		t.Fatalf("accepted start whose background start failed = %+v, %v; want pending, not refused", accepted, err)
	}

	status, body, hdr := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`)
	if status != http.StatusServiceUnavailable || body["code"] != "TEMPORARILY_UNAVAILABLE" || hdr.Get("Retry-After") == "" {
		t.Errorf("submission once the launcher knows = %d %v (Retry-After %q), want 503 TEMPORARILY_UNAVAILABLE", status, body, hdr.Get("Retry-After"))
	}
	resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, map[string]any{"externalJobId": "away-1", "jobDescription": description})
	if body := decode[map[string]any](t, resp); resp.StatusCode != http.StatusServiceUnavailable || body["code"] != "TEMPORARILY_UNAVAILABLE" {
		t.Errorf("createJob once the launcher knows = %d %v, want 503 TEMPORARILY_UNAVAILABLE", resp.StatusCode, body)
	}
	status, again, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001"}`)
	if status != http.StatusAccepted || again["created"] != false || again["applicationId"] != first["applicationId"] {
		t.Errorf("repeat of the accepted submission while Temporal is away = %d %v, want 202 created:false", status, again)
	}
	if ws, err := f.st.WorkflowStart(t.Context(), f.acme.ID, accepted.WorkflowID); err != nil || ws.RefusedAt != nil {
		t.Errorf("accepted start after its repeat failed too = %+v, %v; want still not refused", ws, err)
	}

	g.down.Store(false)
	got := f.recv.awaitWithin(t, 1, time.Minute)
	if got[0].ApplicationID != first["applicationId"] {
		t.Errorf("first callback = %+v, want the accepted submission's", got[0])
	}
	status, retried, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`)
	if status != http.StatusAccepted {
		t.Errorf("retry of the 503 = %d %v, want 202", status, retried)
	}
	resp = f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, map[string]any{"externalJobId": "away-1", "jobDescription": description})
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Errorf("createJob retry = %d %s, want 200", resp.StatusCode, b)
	}
	f.recv.await(t, 2)
	time.Sleep(500 * time.Millisecond)
	per := map[string]int{}
	for _, cb := range f.recv.callbacks() {
		per[cb.ApplicationID]++
	}
	if len(per) != 2 || per[fmt.Sprint(first["applicationId"])] != 1 || per[fmt.Sprint(retried["applicationId"])] != 1 {
		t.Errorf("callbacks per application = %v, want one each for the two accepted", per)
	}
	if job := f.awaitGenerated(t, f.acmeKey, f.acme.Slug+"-away-1"); job.Status != models.JobStatusActive {
		t.Errorf("job after the retry = %s, want ACTIVE", job.Status)
	}
}

// TestInterviewSignalRetriedPromptly: the completion's signal to the session's run is refused
// (Temporal away for that one call): the candidate still sees the interview complete, and the
// launcher sends the signal again within seconds, so the run records the transcript final long
// before its next pause (a minute), which was when it saw the completion without a reconciler.
func TestInterviewSignalRetriedPromptly(t *testing.T) {
	f := newFixture(t)
	c, sessionID := f.invite(t, f.acmeKey, "iv-signal")
	g := f.gateTemporal(0)
	id := kinds.Interview.ID(f.acme.Slug, sessionID.String())
	before := g.started(id)
	g.down.Store(true)
	c.complete(t, "Temporal is away")
	g.down.Store(false)
	if g.started(id) == before {
		t.Fatal("the completion sent no signal to the session's run")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := f.tc.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("the session's run did not end within 15 s of the refused signal: %v", err)
	}
	var finals int
	if err := f.st.DB().Raw(`SELECT count(*) FROM interview_events WHERE company_id = ? AND session_id = ? AND kind = ?`,
		f.acme.ID, sessionID, models.EventTranscriptFinal).Scan(&finals).Error; err != nil {
		t.Fatal(err)
	}
	if finals != 1 {
		t.Errorf("the run recorded the transcript final %d times, want once", finals)
	}
}
