package scenarios

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/migrations"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/starter"
)

// rig is a throwaway stack with api and worker serving one bench company.
type rig struct {
	cfg       *config.Config
	out       io.Writer
	stack     *Stack
	st        *store.Store
	co        *models.Company
	key       string
	base      string
	tc        client.Client
	pools     Pools
	hc        *http.Client
	stopServe context.CancelFunc
	served    chan error
	floorCPU  string // the floor's CPU per workflow by process (bench.CPU.PerUnit)
}

// startRig starts the stack, creates the company and its key, runs prepare (which may adjust
// cfg and the company), then serves api and worker in this process.
func startRig(ctx context.Context, env Env, prepare func(*rig, *models.APIKey) error) (*rig, error) {
	r := &rig{cfg: env.config(), out: env.Out, served: make(chan error, 1), hc: &http.Client{Timeout: 10 * time.Second}}
	fmt.Fprintln(r.out, "starting a throwaway Postgres and Temporal dev server (in memory)…")
	var err error
	if r.stack, err = env.Stack(ctx); err != nil {
		return nil, err
	}
	fail := func(err error) (*rig, error) { r.close(ctx); return nil, err }
	if err := r.stack.Postgres.EnsureDatabase(ctx, "recruitd"); err != nil {
		return fail(err)
	}
	cfg := r.cfg
	cfg.DatabaseURL, cfg.TemporalAddress = r.stack.Postgres.URL("recruitd"), r.stack.TemporalAddress
	cfg.APIAddr, cfg.MessagingMode, cfg.DBMaxConns = "127.0.0.1:0", "outbox", 40
	cfg.APIRateLimit = 0 // one bench key sends the whole load: measure the service, not its limits
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
		r.served <- env.Serve(serveCtx, cfg, func(apiBase string, tc client.Client, pools Pools) {
			r.base, r.tc, r.pools = apiBase, tc, pools
			close(up)
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

func (r *rig) close(ctx context.Context) {
	if r.stopServe != nil {
		r.stopServe()
		<-r.served
	}
	if r.st != nil {
		r.st.Close()
	}
	r.stack.Stop(ctx)
}

// floor measures one-activity workflows (Ping) per second, after a warm-up.
func (r *rig) floor(ctx context.Context, burst, concurrency int) float64 {
	starter := starter.Starter{Client: r.tc, QueuePrefix: r.cfg.TemporalTaskQueue}
	ping := func(ctx context.Context, id string) error {
		run, err := starter.Ping(ctx, r.co.Slug, id, r.co.ID)
		if err != nil {
			return err
		}
		return run.Get(ctx, nil)
	}
	bench.Burst(ctx, concurrency, concurrency, func(ctx context.Context, i int) error { return ping(ctx, fmt.Sprint("warm-", i)) })
	fmt.Fprintf(r.out, "floor: %d one-activity workflows (Ping), %d in flight…\n", burst, concurrency)
	cpu := bench.SampleCPU()
	begin := time.Now()
	failed := bench.Burst(ctx, burst, concurrency, func(ctx context.Context, i int) error { return ping(ctx, fmt.Sprint(i)) })
	f := float64(burst-failed) / time.Since(begin).Seconds()
	r.floorCPU = bench.SampleCPU().Sub(cpu).PerUnit("workflow", int64(burst-failed))
	fmt.Fprintf(r.out, "  %.1f workflows/s (%d failed); %s\n", f, failed, r.floorCPU)
	return f
}

// interviewReady gives job j an interview of one question, as its generation would: invitations
// to a job without one wait for it (OpenSessionWhenReady), and no callback or invitation of the
// scenario would come.
func (r *rig) interviewReady(ctx context.Context, j *models.Job) error {
	g := store.GuideContent{Title: j.Title, ExternalTitle: j.ExternalTitle, Guide: models.InterviewGuide{Intro: "Welcome.", Outro: "Thank you."},
		Questions: []models.InterviewQuestion{{Text: "Tell us about your experience.", Source: models.QuestionSourceGenerated}}}
	if _, err := r.st.SaveGuide(ctx, j.CompanyID, j.ID, g, 1, models.JobStatusActive); err != nil {
		return fmt.Errorf("interview of job %s: %w", j.ExternalID, err)
	}
	return nil
}

// postSetup is post for a scenario's setup (not measured): a 503, which asks for a retry, is
// retried a few times, as a client would, so that a busy machine does not end the run.
func (r *rig) postSetup(ctx context.Context, path, body string) (int, []byte, error) {
	for attempt := 1; ; attempt++ {
		status, b, err := r.postWith(ctx, setupClient, path, body)
		if err != nil || status != http.StatusServiceUnavailable || attempt == 5 {
			return status, b, err
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return status, b, ctx.Err()
		}
	}
}

// setupClient waits longer than the measured requests' client: a setup request that a loaded
// machine answers late is not retried (an invitation is not idempotent), so it must not fail.
var setupClient = &http.Client{Timeout: time.Minute}

// post sends a JSON request with the bench key and returns the status and body.
func (r *rig) post(ctx context.Context, path, body string) (int, []byte, error) {
	return r.postWith(ctx, r.hc, path, body)
}

func (r *rig) postWith(ctx context.Context, hc *http.Client, path, body string) (int, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.base+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", r.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

// poolWaits is what the served process's pools had waited for a connection so far.
type poolWaits struct{ api, worker sql.DBStats }

func (r *rig) poolWaits() poolWaits {
	return poolWaits{api: r.pools.API.Stats(), worker: r.pools.Worker.Stats()}
}

// waitsLine says how often, and how long in all, the api's pool and the worker's made a caller
// wait for a Postgres connection between before and now: the api's stay at zero while its pool
// is its own.
func waitsLine(before, now poolWaits) string {
	return fmt.Sprintf("api %d (%s), worker %d (%s); connections open: api %d, worker %d",
		now.api.WaitCount-before.api.WaitCount, (now.api.WaitDuration - before.api.WaitDuration).Round(time.Millisecond),
		now.worker.WaitCount-before.worker.WaitCount, (now.worker.WaitDuration - before.worker.WaitDuration).Round(time.Millisecond),
		now.api.OpenConnections, now.worker.OpenConnections)
}

// cpuLines prints the CPU per unit of a scenario's throughput phase by process, under the floor's.
func (r *rig) cpuLines(label string, used bench.CPU, unit string, units int64) {
	fmt.Fprintf(r.out, "  floor %s\n", r.floorCPU)
	fmt.Fprintf(r.out, "  %s %s\n", label, used.PerUnit(unit, units))
}

// StatementsEnv names a folder: when set, the bench's Postgres tracks its statements
// (pg_stat_statements) and each scenario's throughput phase writes them there, by total time,
// with their calls per unit (statementsReset, statementsDump).
const StatementsEnv = "RECRUITD_BENCH_STATEMENTS"

// statementsReset forgets the statements tracked so far (StatementsEnv).
func (r *rig) statementsReset(ctx context.Context) {
	if os.Getenv(StatementsEnv) == "" {
		return
	}
	if err := r.st.DB().WithContext(ctx).Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`).Error; err != nil {
		fmt.Fprintf(r.out, "  statements not tracked: %v\n", err)
		return
	}
	_ = r.st.DB().WithContext(ctx).Exec(`SELECT pg_stat_statements_reset()`).Error
}

// statementsDump writes the statements tracked since statementsReset to <StatementsEnv>/<name>.txt:
// calls and milliseconds (planning plus execution) per unit, largest first, and how much of that
// was planning: a statement planned on every call (plans/call 1.00) pays its planner each time.
func (r *rig) statementsDump(ctx context.Context, name string, units int64) {
	dir := os.Getenv(StatementsEnv)
	if dir == "" || units <= 0 {
		return
	}
	var rows []struct {
		Calls  int64
		Plans  int64
		Ms     float64
		PlanMs float64
		Rows   int64
		Query  string
	}
	if err := r.st.DB().WithContext(ctx).Raw(`SELECT calls, plans, total_plan_time + total_exec_time AS ms, total_plan_time AS plan_ms, rows, query
FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC`).Scan(&rows).Error; err != nil {
		fmt.Fprintf(r.out, "  statements not read: %v\n", err)
		return
	}
	var b strings.Builder
	var calls int64
	var ms, planMs float64
	for _, s := range rows {
		calls += s.Calls
		ms, planMs = ms+s.Ms, planMs+s.PlanMs
	}
	fmt.Fprintf(&b, "%d units; per unit: %.1f statements, %.2f ms (planning + execution), of which planning %.2f ms\n\n",
		units, float64(calls)/float64(units), ms/float64(units), planMs/float64(units))
	for _, s := range rows {
		q := strings.Join(strings.Fields(s.Query), " ")
		if len(q) > 300 {
			q = q[:300] + "…"
		}
		fmt.Fprintf(&b, "%7.2f calls/unit %7.3f ms/unit %7.3f ms/call %5.2f plans/call %7.3f planning ms/unit  %s\n", float64(s.Calls)/float64(units),
			s.Ms/float64(units), s.Ms/float64(max(s.Calls, 1)), float64(s.Plans)/float64(max(s.Calls, 1)), s.PlanMs/float64(units), q)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
		fmt.Fprintf(r.out, "  statements not written: %v\n", err)
	}
}
