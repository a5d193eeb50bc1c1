package interviewtools_test

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

// TestPerf seeds one company with 1,000,000 candidates and 3,000,000 sessions (half completed,
// invited over three years; 60% of completed sessions evaluated for cheating, about 9% of them
// flagged; fraud checks on 30% of sessions, about 13% below 50; ID checks on the sessions of one
// job in ten) and times every tool through the transport. The triggers of migration 00007 fill
// the rollups as the rows go in. It takes minutes, so it runs only with RECRUITD_PERF=1;
// RECRUITD_PERF_PLANS=file writes the plans of statements slower than 50 ms there (auto_explain).
// RECRUITD_PERF_DSN with RECRUITD_PERF_COMPANY=slug times an existing company (say, of recruitd
// seed demo) without writing to that database.
//
//	RECRUITD_PERF=1 ./bin/recruitd stack -- go test -count=1 -timeout 60m -run TestPerf -v ./mcpserver/interviewtools/
func TestPerf(t *testing.T) {
	if os.Getenv("RECRUITD_PERF") == "" {
		t.Skip("set RECRUITD_PERF=1 to seed 1M candidates / 3M sessions and time the tools")
	}
	target := newPerfTarget(t)
	co, db, ctx := target.company, target.db, t.Context()
	exec := func(q string, args ...any) {
		t.Helper()
		start := time.Now()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		t.Logf("%5.1fs %s", time.Since(start).Seconds(), strings.Join(strings.Fields(q), " ")[:min(90, len(strings.Join(strings.Fields(q), " ")))])
	}
	first := []string{"John", "Jane", "Michael", "Sarah", "David", "Emily", "James", "Olivia", "Robert", "Emma", "William", "Ava", "Joseph",
		"Sophia", "Thomas", "Isabella", "Charles", "Mia", "Daniel", "Amelia", "Matthew", "Harper", "Anthony", "Evelyn", "Mark", "Abigail",
		"Steven", "Ella", "Paul", "Grace", "Andrew", "Chloe", "Joshua", "Lily", "Kevin", "Zoe", "Brian", "Nora", "George", "Hannah",
		"Edward", "Lucy", "Ryan", "Aria", "Jacob", "Layla", "Gary", "Riley", "Eric", "Maya", "Juan", "Ana", "Luis", "Maria", "Wei", "Mei",
		"Raj", "Priya", "Omar", "Fatima"}
	last := []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez",
		"Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White",
		"Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres",
		"Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
		"Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes", "Stewart", "Morris", "Morales",
		"Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper", "Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos",
		"Kim", "Cox", "Ward", "Richardson", "Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
		"Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez"}
	if target.seeded {
		t.Log("reusing the seeded company of RECRUITD_PERF_DSN")
		goto measure
	}
	exec(`SELECT setseed(0.42)`)
	exec(`INSERT INTO jobs (id, company_id, external_id, interviewer_id, title, status, enable_identity_verification)
		SELECT md5('j' || i)::uuid, $1, 'J' || i, 'big-J' || i, 'Job number ' || i, 'ACTIVE', i % 10 = 0 FROM generate_series(1, 300) i`, co.ID)
	exec(`INSERT INTO candidates (id, company_id, first_name, last_name, email, phone, title, location, created_at, updated_at)
		SELECT md5('c' || i)::uuid, $1, ($2::text[])[1 + i % 60], ($3::text[])[1 + (i / 60) % 100], 'cand' || i || '@example.com',
			'+1555' || lpad(i::text, 7, '0'), 'Engineer', 'Austin, TX', ts, ts
		FROM (SELECT i, timestamptz '2026-04-15' - random() * interval '3 years' AS ts FROM generate_series(1, 1000000) i) g`, co.ID, first, last)
	exec(`INSERT INTO interview_sessions (id, company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at,
			duration_seconds, decision, recruiter_rating, service_rating, created_at)
		SELECT md5('s' || i)::uuid, $1, md5('c' || (1 + floor(r0 * 1000000)::int))::uuid, md5('j' || (1 + floor(power(r6, 2) * 300)::int))::uuid,
			st, CASE WHEN r2 < .6 THEN 'VIDEO' WHEN r2 < .8 THEN 'PHONE' WHEN r2 < .85 THEN 'SMS' WHEN r2 < .9 THEN 'WHATSAPP' WHEN r2 < .95 THEN 'BOTH' ELSE 'PHONE_SMS' END,
			inv, CASE WHEN st = 'COMPLETED' THEN inv + r4 * interval '7 days' END,
			CASE WHEN st = 'COMPLETED' THEN 300 + floor(r5 * 3300)::int END,
			CASE WHEN st <> 'COMPLETED' THEN 'NONE' WHEN r5 < .5 THEN 'NONE' WHEN r5 < .7 THEN 'REJECTED' WHEN r5 < .85 THEN 'ACCEPTED' WHEN r5 < .93 THEN 'SUBMITTED' WHEN r5 < .97 THEN 'PLACED' ELSE 'HIRED' END,
			CASE WHEN st = 'COMPLETED' AND r4 < .4 THEN round((r5 * 10)::numeric, 2) END,
			CASE WHEN st = 'COMPLETED' AND r4 < .7 THEN round((r2 * 10)::numeric, 2) END,
			inv
		FROM (SELECT i, random() r0, random() r2, random() r4, random() r5, random() r6,
				timestamptz '2026-04-15' - random() * interval '3 years' AS inv,
				(ARRAY['COMPLETED','COMPLETED','COMPLETED','COMPLETED','COMPLETED','INVITED','INVITED','STARTED','EXPIRED','CANCELLED'])[1 + floor(random() * 10)::int] AS st
			FROM generate_series(1, 3000000) i) g`, co.ID)
	exec(`INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, eye_tracking_score, voice_score, created_at)
		SELECT $1, id, round((power(random(), 4) * 100)::numeric, 2), round((random() * 100)::numeric, 2), round((random() * 100)::numeric, 2), completed_at + interval '30 minutes'
		FROM interview_sessions WHERE company_id = $1 AND status = 'COMPLETED' AND random() < .6`, co.ID)
	exec(`INSERT INTO fraud_verifications (company_id, candidate_id, session_id, overall_verification_score, disposable_email, voip_phone,
			vpn_proxy_ip, thin_profile, footprint_anomaly, created_at)
		SELECT $1, candidate_id, id, round((100 - power(random(), 5) * 100)::numeric, 2), random() < .05, random() < .08, random() < .1, random() < .2, random() < .03, invited_at - interval '1 hour'
		FROM interview_sessions WHERE company_id = $1 AND random() < .3`, co.ID)
	exec(`INSERT INTO identity_verifications (company_id, candidate_id, session_id, job_id, status, failure_reason, created_at, completed_at)
		SELECT $1, candidate_id, id, job_id, st, CASE WHEN st = 'FAILED' THEN (ARRAY['face mismatch','document expired','blurry photo','unsupported document'])[1 + floor(r2 * 4)::int] END,
			invited_at + interval '5 minutes', CASE WHEN st <> 'PENDING' THEN invited_at + interval '20 minutes' END
		FROM (SELECT s.candidate_id, s.id, s.job_id, s.invited_at, random() AS r2,
				CASE WHEN random() < .6 THEN 'VERIFIED' WHEN random() < .6 THEN 'FAILED' WHEN random() < .7 THEN 'EXPIRED' ELSE 'PENDING' END AS st
			FROM interview_sessions s JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id AND j.enable_identity_verification
			WHERE s.company_id = $1) x`, co.ID)
	exec(`INSERT INTO recruiter_notes (company_id, candidate_id, session_id, body, created_at)
		SELECT $1, candidate_id, CASE WHEN random() < .8 THEN id END, 'note about ' || id, invited_at + interval '2 days'
		FROM interview_sessions WHERE company_id = $1 AND random() < .15`, co.ID)
	exec(`VACUUM (ANALYZE)`)
measure:

	plans := os.Getenv("RECRUITD_PERF_PLANS")
	var logPath string
	var logStart int64
	if plans != "" {
		var dataDir, dbName string
		if err := db.QueryRowContext(ctx, `SELECT current_setting('data_directory'), current_database()`).Scan(&dataDir, &dbName); err != nil {
			t.Fatal(err)
		}
		exec(fmt.Sprintf(`ALTER DATABASE %q SET session_preload_libraries = 'auto_explain'`, dbName))
		exec(fmt.Sprintf(`ALTER DATABASE %q SET auto_explain.log_min_duration = '50ms'`, dbName))
		exec(fmt.Sprintf(`ALTER DATABASE %q SET auto_explain.log_analyze = on`, dbName))
		exec(fmt.Sprintf(`ALTER DATABASE %q SET auto_explain.log_buffers = on`, dbName))
		db.SetMaxIdleConns(0) // reconnect with the settings
		db.SetMaxIdleConns(2)
		logPath = filepath.Join(filepath.Dir(dataDir), "postgres.log")
		if st, err := os.Stat(logPath); err == nil {
			logStart = st.Size()
		}
	}

	var sess, cand, email string
	if err := db.QueryRowContext(ctx, `SELECT s.id, s.candidate_id, c.email FROM interview_sessions s JOIN candidates c ON c.id = s.candidate_id
		WHERE s.company_id = $1 AND s.status = 'COMPLETED' AND c.email IS NOT NULL LIMIT 1`, co.ID).Scan(&sess, &cand, &email); err != nil {
		t.Fatal(err)
	}
	var bigJob string // the job with the most sessions
	if err := db.QueryRowContext(ctx, `SELECT job_id FROM job_totals WHERE company_id = $1 ORDER BY sessions DESC, job_id LIMIT 1`, co.ID).Scan(&bigJob); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool string
		args map[string]any
	}{
		{"getInterviewStats", map[string]any{"metric": "completedCandidates"}},
		{"getInterviewStats", map[string]any{"metric": "completedCandidates", "sinceDate": "2026-03-15"}},
		{"getInterviewStats", map[string]any{"metric": "completedCandidates", "sinceDate": "2026-03-01", "untilDate": "2026-03-31"}},
		{"getInterviewStats", map[string]any{"metric": "completedCandidates", "sinceDate": "2025-04-15T09:41:00Z", "untilDate": "2026-04-15T09:41:00Z"}},
		{"getInterviewStats", map[string]any{"metric": "completedCandidates", "positionId": bigJob}},
		{"getInterviewStats", map[string]any{"metric": "completedCandidates", "mediumType": []string{"VIDEO"}, "sinceDate": "2026-03-15"}},
		{"getInterviewStats", map[string]any{"metric": "completedInterviews"}},
		{"getInterviewStats", map[string]any{"metric": "completedInterviews", "sinceDate": "2026-03-15"}},
		{"getInterviewStats", map[string]any{"metric": "completedInterviews", "positionId": bigJob}},
		{"getInterviewStats", map[string]any{"metric": "averageDuration"}},
		{"getInterviewStats", map[string]any{"metric": "averageDuration", "mediumType": []string{"PHONE"}}},
		{"getInterviewStats", map[string]any{"metric": "averageDuration", "sinceDate": "2026-01-01T08:13:00Z"}},
		{"getInterviewStats", map[string]any{"metric": "averageDuration", "positionId": bigJob}},
		{"getInterviewStats", map[string]any{"metric": "byInterviewer"}},
		{"getInterviewStats", map[string]any{"metric": "byInterviewer", "sinceDate": "2026-01-01"}},
		{"getInterviewStats", map[string]any{"metric": "byStatus"}},
		{"getInterviewStats", map[string]any{"metric": "byStatus", "positionId": bigJob}},
		{"getInterviewStats", map[string]any{"metric": "byStatus", "sinceDate": "2026-03-15T10:30:00Z", "untilDate": "2026-04-15T10:30:00Z"}},
		{"getInterviewStats", map[string]any{"metric": "byMediumType"}},
		{"getInterviewStats", map[string]any{"metric": "byMediumType", "sinceDate": "2025-04-15T09:41:00Z", "mediumType": []string{"VIDEO", "PHONE"}}},
		{"getInterviewStats", map[string]any{"metric": "topCandidates"}},
		{"getInterviewStats", map[string]any{"metric": "topCandidates", "decision": []string{"HIRED"}, "limit": 100}},
		{"getInterviewStats", map[string]any{"metric": "topCandidates", "decision": []string{"ACCEPTED", "HIRED"}, "limit": 100}},
		{"getInterviewStats", map[string]any{"metric": "topCandidates", "positionId": bigJob, "sinceDate": "2026-01-01"}},
		{"getInterviewTimeOfDayBreakdown", nil},
		{"getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2025-04-15"}},
		{"getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2025-04-15", "timezone": "Asia/Kolkata"}},
		{"getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2023-01-01"}},
		{"getInterviewTimeOfDayBreakdown", map[string]any{"positionId": bigJob, "sinceDate": "2025-04-15"}},
		{"getCandidateReport", map[string]any{"name": "john smith"}},
		{"getCandidateReport", map[string]any{"name": "john"}},
		{"getCandidateReport", map[string]any{"email": email, "limit": 20}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedCandidates"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedCandidates", "sinceDate": "2026-03-01"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedInterviews"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedPercentage"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedPercentage", "sinceDate": "2025-10-01T07:30:00Z", "untilDate": "2026-04-15T07:30:00Z"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedPercentage", "positionId": bigJob}},
		{"getCheatingDetectionStats", map[string]any{"metric": "byJob"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "byJob", "sinceDate": "2026-03-15"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "byJob", "positionId": bigJob}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails"}},
		{"getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails", "sinceDate": "2026-04-01"}},
		{"getFraudVerificationStats", map[string]any{"metric": "flaggedCandidates"}},
		{"getFraudVerificationStats", map[string]any{"metric": "riskBreakdown"}},
		{"getFraudVerificationStats", map[string]any{"metric": "flaggedDetails"}},
		{"getIdentityVerificationStats", map[string]any{"metric": "statusBreakdown"}},
		{"getIdentityVerificationStats", map[string]any{"metric": "verificationRate"}},
		{"getIdentityVerificationStats", map[string]any{"metric": "failureReasons"}},
		{"getIdentityVerificationStats", map[string]any{"metric": "failedDetails"}},
		{"getCandidateVerification", map[string]any{"name": "smith john"}},
		{"getCandidateVerification", map[string]any{"email": email}},
		{"getCandidateVerification", map[string]any{"candidateId": cand}},
		{"getCandidateVerification", map[string]any{"sessionId": sess}},
	}
	const runs = 12
	var report strings.Builder
	fmt.Fprintf(&report, "\n%-32s %-70s %8s %8s %8s\n", "tool", "args", "p50 ms", "p95 ms", "max ms")
	for _, c := range cases {
		var d []time.Duration
		for i := range runs + 2 {
			start := time.Now()
			r := target.call(t, c.tool, c.args)
			if r.IsError {
				t.Fatalf("%s(%v): %s", c.tool, c.args, r.Text)
			}
			if i >= 2 { // warm-up
				d = append(d, time.Since(start))
			}
		}
		slices.Sort(d)
		ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
		args := fmt.Sprint(c.args)
		fmt.Fprintf(&report, "%-32s %-70s %8.1f %8.1f %8.1f\n", c.tool, args[:min(70, len(args))], ms(d[len(d)/2]), ms(d[len(d)*95/100]), ms(d[len(d)-1]))
	}
	t.Log(report.String())

	if plans != "" {
		f, err := os.Open(logPath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.Seek(logStart, 0)
		out, err := os.Create(plans)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			fmt.Fprintln(out, sc.Text())
		}
	}
}

// perfSettings are the tool server's planner settings (mcpserver.PostgresSettings, without its
// statement_timeout: the perf test's own bounds apply).
var perfSettings = map[string]string{"jit": "off", "work_mem": "64MB"}

// perfTarget is where TestPerf runs: a fresh pgtest database, or the migrated database of
// RECRUITD_PERF_DSN, seeded once (company slug "big") and reused by later runs, or its company
// RECRUITD_PERF_COMPANY, which must exist (nothing is written then).
type perfTarget struct {
	company *models.Company
	db      *sql.DB
	seeded  bool
	call    func(t *testing.T, tool string, args map[string]any) *tooltest.Result
}

func newPerfTarget(t *testing.T) *perfTarget {
	flags := func(c *models.Company) { c.FraudDetectionEnabled, c.ModelCheatDetectionEnabled = true, true }
	dsn := os.Getenv("RECRUITD_PERF_DSN")
	if dsn == "" {
		h := tooltest.New(t, now, interviewtools.Register)
		co := h.Company(t, "big", "Big Co", flags)
		for k, v := range perfSettings {
			if _, err := h.Store.SQL().ExecContext(t.Context(), fmt.Sprintf(`ALTER DATABASE %q SET %s = '%s'`, h.DB.Name, k, v)); err != nil {
				t.Fatal(err)
			}
		}
		h.Store.SQL().SetMaxIdleConns(0) // reconnect with the settings
		h.Store.SQL().SetMaxIdleConns(2)
		return &perfTarget{company: co, db: h.Store.SQL(), call: func(t *testing.T, tool string, args map[string]any) *tooltest.Result {
			return h.Call(t, tooltest.KeyCaller(co), tool, args, nil)
		}}
	}
	st, err := store.Open(t.Context(), dsn, 8, nil, perfSettings)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := &perfTarget{db: st.SQL()}
	slug := os.Getenv("RECRUITD_PERF_COMPANY")
	if slug == "" {
		slug = "big"
	}
	p.company, err = st.CompanyBySlug(t.Context(), slug)
	switch {
	case err == nil:
		p.seeded = true
	case errors.Is(err, store.ErrNotFound) && slug == "big":
		p.company = &models.Company{Slug: "big", Name: "Big Co", DefaultJobStatus: models.JobStatusActive}
		flags(p.company)
		if err := st.CreateCompany(t.Context(), p.company); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal(err)
	}
	env := &toolkit.Env{Store: st, Links: links.New(tooltest.AppURL, tooltest.AppURL), Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }}
	srv := mcp.NewServer(&mcp.Implementation{Name: "perf", Version: "0"}, nil)
	interviewtools.Register(srv, env)
	transport := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	caller := tooltest.KeyCaller(p.company)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		transport.ServeHTTP(w, toolkit.WithRequest(r, caller))
	}))
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "perf", Version: "0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	p.call = func(t *testing.T, tool string, args map[string]any) *tooltest.Result {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		r := &tooltest.Result{IsError: res.IsError}
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				r.Text = tc.Text
			}
		}
		return r
	}
	return p
}
