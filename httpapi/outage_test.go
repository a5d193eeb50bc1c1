package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/migrations"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
)

// outcome is one request of the outage test's load.
type outcome struct {
	kind       string
	key        string // externalJobId, e-mail or ATS applicant id
	phase      string
	status     int
	code       string
	retryAfter string
	took       time.Duration
	workflowID string // of a 2xx
}

// TestTemporalOutage stops the Temporal server under a steady 5 requests/s of every write
// endpoint that starts work (createJob, inviteCandidate, partner submissions, HR-suite
// deliveries, assessment links), then starts it again. Every request answers within
// 3 s, with 2xx or with 503, a retryable code and Retry-After; while Temporal is down no database
// connection waits on it and GET /v1/api/company stays fast; every 2xx has its row and its
// workflow, and every 503 retried afterwards succeeds and gets its workflow too.
func TestTemporalOutage(t *testing.T) {
	ctx := t.Context()
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := devstack.FindTemporalCLI(root)
	if err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(t.TempDir(), "temporal.db")
	startTemporal := func(port int) *devstack.Temporal {
		srv, err := devstack.StartTemporal(ctx, devstack.TemporalOptions{CLI: cli, Port: port, DBFile: dbFile, Headless: true, SearchAttributes: rtemporal.SearchAttributes()})
		if err != nil {
			t.Fatalf("start Temporal: %v", err)
		}
		return srv
	}
	tmp := startTemporal(0)
	_, portText, _ := net.SplitHostPort(tmp.Address())
	port, _ := strconv.Atoi(portText)
	t.Cleanup(func() { _ = tmp.Stop(context.WithoutCancel(ctx)) })

	f := newPartnerFixtureWith(t, withTemporal(&temporaltest.Server{Address: tmp.Address(), Namespace: tmp.Namespace()}), withProductionBounds())
	l := newOutageLoad(t, f)
	var company []time.Duration
	var inUse []int
	var mu sync.Mutex
	probe := func() {
		begin := time.Now()
		resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.acmeKey}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /v1/api/company during the outage = %d", resp.StatusCode)
		}
		mu.Lock()
		company = append(company, time.Since(begin))
		inUse = append(inUse, f.st.SQL().Stats().InUse)
		mu.Unlock()
	}
	l.run(t, "before", 3*time.Second, nil)
	if err := tmp.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	l.run(t, "outage", 6*time.Second, probe)
	tmp = startTemporal(port)
	l.run(t, "after", 4*time.Second, nil)
	results := l.results

	count := map[string]int{}
	for _, o := range results {
		count[o.phase+" "+strconv.Itoa(o.status)]++
		if o.took > 3*time.Second {
			t.Errorf("%s %s (%s) answered %d after %s, want within 3s", o.kind, o.key, o.phase, o.status, o.took)
		}
		switch {
		case o.status == http.StatusOK || o.status == http.StatusAccepted:
		case o.status == http.StatusServiceUnavailable && o.kind == kinds.HRSuiteDelivery.Name:
			t.Errorf("HR-suite delivery %s (%s) answered 503 %s; a stored delivery does not need Temporal", o.key, o.phase, o.code)
		case o.status == http.StatusServiceUnavailable:
			if o.code != "TEMPORARILY_UNAVAILABLE" || o.retryAfter == "" {
				t.Errorf("%s %s: 503 with code %q and Retry-After %q, want TEMPORARILY_UNAVAILABLE and a delay", o.kind, o.key, o.code, o.retryAfter)
			}
		default:
			t.Errorf("%s %s (%s) answered %d %s, want 2xx or 503", o.kind, o.key, o.phase, o.status, o.code)
		}
	}
	t.Logf("answers by phase: %v; slowest answer by phase: %v", count, slowestByPhase(results))
	if count["before 200"]+count["before 202"] == 0 || count["outage 503"] == 0 || count["after 200"]+count["after 202"] == 0 {
		t.Fatalf("answers by phase %v: want successes before and after the outage and 503s during it", count)
	}
	slices.Sort(company)
	slices.Sort(inUse)
	t.Logf("during the outage: GET /v1/api/company p50 %s max %s; pool connections in use max %d", company[len(company)/2], company[len(company)-1], inUse[len(inUse)-1])
	if company[len(company)-1] > 500*time.Millisecond {
		t.Errorf("GET /v1/api/company took up to %s while Temporal was down, want well under 500ms", company[len(company)-1])
	}
	// At 5 requests/s, each waiting up to 2 s on Temporal, about 10 are in flight at once: held
	// across the call, as many connections would be in use. Unheld, only the short statements
	// of the requests (and the probes) use one.
	if inUse[len(inUse)-1] > 6 {
		t.Errorf("%d database connections in use while requests waited on Temporal, want none held across a Temporal call", inUse[len(inUse)-1])
	}

	// Every 503 retried now succeeds; then every 2xx has its row and its workflow.
	for i, o := range results {
		if o.status != http.StatusServiceUnavailable {
			continue
		}
		_, status, code, _, _, id := f.outageRetry(t, o)
		if status != http.StatusOK && status != http.StatusAccepted {
			t.Errorf("retry of %s %s = %d %s, want 2xx", o.kind, o.key, status, code)
		}
		results[i].status, results[i].workflowID = status, id
	}
	// HR-suite deliveries are answered 200 once stored, Temporal or not: the reconciler starts
	// the ingest of those stored during the outage.
	rec := &outbox.Launcher{Store: f.st, Starter: f.launcher.Starter, Log: f.launcher.Log, Grace: time.Millisecond}
	if _, err := rec.Reconcile(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	tc := (&temporaltest.Server{Address: tmp.Address(), Namespace: tmp.Namespace()}).Client(t)
	for _, o := range results {
		if o.workflowID == "" {
			t.Errorf("%s %s answered %d without a workflow id to check", o.kind, o.key, o.status)
			continue
		}
		if err := awaitWorkflow(ctx, tc, o.workflowID); err != nil {
			t.Errorf("%s %s answered %d, but its workflow %s: %v", o.kind, o.key, o.status, o.workflowID, err)
		}
	}
	// Exactly one callback per accepted applicant, none for the refused attempts.
	applicants := map[string]bool{}
	for _, o := range results {
		if o.kind == kinds.PartnerApplication.Name {
			applicants[o.key] = true
		}
	}
	// Runs the outage caught mid-way resume with their activities' retry backoff: allow for it.
	got := f.recv.awaitWithin(t, len(applicants), 2*time.Minute)
	time.Sleep(500 * time.Millisecond)
	if n := len(f.recv.callbacks()); n != len(applicants) {
		t.Errorf("%d callbacks for %d accepted applicants (%d before waiting), want one each", n, len(applicants), len(got))
	}
}

// outageKinds are the write endpoints of the outage load, by the workflow kind each starts.
var outageKinds = []string{kinds.JobGeneration.Name, kinds.Invite.Name, kinds.PartnerApplication.Name, kinds.HRSuiteDelivery.Name, kinds.AssessmentLink.Name}

// outageLoad sends 5 requests/s, createJob, inviteCandidate, partner submissions, HR-suite
// deliveries and assessment-link pushes in turn, and keeps every answer.
type outageLoad struct {
	f       *partnerFixture
	mu      sync.Mutex
	results []outcome
	sent    int
}

// newOutageLoad adds the ATS applicants the partner submissions name, makes the company an
// HR-suite account, and adds the managed applications the assessment links name (AL-<n>).
func newOutageLoad(t *testing.T, f *partnerFixture) *outageLoad {
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).Update("hr_suite_account", true).Error; err != nil {
		t.Fatal(err)
	}
	for n := range 200 {
		if n%len(outageKinds) == 4 {
			f.managed(t, fmt.Sprintf("AL-%d", n), fmt.Sprintf("al%d@example.com", n), "")
		}
	}
	for i := range 200 {
		f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: int64(3000 + i), JobID: 5001, CandidateID: int64(8000 + i),
			FirstName: "Load", Email: fmt.Sprintf("load%d@example.com", i)})
	}
	return &outageLoad{f: f}
}

// run sends the load for d, labelling its answers phase, calling also (when not nil) at every
// tick, and returns once every request of the phase has been answered.
func (l *outageLoad) run(t *testing.T, phase string, d time.Duration, also func()) {
	var wg sync.WaitGroup
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	end := time.After(d)
	for {
		select {
		case <-end:
			wg.Wait()
			return
		case <-tick.C:
			l.mu.Lock()
			l.sent++
			n := l.sent
			l.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := outcome{phase: phase, kind: outageKinds[n%len(outageKinds)]}
				o.key, o.status, o.code, o.retryAfter, o.took, o.workflowID = l.f.outageRequest(t, o.kind, n)
				l.mu.Lock()
				l.results = append(l.results, o)
				l.mu.Unlock()
			}()
			if also != nil {
				wg.Add(1)
				go func() { defer wg.Done(); also() }()
			}
		}
	}
}

// outageRequest sends request n of kind and returns its key, status, error code, Retry-After,
// duration and, for a 2xx, the workflow id it should have started.
func (f *partnerFixture) outageRequest(t *testing.T, kind string, n int) (key string, status int, code, retryAfter string, took time.Duration, workflowID string) {
	return f.outageSend(t, kind, n, "")
}

func (f *partnerFixture) outageRetry(t *testing.T, o outcome) (string, int, string, string, time.Duration, string) {
	return f.outageSend(t, o.kind, 0, o.key)
}

// outageSend sends request n of kind, or repeats the earlier request whose key is key.
func (f *partnerFixture) outageSend(t *testing.T, kind string, n int, key string) (string, int, string, string, time.Duration, string) {
	t.Helper()
	begin := time.Now()
	var resp *http.Response
	switch kind {
	case kinds.JobGeneration.Name:
		if key == "" {
			key = fmt.Sprintf("outage-%d", n)
		}
		resp = f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, map[string]any{"externalJobId": key, "jobDescription": "We are hiring a Registered Nurse. Requirements: RN license."})
	case kinds.Invite.Name:
		if key == "" {
			key = fmt.Sprintf("cand%d@example.com", n)
		}
		resp = f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{"interviewerId": "acme-" + simJob, "candidate": map[string]any{"firstName": "Load", "email": key}})
	case kinds.AssessmentLink.Name:
		if key == "" {
			key = fmt.Sprintf("AL-%d", n)
		}
		resp = f.send(t, http.MethodPost, "/v2/api/assessment-links", f.acmeKey, map[string]any{"applicationId": key, "assessmentUrl": "https://assess.example.com/t/" + key})
	case kinds.HRSuiteDelivery.Name:
		if key == "" {
			key = fmt.Sprintf("OUT-%d", n)
		}
		resp = f.send(t, http.MethodPost, "/webhook/hrsuite", f.acmeKey, []map[string]any{row(key, "C-"+key, simJob, "(201) 555-0123", "Mobile")})
	default:
		if key == "" {
			key = fmt.Sprint(3000 + n%200)
		}
		resp = f.send(t, http.MethodPost, "/v2/api/partner-applications", f.key, map[string]any{"atsApplicantId": key, "atsJobId": simJob})
	}
	took := time.Since(begin)
	defer resp.Body.Close()
	var body struct {
		Code       string    `json:"code"`
		Payload    string    `json:"payload"`
		SessionID  string    `json:"sessionId"`
		DeliveryID uuid.UUID `json:"deliveryId"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	id := ""
	if resp.StatusCode/100 == 2 {
		switch kind {
		case kinds.JobGeneration.Name:
			id = kinds.JobGeneration.ID(f.acme.Slug, key)
		case kinds.Invite.Name:
			id = "invite/" + f.acme.Slug + "/" + body.SessionID
		case kinds.HRSuiteDelivery.Name:
			id = kinds.HRSuiteDelivery.ID(f.acme.Slug, body.DeliveryID.String())
		case kinds.AssessmentLink.Name:
			if apps, err := f.st.ApplicationsByExternalID(t.Context(), f.acme.ID, key); err == nil && len(apps) == 1 {
				id = kinds.AssessmentLink.ID(f.acme.Slug, apps[0].ID.String())
			}
		default:
			id = kinds.PartnerApplication.ID(f.acme.Slug, key)
		}
	}
	return key, resp.StatusCode, body.Code, resp.Header.Get("Retry-After"), took, id
}

// privatePostgres starts a Postgres cluster of the test's own (scratch folder prefix) with the
// migrated database "recruitd", which the test may stop, hang and start again: start starts it
// on a port (0: a free one), and the cluster is destroyed when the test ends.
func privatePostgres(t *testing.T, prefix string) (*devstack.Postgres, func(port int) *devstack.Postgres) {
	t.Helper()
	ctx := t.Context()
	dir, err := devstack.ScratchDir(prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var last *devstack.Postgres
	start := func(port int) *devstack.Postgres {
		pg, err := devstack.StartPostgres(ctx, devstack.PostgresOptions{Dir: dir, Port: port, Fast: true})
		if err != nil {
			t.Fatalf("start Postgres: %v", err)
		}
		last = pg
		return pg
	}
	start(0)
	t.Cleanup(func() { _ = last.Destroy(context.WithoutCancel(ctx)) })
	if err := last.EnsureDatabase(ctx, "recruitd"); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, last.URL("recruitd"), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := migrations.Up(ctx, st.SQL(), nil); err != nil {
		t.Fatal(err)
	}
	return last, start
}

// TestPostgresOutage stops Postgres under a steady 5 requests/s of every write endpoint that
// starts work, then starts it again. Every request answers within 3 s, with 2xx or
// a retryable 503 and Retry-After; the service recovers without a restart; the rows written
// equal the 2xx answers, and every 2xx has its workflow.
func TestPostgresOutage(t *testing.T) {
	ctx := t.Context()
	pg, startPostgres := privatePostgres(t, "recruitd-pg-outage-")
	url := pg.URL("recruitd")

	f := newPartnerFixtureWith(t, withDatabase(url), withProductionBounds())
	l := newOutageLoad(t, f)
	l.run(t, "before", 2*time.Second, nil)
	if err := pg.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	l.run(t, "outage", 4*time.Second, nil)
	pg = startPostgres(pg.Port())
	l.run(t, "after", 4*time.Second, nil)
	results := l.results

	count := map[string]int{}
	ok := map[string]int{}
	applicants := map[string]bool{}
	for _, o := range results {
		count[o.phase+" "+strconv.Itoa(o.status)]++
		if o.took > 3*time.Second {
			t.Errorf("%s %s (%s) answered %d after %s, want within 3s", o.kind, o.key, o.phase, o.status, o.took)
		}
		switch o.status {
		case http.StatusOK, http.StatusAccepted:
			ok[o.kind]++
			if o.kind == kinds.PartnerApplication.Name {
				applicants[o.key] = true
			}
			if err := awaitWorkflow(ctx, f.tc, o.workflowID); err != nil {
				t.Errorf("%s %s answered %d, but its workflow %s: %v", o.kind, o.key, o.status, o.workflowID, err)
			}
		case http.StatusServiceUnavailable:
			if o.code == "TEMPORARILY_UNAVAILABLE" {
				// Temporal did not take a start within its bound (a loaded machine): its row is stored.
				t.Logf("%s %s (%s) answered 503 %s", o.kind, o.key, o.phase, o.code)
			}
			if o.retryAfter == "" || (o.code != "SERVICE_UNAVAILABLE" && o.code != "TEMPORARILY_UNAVAILABLE") {
				t.Errorf("%s %s: 503 %q with Retry-After %q, want a retryable code and a delay", o.kind, o.key, o.code, o.retryAfter)
			}
		default:
			t.Errorf("%s %s (%s) answered %d %s, want 2xx or 503", o.kind, o.key, o.phase, o.status, o.code)
		}
	}
	t.Logf("answers by phase: %v; slowest answer by phase: %v", count, slowestByPhase(results))
	if count["outage 503"] == 0 || count["after 200"]+count["after 202"] == 0 {
		t.Fatalf("answers by phase %v: want 503s during the outage and successes after it", count)
	}
	var jobs, sessions, apps int64
	f.st.DB().Raw(`SELECT count(*) FROM jobs WHERE company_id = ? AND external_id LIKE 'outage-%'`, f.acme.ID).Scan(&jobs)
	f.st.DB().Raw(`SELECT count(*) FROM interview_sessions s JOIN candidates c ON c.company_id = s.company_id AND c.id = s.candidate_id
		WHERE s.company_id = ? AND c.email LIKE 'cand%@example.com'`, f.acme.ID).Scan(&sessions)
	f.st.DB().Raw(`SELECT count(*) FROM partner_applications WHERE company_id = ?`, f.acme.ID).Scan(&apps)
	if int(jobs) != ok[kinds.JobGeneration.Name] || int(sessions) != ok[kinds.Invite.Name] || int(apps) != len(applicants) {
		t.Errorf("rows: %d jobs, %d invitations, %d applications; 2xx answers: %d, %d, %d applicants: want equal",
			jobs, sessions, apps, ok[kinds.JobGeneration.Name], ok[kinds.Invite.Name], len(applicants))
	}
	var links int64
	f.st.DB().Model(&models.AssessmentLink{}).Where("company_id = ?", f.acme.ID).Count(&links)
	if int(links) != ok[kinds.AssessmentLink.Name] {
		t.Errorf("%d assessment links stored, %d pushes answered 200: want equal", links, ok[kinds.AssessmentLink.Name])
	}
	var deliveries int64
	f.st.DB().Model(&models.HRSuiteDelivery{}).Where("company_id = ?", f.acme.ID).Count(&deliveries)
	if int(deliveries) != ok[kinds.HRSuiteDelivery.Name] {
		t.Errorf("%d HR-suite deliveries stored, %d answered 200: want equal", deliveries, ok[kinds.HRSuiteDelivery.Name])
	}
}

// awaitWorkflow waits up to 30 s for the workflow of a 2xx: an accepted start is made after the
// answer (outbox.Launcher.Accept), and one that failed is retried by the launcher.
func awaitWorkflow(ctx context.Context, tc client.Client, id string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := tc.DescribeWorkflowExecution(ctx, id, "")
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slowestByPhase is the longest answer time of each phase, for the test log and docs/resilience.md.
func slowestByPhase(results []outcome) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, o := range results {
		out[o.phase] = max(out[o.phase], o.took.Round(time.Millisecond))
	}
	return out
}
