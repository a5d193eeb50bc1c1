package httpapi_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

const aggKey = "agg-sim-key"

// aggFixture is a fixture whose acme is an HR-suite account with aggregator credentials for a
// simulator that delivers its webhooks to the fixture's API.
type aggFixture struct {
	*fixture
	sim    *aggsim.Server
	simURL string
}

func newAggFixture(t testing.TB, f *fixture, jobs ...aggsim.Job) *aggFixture {
	t.Helper()
	sim := aggsim.New(aggsim.Options{APIKey: aggKey, InitialJobs: jobs, WebhookURL: f.srv.URL + "/webhook/aggregator"})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	// Tests share one Temporal server and workflow ids hold the slug: a slug per test.
	if !strings.Contains(f.acme.Slug, "-") {
		f.acme.Slug = fmt.Sprintf("acme-%d", time.Now().UnixNano())
	}
	if err := f.st.DB().Model(f.acme).Updates(map[string]any{"hr_suite_account": true, "slug": f.acme.Slug}).Error; err != nil {
		t.Fatal(err)
	}
	f.acme.HRSuiteAccount = true
	if err := f.st.SetAggregatorCredentials(t.Context(), f.acme.ID, f.box, map[string]string{aggregator.FieldBaseURL: srv.URL, aggregator.FieldAPIKey: aggKey}); err != nil {
		t.Fatal(err)
	}
	return &aggFixture{fixture: f, sim: sim, simURL: srv.URL}
}

func (f *aggFixture) card(t *testing.T) httpapi.IntegrationView {
	t.Helper()
	resp := f.send(t, http.MethodGet, "/v1/api/integrations/hrsuite", f.acmeKey, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET card = %d", resp.StatusCode)
	}
	return decode[httpapi.IntegrationCard](t, resp).Connection
}

// connect runs the Connect action and authorises at the simulator's connect page, returning
// the integration id.
func (f *aggFixture) connect(t *testing.T) string {
	t.Helper()
	resp := f.send(t, http.MethodPost, "/v1/api/integrations/hrsuite/connect", f.acmeKey, nil)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("connect = %d %s", resp.StatusCode, b)
	}
	link := decode[httpapi.IntegrationConnectResponse](t, resp).ConnectURL
	page, err := http.Post(link, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("authorise at %s = %d", link, page.StatusCode)
	}
	return f.sim.IntegrationOf(f.acme.ID.String())
}

// awaitState waits until the card reads want.
func (f *aggFixture) awaitState(t *testing.T, want models.IntegrationState) httpapi.IntegrationView {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		c := f.card(t)
		if c.State == want {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("card state = %s (%s), want %s", c.State, c.Label, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitImported waits until n jobs came through the aggregator and every new-job start was
// taken, and returns how long it took.
func (f *aggFixture) awaitImported(t *testing.T, n int, within time.Duration) time.Duration {
	t.Helper()
	begin := time.Now()
	for {
		var imported, pending int64
		f.st.DB().Raw(`SELECT count(*) FROM aggregator_jobs WHERE company_id = ?`, f.acme.ID).Scan(&imported)
		f.st.DB().Raw(`SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NULL`, f.acme.ID, kinds.NewJob.Name).Scan(&pending)
		if int(imported) >= n && pending == 0 {
			return time.Since(begin)
		}
		if time.Since(begin) > within {
			t.Fatalf("after %s: %d jobs imported (want %d), %d new-job starts pending", within, imported, n, pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newJobRuns checks that every job of the company that came through the aggregator has exactly
// one new-job start, taken, and that Temporal lists each of those runs once; it returns their
// number.
func (f *aggFixture) newJobRuns(t *testing.T) int {
	t.Helper()
	var jobs, starts, distinct int64
	f.st.DB().Raw(`SELECT count(*) FROM aggregator_jobs WHERE company_id = ?`, f.acme.ID).Scan(&jobs)
	f.st.DB().Raw(`SELECT count(*), count(DISTINCT input->>'JobID') FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NOT NULL`,
		f.acme.ID, kinds.NewJob.Name).Row().Scan(&starts, &distinct)
	if starts != jobs || distinct != jobs {
		t.Fatalf("new-job starts = %d (%d distinct jobs), want one per imported job (%d)", starts, distinct, jobs)
	}
	runs := listWorkflows(t, f.tc, fmt.Sprintf("CompanySlug = %q AND WorkflowTrigger = %q", f.acme.Slug, models.TriggerNewJobFromATS), int(jobs))
	seen := map[string]int{}
	for _, r := range runs {
		seen[r.GetExecution().GetWorkflowId()]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("workflow %s ran %d times, want once", id, n)
		}
	}
	if len(seen) != int(jobs) {
		t.Errorf("Temporal lists %d new-job runs, want %d", len(seen), jobs)
	}
	return len(seen)
}

func (f *aggFixture) job(t *testing.T, externalID string) *models.Job {
	t.Helper()
	j, err := f.st.JobByExternalID(t.Context(), f.acme.ID, externalID)
	if err != nil {
		t.Fatalf("JobByExternalID(%q): %v", externalID, err)
	}
	return j
}

// TestJobImportEndToEnd drives the connection card over HTTP with the simulator, a real
// Postgres and Temporal: connect, Syncing… (listing refused), first sync, Connected and every job
// imported with one 'New Job from ATS' run each, a duplicate data-changed, a worker restart in
// the middle of an import, a job added and a job closed at the HR suite, a failed
// authentication, a reconnect without duplicates, and a forged webhook that changes nothing.
func TestJobImportEndToEnd(t *testing.T) {
	var initial []aggsim.Job
	for i := range 30 {
		initial = append(initial, aggsim.Job{RemoteID: fmt.Sprintf("R%03d", i), Name: fmt.Sprintf("Nurse %d", i), Location: "Austin, TX"})
	}
	initial = append(initial, aggsim.Job{RemoteID: "R900", Name: "Archived role", Status: "CLOSED"})
	f := newAggFixture(t, newFixture(t), initial...)
	ctx := t.Context()

	if c := f.card(t); c.State != models.IntegrationNotConnected || c.Label != "Not connected" {
		t.Fatalf("card before connect = %+v, want not_connected", c)
	}
	id := f.connect(t)
	if id == "" {
		t.Fatal("the simulator has no integration after authorisation")
	}
	if c := f.awaitState(t, models.IntegrationSyncing); c.Label != "Syncing…" || c.IntegrationID == nil || *c.IntegrationID != id {
		t.Fatalf("card while syncing = %+v", c)
	}
	client, err := aggregator.NewKombo(map[string]string{aggregator.FieldBaseURL: f.simURL, aggregator.FieldAPIKey: aggKey}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.ListJobs(ctx, id, aggregator.JobQuery{}); !errors.Is(err, aggregator.ErrSetupPending) {
		t.Fatalf("ListJobs while syncing = %v, want ErrSetupPending", err)
	}

	t.Run("forged webhook", func(t *testing.T) {
		var before int64
		f.st.DB().Raw(`SELECT count(*) FROM aggregator_events WHERE company_id = ?`, f.acme.ID).Scan(&before)
		body := fmt.Sprintf(`{"id":"evt_forged","type":"integration-state-changed","data":{"integration_id":%q,"state":"ACTIVE","setup_status":"COMPLETED"}}`, id)
		now := time.Now()
		for name, sign := range map[string]func(*http.Request){
			"unsigned":   func(*http.Request) {},
			"wrong key":  func(r *http.Request) { signAs(r, "whsec_d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXk=", now, body) },
			"stale":      func(r *http.Request) { signAs(r, "", now.Add(-time.Hour), body) },
			"no such id": func(r *http.Request) { signAs(r, "whsec_eA==", now, strings.Replace(body, id, "sim:999999", 1)) },
		} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL+"/webhook/aggregator", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			sign(req)
			resp, err := f.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			f.api.Check(t, req, resp)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s webhook = %d, want 401", name, resp.StatusCode)
			}
		}
		var after int64
		f.st.DB().Raw(`SELECT count(*) FROM aggregator_events WHERE company_id = ?`, f.acme.ID).Scan(&after)
		if after != before || f.card(t).State != models.IntegrationSyncing {
			t.Errorf("after forged webhooks: %d events (was %d), card %s; want nothing changed", after, before, f.card(t).State)
		}
	})

	if err := f.sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	f.awaitState(t, models.IntegrationConnected)
	took := f.awaitImported(t, len(initial), 30*time.Second)
	t.Logf("first sync: %d jobs imported and their runs started in %s", len(initial), took.Round(time.Millisecond))
	if j := f.job(t, "R005"); !j.IsOpen || j.Title != "Nurse 5" || j.InterviewerID != f.acme.Slug+"-R005" {
		t.Errorf("imported job R005 = %+v", j)
	}
	if j := f.job(t, "R900"); j.IsOpen {
		t.Errorf("job R900 imported closed: IsOpen = true")
	}

	t.Run("duplicate data-changed", func(t *testing.T) {
		if err := f.sim.PutJobs(id, aggsim.Job{RemoteID: "R100", Name: "Night nurse"}); err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		if err := f.sim.DataChanged(id, 2); err != nil {
			t.Fatal(err)
		}
		f.awaitImported(t, len(initial)+1, 10*time.Second)
		t.Logf("a job added at the HR suite appeared %s after its data-changed", time.Since(begin).Round(time.Millisecond))
		var deliveries int64
		deadline := time.Now().Add(5 * time.Second)
		for deliveries < 2 && time.Now().Before(deadline) {
			f.st.DB().Raw(`SELECT coalesce(max(deliveries), 0) FROM aggregator_events WHERE company_id = ? AND type = 'data-changed'`, f.acme.ID).Scan(&deliveries)
			time.Sleep(20 * time.Millisecond)
		}
		if deliveries != 2 {
			t.Errorf("the duplicated event was recorded with %d deliveries, want 2 on one row", deliveries)
		}
	})

	t.Run("closed job", func(t *testing.T) {
		if err := f.sim.CloseJob(id, "R007"); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.DataChanged(id, 1); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for f.job(t, "R007").IsOpen {
			if time.Now().After(deadline) {
				t.Fatal("job R007 still open 10s after it closed at the HR suite")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("worker restart mid-import", func(t *testing.T) {
		if err := f.sim.AddJobs(id, "B", 400); err != nil {
			t.Fatal(err)
		}
		f.sim.SetListingLatency(1500 * time.Millisecond)
		if err := f.sim.DataChanged(id, 1); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int64
			f.st.DB().Raw(`SELECT count(*) FROM aggregator_jobs WHERE company_id = ? AND remote_id LIKE 'kmb_B%'`, f.acme.ID).Scan(&n)
			if n > 0 && n < 400 {
				t.Logf("stopping the worker with %d of 400 jobs imported", n)
				break
			}
			if n >= 400 || time.Now().After(deadline) {
				t.Fatalf("%d of 400 jobs imported; want to stop the worker in the middle", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		f.worker.Stop()
		f.sim.SetListingLatency(0)
		f.worker = f.startWorker()
		f.awaitImported(t, len(initial)+1+400, 90*time.Second)
	})

	t.Run("needs attention and reconnect", func(t *testing.T) {
		var jobsBefore int64
		f.st.DB().Raw(`SELECT count(*) FROM jobs WHERE company_id = ?`, f.acme.ID).Scan(&jobsBefore)
		if err := f.sim.FailAuth(id); err != nil {
			t.Fatal(err)
		}
		if c := f.awaitState(t, models.IntegrationNeedsAttention); c.Reason == nil || c.Label != "Needs attention" {
			t.Errorf("card = %+v, want a reason", c)
		}
		if again := f.connect(t); again != id {
			t.Errorf("reconnect made integration %s, want %s kept", again, id)
		}
		f.awaitState(t, models.IntegrationConnected)
		if err := f.sim.PutJobs(id, aggsim.Job{RemoteID: "R101", Name: "Charge nurse"}); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.DataChanged(id, 1); err != nil {
			t.Fatal(err)
		}
		f.awaitImported(t, len(initial)+1+400+1, 60*time.Second)
		var jobsAfter int64
		f.st.DB().Raw(`SELECT count(*) FROM jobs WHERE company_id = ?`, f.acme.ID).Scan(&jobsAfter)
		if jobsAfter != jobsBefore+1 {
			t.Errorf("jobs after reconnect = %d, want %d (the one added)", jobsAfter, jobsBefore+1)
		}
	})

	c := f.card(t)
	if c.State != models.IntegrationConnected || c.Counts.JobsImported != len(initial)+402 || c.Counts.ClosedJobs != 2 || c.LastSyncAt == nil {
		t.Errorf("final card = %+v", c)
	}
	if n := f.newJobRuns(t); n != len(initial)+402 {
		t.Errorf("new-job runs = %d, want %d", n, len(initial)+402)
	}
}

// signAs signs r like the aggregator would, with secret (a random one when empty) at ts.
func signAs(r *http.Request, secret string, ts time.Time, body string) {
	if secret == "" {
		secret = "whsec_c3RhbGUtc2lnbmF0dXJlLXN0YWxlLXNpZ25hdHVyZQ=="
	}
	r.Body = io.NopCloser(bytes.NewReader([]byte(body)))
	r.ContentLength = int64(len(body))
	r.Header.Set("webhook-id", "evt_forged")
	r.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	r.Header.Set("webhook-signature", callbacks.Sign(secret, "evt_forged", ts, []byte(body)))
}
