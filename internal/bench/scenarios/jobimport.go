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

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/kinds"
)

// importJobs is how many jobs the import scenario puts at the simulator.
const importJobs = 10_000

// Import measures the HR-suite job import: importJobs jobs at the aggregator simulator, timed
// from the first sync's completion to every job imported and its 'New Job from ATS' run started,
// as jobs/s against the one-activity floor. First, on the idle stack, the database part alone:
// the bulk upsert of importJobs jobs, page by page as the import writes them, into a second
// company.
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
	for i := range importJobs {
		ext := fmt.Sprintf("U%06d", i+1)
		id, interviewerID := uuid.New(), co.Slug+"-"+ext
		page = append(page, store.ImportedJob{ID: id, InterviewerID: interviewerID, Start: kinds.NewJobStart(co.Slug, co.ID, id, ext, interviewerID),
			RemoteID: "kmb_" + ext, ExternalID: ext, Title: "Job " + ext, RemoteStatus: "OPEN", Open: true, ChangedAt: now, RemoteCreatedAt: &now})
		if len(page) == cap(page) || i == importJobs-1 {
			t0 := time.Now()
			if _, _, err := r.st.UpsertImportedJobs(ctx, co, page); err != nil {
				return err
			}
			dbTook += time.Since(t0)
			page = page[:0]
		}
	}
	fmt.Fprintf(out, "  %s for %d jobs with their start rows (target < 2s: %s)\n", dbTook.Round(time.Millisecond), importJobs, verdict(dbTook < 2*time.Second))
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
	fmt.Fprintf(out, "  ratio to the floor: %.2f (target >= 0.5: %s)\n", ratio, verdict(ratio >= 0.5))

	return nil
}
