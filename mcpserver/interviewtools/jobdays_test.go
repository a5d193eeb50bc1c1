package interviewtools_test

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/rollup"
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

// settledReads is rowsRead of each table once every connection has reported (settled).
func settledReads(t *testing.T, db *sql.DB, tables ...string) []int64 {
	t.Helper()
	return settled(func() []int64 {
		n := make([]int64, len(tables))
		for i, table := range tables {
			n[i] = rowsRead(t, db, table)
		}
		return n
	})
}

// settledScans is how many index scans each index has had so far, once every connection has
// reported (settled).
func settledScans(t *testing.T, db *sql.DB, indexes ...string) []int64 {
	t.Helper()
	return settled(func() []int64 {
		n := make([]int64, len(indexes))
		for i, index := range indexes {
			if err := db.QueryRowContext(t.Context(), `SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE indexrelname = $1`,
				index).Scan(&n[i]); err != nil {
				t.Fatal(err)
			}
		}
		return n
	})
}

// settled returns read's counts once they are unchanged for 1.5 s: a backend reports its
// statistics at most once a second, so they then hold everything done before the call.
func settled(read func() []int64) []int64 {
	n := read()
	for same := 0; same < 5; {
		time.Sleep(300 * time.Millisecond)
		m := read()
		if slices.Equal(m, n) {
			same++
		} else {
			same = 0
		}
		n = m
	}
	return n
}

// sessionDaysSource is the first candidate of acme and the array of its jobs J1, J2 and J3, the
// arguments $2 and $3 of the tests' statements that give these jobs sessions a day.
func (f *fixture) sessionDaysSource(t *testing.T) (candidate, jobs string) {
	t.Helper()
	if err := f.h.Store.SQL().QueryRowContext(t.Context(), `SELECT id FROM candidates WHERE company_id = $1 ORDER BY id LIMIT 1`, f.acme.ID).Scan(&candidate); err != nil {
		t.Fatal(err)
	}
	return candidate, "{" + f.job["J1"].String() + "," + f.job["J2"].String() + "," + f.job["J3"].String() + "}"
}

// acmeJob tells whether id is one of acme's jobs J1, J2 and J3 (which another company must never see).
func (f *fixture) acmeJob(id string) bool {
	return id == f.job["J1"].String() || id == f.job["J2"].String() || id == f.job["J3"].String()
}

// TestJobWindowsReadRunningTotals: byInterviewer and cheating byJob in a date window answer
// what the sessions and evaluations say, with the days folded into the running totals, days
// still pending as deltas (a status change, a back-dated session) and partial days at the
// window's ends, and windows that start while a job has a gap of weeks; the rollups stay equal
// to a rebuild; and one such call reads no per-day row, and its bounds by day instead of
// by a B-tree descent per job (it read every job's every day of the window, then two running rows
// per job by descents).
func TestJobWindowsReadRunningTotals(t *testing.T) {
	f := setup(t)
	db, ctx := f.h.Store.SQL(), t.Context()
	cand, jobs := f.sessionDaysSource(t)
	// Two sessions a day for J1 and J2 over the 120 days before now, and for J3 over the 60 days
	// before those (up to 2026-02-14, so windows that start later must leave it out), a third of
	// them completed (and evaluated), invited at varying hours. J2 has none from 2026-02-19 to
	// 2026-03-06: a window starting then finds its last row before in its weekly rows.
	f.exec(t, `WITH s AS (
			INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at, created_at)
			SELECT $1, $2, j, CASE WHEN (d + k) % 3 = 0 THEN 'COMPLETED' ELSE 'INVITED' END, 'VIDEO', at,
			       CASE WHEN (d + k) % 3 = 0 THEN at + interval '2 hours' END, at
			FROM unnest($3::uuid[]) WITH ORDINALITY u(j, n), generate_series(1, 120) d, generate_series(0, 1) k,
			     LATERAL (SELECT timestamptz '2026-04-15T12:00:00Z' - d * interval '1 day' + (k * 7 + d % 5) * interval '1 hour' AS at) x
			WHERE (n < 3 OR d > 60) AND NOT (n = 2 AND d BETWEEN 40 AND 55)
			RETURNING id, status, completed_at)
		INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at)
		SELECT $1, id, 50 + (extract(epoch FROM completed_at)::bigint / 3600) % 50, completed_at FROM s WHERE status = 'COMPLETED'`,
		f.acme.ID, cand, jobs)
	f.exec(t, `SELECT rollup_fold_jobs()`)
	var running int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM job_daily_running WHERE company_id = $1`, f.acme.ID).Scan(&running); err != nil || running < 250 {
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
		{"2026-03-01T00:00:00Z", ""},
		{"2026-01-01T00:00:00Z", "2026-03-20T00:00:00Z"},
		{"2026-02-03T07:00:00Z", "2026-04-02T18:45:00Z"},
		{"", "2026-03-01T06:00:00Z"},
		{"2026-03-02T00:00:00Z", ""}, // a Monday in J2's gap
		{"2026-02-25T10:00:00Z", "2026-04-01T00:00:00Z"},
		{"2026-02-16T00:00:00Z", ""}, // a Monday before it
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
			want := pgtest.CountsByKey(t, db, `SELECT job_id, count(*), count(*) FILTER (WHERE status = 'COMPLETED') FROM interview_sessions
				WHERE company_id = $1 AND `+in("invited_at")+` GROUP BY 1`, f.acme.ID, lo, hi)
			o := metricCall[statsOut](t, f, "getInterviewStats", "byInterviewer", args)
			if len(o.ByInterviewer) != len(want) {
				t.Errorf("%s %v: byInterviewer has %d jobs, the sessions %d", when, w, len(o.ByInterviewer), len(want))
			}
			for _, r := range o.ByInterviewer {
				if got := [2]int64{r.Sessions, r.Completed}; got != want[r.JobID] {
					t.Errorf("%s %v: byInterviewer %s = %v, the sessions %v", when, w, r.JobTitle, got, want[r.JobID])
				}
			}

			evald := pgtest.CountsByKey(t, db, `SELECT job_id, count(*), 0 FROM cheating_evaluations WHERE company_id = $1 AND `+in("created_at")+` GROUP BY 1`,
				f.acme.ID, lo, hi)
			c := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "byJob", args)
			if len(c.ByJob) != len(evald) {
				t.Errorf("%s %v: byJob has %d jobs, the evaluations %d", when, w, len(c.ByJob), len(evald))
			}
			for _, r := range c.ByJob {
				if r.Evaluated != evald[r.JobID][0] {
					t.Errorf("%s %v: byJob %s evaluated = %d, the evaluations %d", when, w, r.JobTitle, r.Evaluated, evald[r.JobID][0])
				}
			}
		}
	}
	check("with pending deltas")
	f.exec(t, `SELECT rollup_fold_jobs()`)
	check("folded")
	var weekly int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM job_daily_weekly WHERE company_id = $1 AND job_id = $2 AND week = '2026-03-02'`,
		f.acme.ID, f.job["J2"]).Scan(&weekly); err != nil || weekly != 1 {
		t.Fatalf("J2 has %d weekly rows of 2026-03-02 (%v), want 1", weekly, err)
	}
	if err := rollup.Check(ctx, db, f.acme.ID); err != nil {
		t.Errorf("folded: %v", err)
	}

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
			if f.acmeJob(r.JobID) {
				t.Errorf("globex byInterviewer %v shows acme's job %s", w, r.JobTitle)
			}
		}
		for _, r := range c.ByJob {
			if f.acmeJob(r.JobID) {
				t.Errorf("globex byJob %v shows acme's job %s", w, r.JobTitle)
			}
		}
	}

	// The work of one call: no per-day row, and no descent of the running rows' primary key per
	// job: the bounds are read by day (on a fixture this small the planner may scan the tables
	// whole). The index entries of rows
	// the folds rewrote are vacuumed first, as autovacuum does.
	f.exec(t, `VACUUM ANALYZE job_daily_running`)
	for _, args := range []map[string]any{
		{"sinceDate": "2026-01-01T00:00:00Z", "untilDate": "2026-04-10T00:00:00Z"},
		{"sinceDate": "2026-03-01T00:00:00Z"},
		{"untilDate": "2026-03-01T00:00:00Z"},
	} {
		before, scans := settledReads(t, db, "job_daily_folded"), settledScans(t, db, "job_daily_running_pkey")
		metricCall[statsOut](t, f, "getInterviewStats", "byInterviewer", args)
		after, scansAfter := settledReads(t, db, "job_daily_folded"), settledScans(t, db, "job_daily_running_pkey")
		if daily, descents := after[0]-before[0], scansAfter[0]-scans[0]; daily != 0 || descents != 0 {
			t.Errorf("byInterviewer %v read %d per-day rows by %d descents of the running rows; want none", args, daily, descents)
		}
	}
}
