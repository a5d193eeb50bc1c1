// Package scenarios holds the load scenarios of `recruitd bench` (make bench): each one sets up
// what it measures, drives it with the load generators of package bench, and prints its figures
// against a floor measured in the same run. Adding a scenario means adding it to All; a new MCP
// tool joins the mcp scenario in mcpArguments (and mcpTargets when its target differs).
//
// The command gives a scenario what only it has (Env): a throwaway Postgres and Temporal stack,
// the in-process api and worker, the seed command.
package scenarios

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/devstack"
)

// Pools are the Postgres pools of the served process: the api's and the worker's own.
type Pools struct{ API, Worker *sql.DB }

// Scenario is one benchmark.
type Scenario struct {
	Name string
	// Help says what the scenario measures, lines of at most 110 characters.
	Help string
	Run  func(ctx context.Context, env Env, o Options) error
}

// All is every scenario, in the order `make bench` runs them.
var All = []Scenario{
	{Name: "jobs", Run: Jobs, Help: "createJob accept latency p50/p99 at --rate requests/s for --duration (after 2s at that rate, printed apart),\n" +
		"then --burst jobs created --concurrency at a time and timed until all are generated (jobs/s as a ratio of the floor)."},
	{Name: "partner", Run: Partner, Help: "202 latency p50/p99 at --rate submissions/s for --duration (after 2s at that rate, printed apart), time from\n" +
		"202 to callback received p50/p99 at --rate and at 20 submissions/s (a rate the pipeline settles; the target's)\n" +
		"for --duration, then --burst submissions timed until every callback arrived (settled/s as a ratio of the floor)."},
	{Name: "assessment", Run: Assessment, Help: "200 latency p50/p99 of assessment-link pushes at --rate requests/s for --duration, one per managed\n" +
		"application, and time from push to the candidate's message sent p50/p99, beside the floor."},
	{Name: "mcp", Run: MCP, Help: "seeds one company with --candidates candidates (3 sessions each; a job per 500 or per --candidates-per-job)\n" +
		"in a Postgres cluster kept under --dir, serves the tool server in this process and calls every tool\n" +
		"--iterations times with varied arguments through the Streamable HTTP transport: p50/p95 per tool against\n" +
		"the targets and the tools/list round-trip floor, then the plans of the three slowest statements (auto_explain);\n" +
		"then an OAuth run: the go-sdk client signs in at a local identity provider and getCompanyFeatures is timed\n" +
		"with that token and with an API key, interleaved: p95 of both, their difference against the 2 ms target, and\n" +
		"the two bearer validations alone. --sizes runs several candidate counts in one sitting and prints each tool's\n" +
		"p95 growth beside the 1.5x-per-10x target."},
	{Name: "import", Run: Import, Help: "the bulk upserts alone of 10,000 jobs and of 10,000 candidates and applications; 10,000 jobs at the\n" +
		"aggregator simulator, timed from first-sync-complete to every job imported and its 'New Job from ATS' run started\n" +
		"(jobs/s as a ratio of the floor); then 10,000 applications of an ATS-D company the same way, to every application\n" +
		"synced and its 'New Application from ATS' run started (applications/s as a ratio of the floor)."},
	{Name: "hrsuite", Run: HRSuite, Help: "3 HR-suite deliveries of 5,000 rows (2,500 applications each) POSTed to /webhook/hrsuite one after the other:\n" +
		"POST latency p50/p99, time from POST to all row outcomes recorded, and applications invited per second until\n" +
		"every accepted application's invitation is sent (as a ratio of the floor)."},
	{Name: "interview", Run: Interview, Help: "--interviews candidates (200) take their interviews at once over HTTP (local interviewer), pausing\n" +
		"--think between screens: page p99, answer -> next question p50/p99; as many again at full speed: interviews\n" +
		"completed per second until each run recorded its transcript final (a ratio of the floor); the same by SMS:\n" +
		"candidates invited by text answer by signed Twilio webhook at once (inbound webhook -> next question handed to\n" +
		"the provider p50/p99, SMS interviews completed per second against the floor); then --expiring sessions (1,000)\n" +
		"with a one-minute expiry, deadline -> EXPIRED."},
}

// Names lists the scenarios' names.
func Names() []string {
	var out []string
	for _, s := range All {
		out = append(out, s.Name)
	}
	return out
}

// Find returns the scenario called name.
func Find(name string) (Scenario, error) {
	for _, s := range All {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (available: %s)", name, strings.Join(Names(), ", "))
}

// Options are the knobs of the scenarios; each reads its own.
type Options struct {
	Rate        float64       // jobs, partner, assessment: requests per second in the latency phase
	Duration    time.Duration // jobs, partner, assessment: length of the latency phase
	Burst       int           // jobs, partner: workflows (floor) and jobs or submissions (throughput) per burst
	Concurrency int           // jobs, partner: calls in flight during bursts
	Candidates  int           // mcp: candidates of the bench company
	Sizes       []int         // mcp: candidate counts to run in one sitting (Candidates when empty), with the growth per tool
	Iterations  int           // mcp: measured calls per tool
	Dir         string        // mcp: folder of the kept Postgres cluster
	Explain     bool          // mcp: log every statement's plan and print the rows and pages each tool's calls read
	Interviews  int           // interview: candidates taking interviews at once
	Expiring    int           // interview: sessions with a one-minute expiry
	Think       time.Duration // interview: a candidate's pause between screens in the latency phase
	// CandidatesPerJob is mcp's seed's candidates per job (0: the seed's own, 500): fewer give a
	// pool the jobs of a larger one, for the tools whose work follows the jobs.
	CandidatesPerJob int
}

// Env is what a scenario needs from the command that runs it.
type Env struct {
	// Config is the process configuration, with an encryption key set; scenarios change their
	// own copies.
	Config *config.Config
	Log    *slog.Logger // warnings and errors of what runs in this process
	Out    io.Writer    // the report and progress
	// Stack starts a throwaway Postgres cluster and in-memory Temporal dev server.
	Stack func(ctx context.Context) (*Stack, error)
	// Serve runs the api and the worker with cfg in this process until ctx ends, calling ready
	// once the api listens with the api's address, the Temporal client and the two Postgres
	// pools (the api's and the worker's).
	Serve func(ctx context.Context, cfg *config.Config, ready func(apiBase string, tc client.Client, pools Pools)) error
	// Seed runs `recruitd seed demo --companies 1 --candidates n` (and --candidates-per-job
	// perJob when it is not 0) against databaseURL with cfg's encryption key and no demo API key.
	Seed func(ctx context.Context, cfg *config.Config, databaseURL string, candidates, perJob int) error
}

// Stack is a throwaway Postgres cluster and Temporal dev server.
type Stack struct {
	Postgres        *devstack.Postgres
	TemporalAddress string
	Stop            func(context.Context) // removes everything
}

// config returns a copy of env's configuration for a scenario to change.
func (env Env) config() *config.Config {
	cfg := *env.Config
	return &cfg
}

func verdict(ok bool) string {
	if ok {
		return "meets target"
	}
	return "MISSES target"
}
