package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/migrations"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

func benchCmd(e *env) *cobra.Command {
	var rate float64
	var duration time.Duration
	var burst, concurrency int
	cmd := &cobra.Command{
		Use:   "bench jobs",
		Short: "Benchmark a scenario against an in-process api and worker on a throwaway Postgres and Temporal (make bench)",
		Long: "bench starts a throwaway Postgres cluster and in-memory Temporal dev server, runs api and worker in this process,\n" +
			"measures the floor (one-activity Ping workflows per second) and then the scenario, and prints ratios against that floor.\n\n" +
			"Scenario jobs: createJob accept latency p50/p99 at --rate requests/s for --duration, then --burst jobs created\n" +
			"--concurrency at a time and timed until all are generated (jobs/s, as a ratio of the floor).",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"jobs"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "jobs" {
				return fmt.Errorf("unknown scenario %q (available: jobs)", args[0])
			}
			return runJobsBench(cmd.Context(), e, rate, duration, burst, concurrency)
		},
	}
	cmd.Flags().Float64Var(&rate, "rate", 20, "createJob requests per second in the latency phase")
	cmd.Flags().DurationVar(&duration, "duration", 30*time.Second, "length of the latency phase")
	cmd.Flags().IntVar(&burst, "burst", 300, "workflows (floor) and jobs (throughput) per burst")
	cmd.Flags().IntVar(&concurrency, "concurrency", 20, "calls in flight during bursts")
	return cmd
}

func runJobsBench(ctx context.Context, e *env, rate float64, duration time.Duration, burst, concurrency int) error {
	cfg, _, err := e.load()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	out := e.stdout
	fmt.Fprintln(out, "starting a throwaway Postgres and Temporal dev server (in memory)…")
	stack, err := startThrowawayStack(ctx, log, cfg.TemporalNamespace)
	if err != nil {
		return err
	}
	defer stack.stop(ctx)
	if err := stack.pg.EnsureDatabase(ctx, "recruitd"); err != nil {
		return err
	}
	cfg.DatabaseURL, cfg.TemporalAddress = stack.pg.URL("recruitd"), stack.temporal.Address()
	cfg.APIAddr, cfg.MessagingMode, cfg.DBMaxConns = "127.0.0.1:0", "outbox", 40

	st, err := store.Open(ctx, cfg.DatabaseURL, 4, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := migrations.Up(ctx, st.SQL(), nil); err != nil {
		return err
	}
	co := &models.Company{Slug: "bench", Name: "Bench Co", DefaultJobStatus: models.JobStatusActive}
	if err := st.CreateCompany(ctx, co); err != nil {
		return err
	}
	key, _ := apikey.Generate()
	if _, err := st.CreateAPIKey(ctx, co.ID, "bench", key); err != nil {
		return err
	}

	serveCtx, stopServe := context.WithCancel(ctx)
	defer stopServe()
	type ready struct {
		base string
		tc   client.Client
	}
	up := make(chan ready, 1)
	served := make(chan error, 1)
	go func() {
		served <- serve(serveCtx, cfg, log, io.Discard, components{api: true, worker: true}, func(l *listeners, d *deps) error {
			up <- ready{base: "http://" + l.api.Addr().String(), tc: d.temporal}
			return nil
		})
	}()
	var r ready
	select {
	case r = <-up:
	case err := <-served:
		return err
	}

	hc := &http.Client{Timeout: 10 * time.Second}
	var seq int
	create := func(ctx context.Context, id string) error {
		body := fmt.Sprintf(`{"externalJobId":%q,"jobDescription":%q}`, id, benchDescription)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.base+"/v1/api/createJob", strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("createJob: %s", resp.Status)
		}
		return nil
	}
	settled := func(ctx context.Context) (bool, error) {
		var c int64
		err := st.DB().WithContext(ctx).Model(&models.Job{}).Where("company_id = ? AND status = ?", co.ID, models.JobStatusGenerating).Count(&c).Error
		return c == 0, err
	}

	ping := func(ctx context.Context, id string) error {
		run, err := r.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.PingWorkflowID("bench", id), TaskQueue: cfg.TemporalTaskQueue}, workflows.Ping, co.ID)
		if err != nil {
			return err
		}
		return run.Get(ctx, nil)
	}
	// Warm up connections and caches so that neither measurement pays for them.
	bench.Burst(ctx, concurrency, concurrency, func(ctx context.Context, i int) error { return ping(ctx, fmt.Sprint("warm-", i)) })
	_ = create(ctx, "warm-up")

	fmt.Fprintf(out, "floor: %d one-activity workflows (Ping), %d in flight…\n", burst, concurrency)
	begin := time.Now()
	failed := bench.Burst(ctx, burst, concurrency, func(ctx context.Context, i int) error { return ping(ctx, fmt.Sprint(i)) })
	floor := float64(burst-failed) / time.Since(begin).Seconds()
	fmt.Fprintf(out, "  %.1f workflows/s (%d failed)\n", floor, failed)

	fmt.Fprintf(out, "accept latency: createJob at %.0f requests/s for %s…\n", rate, duration)
	lat, failedReq := bench.OpenLoop(ctx, rate, duration, out, func(ctx context.Context) error {
		seq++
		return create(ctx, fmt.Sprintf("lat-%d-%s", seq, uuid.NewString()[:8]))
	})
	if err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, settled); err != nil {
		return fmt.Errorf("latency-phase jobs: %w", err)
	}

	fmt.Fprintf(out, "generation throughput: %d jobs, %d in flight, timed until all are ACTIVE…\n", burst, concurrency)
	begin = time.Now()
	failedBurst := bench.Burst(ctx, burst, concurrency, func(ctx context.Context, i int) error {
		return create(ctx, fmt.Sprintf("burst-%d", i))
	})
	if err := bench.WaitFor(ctx, 10*time.Minute, 20*time.Millisecond, settled); err != nil {
		return fmt.Errorf("burst jobs: %w", err)
	}
	jobsPerSec := float64(burst-failedBurst) / time.Since(begin).Seconds()
	var failedJobs int64
	if err := st.DB().WithContext(ctx).Model(&models.Job{}).Where("company_id = ? AND status <> ?", co.ID, models.JobStatusActive).Count(&failedJobs).Error; err != nil {
		return err
	}

	p50, p99 := lat.Percentile(50), lat.Percentile(99)
	ratio := jobsPerSec / floor
	verdict := func(ok bool) string {
		if ok {
			return "meets target"
		}
		return "MISSES target"
	}
	fmt.Fprintf(out, "\nscenario jobs\n")
	fmt.Fprintf(out, "  createJob accept latency at %.0f req/s: p50 %s, p99 %s (%d requests, %d failed)   target p99 < 50ms: %s\n",
		rate, p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), len(lat)+failedReq, failedReq, verdict(p99 < 50*time.Millisecond))
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  jobs generated:                   %.1f jobs/s (%d failed to start, %d not ACTIVE)\n", jobsPerSec, failedBurst, failedJobs)
	fmt.Fprintf(out, "  ratio jobs/floor:                 %.2f   target >= 0.5: %s\n", ratio, verdict(ratio >= 0.5))
	stopServe()
	return <-served
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
