package scenarios

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/internal/docsearch"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver"
	"github.com/recruitd/recruitd/migrations"
)

// mcpTargets are p95 targets that differ from defaultMCPTarget (none today: issue 32 asks every
// tool for 100 ms at 10M candidates).
var mcpTargets = map[string]time.Duration{}

const defaultMCPTarget = 100 * time.Millisecond

// mcpTarget is tool's p95 target.
func mcpTarget(tool string) time.Duration {
	if t, ok := mcpTargets[tool]; ok {
		return t
	}
	return defaultMCPTarget
}

// growthTarget is issue 32's bound on a tool's p95 growth from 1M to 10M candidates (10x data).
const growthTarget = 1.5

// slowPlanThreshold is auto_explain's log_min_duration during the bench: plans of statements
// slower than this land in the Postgres log, and the slowest three are printed.
const slowPlanThreshold = "40ms"

// MCP runs mcpSize for each of o.Sizes (o.Candidates when empty), smallest first, and then prints
// each tool's p95 per size and its growth between consecutive sizes beside growthTarget (scaled
// to a tenfold growth of the data: g^(1/log10(ratio))). The OAuth run follows the largest size.
func MCP(ctx context.Context, env Env, o Options) error {
	sizes := slices.Sorted(slices.Values(o.Sizes))
	if len(sizes) == 0 {
		sizes = []int{o.Candidates}
	}
	sizes = slices.Compact(sizes)
	p95s := make([]map[string]time.Duration, len(sizes))
	work := make([]map[string]toolWork, len(sizes))
	for i, n := range sizes {
		if len(sizes) > 1 {
			fmt.Fprintf(env.Out, "\n== %d candidates ==\n", n)
		}
		var err error
		if p95s[i], work[i], err = mcpSize(ctx, env, o, n, i == len(sizes)-1); err != nil {
			return err
		}
	}
	if len(sizes) > 1 {
		printGrowth(env.Out, sizes, p95s)
		if o.Explain {
			printWorkGrowth(env.Out, sizes, work)
		}
	}
	return nil
}

// printGrowth prints each tool's p95 at every size and its growth from one size to the next,
// with that growth scaled to ten times the data beside growthTarget, and, when the largest size
// is below extrapolateTo, the p95 there along the power law through the last two sizes beside the
// tool's p95 target (issue 32 asks both at 10M; this machine measures 1M and 3M).
func printGrowth(out io.Writer, sizes []int, p95s []map[string]time.Duration) {
	last := sizes[len(sizes)-1]
	extrapolate := len(sizes) > 1 && last < extrapolateTo
	fmt.Fprintf(out, "\np95 by size; growth from each size to the next, and that growth scaled to 10x the data (target <= %.1fx per 10x)", growthTarget)
	if extrapolate {
		fmt.Fprintf(out, "; p95 at %s along that growth, beside the p95 target", humanCount(extrapolateTo))
	}
	fmt.Fprintf(out, "\n%-32s", "tool")
	for _, n := range sizes {
		fmt.Fprintf(out, " %10s", humanCount(n))
	}
	for i := 1; i < len(sizes); i++ {
		fmt.Fprintf(out, " %14s", humanCount(sizes[i-1])+"->"+humanCount(sizes[i]))
	}
	if extrapolate {
		fmt.Fprintf(out, " %10s", humanCount(extrapolateTo)+"?")
	}
	fmt.Fprintf(out, "  %s\n", "verdict")
	failed, slow := 0, 0
	for _, tool := range slices.Sorted(maps.Keys(p95s[len(p95s)-1])) {
		fmt.Fprintf(out, "%-32s", tool)
		for i := range sizes {
			fmt.Fprintf(out, " %10s", ms(p95s[i][tool]))
		}
		ok := true
		var g10 float64
		for i := 1; i < len(sizes); i++ {
			var g float64
			g, g10 = growth(p95s[i-1][tool], p95s[i][tool], sizes[i-1], sizes[i])
			if g10 > growthTarget {
				ok = false
			}
			fmt.Fprintf(out, " %5.2fx(%5.2fx)", g, g10)
		}
		if !ok {
			failed++
		}
		if extrapolate {
			at := time.Duration(float64(p95s[len(p95s)-1][tool]) * math.Pow(g10, math.Log10(float64(extrapolateTo)/float64(last))))
			fmt.Fprintf(out, " %10s", ms(at))
			if at > mcpTarget(tool) {
				ok = false
				slow++
			}
		}
		fmt.Fprintf(out, "  %s\n", verdict(ok))
	}
	if failed > 0 {
		fmt.Fprintf(out, "%d tool(s) grow faster than %.1fx per 10x the data\n", failed, growthTarget)
	} else {
		fmt.Fprintf(out, "every tool grows at most %.1fx per 10x the data\n", growthTarget)
	}
	if extrapolate {
		fmt.Fprintf(out, "%d tool(s) would pass their p95 target at %s along their growth\n", slow, humanCount(extrapolateTo))
	}
}

// extrapolateTo is the size issue 32 sets the tools' targets at.
const extrapolateTo = 10_000_000

// growth is the ratio of p95 b at size nb to p95 a at size na, and that ratio scaled to ten times
// the data (a power law through both points).
func growth(a, b time.Duration, na, nb int) (g, g10 float64) {
	if a <= 0 || b <= 0 || na <= 0 || nb <= na {
		return 0, 0
	}
	g = float64(b) / float64(a)
	return g, math.Pow(g, 1/math.Log10(float64(nb)/float64(na)))
}

func humanCount(n int) string {
	switch {
	case n >= 1_000_000 && n%100_000 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 1000 && n%100 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	}
	return strconv.Itoa(n)
}

// mcpSize seeds (once, kept in o.Dir) one company with n candidates and three sessions each,
// serves the tool server in this process, and calls every tool o.Iterations times with varied
// arguments through the real Streamable HTTP transport; it returns each tool's p95 and, with
// o.Explain, the work of its calls (every statement's plan is logged, which slows them). With oauth,
// the OAuth run (mcpOAuth) follows: one tool with an API key and with an OAuth access token, the
// p95 difference against its target.
func mcpSize(ctx context.Context, env Env, o Options, n int, oauth bool) (map[string]time.Duration, map[string]toolWork, error) {
	o.Candidates = n
	p95s := map[string]time.Duration{}
	work := map[string]toolWork{}
	explainAbove := slowPlanThreshold
	if o.Explain {
		explainAbove = "0"
	}
	cfg, log, out := env.config(), env.Log, env.Out
	name := fmt.Sprintf("mcp-%d", o.Candidates)
	if o.CandidatesPerJob != 0 {
		name += fmt.Sprintf("-per-job-%d", o.CandidatesPerJob)
	}
	dir, err := filepath.Abs(filepath.Join(o.Dir, name))
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(out, "Postgres cluster in %s (kept between runs; delete it to reseed)…\n", dir)
	pg, err := devstack.StartPostgres(ctx, devstack.PostgresOptions{
		Dir: filepath.Join(dir, "postgres"), Fast: true, Log: log,
		Settings: map[string]string{
			"shared_buffers": "2GB", "effective_cache_size": "8GB", "work_mem": "32MB",
			"maintenance_work_mem": "1GB", "max_wal_size": "8GB", "random_page_cost": "1.1",
			"shared_preload_libraries": "auto_explain", "auto_explain.log_min_duration": explainAbove,
			"auto_explain.log_analyze": "on", "auto_explain.log_buffers": "on", "auto_explain.log_timing": "off",
		},
	})
	if err != nil {
		return nil, nil, err
	}
	defer pg.Stop(context.WithoutCancel(ctx))
	if err := pg.EnsureDatabase(ctx, "recruitd"); err != nil {
		return nil, nil, err
	}
	dbURL := pg.URL("recruitd")
	// Migrations run as recruitd migrate does, without the tool server's statement timeout: a
	// kept cluster may have a pending migration that backfills a rollup over the whole pool.
	admin, err := store.Open(ctx, dbURL, 2, nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := migrations.Up(ctx, admin.SQL(), nil); err != nil {
		admin.Close()
		return nil, nil, err
	}
	_, err = docsearch.Sync(ctx, admin.SQL(), docs.FS) // as recruitd migrate does
	admin.Close()
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(ctx, dbURL, 8, nil, mcpserver.PostgresSettings(cfg))
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()

	// Seed with the CLI users run (its progress shows); it skips data that already exists.
	if err := env.Seed(ctx, cfg, dbURL, o.Candidates, o.CandidatesPerJob); err != nil {
		return nil, nil, fmt.Errorf("seed: %w", err)
	}
	co, err := st.CompanyBySlug(ctx, seed.DemoSlug)
	if err != nil {
		return nil, nil, err
	}
	var candidates, sessions, jobs int64
	db := st.SQL()
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM candidates WHERE company_id = $1), (SELECT count(*) FROM interview_sessions WHERE company_id = $1),
		(SELECT count(*) FROM jobs WHERE company_id = $1)`, co.ID).Scan(&candidates, &sessions, &jobs); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(out, "company %s: %d candidates, %d interview sessions, %d jobs\n", co.Slug, candidates, sessions, jobs)
	key, err := apikey.Generate()
	if err != nil {
		return nil, nil, err
	}
	if _, err := st.CreateAPIKey(ctx, co.ID, "bench-mcp", key); err != nil {
		return nil, nil, err
	}
	args, err := mcpArguments(ctx, st, co.ID.String())
	if err != nil {
		return nil, nil, err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	base := "http://" + ln.Addr().String()
	cfg.MCPBaseURL = base
	issuer, stopIdP, err := startBenchIdP(ctx, st, co.ID, base) // for the OAuth run
	if err != nil {
		return nil, nil, err
	}
	defer stopIdP()
	cfg.OIDCIssuer, cfg.OIDCClientID, cfg.OIDCClientSecret = issuer, benchOIDCClient, benchOIDCSecret
	cfg.APIRateLimit, cfg.MCPMaxConcurrentCalls = 0, 0 // one bench key sends the whole load
	reg := prometheus.NewRegistry()
	h, err := mcpserver.NewServer(mcpserver.Deps{
		Log: log, Config: cfg, Store: st, Health: health.New(time.Second, map[string]health.Check{"postgres": st.Ping}),
		Metrics: httpmetrics.New(reg),
	})
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "recruitd-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	defer cs.Close()

	// Floor: the transport, authentication (one key lookup) and JSON-RPC round trip of tools/list,
	// no tool work. (A stateless server refuses ping without per-request protocol metadata.)
	var floor bench.Latencies
	for range 200 {
		begin := time.Now()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return nil, nil, err
		}
		floor = append(floor, time.Since(begin))
	}
	floorP50 := floor.Percentile(50)
	fmt.Fprintf(out, "floor: tools/list round trip p50 %s, p95 %s (200 calls)\n\n", ms(floorP50), ms(floor.Percentile(95)))

	var measured []logSpan // the log written during measured calls (warm-ups excluded)
	fmt.Fprintf(out, "%-32s %6s %9s %9s %9s %8s %9s  %s\n", "tool", "calls", "p50", "p95", "max", "target", "p95/floor", "verdict")
	failed := 0
	for _, tool := range slices.Sorted(maps.Keys(args)) {
		sets := args[tool]
		for _, a := range sets { // warm-up: each argument set once
			if _, err := callTool(ctx, cs, tool, a); err != nil {
				return nil, nil, err
			}
		}
		var lat bench.Latencies
		span := logSpan{from: fileSize(pg.LogPath())}
		for i := range o.Iterations {
			begin := time.Now()
			if _, err := callTool(ctx, cs, tool, sets[i%len(sets)]); err != nil {
				return nil, nil, err
			}
			lat = append(lat, time.Since(begin))
		}
		span.to = fileSize(pg.LogPath())
		measured = append(measured, span)
		if o.Explain {
			work[tool] = readToolWork(pg.LogPath(), span, len(lat))
		}
		target := mcpTarget(tool)
		p95 := lat.Percentile(95)
		p95s[tool] = p95
		if p95 >= target {
			failed++
		}
		fmt.Fprintf(out, "%-32s %6d %9s %9s %9s %8s %9.1f  %s\n", tool, len(lat), ms(lat.Percentile(50)), ms(p95),
			ms(lat.Percentile(100)), ms(target), float64(p95)/float64(floorP50), verdict(p95 < target))
	}
	fmt.Fprintln(out)
	if failed > 0 {
		fmt.Fprintf(out, "%d tool(s) miss their p95 target\n", failed)
	} else {
		fmt.Fprintln(out, "every tool meets its p95 target")
	}
	if o.Explain {
		printWork(out, work)
	} else {
		printSlowPlans(out, pg.LogPath(), measured, 3)
	}
	if !oauth {
		return p95s, work, nil
	}
	return p95s, work, mcpOAuth(ctx, out, log, st, base, cs, key)
}

// callTool calls a tool and turns a tool error into an error: the bench measures answers.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, a toolCall) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a.args, Meta: a.meta})
	if err != nil {
		return nil, fmt.Errorf("%s(%v): %w", name, a.args, err)
	}
	if res.IsError {
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		return nil, fmt.Errorf("%s(%v) is a tool error: %s", name, a.args, text)
	}
	return res, nil
}

type toolCall struct {
	args map[string]any
	meta mcp.Meta
}

// mcpArguments builds varied arguments for every tool from the seeded data.
func mcpArguments(ctx context.Context, st *store.Store, companyID string) (map[string][]toolCall, error) {
	db := st.SQL()
	strs := func(q string) ([]string, error) {
		rows, err := db.QueryContext(ctx, q, companyID)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no seeded rows for %q", q)
		}
		return out, rows.Err()
	}
	jobs, err := strs(`SELECT id::text FROM jobs WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted ORDER BY created_at DESC LIMIT 10`)
	if err != nil {
		return nil, err
	}
	externals, err := strs(`SELECT external_id FROM jobs WHERE company_id = $1 ORDER BY created_at LIMIT 5`)
	if err != nil {
		return nil, err
	}
	titles, err := strs(`SELECT DISTINCT title FROM jobs WHERE company_id = $1 AND title <> '' LIMIT 5`)
	if err != nil {
		return nil, err
	}
	people, err := strs(`SELECT c.first_name || ' ' || c.last_name FROM candidates c WHERE c.company_id = $1 ORDER BY c.id LIMIT 10`)
	if err != nil {
		return nil, err
	}
	emails, err := strs(`SELECT email FROM candidates WHERE company_id = $1 AND email IS NOT NULL ORDER BY updated_at DESC LIMIT 10`)
	if err != nil {
		return nil, err
	}
	sessions, err := strs(`SELECT id::text FROM interview_sessions WHERE company_id = $1 AND status = 'COMPLETED' ORDER BY completed_at DESC LIMIT 10`)
	if err != nil {
		return nil, err
	}
	candidateIDs, err := strs(`SELECT candidate_id::text FROM interview_sessions WHERE company_id = $1 ORDER BY invited_at DESC LIMIT 10`)
	if err != nil {
		return nil, err
	}
	recruiters, err := strs(`SELECT u.name FROM users u JOIN company_memberships m ON m.user_id = u.id WHERE m.company_id = $1 AND u.name <> '' LIMIT 3`)
	if err != nil {
		return nil, err
	}
	a := func(kv ...any) toolCall {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return toolCall{args: m}
	}
	withJob := func(c toolCall, job string) toolCall {
		c.meta = mcp.Meta{"io.recruitd/jobId": job}
		return c
	}
	yearAgo := time.Now().AddDate(-1, 0, 0).Format(time.DateOnly)
	quarterAgo := time.Now().AddDate(0, -3, 0).Format(time.DateOnly)
	var out = map[string][]toolCall{
		"listCompanies": {a()},
		"searchCandidates": {
			a("query", "senior software engineer with Go and Kubernetes near Austin, TX"),
			a("query", "registered nurse in Chicago", "radius", 30),
			a("query", "data scientist python machine learning 5+ years", "limit", 25),
			a("query", "product manager ex-Google MBA"),
			a("query", "sales representative", "recency", 90),
			a("query", "java developer within 50 miles of Denver, CO", "radius", 50),
			a("query", "accountant CPA", "status", []string{"hired", "rejected"}, "statusOperator", "excludes"),
			a("query", "devops engineer aws terraform", "status", []string{"new", "screening"}, "statusOperator", "includes"),
			a("query", "customer success manager in Seattle"),
			a("query", "engineer"),
		},
		"searchDocumentation": {
			a("query", "how do I create a job"), a("query", "how do I connect an MCP client"),
			a("query", "what happens when my partner callback endpoint is down"), a("query", "how do I verify the callback signature"),
			a("query", "connect my ATS"), a("query", "what does the cheating threshold do"),
		},
		"getJobsSummary": {
			a(), a("status", "ACTIVE"), a("limit", 200, "offset", 50), a("sinceDate", quarterAgo),
			a("includeClosedJobs", false), a("userName", recruiters[0]),
		},
		"getPositionStats": {a("metric", "openPositions"), a("metric", "totalPositions", "status", "ACTIVE"), a("metric", "candidatesPerPosition"), a("metric", "candidatesPerPosition", "sinceDate", quarterAgo)},
		"getCandidatePipelineStats": {
			a("metric", "byStatus"), a("metric", "byDecision"), a("metric", "funnel"),
			a("metric", "funnel", "positionId", jobs[0]), a("metric", "byStatus", "positionId", jobs[1]), a("metric", "byDecision", "sinceDate", quarterAgo),
			a("metric", "funnel", "sinceDate", quarterAgo), a("metric", "byStatus", "sinceDate", yearAgo),
		},
		"getInterviewStats": {
			a("metric", "completedCandidates"), a("metric", "completedInterviews", "sinceDate", quarterAgo), a("metric", "averageDuration"),
			a("metric", "byInterviewer"), a("metric", "byStatus"), a("metric", "byMediumType", "mediumType", []string{"VIDEO", "PHONE"}),
			a("metric", "topCandidates", "limit", 100, "decision", []string{"ACCEPTED", "HIRED"}), withJob(a("metric", "completedInterviews"), jobs[2]),
			a("metric", "topCandidates", "positionId", jobs[3]), a("metric", "byInterviewer", "sinceDate", quarterAgo),
			a("metric", "completedCandidates", "sinceDate", quarterAgo), a("metric", "completedCandidates", "mediumType", []string{"VIDEO"}),
		},
		"getInterviewTimeOfDayBreakdown": {
			a(), a("timezone", "America/Los_Angeles"), a("sinceDate", yearAgo), a("positionId", jobs[0], "sinceDate", yearAgo),
			a("businessHoursStart", 8, "businessHoursEnd", 17, "timezone", "America/Chicago"),
		},
		"getCandidateReport":       {},
		"getCandidateVerification": {},
		"getCheatingDetectionStats": {
			a("metric", "flaggedCandidates"), a("metric", "flaggedInterviews"), a("metric", "flaggedPercentage", "sinceDate", quarterAgo),
			a("metric", "byJob", "sortByJobMetric", "rate"), a("metric", "byJob", "sortByJobMetric", "count"), a("metric", "flaggedDetails"),
			a("metric", "flaggedPercentage", "positionId", jobs[1]), a("metric", "byJob", "sinceDate", quarterAgo),
		},
		"getFraudVerificationStats": {
			a("metric", "flaggedCandidates"), a("metric", "riskBreakdown"), a("metric", "flaggedDetails", "limit", 50),
			a("metric", "flaggedCandidates", "threshold", 30, "sinceDate", quarterAgo), a("metric", "riskBreakdown", "sinceDate", yearAgo),
		},
		"getIdentityVerificationStats": {
			a("metric", "statusBreakdown"), a("metric", "verificationRate"), a("metric", "failureReasons"), a("metric", "failedDetails", "limit", 100),
			a("metric", "statusBreakdown", "sinceDate", quarterAgo), a("metric", "failureReasons", "sinceDate", yearAgo),
		},
		"getCompanyFeatures": {a(), a("featureName", "fraudDetection")},
		"getAtsConnection":   {a()},
		"listTemplates":      {a(), a("templateType", "resumeFit", "includeUnused", true), a("templateType", "interviewGuide", "topN", 50)},
	}
	for i, j := range jobs {
		out["getJobDetails"] = append(out["getJobDetails"], a("jobId", j, "sessionLimit", 10+i))
		out["getInterviewGuideDetails"] = append(out["getInterviewGuideDetails"], withJob(a(), j))
	}
	for _, x := range externals {
		out["getJobDetails"] = append(out["getJobDetails"], a("externalId", x))
	}
	for _, t := range titles {
		out["getJobDetails"] = append(out["getJobDetails"], a("jobName", t))
	}
	for i, p := range people {
		f := strings.Fields(p)
		slices.Reverse(f)
		out["getCandidateReport"] = append(out["getCandidateReport"], a("name", p), a("name", strings.Join(f, " ")), a("email", emails[i%len(emails)], "limit", 10))
		out["getCandidateVerification"] = append(out["getCandidateVerification"], a("name", p), a("email", emails[i%len(emails)]))
	}
	for i := range sessions {
		out["getCandidateVerification"] = append(out["getCandidateVerification"], a("sessionId", sessions[i]), a("candidateId", candidateIDs[i%len(candidateIDs)]))
	}
	return out, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}
