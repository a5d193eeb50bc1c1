package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// importJobs and importApplications are how many jobs and applications the import scenario puts
// at the simulator.
const (
	importJobs         = 10_000
	importApplications = 10_000
)

// Import measures the HR-suite job import: importJobs jobs at the aggregator simulator, timed
// from the first sync's completion to every job imported and its 'New Job from ATS' run started,
// as jobs/s against the one-activity floor; then the application sync of an ATS-D company the
// same way (importApplicationsEndToEnd). First, on the idle stack, the database parts alone: the
// bulk upsert of importJobs jobs, then of importApplications candidates and applications, page
// by page as the import writes them, into a second company.
func Import(ctx context.Context, env Env, o Options) error {
	sim := aggsim.New(aggsim.Options{APIKey: "bench-agg-key"})
	defer sim.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	key, err := env.Config.EncryptionKeyBytes()
	if err != nil {
		return err
	}
	box, err := secretbox.New(key)
	if err != nil {
		return err
	}
	r, err := startRig(ctx, env, func(r *rig, _ *models.APIKey) error {
		if err := r.st.DB().WithContext(ctx).Model(r.co).Update("hr_suite_account", true).Error; err != nil {
			return err
		}
		r.co.HRSuiteAccount = true
		return r.st.SetAggregatorCredentials(ctx, r.co.ID, box, map[string]string{
			aggregator.FieldBaseURL: "http://" + ln.Addr().String(), aggregator.FieldAPIKey: "bench-agg-key"})
	})
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	sim.SetWebhookURL(r.base + "/webhook/aggregator")
	fmt.Fprintf(out, "database part: bulk upsert of %d jobs, %d per transaction, into a second company, on the idle stack…\n", importJobs, 250)
	co := &models.Company{Slug: "bench-upsert", Name: "Bench Upsert", DefaultJobStatus: models.JobStatusActive}
	if err := r.st.CreateCompany(ctx, co); err != nil {
		return err
	}
	now := time.Now().UTC()
	page := make([]store.ImportedJob, 0, 250)
	var dbTook time.Duration
	r.statementsReset(ctx)
	for i := range importJobs {
		ext := fmt.Sprintf("U%06d", i+1)
		id, interviewerID := uuid.New(), co.Slug+"-"+ext
		page = append(page, store.ImportedJob{ID: id, InterviewerID: interviewerID, Start: kinds.NewJobStart(co.Slug, co.ID, id, ext, interviewerID),
			RemoteID: "kmb_" + ext, ExternalID: ext, Title: "Job " + ext, RemoteStatus: "OPEN", Open: true, ChangedAt: now, RemoteCreatedAt: &now})
		if len(page) == cap(page) || i == importJobs-1 {
			t0 := time.Now()
			if _, _, err := jobimport.WriteJobPage(ctx, r.st, co, page); err != nil {
				return err
			}
			dbTook += time.Since(t0)
			page = page[:0]
		}
	}
	fmt.Fprintf(out, "  %s for %d jobs with their start rows (target < 2s: %s)\n", dbTook.Round(time.Millisecond), importJobs, verdict(dbTook < 2*time.Second))
	r.statementsDump(ctx, "import-jobs-upsert", importJobs)
	r.statementsReset(ctx)
	fmt.Fprintf(out, "database part: %d synced candidates and applications, %d per transaction, into the same company…\n", importApplications, 250)
	apps := make([]store.SyncedApplication, 0, 250)
	dbTook = 0
	for i := range importApplications {
		n := fmt.Sprintf("%06d", i+1)
		apps = append(apps, store.SyncedApplication{RemoteID: "kmb_app_AU" + n, ExternalID: "AU" + n, JobRemoteID: fmt.Sprintf("kmb_U%06d", i%importJobs+1),
			Outcome: "PENDING", Stage: "Applied", CandidateRemoteID: "kmb_cand_CU" + n, CandidateExternalID: "CU" + n,
			FirstName: "Alex", LastName: "Bench " + n, Email: "cu" + n + "@example.com", Phone: fmt.Sprintf("+1415555%04d", i%10000),
			RemoteCreatedAt: &now, ChangedAt: now})
		if len(apps) == cap(apps) || i == importApplications-1 {
			t0 := time.Now()
			if _, _, err := jobimport.WriteApplicationPage(ctx, r.st, co, apps, now, true); err != nil {
				return err
			}
			dbTook += time.Since(t0)
			apps = apps[:0]
		}
	}
	fmt.Fprintf(out, "  %s for %d applications with their candidates and start rows (target < 2s: %s)\n", dbTook.Round(time.Millisecond), importApplications, verdict(dbTook < 2*time.Second))
	r.statementsDump(ctx, "import-applications-upsert", importApplications)
	// Its start rows are written to be measured, not run: left pending, the reconciler would start
	// their 10,000 runs (after its 30 s grace) in the middle of the timed import.
	if err := r.st.DB().WithContext(ctx).Exec(`DELETE FROM workflow_starts WHERE company_id = ?`, co.ID).Error; err != nil {
		return err
	}
	floor := r.floor(ctx, o.Burst, o.Concurrency)

	status, body, err := r.post(ctx, "/v1/api/integrations/hrsuite/connect", "")
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("connect: %d %s %v", status, body, err)
	}
	var link struct{ ConnectURL string }
	if err := json.Unmarshal(body, &link); err != nil {
		return err
	}
	id, err := sim.Authorize(link.ConnectURL[strings.LastIndex(link.ConnectURL, "/")+1:])
	if err != nil {
		return err
	}
	if err := sim.AddJobs(id, "J", importJobs); err != nil {
		return err
	}
	state := func(ctx context.Context, want models.IntegrationState) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			in, err := r.st.AggregatorIntegration(ctx, r.co.ID)
			return err == nil && in.State == want, nil
		}
	}
	if err := bench.WaitFor(ctx, 30*time.Second, 20*time.Millisecond, state(ctx, models.IntegrationSyncing)); err != nil {
		return fmt.Errorf("card never read Syncing…: %w", err)
	}

	fmt.Fprintf(out, "import: %d jobs at the aggregator simulator, timed from first-sync-complete to every job imported and its run started…\n", importJobs)
	begin := time.Now()
	if err := sim.FinishSync(id); err != nil {
		return err
	}
	var imported, started int64
	done := func(ctx context.Context) (bool, error) {
		db := r.st.DB().WithContext(ctx)
		if err := db.Raw(`SELECT count(*) FROM aggregator_jobs WHERE company_id = ?`, r.co.ID).Scan(&imported).Error; err != nil {
			return false, err
		}
		if err := db.Raw(`SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NOT NULL`,
			r.co.ID, kinds.NewJob.Name).Scan(&started).Error; err != nil {
			return false, err
		}
		return imported >= importJobs && started >= importJobs, nil
	}
	if err := bench.WaitFor(ctx, 20*time.Minute, 50*time.Millisecond, done); err != nil {
		return fmt.Errorf("import: %d imported, %d runs started: %w", imported, started, err)
	}
	took := time.Since(begin)
	perSec := importJobs / took.Seconds()
	ratio := perSec / floor
	fmt.Fprintf(out, "  %d jobs imported and %d 'New Job from ATS' runs started in %s: %.1f jobs/s\n", imported, started, took.Round(time.Millisecond), perSec)
	fmt.Fprintf(out, "  ratio to the floor: %.2f   %s\n", ratio, ratioTarget(ratio))

	return importApplicationsEndToEnd(ctx, r, sim, "http://"+ln.Addr().String(), box, floor)
}

// importApplicationsEndToEnd measures the application sync of an ATS-D company: importApplications
// candidates and applications (to 100 jobs) at the aggregator simulator, timed from the first
// sync's completion to every application synced and its 'New Application from ATS' run started,
// as applications/s against the floor. The company's workflow for the trigger only stops, so its
// runs cost what a run costs, not invitations.
func importApplicationsEndToEnd(ctx context.Context, r *rig, sim *aggsim.Server, simURL string, box *secretbox.Box, floor float64) error {
	out := r.out
	// The job import's 10,000 runs were started, not finished: measured while they run, the
	// application sync would measure them too.
	fmt.Fprintln(out, "waiting for the job import's runs to finish…")
	running := int64(-1)
	if err := bench.WaitFor(ctx, 20*time.Minute, time.Second, func(ctx context.Context) (bool, error) {
		resp, err := r.tc.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowType = 'CustomerFlow' AND ExecutionStatus = 'Running' AND CompanySlug = %q", r.co.Slug)})
		if err != nil {
			return false, err
		}
		running = resp.GetCount()
		return running == 0, nil
	}); err != nil {
		return fmt.Errorf("job import's runs: %d still running: %w", running, err)
	}
	atsD := models.ATSTypeD
	co := &models.Company{Slug: "bench-ats", Name: "Bench ATS", ATSType: &atsD, DefaultJobStatus: models.JobStatusActive}
	if err := r.st.CreateCompany(ctx, co); err != nil {
		return err
	}
	if err := r.st.SetAggregatorCredentials(ctx, co.ID, box, map[string]string{
		aggregator.FieldBaseURL: simURL, aggregator.FieldAPIKey: "bench-agg-key"}); err != nil {
		return err
	}
	raw := []byte(`{"trigger": "new_application_ats", "enabled": true, "name": "bench: stop", "steps": [{"id": "stop", "type": "condition",
  "condition": {"all": [{"field": "job.isOpen", "op": "eq", "value": false}], "onFalse": {"outcome": "stop"}}}]}`)
	def, err := flow.Parse(raw)
	if err != nil {
		return err
	}
	if raw, err = json.Marshal(def); err != nil {
		return err
	}
	if _, err := r.st.SaveFlowDefinition(ctx, co.ID, def.Trigger, raw, true, flow.Hash(def)); err != nil {
		return err
	}
	_, link, err := (&jobimport.Integrations{Store: r.st, Box: box}).Connect(ctx, co, r.base+"/webhook/aggregator")
	if err != nil {
		return err
	}
	id, err := sim.Authorize(link[strings.LastIndex(link, "/")+1:])
	if err != nil {
		return err
	}
	jobs := make([]string, 100)
	for i := range jobs {
		jobs[i] = fmt.Sprintf("K%06d", i+1)
	}
	if err := sim.AddJobs(id, "K", len(jobs)); err != nil {
		return err
	}
	if err := sim.AddApplications(id, "P", importApplications, jobs...); err != nil {
		return err
	}
	if err := bench.WaitFor(ctx, 30*time.Second, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		in, err := r.st.AggregatorIntegration(ctx, co.ID)
		return err == nil && in.State == models.IntegrationSyncing, nil
	}); err != nil {
		return fmt.Errorf("ATS card never read Syncing…: %w", err)
	}
	fmt.Fprintf(out, "application sync: %d candidates and applications of an ATS-D company at the aggregator simulator, timed from first-sync-complete to every application synced and its run started…\n", importApplications)
	begin := time.Now()
	if err := sim.FinishSync(id); err != nil {
		return err
	}
	var synced, started int64
	done := func(ctx context.Context) (bool, error) {
		db := r.st.DB().WithContext(ctx)
		if err := db.Raw(`SELECT count(*) FROM aggregator_applications WHERE company_id = ?`, co.ID).Scan(&synced).Error; err != nil {
			return false, err
		}
		if err := db.Raw(`SELECT count(*) FROM workflow_starts WHERE company_id = ? AND kind = ? AND started_at IS NOT NULL`,
			co.ID, kinds.ATSApplication.Name).Scan(&started).Error; err != nil {
			return false, err
		}
		return synced >= importApplications && started >= importApplications, nil
	}
	if err := bench.WaitFor(ctx, 20*time.Minute, 50*time.Millisecond, done); err != nil {
		return fmt.Errorf("application sync: %d synced, %d runs started: %w", synced, started, err)
	}
	took := time.Since(begin)
	perSec := importApplications / took.Seconds()
	ratio := perSec / floor
	fmt.Fprintf(out, "  %d applications synced and %d 'New Application from ATS' runs started in %s: %.1f applications/s\n", synced, started, took.Round(time.Millisecond), perSec)
	fmt.Fprintf(out, "  ratio to the floor: %.2f   %s\n", ratio, ratioTarget(ratio))
	return nil
}
