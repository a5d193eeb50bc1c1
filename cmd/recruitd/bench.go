package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/migrations"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

func benchCmd(e *env) *cobra.Command {
	var o benchOptions
	var mo mcpBenchOptions
	cmd := &cobra.Command{
		Use:   "bench jobs|partner|mcp",
		Short: "Benchmark a scenario against an in-process api and worker on a throwaway Postgres and Temporal (make bench)",
		Long: "bench starts a throwaway Postgres cluster and in-memory Temporal dev server, runs api and worker in this process,\n" +
			"measures the floor (one-activity Ping workflows per second) and then the scenario, and prints ratios against that floor.\n\n" +
			"jobs:    createJob accept latency p50/p99 at --rate requests/s for --duration, then --burst jobs created\n" +
			"         --concurrency at a time and timed until all are generated (jobs/s as a ratio of the floor).\n" +
			"partner: 202 latency p50/p99 at --rate submissions/s for --duration, time from 202 to callback received p50/p99,\n" +
			"         then --burst submissions timed until every callback arrived (settled/s as a ratio of the floor).\n" +
			"mcp:     seeds one company with --candidates candidates (3 sessions each) in a Postgres cluster kept under --dir,\n" +
			"         serves the tool server in this process and calls every tool --iterations times with varied arguments\n" +
			"         through the Streamable HTTP transport: p50/p95 per tool against the targets and the tools/list round-trip floor,\n" +
			"         then the plans of the three slowest statements (auto_explain).",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"jobs", "partner", "mcp"},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch args[0] {
			case "jobs":
				return runJobsBench(cmd.Context(), e, o)
			case "partner":
				return runPartnerBench(cmd.Context(), e, o)
			case "mcp":
				return runMCPBench(cmd.Context(), e, mo)
			}
			return fmt.Errorf("unknown scenario %q (available: jobs, partner, mcp)", args[0])
		},
	}
	cmd.Flags().Float64Var(&o.rate, "rate", 20, "requests per second in the latency phase")
	cmd.Flags().DurationVar(&o.duration, "duration", 30*time.Second, "length of the latency phase (the partner scenario's spec asks for 60s)")
	cmd.Flags().IntVar(&o.burst, "burst", 300, "workflows (floor) and jobs or submissions (throughput) per burst")
	cmd.Flags().IntVar(&o.concurrency, "concurrency", 20, "calls in flight during bursts")
	cmd.Flags().IntVar(&mo.candidates, "candidates", 1_000_000, "mcp: candidates of the bench company")
	cmd.Flags().IntVar(&mo.iterations, "iterations", 40, "mcp: measured calls per tool")
	cmd.Flags().StringVar(&mo.dir, "dir", ".bench", "mcp: folder of the kept Postgres cluster")
	return cmd
}

type benchOptions struct {
	rate        float64
	duration    time.Duration
	burst       int
	concurrency int
}

// benchRig is a throwaway stack with api and worker serving one bench company.
type benchRig struct {
	cfg       *config.Config
	out       io.Writer
	stack     *throwawayStack
	st        *store.Store
	co        *models.Company
	key       string
	base      string
	tc        client.Client
	hc        *http.Client
	stopServe context.CancelFunc
	served    chan error
}

// startRig starts the stack, creates the company and its key, runs prepare (which may adjust cfg
// and the company), then serves api and worker in this process.
func startRig(ctx context.Context, e *env, prepare func(*benchRig, *models.APIKey) error) (*benchRig, error) {
	cfg, _, err := e.load()
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r := &benchRig{cfg: cfg, out: e.stdout, served: make(chan error, 1), hc: &http.Client{Timeout: 10 * time.Second}}
	fmt.Fprintln(r.out, "starting a throwaway Postgres and Temporal dev server (in memory)…")
	if r.stack, err = startThrowawayStack(ctx, log, cfg.TemporalNamespace); err != nil {
		return nil, err
	}
	fail := func(err error) (*benchRig, error) { r.close(ctx); return nil, err }
	if err := r.stack.pg.EnsureDatabase(ctx, "recruitd"); err != nil {
		return fail(err)
	}
	cfg.DatabaseURL, cfg.TemporalAddress = r.stack.pg.URL("recruitd"), r.stack.temporal.Address()
	cfg.APIAddr, cfg.MessagingMode, cfg.DBMaxConns = "127.0.0.1:0", "outbox", 40
	if cfg.EncryptionKey == "" {
		if cfg.EncryptionKey, err = newEncryptionKey(); err != nil {
			return fail(err)
		}
	}
	if r.st, err = store.Open(ctx, cfg.DatabaseURL, 4, nil); err != nil {
		return fail(err)
	}
	if _, err := migrations.Up(ctx, r.st.SQL(), nil); err != nil {
		return fail(err)
	}
	r.co = &models.Company{Slug: "bench", Name: "Bench Co", DefaultJobStatus: models.JobStatusActive}
	if err := r.st.CreateCompany(ctx, r.co); err != nil {
		return fail(err)
	}
	r.key, _ = apikey.Generate()
	k, err := r.st.CreateAPIKey(ctx, r.co.ID, "bench", r.key)
	if err != nil {
		return fail(err)
	}
	if prepare != nil {
		if err := prepare(r, k); err != nil {
			return fail(err)
		}
	}
	serveCtx, stop := context.WithCancel(ctx)
	r.stopServe = stop
	up := make(chan struct{})
	go func() {
		r.served <- serve(serveCtx, cfg, log, io.Discard, components{api: true, worker: true}, func(l *listeners, d *deps) error {
			r.base, r.tc = "http://"+l.api.Addr().String(), d.temporal
			close(up)
			return nil
		})
	}()
	select {
	case <-up:
	case err := <-r.served:
		r.stopServe = nil
		return fail(err)
	}
	return r, nil
}

func (r *benchRig) close(ctx context.Context) {
	if r.stopServe != nil {
		r.stopServe()
		<-r.served
	}
	if r.st != nil {
		r.st.Close()
	}
	r.stack.stop(ctx)
}

// floor measures one-activity workflows (Ping) per second, after a warm-up.
func (r *benchRig) floor(ctx context.Context, burst, concurrency int) float64 {
	ping := func(ctx context.Context, id string) error {
		run, err := r.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.PingWorkflowID("bench", id), TaskQueue: r.cfg.TemporalTaskQueue}, workflows.Ping, r.co.ID)
		if err != nil {
			return err
		}
		return run.Get(ctx, nil)
	}
	bench.Burst(ctx, concurrency, concurrency, func(ctx context.Context, i int) error { return ping(ctx, fmt.Sprint("warm-", i)) })
	fmt.Fprintf(r.out, "floor: %d one-activity workflows (Ping), %d in flight…\n", burst, concurrency)
	begin := time.Now()
	failed := bench.Burst(ctx, burst, concurrency, func(ctx context.Context, i int) error { return ping(ctx, fmt.Sprint(i)) })
	f := float64(burst-failed) / time.Since(begin).Seconds()
	fmt.Fprintf(r.out, "  %.1f workflows/s (%d failed)\n", f, failed)
	return f
}

// post sends a JSON request with the bench key and returns the status and body.
func (r *benchRig) post(ctx context.Context, path, body string) (int, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.base+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", r.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

func verdict(ok bool) string {
	if ok {
		return "meets target"
	}
	return "MISSES target"
}

func runJobsBench(ctx context.Context, e *env, o benchOptions) error {
	r, err := startRig(ctx, e, nil)
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.burst, o.concurrency)
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
	_ = create(ctx, "warm-up")

	fmt.Fprintf(out, "accept latency: createJob at %.0f requests/s for %s…\n", o.rate, o.duration)
	var seq int
	var mu sync.Mutex
	lat, failedReq := bench.OpenLoop(ctx, o.rate, o.duration, out, func(ctx context.Context) error {
		mu.Lock()
		seq++
		id := fmt.Sprintf("lat-%d-%s", seq, uuid.NewString()[:8])
		mu.Unlock()
		return create(ctx, id)
	})
	if err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, settled); err != nil {
		return fmt.Errorf("latency-phase jobs: %w", err)
	}

	fmt.Fprintf(out, "generation throughput: %d jobs, %d in flight, timed until all are generated…\n", o.burst, o.concurrency)
	begin := time.Now()
	failedBurst := bench.Burst(ctx, o.burst, o.concurrency, func(ctx context.Context, i int) error { return create(ctx, fmt.Sprintf("burst-%d", i)) })
	if err := bench.WaitFor(ctx, 10*time.Minute, 20*time.Millisecond, settled); err != nil {
		return fmt.Errorf("burst jobs: %w", err)
	}
	jobsPerSec := float64(o.burst-failedBurst) / time.Since(begin).Seconds()
	var notActive int64
	if err := r.st.DB().WithContext(ctx).Model(&models.Job{}).Where("company_id = ? AND status <> ?", r.co.ID, models.JobStatusActive).Count(&notActive).Error; err != nil {
		return err
	}
	p50, p99 := lat.Percentile(50), lat.Percentile(99)
	ratio := jobsPerSec / floor
	fmt.Fprintf(out, "\nscenario jobs\n")
	fmt.Fprintf(out, "  createJob accept latency at %.0f req/s: p50 %s, p99 %s (%d requests, %d failed)   target p99 < 50ms: %s\n",
		o.rate, p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), len(lat)+failedReq, failedReq, verdict(p99 < 50*time.Millisecond))
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  jobs generated:                   %.1f jobs/s (%d failed to start, %d not ACTIVE)\n", jobsPerSec, failedBurst, notActive)
	fmt.Fprintf(out, "  ratio jobs/floor:                 %.2f   target >= 0.5: %s\n", ratio, verdict(ratio >= 0.5))
	return nil
}

// callbackClock records when each application's first callback arrived.
type callbackClock struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (c *callbackClock) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var p struct{ ApplicationID string }
	_ = json.NewDecoder(req.Body).Decode(&p)
	now := time.Now()
	c.mu.Lock()
	if _, seen := c.at[p.ApplicationID]; !seen {
		c.at[p.ApplicationID] = now
	}
	c.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (c *callbackClock) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.at)
}

func runPartnerBench(ctx context.Context, e *env, o benchOptions) error {
	n := int(o.rate*o.duration.Seconds()) + o.burst + 10
	records := make([]atssim.Record, n)
	for i := range records {
		records[i] = atssim.Record{ATSType: models.ATSTypeA, ApplicantID: int64(100000 + i), JobID: 5001, CandidateID: int64(200000 + i),
			FirstName: "Bench", LastName: fmt.Sprint(i), Email: fmt.Sprintf("bench%d@example.com", i)}
	}
	creds := atssim.Credentials{RestToken: "bench-token"}
	sim := httptest.NewServer(atssim.New(records, creds).Handler())
	defer sim.Close()
	clock := &callbackClock{at: map[string]time.Time{}}
	recv := httptest.NewServer(clock)
	defer recv.Close()

	r, err := startRig(ctx, e, func(r *benchRig, k *models.APIKey) error {
		r.cfg.CallbackAllowPrivate, r.cfg.PartnerRateLimit, r.cfg.PartnerRateBurst = true, 10000, 10000
		b, err := box(r.cfg)
		if err != nil {
			return err
		}
		ats := models.ATSTypeA
		if err := r.st.DB().WithContext(ctx).Model(r.co).Update("ats_type", ats).Error; err != nil {
			return err
		}
		if err := r.st.SetATSCredentials(ctx, r.co.ID, b, map[string]string{"baseUrl": sim.URL, "restToken": creds.RestToken}); err != nil {
			return err
		}
		p, _, err := addPartner(ctx, r.st, b, r.co.ID, "bench", recv.URL, store.PartnerSecrets{})
		if err != nil {
			return err
		}
		if err := r.st.BindAPIKey(ctx, r.co.ID, k.ID, p.ID); err != nil {
			return err
		}
		job := &models.Job{CompanyID: r.co.ID, ExternalID: "5001", InterviewerID: "bench-5001", Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
		if err := r.st.DB().WithContext(ctx).Create(job).Error; err != nil {
			return err
		}
		def := flow.Defaults()[flow.TriggerPartnerApplication]
		raw, _ := json.Marshal(def)
		_, err = r.st.SaveWorkflowDefinition(ctx, r.co.ID, models.TriggerPartnerApplication, raw, true, flow.Hash(def))
		return err
	})
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.burst, o.concurrency)

	var mu sync.Mutex
	next := 0
	accepted := map[string]time.Time{}
	submit := func(ctx context.Context) error {
		mu.Lock()
		id := 100000 + next
		next++
		mu.Unlock()
		status, body, err := r.post(ctx, "/v2/api/partner-applications", fmt.Sprintf(`{"atsApplicantId":"%d","atsJobId":"5001"}`, id))
		if err != nil {
			return err
		}
		if status != http.StatusAccepted {
			return fmt.Errorf("submit: %d %s", status, body)
		}
		var resp struct{ ApplicationID string }
		_ = json.Unmarshal(body, &resp)
		mu.Lock()
		accepted[resp.ApplicationID] = time.Now()
		mu.Unlock()
		return nil
	}
	_ = submit(ctx) // warm-up

	fmt.Fprintf(out, "202 latency: partner submissions at %.0f/s for %s…\n", o.rate, o.duration)
	lat, failedReq := bench.OpenLoop(ctx, o.rate, o.duration, out, submit)
	mu.Lock()
	want := len(accepted)
	mu.Unlock()
	if err := bench.WaitFor(ctx, 5*time.Minute, 20*time.Millisecond, func(context.Context) (bool, error) { return clock.count() >= want, nil }); err != nil {
		return fmt.Errorf("latency-phase callbacks: %w", err)
	}
	var toCallback bench.Latencies
	mu.Lock()
	clock.mu.Lock()
	for id, t202 := range accepted {
		if tcb, ok := clock.at[id]; ok {
			toCallback = append(toCallback, tcb.Sub(t202))
		}
	}
	clock.mu.Unlock()
	mu.Unlock()

	fmt.Fprintf(out, "settlement throughput: %d submissions, %d in flight, timed until every callback arrived…\n", o.burst, o.concurrency)
	before := clock.count()
	begin := time.Now()
	failedBurst := bench.Burst(ctx, o.burst, o.concurrency, func(ctx context.Context, _ int) error { return submit(ctx) })
	if err := bench.WaitFor(ctx, 10*time.Minute, 20*time.Millisecond, func(context.Context) (bool, error) {
		return clock.count() >= before+o.burst-failedBurst, nil
	}); err != nil {
		return fmt.Errorf("burst callbacks: %w", err)
	}
	perSec := float64(o.burst-failedBurst) / time.Since(begin).Seconds()
	ratio := perSec / floor
	fmt.Fprintf(out, "\nscenario partner\n")
	fmt.Fprintf(out, "  202 latency at %.0f req/s:          p50 %s, p99 %s (%d submissions, %d failed)   target p99 < 100ms: %s\n",
		o.rate, lat.Percentile(50).Round(100*time.Microsecond), lat.Percentile(99).Round(100*time.Microsecond), len(lat)+failedReq, failedReq, verdict(lat.Percentile(99) < 100*time.Millisecond))
	fmt.Fprintf(out, "  202 → callback received:          p50 %s, p99 %s (%d callbacks)   target p50 < 1s: %s\n",
		toCallback.Percentile(50).Round(time.Millisecond), toCallback.Percentile(99).Round(time.Millisecond), len(toCallback), verdict(toCallback.Percentile(50) < time.Second))
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  applications settled:             %.1f/s (%d failed to submit)\n", perSec, failedBurst)
	fmt.Fprintf(out, "  ratio settled/floor:              %.2f   target >= 0.5: %s\n", ratio, verdict(ratio >= 0.5))
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
