package jobtools_test

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver/jobtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

// TestPerformance measures every tool on a company of the size the tools are specified for
// (2,000 jobs, 1,000,000 candidates, 3,000,000 applications and sessions; job popularity is
// skewed, the biggest job has about 67,000 sessions) and fails when a p95 is above 250 ms,
// except for the cases marked known: they read a number of rows proportional to the largest job.
// Company-wide byDecision, funnel and candidatesPerPosition read the rollups of migration 00007;
// the seeding loads with triggers off and then rebuilds them, as the demo loader does. Seeding
// takes several minutes, so it runs only with JOBTOOLS_PERF=1:
//
//	JOBTOOLS_PERF=1 ./bin/recruitd stack -- go test -count=1 -timeout 60m -run TestPerformance -v ./mcpserver/jobtools/
//
// JOBTOOLS_PERF_SCALE=0.1 seeds a tenth (no failures then). JOBTOOLS_PERF_HOLD=2h keeps the
// seeded database for that long after seeding (its URL is logged), for EXPLAIN and for index
// experiments; JOBTOOLS_PERF_DB=<that URL> then measures it again without reseeding.
func TestPerformance(t *testing.T) {
	if os.Getenv("JOBTOOLS_PERF") == "" {
		t.Skip("set JOBTOOLS_PERF=1 to run the performance test")
	}
	scale := 1.0
	if s := os.Getenv("JOBTOOLS_PERF_SCALE"); s != "" {
		var err error
		if scale, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatal(err)
		}
	}
	h := tooltest.New(t, now, jobtools.Register)
	if url := os.Getenv("JOBTOOLS_PERF_DB"); url != "" {
		// Measure against a database seeded by an earlier run (JOBTOOLS_PERF_HOLD keeps one).
		sqlDB, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sqlDB.Close() })
		if h.Env.Store, err = store.FromSQL(sqlDB, nil); err != nil {
			t.Fatal(err)
		}
		big, err := h.Env.Store.CompanyBySlug(t.Context(), "big")
		if err != nil {
			t.Fatal(err)
		}
		measure(t, h, sqlDB, big, scale)
		return
	}
	big := h.Company(t, "big", "Big Co", func(c *models.Company) { c.ATSType = new(models.ATSTypeA) })
	small := h.Company(t, "small", "Small Co", nil)
	db := h.DB.SQL
	// One connection (the temporary tables and the session setting below belong to it).
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		start := time.Now()
		if _, err := conn.ExecContext(t.Context(), q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		t.Logf("%6.1fs  %.60s", time.Since(start).Seconds(), q)
	}
	// Like the demo loader: triggers off during the bulk load (the rows are consistent by
	// construction), then the rollups rebuilt.
	exec(`SET session_replication_role = replica`)
	nJobs, nCand, nSess := int(2000*scale), int(1_000_000*scale), int(3_000_000*scale)
	for _, c := range []struct {
		id                string
		jobs, cands, sess int
	}{{big.ID.String(), nJobs, nCand, nSess}, {small.ID.String(), 50, 5000, 10000}} {
		exec(`INSERT INTO users (email, name) SELECT 'u' || i || '-' || $1::text || '@x.test', 'User ' || i FROM generate_series(1, 20) i`, c.id)
		exec(`INSERT INTO company_memberships (company_id, user_id, role) SELECT $1::uuid, id, 'recruiter' FROM users WHERE email LIKE '%-' || $1::text || '@x.test'`, c.id)
		exec(`INSERT INTO templates (company_id, type, name)
			SELECT $1, CASE WHEN i % 2 = 0 THEN 'resumeFit' ELSE 'interviewGuide' END, 'Template ' || i FROM generate_series(1, 20) i`, c.id)
		exec(`INSERT INTO jobs (company_id, external_id, interviewer_id, title, status, is_open, is_deleted,
				enable_identity_verification, resume_fit_template_id, created_by_user_id, created_at)
			SELECT $1::uuid, 'EXT-' || i, $1::text || '-EXT-' || i,
			       (ARRAY['Senior','Junior','Lead','Staff'])[1 + i % 4] || ' ' || (ARRAY['Backend','Frontend','Data','Sales','Support'])[1 + i % 5] || ' Engineer ' || i,
			       (ARRAY['ACTIVE','ACTIVE','ACTIVE','PAUSED','GENERATING','FAILED','ACTIVE'])[1 + i % 7],
			       i % 3 <> 0, i % 50 = 0, i % 4 = 0,
			       CASE WHEN i % 2 = 0 THEN (SELECT id FROM templates t WHERE t.company_id = $1 AND t.type = 'resumeFit' ORDER BY name OFFSET i % 10 LIMIT 1) END,
			       (SELECT user_id FROM company_memberships m WHERE m.company_id = $1 ORDER BY user_id OFFSET i % 20 LIMIT 1),
			       timestamptz '2023-06-01' + (i::float8 * 1000 / $2::int) * interval '1 day'
			FROM generate_series(1, $2::int) i`, c.id, c.jobs)
		exec(`INSERT INTO interview_guides (company_id, job_id, intro, outro, learning_objectives, skills)
			SELECT company_id, id, 'intro', 'outro', '{a,b}', '{Go,SQL}' FROM jobs WHERE company_id = $1 AND status <> 'GENERATING'`, c.id)
		exec(`INSERT INTO interview_questions (company_id, guide_id, position, text, source, template_id)
			SELECT g.company_id, g.id, p, 'Question ' || p, 'generated',
			       CASE WHEN p = 0 AND hashtext(g.id::text) % 3 = 0 THEN (SELECT id FROM templates t WHERE t.company_id = $1 AND t.type = 'interviewGuide' LIMIT 1) END
			FROM interview_guides g, generate_series(0, 11) p WHERE g.company_id = $1`, c.id)
		exec(`INSERT INTO grading_criteria (company_id, guide_id, position, name)
			SELECT g.company_id, g.id, p, 'Criterion ' || p FROM interview_guides g, generate_series(0, 3) p WHERE g.company_id = $1`, c.id)
		exec(`INSERT INTO candidates (company_id, first_name, last_name, status, created_at)
			SELECT $1, 'First' || i, 'Last' || i, (ARRAY['new','screening','interviewing','offered','hired','rejected'])[1 + i % 6],
			       timestamptz '2023-06-01' + (i::float8 * 94608000 / $2::int) * interval '1 second'
			FROM generate_series(1, $2::int) i`, c.id, c.cands)
		// Applications and sessions: job popularity is skewed (a few jobs get most candidates).
		exec(`CREATE TEMP TABLE perf_cand AS SELECT row_number() OVER () AS n, id FROM candidates WHERE company_id = $1`, c.id)
		exec(`CREATE TEMP TABLE perf_job AS SELECT row_number() OVER (ORDER BY created_at) AS n, id, created_at FROM jobs WHERE company_id = $1`, c.id)
		exec(`INSERT INTO applications (company_id, candidate_id, job_id, source, created_at)
			SELECT $1, pc.id, pj.id, 'ats', greatest(pj.created_at, timestamptz '2026-06-15' - (i % 1000) * interval '1 day')
			FROM generate_series(1, $2::int) i
			JOIN perf_cand pc ON pc.n = 1 + (hashint4(i) & 2147483647) % $3
			JOIN perf_job pj ON pj.n = 1 + floor($4 * power(((hashint4(i + 7) & 2147483647) % 1000000) / 1000000.0, 2))::int`,
			c.id, c.sess, c.cands, c.jobs)
		exec(`INSERT INTO interview_sessions (company_id, application_id, candidate_id, job_id, status, medium_type,
				invited_at, started_at, completed_at, duration_seconds, decision, created_at)
			SELECT a.company_id, a.id, a.candidate_id, a.job_id, st, 'VIDEO', a.created_at,
			       CASE WHEN st IN ('STARTED', 'COMPLETED') THEN a.created_at + interval '1 hour' END,
			       CASE WHEN st = 'COMPLETED' THEN a.created_at + interval '2 hours' END,
			       CASE WHEN st = 'COMPLETED' THEN 1800 END,
			       CASE WHEN st = 'COMPLETED' THEN (ARRAY['NONE','ACCEPTED','REJECTED','SUBMITTED','PLACED','HIRED','REJECTED'])[1 + (hashtext(a.id::text) & 65535) % 7] ELSE 'NONE' END,
			       a.created_at
			FROM (SELECT a.*, (ARRAY['INVITED','STARTED','COMPLETED','COMPLETED','EXPIRED','CANCELLED','COMPLETED'])[1 + (hashtext(a.id::text) & 65535) % 7] AS st
			      FROM applications a WHERE a.company_id = $1) a`, c.id)
		exec(`INSERT INTO ats_coverage_weeks (company_id, week_start, ats_type, ats_job_ids)
			SELECT $1, date '2023-06-05' + w * 7, 'ATS-A', ARRAY(SELECT 'EXT-' || (w * 13 + k) FROM generate_series(1, 15) k)
			FROM generate_series(0, 150) w`, c.id)
		exec(`DROP TABLE perf_cand`)
		exec(`DROP TABLE perf_job`)
	}
	exec(`RESET session_replication_role`)
	for _, c := range []*models.Company{big, small} {
		exec(`SELECT rollup_rebuild($1)`, c.ID)
	}
	exec(`VACUUM ANALYZE`)
	if hold := os.Getenv("JOBTOOLS_PERF_HOLD"); hold != "" {
		d, err := time.ParseDuration(hold)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seeded database %s (company big = %s) held for %s", h.DB.URL, big.ID, d)
		time.Sleep(d)
	}
	measure(t, h, db, big, scale)
}

func measure(t *testing.T, h *tooltest.Harness, db *sql.DB, big *models.Company, scale float64) {
	var jobID, bigJob string
	if err := db.QueryRowContext(t.Context(), `SELECT id FROM jobs WHERE company_id = $1 AND NOT is_deleted ORDER BY created_at DESC LIMIT 1`, big.ID).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(t.Context(), `SELECT job_id FROM interview_sessions WHERE company_id = $1 GROUP BY job_id ORDER BY count(*) DESC LIMIT 1`, big.ID).Scan(&bigJob); err != nil {
		t.Fatal(err)
	}
	caller := tooltest.KeyCaller(big)
	cases := []struct {
		name  string
		args  map[string]any
		known string // why the case is over budget whatever the indexes

	}{
		{"getJobDetails", map[string]any{"jobId": jobID}, ""},
		{"getJobDetails", map[string]any{"jobId": bigJob}, ""},
		{"getJobDetails", map[string]any{"jobId": bigJob, "sessionStatus": "COMPLETED", "sessionLimit": 50}, ""},
		{"getJobDetails", map[string]any{"jobName": "lead data engineer 1234"}, ""},
		{"getJobsSummary", map[string]any{}, ""},
		{"getJobsSummary", map[string]any{"limit": 200, "offset": 400}, ""},
		{"getJobsSummary", map[string]any{"userName": "User 7", "sinceDate": "2025-01-01"}, ""},
		{"getPositionStats", map[string]any{"metric": "openPositions"}, ""},
		{"getPositionStats", map[string]any{"metric": "totalPositions"}, ""},
		{"getPositionStats", map[string]any{"metric": "candidatesPerPosition"}, ""},
		{"getPositionStats", map[string]any{"metric": "candidatesPerPosition", "sinceDate": "2026-03-01"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "byStatus"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "byStatus", "sinceDate": "2026-05-15"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "byStatus", "positionId": bigJob}, "65,000 candidate statuses of the largest job"},
		{"getCandidatePipelineStats", map[string]any{"metric": "byDecision"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "byDecision", "sinceDate": "2026-05-15"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "byDecision", "sinceDate": "2025-06-15T13:20:00Z", "untilDate": "2026-06-10T17:45:00Z"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "byDecision", "positionId": bigJob}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "funnel"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "funnel", "sinceDate": "2026-05-15"}, ""},
		{"getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": bigJob}, ""},
		{"getInterviewGuideDetails", map[string]any{"positionId": jobID}, ""},
		{"listTemplates", map[string]any{"includeUnused": true}, ""},
		{"getCompanyFeatures", map[string]any{}, ""},
		{"getAtsConnection", map[string]any{}, ""},
	}
	const runs = 20
	for _, c := range cases {
		var lat bench.Latencies
		for range runs {
			start := time.Now()
			h.OK(t, caller, c.name, c.args)
			lat = append(lat, time.Since(start))
		}
		p95 := lat.Percentile(95)
		note := ""
		if c.known != "" {
			note = "  (" + c.known + ")"
		}
		t.Logf("%-26s %-62s p50 %7.1fms  p95 %7.1fms%s", c.name, fmt.Sprint(c.args), ms(lat.Percentile(50)), ms(p95), note)
		if scale >= 1 && p95 > 250*time.Millisecond && c.known == "" {
			t.Errorf("%s(%v): p95 %s is above 250ms", c.name, c.args, p95)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
