package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// atsSyncFixture is a fixture whose acme and globex are ATS-D companies (not HR suites) with
// aggregator credentials for one simulator that delivers its webhooks to the fixture's API.
type atsSyncFixture struct {
	*fixture
	sim    *aggsim.Server
	simURL string
}

func newATSSyncFixture(t *testing.T, f *fixture, jobs ...aggsim.Job) *atsSyncFixture {
	t.Helper()
	sim := aggsim.New(aggsim.Options{APIKey: aggKey, InitialJobs: jobs, WebhookURL: f.srv.URL + "/webhook/aggregator"})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	atsD := models.ATSTypeD
	// Tests share one Temporal server and workflow ids hold the slug: a slug per test.
	for _, co := range []*models.Company{f.acme, f.other} {
		co.Slug = fmt.Sprintf("%s-%d", co.Slug, time.Now().UnixNano())
		if err := f.st.DB().Model(co).Updates(map[string]any{"ats_type": atsD, "slug": co.Slug}).Error; err != nil {
			t.Fatal(err)
		}
		co.ATSType = &atsD
		if err := f.st.SetAggregatorCredentials(t.Context(), co.ID, f.box, map[string]string{aggregator.FieldBaseURL: srv.URL, aggregator.FieldAPIKey: aggKey}); err != nil {
			t.Fatal(err)
		}
	}
	return &atsSyncFixture{fixture: f, sim: sim, simURL: srv.URL}
}

// connect runs the Connect action with key and authorises at the simulator's connect page; it
// returns the integration id.
func (f *atsSyncFixture) connect(t *testing.T, key string, co *models.Company) string {
	t.Helper()
	resp := f.send(t, http.MethodPost, "/v1/api/integrations/hrsuite/connect", key, nil)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("connect = %d %s", resp.StatusCode, b)
	}
	cr := decode[struct{ ConnectURL, Message string }](t, resp)
	if !strings.Contains(cr.Message, "applications sync") {
		t.Errorf("connect message = %q, want it to say applications sync", cr.Message)
	}
	page, err := http.Post(cr.ConnectURL, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("authorise at %s = %d", cr.ConnectURL, page.StatusCode)
	}
	id := f.sim.IntegrationOf(co.ID.String())
	if id == "" {
		t.Fatal("the simulator has no integration after authorisation")
	}
	return id
}

// count runs a count query.
func (f *atsSyncFixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int64
	if err := f.st.DB().Raw(q, args...).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// await polls cond until it holds or within passes.
func await(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	begin := time.Now()
	for !cond() {
		if time.Since(begin) > within {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(begin)
}

// synced waits until co has n application records and no ats-application start is pending.
func (f *atsSyncFixture) synced(t *testing.T, co *models.Company, n int, within time.Duration) time.Duration {
	t.Helper()
	return await(t, within, fmt.Sprintf("%d applications of %s synced with their runs started", n, co.Slug), func() bool {
		return f.count(t, `SELECT count(*) FROM aggregator_applications WHERE company_id = ?`, co.ID) >= n &&
			f.count(t, `SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NULL`, co.ID, kinds.ATSApplication.Name) == 0
	})
}

// application returns co's ATS application with the ATS id ext, with its candidate.
func (f *atsSyncFixture) application(t *testing.T, co *models.Company, ext string) (models.Application, models.Candidate) {
	t.Helper()
	var app models.Application
	if err := f.st.DB().First(&app, "company_id = ? AND source = ? AND external_id = ?", co.ID, models.ApplicationSourceATS, ext).Error; err != nil {
		t.Fatalf("application %s of %s: %v", ext, co.Slug, err)
	}
	var cand models.Candidate
	if err := f.st.DB().First(&cand, "company_id = ? AND id = ?", co.ID, app.CandidateID).Error; err != nil {
		t.Fatal(err)
	}
	return app, cand
}

// TestApplicationSyncEndToEnd drives an ATS-D company's application sync over HTTP with the
// aggregator simulator, a real Postgres and Temporal: connect; 2,000 candidates and applications
// sync with their ATS ids, each firing 'New Application from ATS' once; a changed application
// and a renamed candidate are updated by the incremental pass its data-changed starts; an
// application deleted upstream is closed, not lost; assessment links pushed with a synced ATS
// id are delivered, one for an unsynced id answers 200, is only held, counts as unsynced, and
// reaches its application once the sync brings it. Globex, connected to the same simulator with
// the same ATS ids, is never touched by Acme's sync, nor Acme by Globex's.
func TestApplicationSyncEndToEnd(t *testing.T) {
	const total = 2000
	var jobs []aggsim.Job
	var jobIDs []string
	for i := range 10 {
		jobs = append(jobs, aggsim.Job{RemoteID: fmt.Sprintf("J%02d", i), Name: fmt.Sprintf("Nurse %d", i), Location: "Austin, TX"})
		jobIDs = append(jobIDs, jobs[i].RemoteID)
	}
	f := newATSSyncFixture(t, newFixture(t), jobs...)
	acme, globex := f.acme, f.other
	// Acme's workflow marks every application its run saw; Globex saved none, so its
	// applications fire nothing.
	f.saveFlow(t, acme, &flow.Definition{Trigger: models.TriggerNewApplicationATS, Enabled: true, Name: "mark",
		Steps: []flow.Step{{ID: "mark", Type: flow.StepSetStatus, SetStatus: &flow.SetStatusStep{Target: flow.TargetApplication, Status: "screening"}}}})

	acmeID := f.connect(t, f.acmeKey, acme)
	if err := f.sim.AddApplications(acmeID, "A", total, jobIDs...); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.FinishSync(acmeID); err != nil {
		t.Fatal(err)
	}
	took := f.synced(t, acme, total, 3*time.Minute)
	t.Logf("first sync: %d candidates and applications synced and their runs started %s after the first sync finished", total, took.Round(time.Millisecond))

	took = await(t, 5*time.Minute, "every Acme application marked by its 'New Application from ATS' run", func() bool {
		return f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND source = 'ats' AND status = 'screening'`, acme.ID) == total
	})
	t.Logf("every run had marked its application %s later", took.Round(time.Millisecond))

	globexID := f.connect(t, f.otherKy, globex)
	if err := f.sim.AddApplications(globexID, "A", 30, jobIDs...); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.FinishSync(globexID); err != nil {
		t.Fatal(err)
	}
	f.synced(t, globex, 30, time.Minute)

	if n := f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND source = 'ats'`, acme.ID); n != total {
		t.Errorf("Acme's ATS applications = %d, want %d", n, total)
	}
	if n := f.count(t, `SELECT count(*) FROM candidates WHERE company_id = ? AND external_id LIKE 'AC%'`, acme.ID); n != total {
		t.Errorf("Acme's synced candidates = %d, want %d", n, total)
	}
	app, cand := f.application(t, acme, "A000007")
	if deref(cand.ExternalID) != "AC000007" || cand.LastName != "Tester A000007" || deref(cand.Email) != "a.000007@example.com" || deref(cand.Phone) != "+14155550006" {
		t.Errorf("candidate of A000007 = %+v (email %s, phone %s)", cand, deref(cand.Email), deref(cand.Phone))
	}
	if job, err := f.st.Job(t.Context(), acme.ID, app.JobID); err != nil || job.ExternalID != "J06" {
		t.Errorf("job of A000007 = %+v, %v; want J06", job, err)
	}

	t.Run("incremental pass", func(t *testing.T) {
		incBefore, fullBefore := f.sim.ListingQueries(acmeID)
		integ, err := f.st.AggregatorIntegration(t.Context(), acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.sim.ChangeApplication(acmeID, "A000010", "Interview", "DECLINED"); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.PutCandidates(acmeID, aggsim.Candidate{RemoteID: "AC000011", FirstName: "Robin", LastName: "Renamed", Email: "robin@example.com", Phone: "(415) 555-0111"}); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.DataChangedFor(acmeID, 2, aggregator.ModelApplications, aggregator.ModelCandidates); err != nil {
			t.Fatal(err)
		}
		await(t, 30*time.Second, "A000010 declined and AC000011 renamed", func() bool {
			a, _ := f.application(t, acme, "A000010")
			_, c := f.application(t, acme, "A000011")
			return a.Status == "declined" && c.LastName == "Renamed" && deref(c.Email) == "robin@example.com"
		})
		var stage string
		f.st.DB().Raw(`SELECT stage FROM aggregator_applications WHERE company_id = ? AND ats_application_id = 'A000010'`, acme.ID).Scan(&stage)
		if stage != "Interview" {
			t.Errorf("A000010's stage = %q, want Interview", stage)
		}
		incAfter, fullAfter := f.sim.ListingQueries(acmeID)
		if incAfter <= incBefore || fullAfter != fullBefore {
			t.Errorf("application listings: incremental %d -> %d, full %d -> %d; want only incremental ones", incBefore, incAfter, fullBefore, fullAfter)
		}
		var after *models.AggregatorIntegration
		await(t, 30*time.Second, "the incremental pass finished", func() bool {
			after, err = f.st.AggregatorIntegration(t.Context(), acme.ID)
			return err == nil && after.ApplicationsSyncedAt != nil && after.ApplicationsSyncedAt.After(*integ.ApplicationsSyncedAt)
		})
		if !timesEqual(integ.ApplicationsFullPassAt, after.ApplicationsFullPassAt) {
			t.Errorf("after the incremental pass: full pass %v -> %v, want unchanged", integ.ApplicationsFullPassAt, after.ApplicationsFullPassAt)
		}
		// Globex has the same ATS ids in its own ATS: untouched.
		ga, gc := f.application(t, globex, "A000010")
		_, gc11 := f.application(t, globex, "A000011")
		if ga.Status != "new" || gc.LastName != "Tester A000010" || gc11.LastName != "Tester A000011" {
			t.Errorf("Globex's A000010 = %s, its candidates %s, %s; want untouched", ga.Status, gc.LastName, gc11.LastName)
		}
	})

	t.Run("deleted upstream", func(t *testing.T) {
		if err := f.sim.DeleteApplication(acmeID, "A000020"); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.DataChangedFor(acmeID, 1, aggregator.ModelApplications); err != nil {
			t.Fatal(err)
		}
		await(t, 30*time.Second, "A000020 closed", func() bool {
			a, _ := f.application(t, acme, "A000020")
			return a.Status == "closed"
		})
		var upstream string
		f.st.DB().Raw(`SELECT upstream_status FROM aggregator_applications WHERE company_id = ? AND ats_application_id = 'A000020'`, acme.ID).Scan(&upstream)
		if upstream != "closed" {
			t.Errorf("A000020's record = %q, want closed", upstream)
		}
		if ga, _ := f.application(t, globex, "A000020"); ga.Status != "new" {
			t.Errorf("Globex's A000020 = %s, want new", ga.Status)
		}
	})

	t.Run("assessment links", func(t *testing.T) {
		app, _ := f.application(t, acme, "A000005")
		status, resp := f.push(t, f.acmeKey, `{"applicationId":"A000005","assessmentUrl":"https://assess.example.com/t/syncedtok","candidateId":"AC000005","jobId":"J04","orderId":"ORD-5"}`)
		if status != http.StatusOK || resp != `{"success":true}` {
			t.Fatalf("push for a synced application = %d %s", status, resp)
		}
		cur, msgs := f.awaitSent(t, app.ID)
		if cur.URL != "https://assess.example.com/t/syncedtok" || len(msgs) != 1 || msgs[0].ToAddress != "a.000005@example.com" {
			t.Errorf("sent link %s in %d messages (to %v), want the pushed one by e-mail to the synced candidate", cur.URL, len(msgs), msgs)
		}
		// Globex's A000005 is another application: the push with Acme's key never reaches it.
		if ga, _ := f.application(t, globex, "A000005"); f.count(t, `SELECT count(*) FROM assessment_links WHERE company_id = ? AND application_id = ?`, globex.ID, ga.ID) != 0 {
			t.Error("Acme's push reached Globex's application")
		}

		status, resp = f.push(t, f.acmeKey, `{"applicationId":"A-UNSYNCED","assessmentUrl":"https://assess.example.com/t/unsyncedtok","orderId":"ORD-U"}`)
		if status != http.StatusOK || resp != `{"success":true}` {
			t.Fatalf("push for an unsynced application = %d %s", status, resp)
		}
		if got := f.tablesHolding(t, "unsyncedtok"); len(got) != 1 || got[0] != "assessment_link_holds" {
			t.Errorf("tables holding the unsynced push: %v, want assessment_link_holds only (nothing retained beyond its hold)", got)
		}
		metrics := f.metrics(t)
		for _, want := range []string{`recruitd_assessment_links_unsynced_total{ats_type="ATS-D"} 1`, `recruitd_assessment_links_total{outcome="held"} 1`} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}

		// A link ahead of the sync reaches its application once the sync brings it.
		status, _ = f.push(t, f.acmeKey, `{"applicationId":"A-LATE","assessmentUrl":"https://assess.example.com/t/latetok","orderId":"ORD-L"}`)
		if status != http.StatusOK {
			t.Fatalf("push ahead of the sync = %d", status)
		}
		if err := f.sim.PutCandidates(acmeID, aggsim.Candidate{RemoteID: "C-LATE", FirstName: "Lee", LastName: "Late", Email: "late@example.com"}); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.PutApplications(acmeID, aggsim.Application{RemoteID: "A-LATE", CandidateRemoteID: "C-LATE", JobRemoteID: "J01"}); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.DataChangedFor(acmeID, 1, aggregator.ModelApplications); err != nil {
			t.Fatal(err)
		}
		f.synced(t, acme, total+1, 30*time.Second)
		late, _ := f.application(t, acme, "A-LATE")
		if cur, _ := f.awaitSent(t, late.ID); cur.URL != "https://assess.example.com/t/latetok" {
			t.Errorf("A-LATE's link = %s", cur.URL)
		}
		if !strings.Contains(f.metrics(t), `recruitd_assessment_links_unsynced_total{ats_type="ATS-D"} 2`) {
			t.Error(`metrics lack recruitd_assessment_links_unsynced_total{ats_type="ATS-D"} 2`)
		}
	})

	t.Run("once per application", func(t *testing.T) {
		// Another duplicated data-changed re-reads applications that exist: nothing fires again.
		if err := f.sim.ChangeApplication(acmeID, "A000030", "Phone screen", ""); err != nil {
			t.Fatal(err)
		}
		if err := f.sim.DataChangedFor(acmeID, 2, aggregator.ModelApplications); err != nil {
			t.Fatal(err)
		}
		await(t, 30*time.Second, "A000030 at Phone screen", func() bool {
			return f.count(t, `SELECT count(*) FROM aggregator_applications WHERE company_id = ? AND ats_application_id = 'A000030' AND stage = 'Phone screen'`, acme.ID) == 1
		})
		apps := total + 1
		starts := f.count(t, `SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ?`, acme.ID, kinds.ATSApplication.Name)
		distinct := f.count(t, `SELECT count(DISTINCT input->>'ApplicationID') FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NOT NULL`, acme.ID, kinds.ATSApplication.Name)
		if starts != apps || distinct != apps {
			t.Errorf("ats-application starts = %d (%d distinct applications started), want one per application (%d)", starts, distinct, apps)
		}
		runs := listWorkflows(t, f.tc, fmt.Sprintf("CompanySlug = %q AND WorkflowTrigger = %q", acme.Slug, models.TriggerNewApplicationATS), apps)
		seen := map[string]int{}
		for _, r := range runs {
			seen[r.GetExecution().GetWorkflowId()]++
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("workflow %s ran %d times, want once", id, n)
			}
		}
		if len(seen) != apps {
			t.Errorf("Temporal lists %d 'New Application from ATS' runs, want %d", len(seen), apps)
		}
		if n := f.count(t, `SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ?`, globex.ID, kinds.ATSApplication.Name); n != 0 {
			t.Errorf("Globex, without an enabled 'New Application from ATS' workflow, has %d runs", n)
		}
	})

	// Tenancy, overall: every record each sync wrote is its company's.
	if n := f.count(t, `SELECT count(*) FROM aggregator_applications WHERE company_id = ?`, globex.ID); n != 30 {
		t.Errorf("Globex's records = %d, want its 30", n)
	}
	if n := f.count(t, `SELECT count(*) FROM aggregator_applications r JOIN applications a ON a.id = r.application_id WHERE a.company_id <> r.company_id`); n != 0 {
		t.Errorf("%d application records point at another company's application", n)
	}
	if n := f.count(t, `SELECT count(*) FROM applications a JOIN candidates c ON c.id = a.candidate_id WHERE a.company_id <> c.company_id`); n != 0 {
		t.Errorf("%d applications have another company's candidate", n)
	}
	var statuses []string
	f.st.DB().Raw(`SELECT DISTINCT status FROM applications WHERE company_id = ? ORDER BY 1`, globex.ID).Scan(&statuses)
	if len(statuses) != 1 || statuses[0] != "new" {
		t.Errorf("Globex's application statuses = %v, want new only", statuses)
	}
}

func timesEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// TestApplicationSyncFullPassAfterMissedWebhook: changes at the ATS that no data-changed
// announces (a changed outcome, a deletion, an application gone without a trace, a new
// application) are caught by the import's periodic full pass (its durable timer, every 3 s
// here), and the new application fires its 'New Application from ATS' run once.
func TestApplicationSyncFullPassAfterMissedWebhook(t *testing.T) {
	f := newATSSyncFixture(t, newFixture(t, withEnv("AGGREGATOR_FULL_PASS_EVERY=3s")),
		aggsim.Job{RemoteID: "J1", Name: "Nurse"}, aggsim.Job{RemoteID: "J2", Name: "Medic"})
	acme := f.acme
	f.saveFlow(t, acme, &flow.Definition{Trigger: models.TriggerNewApplicationATS, Enabled: true, Name: "mark",
		Steps: []flow.Step{{ID: "mark", Type: flow.StepSetStatus, SetStatus: &flow.SetStatusStep{Target: flow.TargetApplication, Status: "screening"}}}})
	id := f.connect(t, f.acmeKey, acme)
	if err := f.sim.AddApplications(id, "A", 50, "J1", "J2"); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	f.synced(t, acme, 50, time.Minute)
	await(t, time.Minute, "every application marked by its run", func() bool {
		return f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND status = 'screening'`, acme.ID) == 50
	})
	_, fullBefore := f.sim.ListingQueries(id)
	integ, err := f.st.AggregatorIntegration(t.Context(), acme.ID)
	if err != nil {
		t.Fatal(err)
	}

	// No data-changed follows any of these.
	if err := f.sim.ChangeApplication(id, "A000003", "Rejected", "DECLINED"); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.DeleteApplication(id, "A000005"); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.EraseApplication(id, "A000004"); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.PutCandidates(id, aggsim.Candidate{RemoteID: "C-NEW", FirstName: "Nia", LastName: "New", Email: "nia@example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.PutApplications(id, aggsim.Application{RemoteID: "A-NEW", CandidateRemoteID: "C-NEW", JobRemoteID: "J2"}); err != nil {
		t.Fatal(err)
	}
	took := await(t, time.Minute, "the full pass caught every change", func() bool {
		var st []string
		f.st.DB().Raw(`SELECT external_id || '=' || status FROM applications WHERE company_id = ? AND external_id IN ('A000003', 'A000004', 'A000005', 'A-NEW') ORDER BY external_id`, acme.ID).Scan(&st)
		return strings.Join(st, ",") == "A-NEW=screening,A000003=declined,A000004=closed,A000005=closed"
	})
	t.Logf("a full pass caught the unannounced changes %s later", took.Round(time.Millisecond))
	if _, fullAfter := f.sim.ListingQueries(id); fullAfter <= fullBefore {
		t.Errorf("full listings %d -> %d, want more", fullBefore, fullAfter)
	}
	after, err := f.st.AggregatorIntegration(t.Context(), acme.ID)
	if err != nil || after.ApplicationsFullPassAt == nil || !after.ApplicationsFullPassAt.After(*integ.ApplicationsFullPassAt) {
		t.Errorf("last full pass %v -> %v (%v), want later", integ.ApplicationsFullPassAt, after.ApplicationsFullPassAt, err)
	}
	// The application gone without a trace is closed, not lost, and later full passes leave it so.
	if n := f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND source = 'ats'`, acme.ID); n != 51 {
		t.Errorf("applications = %d, want 51 (none lost)", n)
	}
	starts := f.count(t, `SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ?`, acme.ID, kinds.ATSApplication.Name)
	distinct := f.count(t, `SELECT count(DISTINCT workflow_id) FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NOT NULL`, acme.ID, kinds.ATSApplication.Name)
	if starts != 51 || distinct != 51 {
		t.Errorf("ats-application starts = %d (%d started), want 51, once each", starts, distinct)
	}
}
