package jobtools_test

import (
	"testing"
	"time"
)

// TestJobsSummaryWithInterviewsFromJobTotals: jobsWithInterviews (read from job_totals) equals
// the jobs with at least one session, counted from the sessions, under every filter: with
// sessions pending as per-job deltas, after a fold, and when a job's only sessions are deleted
// (its job_totals row stays with zero sessions); another company's sessions count for none of
// Acme's jobs.
func TestJobsSummaryWithInterviewsFromJobTotals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filters := []map[string]any{
		nil, {"includeClosedJobs": false}, {"status": "ACTIVE"}, {"status": "GENERATING"},
		{"sinceDate": "2026-02-10", "untilDate": "2026-03-02"}, {"sinceDate": "2026-03-01"},
	}
	check := func(when string) {
		t.Helper()
		for _, args := range filters {
			m, _ := f.decode(t, "getJobsSummary", args)
			var want float64
			if err := f.h.DB.SQL.QueryRowContext(t.Context(), `SELECT count(*) FROM jobs j
				WHERE j.company_id = $1 AND NOT j.is_deleted
				  AND ($2::text IS NULL OR j.status = $2) AND (NOT $3 OR j.is_open)
				  AND ($4::timestamptz IS NULL OR j.created_at >= $4) AND ($5::timestamptz IS NULL OR j.created_at < $5)
				  AND EXISTS (SELECT 1 FROM interview_sessions s WHERE s.company_id = $1 AND s.job_id = j.id)`,
				f.acme.ID, args["status"], args["includeClosedJobs"] == false, date(args["sinceDate"], 0), date(args["untilDate"], 1)).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got := num(t, m, "jobsWithInterviews"); got != want {
				t.Errorf("%s: %v: jobsWithInterviews = %v, the sessions say %v", when, args, got, want)
			}
		}
	}
	check("the fixture")
	// J4 (GENERATING, open) gets a session, pending as a delta; Globex's job gets many.
	f.addSession(t, f.c[2], f.j[4], time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC), "INVITED", "NONE")
	f.exec(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at)
		SELECT $1, $2, $3, 'INVITED', 'VIDEO', now() FROM generate_series(1, 5)`, f.globex.ID, f.gCandidate, f.gJob)
	check("a session pending as a delta")
	f.exec(t, `SELECT rollup_fold()`)
	check("folded")
	// J3's sessions go: its job_totals row stays, with no session.
	f.exec(t, `DELETE FROM interview_sessions WHERE company_id = $1 AND job_id = $2`, f.acme.ID, f.j[3])
	check("a job's sessions deleted")
	f.exec(t, `SELECT rollup_fold()`)
	check("folded again")
}

// date is a filter's date as a time (nil when absent), days after it.
func date(v any, days int) any {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d.AddDate(0, 0, days)
}
