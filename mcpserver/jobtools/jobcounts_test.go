package jobtools_test

import (
	"testing"
	"time"
)

// TestCompanyFeaturesReadJobCounts: getCompanyFeatures' active jobs (and those with identity
// verification) follow job changes folded and pending (job_counts, migration 00059), and the
// call reads no row of jobs (it counted the company's active jobs one by one); so does
// getPositionStats totalPositions without a window (it loaded every job); listTemplates' active
// jobs follow them too.
func TestCompanyFeaturesReadJobCounts(t *testing.T) {
	f := newFixture(t)
	db, ctx := f.h.DB.SQL, t.Context()
	features := func() (active, withID float64) {
		t.Helper()
		m, _ := f.decode(t, "getCompanyFeatures", map[string]any{"featureName": "identityVerification"})
		return jsonPath(t, m, "features.0.activeJobs").(float64), jsonPath(t, m, "features.0.activeJobsWithFeature").(float64)
	}
	want := func(when string) {
		t.Helper()
		var a, n float64
		if err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE enable_identity_verification) FROM jobs
			WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted`, f.acme.ID).Scan(&a, &n); err != nil {
			t.Fatal(err)
		}
		if ga, gn := features(); ga != a || gn != n {
			t.Errorf("%s: activeJobs %v with identity verification %v; the jobs say %v and %v", when, ga, gn, a, n)
		}
		if m, _ := f.decode(t, "listTemplates", nil); num(t, m, "activeJobs") != a {
			t.Errorf("%s: listTemplates activeJobs %v; the jobs say %v", when, num(t, m, "activeJobs"), a)
		}
	}
	want("the fixture")
	f.exec(t, `SELECT rollup_fold()`)
	want("folded")
	f.exec(t, `UPDATE jobs SET status = 'ACTIVE' WHERE id = $1`, f.j[3]) // paused, with the feature
	f.exec(t, `UPDATE jobs SET enable_identity_verification = NOT enable_identity_verification WHERE id = $1`, f.j[2])
	f.exec(t, `UPDATE jobs SET is_deleted = true WHERE id = $1`, f.j[1])
	want("pending changes")
	f.exec(t, `SELECT rollup_fold()`)
	want("folded changes")
	f.exec(t, `DELETE FROM jobs WHERE id = $1`, f.j[6])
	want("a deleted job")

	jobsRead := func() (n int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM (
				SELECT coalesce(seq_tup_read, 0) AS n FROM pg_stat_user_tables WHERE relname = 'jobs'
				UNION ALL SELECT idx_tup_read FROM pg_stat_user_indexes WHERE relname = 'jobs') x`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A backend reports its statistics at most once a second: unchanged for 1.5 s, all are in.
	settle := func() int64 {
		t.Helper()
		n := jobsRead()
		for same := 0; same < 5; {
			time.Sleep(300 * time.Millisecond)
			m := jobsRead()
			if m == n {
				same++
			} else {
				same = 0
			}
			n = m
		}
		return n
	}
	before := settle()
	features()
	if after := settle(); after != before {
		t.Errorf("getCompanyFeatures read %d rows of jobs; want none (job_counts)", after-before)
	}

	// totalPositions without a window: the counts of the jobs, none of them read.
	var total, open float64
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE is_open) FROM jobs WHERE company_id = $1 AND NOT is_deleted`,
		f.acme.ID).Scan(&total, &open); err != nil {
		t.Fatal(err)
	}
	before = settle()
	m, _ := f.decode(t, "getPositionStats", map[string]any{"metric": "totalPositions"})
	if after := settle(); after != before {
		t.Errorf("getPositionStats totalPositions read %d rows of jobs; want none (job_counts)", after-before)
	}
	expect(t, m, map[string]float64{"totalPositions.count": total, "totalPositions.open": open, "totalPositions.closed": total - open})
}
