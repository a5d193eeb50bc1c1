package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/progress"
	"github.com/recruitd/recruitd/models"
)

const (
	hrsuiteDeliveries = 3     // measured deliveries, each of its own applications
	hrsuiteRows       = 5_000 // rows per delivery: a Mobile and a Personal Email row per application
	hrsuiteJobs       = 20    // the bench company's jobs the rows name
)

// hrsuiteRow is one report row of the HR suite (docs/hrsuite-webhook.md).
type hrsuiteRow struct {
	CandidateID   string `json:"Candidate Id"`
	FirstName     string `json:"Candidate First Name"`
	LastName      string `json:"Candidate Last Name"`
	Contact       string `json:"Contact Method"`
	ContactType   string `json:"Contact Type Description"`
	JobReqID      string `json:"Job Req Id"`
	Location      string `json:"Job Req Location"`
	Title         string `json:"Job Req Title"`
	AppliedAt     string `json:"Application Date/Time"`
	ApplicationID string `json:"Job Posting Application Id"`
	DoNotHire     string `json:"Do Not Hire Status"`
}

// hrsuiteBody is a delivery of apps applications named prefix-1…prefix-apps, two rows each, spread
// over the bench jobs; n numbers the phones so that every candidate has their own.
func hrsuiteBody(prefix string, apps, n int) string {
	rows := make([]hrsuiteRow, 0, 2*apps)
	for i := 1; i <= apps; i++ {
		n++
		app, cand := fmt.Sprintf("%s-%d", prefix, i), fmt.Sprintf("C%s-%d", prefix, i)
		r := hrsuiteRow{CandidateID: cand, FirstName: "Bench", LastName: cand, JobReqID: fmt.Sprintf("REQ-%d", i%hrsuiteJobs+1),
			Location: "Austin, TX", Title: "Registered Nurse", AppliedAt: "2026-11-21 14:05", ApplicationID: app, DoNotHire: "False"}
		r.Contact, r.ContactType = fmt.Sprintf("(415) %03d-%04d", 200+n/10_000, n%10_000), "Mobile"
		rows = append(rows, r)
		r.Contact, r.ContactType = strings.ToLower(cand)+"@example.com", "Personal Email"
		rows = append(rows, r)
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

// HRSuite measures the HR-suite webhook: hrsuiteDeliveries deliveries of hrsuiteRows rows POSTed
// one after the other (the later ones while the earlier ones are ingested), the POST's latency,
// the time from each POST to all its row outcomes recorded, and applications invited per second
// until every accepted application's invitation is sent, against the floor.
func HRSuite(ctx context.Context, env Env, o Options) error {
	apps := hrsuiteRows / 2
	bodies := make([]string, hrsuiteDeliveries)
	for d := range bodies {
		bodies[d] = hrsuiteBody(fmt.Sprintf("A%d", d+1), apps, d*apps)
	}
	r, err := startRig(ctx, env, func(r *rig, _ *models.APIKey) error {
		db := r.st.DB().WithContext(ctx)
		if err := db.Model(r.co).Update("hr_suite_account", true).Error; err != nil {
			return err
		}
		r.co.HRSuiteAccount = true
		for i := 1; i <= hrsuiteJobs; i++ {
			ext := fmt.Sprintf("REQ-%d", i)
			job := &models.Job{CompanyID: r.co.ID, ExternalID: ext, InterviewerID: "bench-" + ext, Title: "Nurse " + ext,
				ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
			if err := db.Create(job).Error; err != nil {
				return err
			}
			if err := r.interviewReady(ctx, job); err != nil {
				return err
			}
			// Imported from the HR suite, as the aggregator would: only those match a Job Req Id.
			if err := db.Exec(`INSERT INTO aggregator_jobs (company_id, remote_id, ats_job_id, job_id, name) VALUES (?, ?, ?, ?, ?)`,
				r.co.ID, "bench-"+ext, ext, job.ID, job.Title).Error; err != nil {
				return err
			}
		}
		// Without a saved, enabled definition nobody is invited (no_trigger).
		def := flow.Defaults()[models.TriggerNewApplicationWebhook]
		raw, err := json.Marshal(def)
		if err != nil {
			return err
		}
		_, err = r.st.SaveFlowDefinition(ctx, r.co.ID, models.TriggerNewApplicationWebhook, raw, true, flow.Hash(def))
		return err
	})
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.Burst, o.Concurrency)

	deliver := func(ctx context.Context, body string) (uuid.UUID, error) {
		status, b, err := r.post(ctx, "/webhook/hrsuite", body)
		if err != nil {
			return uuid.Nil, err
		}
		var resp struct {
			DeliveryID uuid.UUID
			Rows       int
		}
		if status != http.StatusOK || json.Unmarshal(b, &resp) != nil {
			return uuid.Nil, fmt.Errorf("POST /webhook/hrsuite: %d %s", status, b)
		}
		return resp.DeliveryID, nil
	}
	// invited counts the applications with an invitation sent that was created at or after since,
	// and says when the last of those invitations was sent. It reads messages alone: joined to the
	// applications (for their names), the count's plan came from statistics taken while the
	// tables were young and took 417 ms a call, a fifth of this machine's CPU at one call a second.
	invited := func(ctx context.Context, since time.Time) (int64, time.Time, error) {
		var got struct {
			N    int64
			Last *time.Time
		}
		err := r.st.DB().WithContext(ctx).Raw(`SELECT count(DISTINCT application_id) AS n, max(sent_at) AS last FROM messages
WHERE company_id = ? AND status = 'sent' AND application_id IS NOT NULL AND created_at >= ?`, r.co.ID, since).Scan(&got).Error
		if got.Last == nil {
			return got.N, time.Time{}, err
		}
		return got.N, *got.Last, err
	}
	// A small delivery first: connections, statements and workflow code warmed up.
	warm := time.Now()
	if _, err := deliver(ctx, hrsuiteBody("W", 10, 9_000)); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if err := bench.WaitFor(ctx, 2*time.Minute, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		n, _, err := invited(ctx, warm)
		return n >= 10, err
	}); err != nil {
		return fmt.Errorf("warm-up invitations: %w", err)
	}

	fmt.Fprintf(out, "hrsuite: %d deliveries of %s rows (%s applications each, %d jobs) POSTed one after the other, timed until every\n"+
		"  row outcome is recorded and every accepted application's invitation is sent…\n",
		hrsuiteDeliveries, progress.Thousands(hrsuiteRows), progress.Thousands(int64(apps)), hrsuiteJobs)
	var posted, processed, sent atomic.Int64
	show := progress.Start(out, progress.Options{Terminal: progress.IsTerminal(out)}, func(fr progress.Frame) []string {
		line := fmt.Sprintf("  %s %d/%d deliveries posted, %d processed, %s/%s applications invited", progress.Clock(fr.Elapsed),
			posted.Load(), hrsuiteDeliveries, processed.Load(), progress.Thousands(sent.Load()), progress.Thousands(int64(hrsuiteDeliveries*apps)))
		if fr.Terminal || fr.Periodic {
			return []string{line}
		}
		return nil
	})
	r.statementsReset(ctx)
	cpu := bench.SampleCPU()
	begin := time.Now()
	var lat bench.Latencies
	postedAt := map[uuid.UUID]time.Time{}
	failed := 0
	for _, body := range bodies {
		t0 := time.Now()
		id, err := deliver(ctx, body)
		if err != nil {
			env.Log.Warn("hrsuite delivery failed", "err", err)
			failed++
			continue
		}
		lat = append(lat, time.Since(t0))
		postedAt[id] = t0
		posted.Add(1)
	}
	ids := make([]uuid.UUID, 0, len(postedAt))
	for id := range postedAt {
		ids = append(ids, id)
	}
	type delivery struct {
		ID          uuid.UUID
		ProcessedAt *time.Time
		Counts      models.JSON[map[string]int]
	}
	var ds []delivery
	var lastSent time.Time
	want := int64(len(ids) * apps)
	// The counts are polled once a second, because the scenario's own Postgres is what is
	// measured. The times come from the rows (the last delivery's processed_at, the last
	// invitation's sent_at), not from the poll.
	err = bench.WaitFor(ctx, 20*time.Minute, time.Second, func(ctx context.Context) (bool, error) {
		if processed.Load() < int64(len(ids)) {
			ds = ds[:0]
			if err := r.st.DB().WithContext(ctx).Table("hrsuite_deliveries").Select("id, processed_at, counts").
				Where("company_id = ? AND id IN ?", r.co.ID, ids).Scan(&ds).Error; err != nil {
				return false, err
			}
			n := 0
			for _, d := range ds {
				if d.ProcessedAt != nil {
					n++
				}
			}
			processed.Store(int64(n))
		}
		n, last, err := invited(ctx, begin)
		sent.Store(n)
		lastSent = last
		return processed.Load() == int64(len(ids)) && n >= want, err
	})
	took := lastSent.Sub(begin)
	used := bench.SampleCPU().Sub(cpu)
	r.statementsDump(ctx, "hrsuite", sent.Load())
	show.Stop()
	if err != nil {
		return fmt.Errorf("hrsuite: %d of %d deliveries processed, %d of %d applications invited: %w", processed.Load(), len(ids), sent.Load(), want, err)
	}

	var toOutcomes bench.Latencies
	var allProcessed time.Duration
	counts := map[string]int{}
	for _, d := range ds {
		toOutcomes = append(toOutcomes, d.ProcessedAt.Sub(postedAt[d.ID]))
		allProcessed = max(allProcessed, d.ProcessedAt.Sub(begin))
		for k, v := range d.Counts.V {
			counts[k] += v
		}
	}
	perSec := float64(sent.Load()) / took.Seconds()
	ratio := perSec / floor
	p99 := lat.Percentile(99)
	fmt.Fprintf(out, "\nscenario hrsuite\n")
	fmt.Fprintf(out, "  POST latency, %s rows:         p50 %s, p99 %s (%d deliveries, %d failed)   target p99 < 500ms: %s\n",
		progress.Thousands(hrsuiteRows), lat.Percentile(50).Round(time.Millisecond), p99.Round(time.Millisecond), len(lat)+failed, failed, verdict(p99 < 500*time.Millisecond))
	fmt.Fprintf(out, "  POST → all row outcomes recorded: p50 %s, max %s (all %d processed %s after the first POST; rows: %s)\n",
		toOutcomes.Percentile(50).Round(time.Millisecond), toOutcomes.Percentile(100).Round(time.Millisecond), len(ds), allProcessed.Round(time.Millisecond), fmtCounts(counts))
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  applications invited:             %.1f/s (%s in %s from the first POST to the last invitation sent)\n",
		perSec, progress.Thousands(sent.Load()), took.Round(time.Millisecond))
	fmt.Fprintf(out, "  ratio invited/floor:              %.2f   %s\n", ratio, ratioTarget(ratio))
	r.cpuLines("ingest and invitations", used, "application", sent.Load())
	r.historyCounts(ctx, kinds.Ping.Workflow, kinds.HRSuiteDelivery.Workflow, kinds.NewApplication.Workflow, kinds.Interview.Workflow)
	return nil
}

// fmtCounts writes row outcomes as "accepted 15,000, duplicate 2", largest first.
func fmtCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+" "+progress.Thousands(int64(m[k])))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
