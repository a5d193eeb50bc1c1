package interviewtools_test

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// rowsRead is how many rows of table the statements have read so far (sequential and index
// reads), from the cumulative statistics; the tool server's connections report theirs when they
// go idle.
func rowsRead(t *testing.T, db *sql.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(t.Context(), `SELECT coalesce(sum(n), 0)
		FROM (SELECT coalesce(seq_tup_read, 0) AS n FROM pg_stat_user_tables WHERE relname = $1
		      UNION ALL SELECT idx_tup_read FROM pg_stat_user_indexes WHERE relname = $1) x`, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// jobWindowRows are the rows of job_daily_folded and job_daily_running read so far.
func jobWindowRows(t *testing.T, db *sql.DB) (daily, running int64) {
	t.Helper()
	return rowsRead(t, db, "job_daily_folded"), rowsRead(t, db, "job_daily_running")
}

// TestJobWindowsReadRunningTotals: byInterviewer and cheating byJob in a date window answer
// what the sessions and evaluations say, with the days folded into the running totals, days
// still pending as deltas (a status change, a back-dated session) and partial days at the
// window's ends; and one such call reads at most two running rows per job and no per-day row,
// however many days the window spans (it read every job's every day of the window).
func TestJobWindowsReadRunningTotals(t *testing.T) {
	f := setup(t)
	db, ctx := f.h.Store.SQL(), t.Context()
	var cand string
	if err := db.QueryRowContext(ctx, `SELECT id FROM candidates WHERE company_id = $1 ORDER BY id LIMIT 1`, f.acme.ID).Scan(&cand); err != nil {
		t.Fatal(err)
	}
	// Two sessions a day for J1, J2 and J3 over the 120 days before now, a third of them
	// completed (and evaluated), invited at varying hours.
	f.exec(t, `WITH s AS (
			INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at, created_at)
			SELECT $1, $2, j, CASE WHEN (d + k) % 3 = 0 THEN 'COMPLETED' ELSE 'INVITED' END, 'VIDEO', at,
			       CASE WHEN (d + k) % 3 = 0 THEN at + interval '2 hours' END, at
			FROM unnest($3::uuid[]) j, generate_series(1, 120) d, generate_series(0, 1) k,
			     LATERAL (SELECT timestamptz '2026-04-15T12:00:00Z' - d * interval '1 day' + (k * 7 + d % 5) * interval '1 hour' AS at) x
			RETURNING id, status, completed_at)
		INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at)
		SELECT $1, id, 50 + (extract(epoch FROM completed_at)::bigint / 3600) % 50, completed_at FROM s WHERE status = 'COMPLETED'`,
		f.acme.ID, cand, "{"+f.job["J1"].String()+","+f.job["J2"].String()+","+f.job["J3"].String()+"}")
	f.exec(t, `SELECT rollup_fold_jobs()`)
	var running int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM job_daily_running WHERE company_id = $1`, f.acme.ID).Scan(&running); err != nil || running < 360 {
		t.Fatalf("job_daily_running has %d rows of acme (%v); the fold did not keep it", running, err)
	}
	// Pending deltas after the fold: sessions complete on earlier days, one is back-dated.
	f.exec(t, `UPDATE interview_sessions SET status = 'COMPLETED', completed_at = invited_at + interval '1 hour'
		WHERE company_id = $1 AND status = 'INVITED' AND invited_at >= '2026-02-01' AND extract(day FROM invited_at)::int % 4 = 0`, f.acme.ID)
	f.exec(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, created_at)
		VALUES ($1, $2, $3, 'INVITED', 'PHONE', '2026-01-20T05:00:00Z', now())`, f.acme.ID, cand, f.job["J2"])

	windows := [][2]string{
		{"2026-01-15T00:00:00Z", ""},
		{"2026-02-10T13:30:00Z", ""},
		{"2026-01-01T00:00:00Z", "2026-03-20T00:00:00Z"},
		{"2026-02-03T07:00:00Z", "2026-04-02T18:45:00Z"},
		{"", "2026-03-01T06:00:00Z"},
	}
	check := func(when string) {
		t.Helper()
		for _, w := range windows {
			args := map[string]any{}
			var lo, hi sql.NullTime
			if w[0] != "" {
				args["sinceDate"], lo = w[0], sql.NullTime{Time: ts(w[0]), Valid: true}
			}
			if w[1] != "" {
				args["untilDate"], hi = w[1], sql.NullTime{Time: ts(w[1]), Valid: true}
			}
			in := func(col string) string {
				return fmt.Sprintf("($2::timestamptz IS NULL OR %[1]s >= $2) AND ($3::timestamptz IS NULL OR %[1]s < $3)", col)
			}
			want := map[string][2]int64{}
			rows, err := db.QueryContext(ctx, `SELECT job_id, count(*), count(*) FILTER (WHERE status = 'COMPLETED') FROM interview_sessions
				WHERE company_id = $1 AND `+in("invited_at")+` GROUP BY 1`, f.acme.ID, lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var job string
				var n [2]int64
				if err := rows.Scan(&job, &n[0], &n[1]); err != nil {
					t.Fatal(err)
				}
				want[job] = n
			}
			rows.Close()
			o := metricCall[statsOut](t, f, "getInterviewStats", "byInterviewer", args)
			if len(o.ByInterviewer) != len(want) {
				t.Errorf("%s %v: byInterviewer has %d jobs, the sessions %d", when, w, len(o.ByInterviewer), len(want))
			}
			for _, r := range o.ByInterviewer {
				if got := [2]int64{r.Sessions, r.Completed}; got != want[r.JobID] {
					t.Errorf("%s %v: byInterviewer %s = %v, the sessions %v", when, w, r.JobTitle, got, want[r.JobID])
				}
			}

			evald := map[string]int64{}
			rows, err = db.QueryContext(ctx, `SELECT job_id, count(*) FROM cheating_evaluations WHERE company_id = $1 AND `+in("created_at")+` GROUP BY 1`,
				f.acme.ID, lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var job string
				var n int64
				if err := rows.Scan(&job, &n); err != nil {
					t.Fatal(err)
				}
				evald[job] = n
			}
			rows.Close()
			c := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "byJob", args)
			if len(c.ByJob) != len(evald) {
				t.Errorf("%s %v: byJob has %d jobs, the evaluations %d", when, w, len(c.ByJob), len(evald))
			}
			for _, r := range c.ByJob {
				if r.Evaluated != evald[r.JobID] {
					t.Errorf("%s %v: byJob %s evaluated = %d, the evaluations %d", when, w, r.JobTitle, r.Evaluated, evald[r.JobID])
				}
			}
		}
	}
	check("with pending deltas")
	f.exec(t, `SELECT rollup_fold_jobs()`)
	check("folded")

	// Another company's window sees none of these jobs.
	for _, w := range windows {
		args := map[string]any{"metric": "byInterviewer", "sinceDate": "2026-01-01T00:00:00Z"}
		if w[1] != "" {
			args["untilDate"] = w[1]
		}
		o, _ := call[statsOut](t, f, f.globex, "getInterviewStats", args, nil)
		args["metric"] = "byJob"
		c, _ := call[cheatOut](t, f, f.globex, "getCheatingDetectionStats", args, nil)
		for _, r := range o.ByInterviewer {
			if r.JobID == f.job["J1"].String() || r.JobID == f.job["J2"].String() || r.JobID == f.job["J3"].String() {
				t.Errorf("globex byInterviewer %v shows acme's job %s", w, r.JobTitle)
			}
		}
		for _, r := range c.ByJob {
			if r.JobID == f.job["J1"].String() || r.JobID == f.job["J2"].String() || r.JobID == f.job["J3"].String() {
				t.Errorf("globex byJob %v shows acme's job %s", w, r.JobTitle)
			}
		}
	}

	// The work of one call: the per-job rollup rows read by the call, from the statistics once
	// every connection has reported, against the jobs.
	var jobs int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE company_id = $1`, f.acme.ID).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	settle := func() (int64, int64) {
		t.Helper()
		// A backend reports at most once a second: unchanged for 1.5 s, everything is in.
		d, r := jobWindowRows(t, db)
		for same := 0; same < 5; {
			time.Sleep(300 * time.Millisecond)
			d2, r2 := jobWindowRows(t, db)
			if d2 == d && r2 == r {
				same++
			} else {
				same = 0
			}
			d, r = d2, r2
		}
		return d, r
	}
	// (Cheating byJob reads job_score_running instead: TestCheatingByJobReadsRunningScores.)
	for _, tool := range []struct{ name, metric string }{{"getInterviewStats", "byInterviewer"}} {
		d0, r0 := settle()
		args := map[string]any{"sinceDate": "2026-01-01T00:00:00Z", "untilDate": "2026-04-10T00:00:00Z"}
		if tool.name == "getInterviewStats" {
			metricCall[statsOut](t, f, tool.name, tool.metric, args)
		} else {
			metricCall[cheatOut](t, f, tool.name, tool.metric, args)
		}
		d1, r1 := settle()
		if d1 != d0 || r1-r0 > 2*jobs || r1 == r0 {
			t.Errorf("%s %s over 99 days read %d per-day rows and %d running rows; want none and 1 to %d (two per job)",
				tool.name, tool.metric, d1-d0, r1-r0, 2*jobs)
		}
	}
}
