package scenarios

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
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

// mcpTargets are the p95 targets; every other tool must stay under defaultMCPTarget.
var mcpTargets = map[string]time.Duration{"searchCandidates": 500 * time.Millisecond, "searchDocumentation": 500 * time.Millisecond}

const defaultMCPTarget = 250 * time.Millisecond

// slowPlanThreshold is auto_explain's log_min_duration during the bench: plans of statements
// slower than this land in the Postgres log, and the slowest three are printed.
const slowPlanThreshold = "40ms"

// MCP seeds (once, kept in o.Dir) one company with o.Candidates candidates and three sessions
// each, serves the tool server in this process, and calls every tool o.Iterations times with
// varied arguments through the real Streamable HTTP transport. Then the OAuth run (mcpOAuth):
// one tool with an API key and with an OAuth access token, the p95 difference against its target.
func MCP(ctx context.Context, env Env, o Options) error {
	cfg, log, out := env.config(), env.Log, env.Out
	dir, err := filepath.Abs(filepath.Join(o.Dir, fmt.Sprintf("mcp-%d", o.Candidates)))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Postgres cluster in %s (kept between runs; delete it to reseed)…\n", dir)
	pg, err := devstack.StartPostgres(ctx, devstack.PostgresOptions{
		Dir: filepath.Join(dir, "postgres"), Fast: true, Log: log,
		Settings: map[string]string{
			"shared_buffers": "2GB", "effective_cache_size": "8GB", "work_mem": "32MB",
			"maintenance_work_mem": "1GB", "max_wal_size": "8GB", "random_page_cost": "1.1",
			"shared_preload_libraries": "auto_explain", "auto_explain.log_min_duration": slowPlanThreshold,
			"auto_explain.log_analyze": "on", "auto_explain.log_buffers": "on", "auto_explain.log_timing": "off",
		},
	})
	if err != nil {
		return err
	}
	defer pg.Stop(context.WithoutCancel(ctx))
	if err := pg.EnsureDatabase(ctx, "recruitd"); err != nil {
		return err
	}
	dbURL := pg.URL("recruitd")
	st, err := store.Open(ctx, dbURL, 8, nil, mcpserver.PostgresSettings(cfg))
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := migrations.Up(ctx, st.SQL(), nil); err != nil {
		return err
	}
	if _, err := docsearch.Sync(ctx, st.SQL(), docs.FS); err != nil { // as recruitd migrate does
		return err
	}

	// Seed with the CLI users run (its progress shows); it skips data that already exists.
	if err := env.Seed(ctx, cfg, dbURL, o.Candidates); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	co, err := st.CompanyBySlug(ctx, seed.DemoSlug)
	if err != nil {
		return err
	}
	var candidates, sessions int64
	db := st.SQL()
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM candidates WHERE company_id = $1), (SELECT count(*) FROM interview_sessions WHERE company_id = $1)`, co.ID).Scan(&candidates, &sessions); err != nil {
		return err
	}
	fmt.Fprintf(out, "company %s: %d candidates, %d interview sessions\n", co.Slug, candidates, sessions)
	key, err := apikey.Generate()
	if err != nil {
		return err
	}
	if _, err := st.CreateAPIKey(ctx, co.ID, "bench-mcp", key); err != nil {
		return err
	}
	args, err := mcpArguments(ctx, st, co.ID.String())
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	cfg.MCPBaseURL = base
	issuer, stopIdP, err := startBenchIdP(ctx, st, co.ID, base) // for the OAuth run
	if err != nil {
		return err
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
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "recruitd-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	// Floor: the transport, authentication (one key lookup) and JSON-RPC round trip of tools/list,
	// no tool work. (A stateless server refuses ping without per-request protocol metadata.)
	var floor bench.Latencies
	for range 200 {
		begin := time.Now()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return err
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
				return err
			}
		}
		var lat bench.Latencies
		span := logSpan{from: fileSize(pg.LogPath())}
		for i := range o.Iterations {
			begin := time.Now()
			if _, err := callTool(ctx, cs, tool, sets[i%len(sets)]); err != nil {
				return err
			}
			lat = append(lat, time.Since(begin))
		}
		span.to = fileSize(pg.LogPath())
		measured = append(measured, span)
		target := defaultMCPTarget
		if t, ok := mcpTargets[tool]; ok {
			target = t
		}
		p95 := lat.Percentile(95)
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
	printSlowPlans(out, pg.LogPath(), measured, 3)
	return mcpOAuth(ctx, out, log, st, base, cs, key)
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
