package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// Jobs measures createJob's accept latency under a steady rate, then how fast a burst of jobs
// gets generated, against the floor.
func Jobs(ctx context.Context, env Env, o Options) error {
	r, err := startRig(ctx, env, nil)
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.Burst, o.Concurrency)
	create := func(ctx context.Context, id string) error {
		status, _, err := r.post(ctx, "/v1/api/createJob", fmt.Sprintf(`{"externalJobId":%q,"jobDescription":%q}`, id, benchDescription))
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("createJob: %d", status)
		}
		return err
	}
	settled := func(ctx context.Context) (bool, error) {
		var c int64
		err := r.st.DB().WithContext(ctx).Model(&models.Job{}).Where("company_id = ? AND status = ?", r.co.ID, models.JobStatusGenerating).Count(&c).Error
		return c == 0, err
	}
	var seq int
	var mu sync.Mutex
	// steady creates jobs at o.Rate for d.
	steady := func(d time.Duration) (bench.Latencies, int) {
		return bench.OpenLoop(ctx, o.Rate, d, out, func(ctx context.Context) error {
			mu.Lock()
			seq++
			id := fmt.Sprintf("lat-%d-%s", seq, uuid.NewString()[:8])
			mu.Unlock()
			return create(ctx, id)
		})
	}
	fmt.Fprintf(out, "warm-up: createJob at %.0f requests/s for %s, not measured…\n", o.Rate, warmUp)
	cold, _ := steady(warmUp)
	if err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, settled); err != nil {
		return fmt.Errorf("warm-up jobs: %w", err)
	}
	fmt.Fprintf(out, "accept latency: createJob at %.0f requests/s for %s…\n", o.Rate, o.Duration)
	waits := r.poolWaits()
	lat, failedReq := steady(o.Duration)
	waited := waitsLine(waits, r.poolWaits())
	if err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, settled); err != nil {
		return fmt.Errorf("latency-phase jobs: %w", err)
	}

	fmt.Fprintf(out, "generation throughput: %d jobs, %d in flight, timed until all are generated…\n", o.Burst, o.Concurrency)
	r.statementsReset(ctx)
	cpu := bench.SampleCPU()
	begin := time.Now()
	failedBurst := bench.Burst(ctx, o.Burst, o.Concurrency, func(ctx context.Context, i int) error { return create(ctx, fmt.Sprintf("burst-%d", i)) })
	if err := bench.WaitFor(ctx, 10*time.Minute, 20*time.Millisecond, settled); err != nil {
		return fmt.Errorf("burst jobs: %w", err)
	}
	jobsPerSec := float64(o.Burst-failedBurst) / time.Since(begin).Seconds()
	used := bench.SampleCPU().Sub(cpu)
	r.statementsDump(ctx, "jobs", int64(o.Burst-failedBurst))
	var notActive int64
	if err := r.st.DB().WithContext(ctx).Model(&models.Job{}).Where("company_id = ? AND status <> ?", r.co.ID, models.JobStatusActive).Count(&notActive).Error; err != nil {
		return err
	}
	p50, p99 := lat.Percentile(50), lat.Percentile(99)
	ratio := jobsPerSec / floor
	fmt.Fprintf(out, "\nscenario jobs\n")
	fmt.Fprintf(out, "  createJob accept latency at %.0f req/s: p50 %s, p99 %s (%d requests, %d failed)   %s\n",
		o.Rate, p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), len(lat)+failedReq, failedReq, acceptTarget(o.Rate, p99))
	fmt.Fprintf(out, "  createJob accept latency in the warm-up: %s\n", coldLine(cold))
	fmt.Fprintf(out, "  pool waits for a connection at %.0f/s: %s\n", o.Rate, waited)
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  jobs generated:                   %.1f jobs/s (%d failed to start, %d not ACTIVE)\n", jobsPerSec, failedBurst, notActive)
	fmt.Fprintf(out, "  ratio jobs/floor:                 %.2f   %s\n", ratio, ratioTarget(ratio))
	r.cpuLines("generation", used, "job", int64(o.Burst-failedBurst))
	r.historyCounts(ctx, kinds.Ping.Workflow, kinds.JobGeneration.Workflow)
	return nil
}

// benchDescription is a realistic job description, so generation does real work.
const benchDescription = `We are hiring a Senior Backend Engineer to build APIs in Go on PostgreSQL.
Responsibilities:
- Design and build services used by thousands of customers
- Own the reliability of what you ship and improve our CI pipelines
Requirements:
- 5+ years of backend experience
- Experience with Go, PostgreSQL, Kubernetes and AWS
- Clear written communication`
