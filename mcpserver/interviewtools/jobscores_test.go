package interviewtools_test

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/rollup"
)

// TestCheatingByJobReadsRunningScores: byJob's flagged and evaluated counts per job equal the
// evaluations' at whole and fractional thresholds, for all time and in windows with and without
// partial days, and windows that start while a job has a gap of weeks, with the days folded into
// job_score_running, with changes pending as deltas (scores moved across the threshold,
// evaluations deleted, one back-dated) and after they are folded; the rollups stay equal to a
// rebuild; another company sees none of these jobs; and a call over whole days at a whole
// threshold reads no evaluation and its bounds by day, not by a descent per job (it read
// every flagged evaluation of the window, then two running rows per job by descents).
func TestCheatingByJobReadsRunningScores(t *testing.T) {
	f := setup(t)
	db, ctx := f.h.Store.SQL(), t.Context()
	cand, jobs := f.sessionDaysSource(t)
	// Three evaluated sessions a day for J1 and J2 over the 120 days before now, and for J3 over
	// the 60 days before those (up to 2026-02-14, so windows that start later must leave it out),
	// scored over the whole range with fractions (0 and 100 included). J2 has none from
	// 2026-02-19 to 2026-03-06: a window starting then finds its last row before in its weekly
	// rows.
	f.exec(t, `WITH s AS (
			INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at, created_at)
			SELECT $1, $2, j, 'COMPLETED', 'VIDEO', at - interval '1 hour', at, at
			FROM unnest($3::uuid[]) WITH ORDINALITY u(j, n), generate_series(1, 120) d, generate_series(0, 2) k,
			     LATERAL (SELECT timestamptz '2026-04-15T12:00:00Z' - d * interval '1 day' + (k * 7 + d % 5) * interval '1 hour' AS at) x
			WHERE (n < 3 OR d > 60) AND NOT (n = 2 AND d BETWEEN 40 AND 55)
			RETURNING id, completed_at)
		INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at)
		SELECT $1, id, CASE WHEN n % 41 = 0 THEN 100 WHEN n % 43 = 0 THEN 0 ELSE (n * 37 % 10001) / 100.0 END, completed_at
		FROM (SELECT id, completed_at, row_number() OVER (ORDER BY completed_at, id) AS n FROM s) x`, f.acme.ID, cand, jobs)
	f.exec(t, `SELECT rollup_fold()`)
	var running int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM job_score_running WHERE company_id = $1`, f.acme.ID).Scan(&running); err != nil || running < 250 {
		t.Fatalf("job_score_running has %d rows of acme (%v); the fold did not keep it", running, err)
	}

	windows := [][2]string{
		{"", ""},
		{"2026-01-15", ""},
		{"2026-02-10T13:30:00Z", ""},
		{"2026-01-01", "2026-03-20"},
		{"2026-02-03T07:00:00Z", "2026-04-02T18:45:00Z"},
		{"", "2026-03-01T06:00:00Z"},
		{"2026-03-05T02:00:00Z", "2026-03-05T20:00:00Z"},
		{"2026-03-02", ""}, // a Monday in J2's gap
		{"2026-02-25T10:00:00Z", "2026-04-01"},
		{"2026-02-16", ""}, // a Monday before it
	}
	check := func(when string) {
		t.Helper()
		for _, thr := range []float64{70, 70.5, 0, 100, 33.25} {
			f.exec(t, `UPDATE companies SET cheat_threshold = $2 WHERE id = $1`, f.acme.ID, thr)
			for _, w := range windows {
				args := map[string]any{}
				var lo, hi sql.NullTime
				if w[0] != "" {
					args["sinceDate"], lo = w[0], sql.NullTime{Time: day(w[0]), Valid: true}
				}
				if w[1] != "" {
					args["untilDate"], hi = w[1], sql.NullTime{Time: day(w[1]), Valid: true}
					if len(w[1]) == len(time.DateOnly) {
						hi.Time = hi.Time.AddDate(0, 0, 1) // untilDate is inclusive
					}
				}
				want := pgtest.CountsByKey(t, db, `SELECT job_id, count(*), count(*) FILTER (WHERE cheating_score >= $4) FROM cheating_evaluations
					WHERE company_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at < $3)
					GROUP BY 1`, f.acme.ID, lo, hi, thr)
				for _, sort := range []string{"rate", "count"} {
					args["sortByJobMetric"] = sort
					c := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "byJob", args)
					if len(c.ByJob) != len(want) {
						t.Errorf("%s: threshold %g %v: byJob has %d jobs, the evaluations %d", when, thr, w, len(c.ByJob), len(want))
					}
					for _, r := range c.ByJob {
						if got := [2]int64{r.Evaluated, r.Flagged}; got != want[r.JobID] {
							t.Errorf("%s: threshold %g %v by %s: byJob %s (evaluated, flagged) = %v, the evaluations %v",
								when, thr, w, sort, r.JobTitle, got, want[r.JobID])
						}
					}
				}
			}
		}
	}
	check("folded")
	// Pending deltas: scores moved across the thresholds, evaluations deleted, one back-dated.
	f.exec(t, `UPDATE cheating_evaluations SET cheating_score = least(cheating_score + 0.75, 100)
		WHERE company_id = $1 AND created_at >= '2026-02-01' AND extract(day FROM created_at)::int % 3 = 0`, f.acme.ID)
	f.exec(t, `DELETE FROM cheating_evaluations WHERE company_id = $1 AND created_at < '2026-01-10' AND extract(hour FROM created_at)::int % 2 = 0`, f.acme.ID)
	// J1's last two weeks go: its weekly rows after its new last day must go with them.
	f.exec(t, `DELETE FROM cheating_evaluations WHERE company_id = $1 AND job_id = $2 AND created_at >= '2026-04-01'`, f.acme.ID, f.job["J1"])
	f.exec(t, `WITH s AS (
			INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at, created_at)
			VALUES ($1, $2, $3, 'COMPLETED', 'PHONE', '2026-01-20T05:00:00Z', '2026-01-20T06:00:00Z', now()) RETURNING id)
		INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at) SELECT $1, id, 99.5, '2026-01-20T06:00:00Z' FROM s`,
		f.acme.ID, cand, f.job["J2"])
	check("with pending deltas")
	if err := rollup.Check(ctx, db, f.acme.ID); err != nil {
		t.Errorf("with pending deltas: %v", err)
	}
	f.exec(t, `SELECT rollup_fold()`)
	check("folded again")
	if err := rollup.Check(ctx, db, f.acme.ID); err != nil {
		t.Errorf("folded again: %v", err)
	}
	f.exec(t, `UPDATE companies SET cheat_threshold = 70 WHERE id = $1`, f.acme.ID)

	// Another company's windows see none of these jobs.
	for _, w := range windows {
		args := map[string]any{"metric": "byJob"}
		if w[0] != "" {
			args["sinceDate"] = w[0]
		}
		if w[1] != "" {
			args["untilDate"] = w[1]
		}
		c, _ := call[cheatOut](t, f, f.globex, "getCheatingDetectionStats", args, nil)
		for _, r := range c.ByJob {
			if f.acmeJob(r.JobID) {
				t.Errorf("globex byJob %v shows acme's job %s", w, r.JobTitle)
			}
		}
	}

	// The work of one call over 99 whole days at the threshold 70: no evaluation, and no descent
	// of the running rows' primary key per job: the bounds are read by day (on a fixture this
	// small the planner may scan the tables whole). All time: the
	// jobs' latest rows (migration 00066; the fixture's table is small enough to be scanned
	// whole, both companies), no running row. The index entries of rows the folds rewrote are
	// vacuumed first, as autovacuum does.
	f.exec(t, `VACUUM ANALYZE job_score_running`)
	var latestRows int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM job_score_latest`).Scan(&latestRows); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args      map[string]any
		noRunning bool
	}{
		{map[string]any{"sinceDate": "2026-01-01", "untilDate": "2026-04-09"}, false},
		{map[string]any{}, true},
		{map[string]any{"sinceDate": "2026-03-01"}, false},
		{map[string]any{"untilDate": "2026-03-01"}, false},
	} {
		tables := []string{"cheating_evaluations", "job_score_running", "job_score_latest"}
		before, scans := settledReads(t, db, tables...), settledScans(t, db, "job_score_running_pkey")
		metricCall[cheatOut](t, f, "getCheatingDetectionStats", "byJob", c.args)
		after, scansAfter := settledReads(t, db, tables...), settledScans(t, db, "job_score_running_pkey")
		evaluations, running, latest, descents := after[0]-before[0], after[1]-before[1], after[2]-before[2], scansAfter[0]-scans[0]
		if evaluations != 0 || (c.noRunning && running != 0) || latest > latestRows || latest == 0 || descents != 0 {
			t.Errorf("byJob %v read %d evaluations, %d running rows and %d latest rows, by %d descents of the running rows; want no evaluation, %s, 1 to %d latest rows and no descent",
				c.args, evaluations, running, latest, descents, map[bool]string{true: "no running row", false: "any running rows"}[c.noRunning], latestRows)
		}
	}
}

// day parses a date or an RFC 3339 time.
func day(s string) time.Time {
	if len(s) == len(time.DateOnly) {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			panic(fmt.Sprintf("day %q: %v", s, err))
		}
		return d
	}
	return ts(s)
}
