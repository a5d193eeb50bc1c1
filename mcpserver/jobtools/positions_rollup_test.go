package jobtools_test

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"
)

// TestCandidatesPerPositionComputedInSQL: candidatesPerPosition (its figures and the listed
// positions computed in one statement over job_totals) equals what the applications say,
// computed here as the tool did before (every position loaded, a stable sort by candidates over
// the newest-first list): with 66 positions (more than the 50 listed, ties of every count, an
// even and an odd number of positions), under filters, with changes pending and folded.
func TestCandidatesPerPositionComputedInSQL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db, ctx := f.h.DB.SQL, t.Context()
	f.exec(t, `INSERT INTO jobs SELECT (jsonb_populate_record(NULL::jobs, to_jsonb(j) || jsonb_build_object(
			'id', gen_random_uuid(), 'title', 'Generated ' || g, 'external_id', 'GEN-' || g, 'interviewer_id', 'gen-' || g,
			'created_at', timestamptz '2026-02-01T00:00:00Z' + (g % 40) * interval '1 day',
			'status', CASE WHEN g % 3 = 0 THEN 'PAUSED' ELSE 'ACTIVE' END))).*
		FROM jobs j, generate_series(1, 60) g WHERE j.id = $1`, f.j[1])
	f.exec(t, `INSERT INTO applications (company_id, candidate_id, job_id, source)
		SELECT $1, c, j.id, 'manual' FROM jobs j, unnest($2::uuid[]) WITH ORDINALITY u(c, k)
		WHERE j.company_id = $1 AND j.title LIKE 'Generated %' AND k <= substr(j.title, 11)::int % 6`,
		f.acme.ID, "{"+f.c[1].String()+","+f.c[2].String()+","+f.c[3].String()+","+f.c[4].String()+","+f.c[5].String()+"}")

	type pos struct {
		id      string
		n       float64
		created time.Time
	}
	check := func(when string, args map[string]any) {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT j.id::text, count(DISTINCT a.candidate_id), j.created_at FROM jobs j
			LEFT JOIN applications a ON a.company_id = j.company_id AND a.job_id = j.id
			WHERE j.company_id = $1 AND NOT j.is_deleted AND ($2::text IS NULL OR j.status = $2)
			  AND ($3::timestamptz IS NULL OR j.created_at >= $3) AND ($4::timestamptz IS NULL OR j.created_at < $4)
			GROUP BY j.id ORDER BY j.created_at DESC, j.id DESC`, f.acme.ID, args["status"], date(args["sinceDate"], 0), date(args["untilDate"], 1))
		if err != nil {
			t.Fatal(err)
		}
		var ps []pos
		for rows.Next() {
			var p pos
			if err := rows.Scan(&p.id, &p.n, &p.created); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		rows.Close()
		args["metric"] = "candidatesPerPosition"
		m, _ := f.decode(t, "getPositionStats", args)
		if got := num(t, m, "candidatesPerPosition.positions"); got != float64(len(ps)) {
			t.Fatalf("%s %v: positions = %v, the jobs %d", when, args, got, len(ps))
		}
		values, sum, zero := []float64{}, 0.0, 0.0
		for _, p := range ps {
			values, sum = append(values, p.n), sum+p.n
			if p.n == 0 {
				zero++
			}
		}
		slices.Sort(values)
		med := values[len(values)/2]
		if len(values)%2 == 0 {
			med = (values[len(values)/2-1] + values[len(values)/2]) / 2
		}
		expect(t, m, map[string]float64{
			"candidatesPerPosition.positionsWithoutCandidates": zero, "candidatesPerPosition.max": values[len(values)-1],
			"candidatesPerPosition.average": math.Round(sum/float64(len(ps))*100) / 100, "candidatesPerPosition.median": med,
		})
		if tr := jsonPath(t, m, "candidatesPerPosition.truncated"); tr != (len(ps) > 50) {
			t.Errorf("%s %v: truncated = %v with %d positions", when, args, tr, len(ps))
		}
		ranked := slices.Clone(ps)
		slices.SortStableFunc(ranked, func(a, b pos) int { return cmp.Compare(b.n, a.n) })
		ranked = ranked[:min(len(ranked), 50)]
		top := jsonPath(t, m, "candidatesPerPosition.topPositions").([]any)
		if len(top) != len(ranked) {
			t.Fatalf("%s %v: %d positions listed, want %d", when, args, len(top), len(ranked))
		}
		for i, p := range ranked {
			if id, n := jsonPath(t, top[i], "id"), num(t, top[i], "candidates"); id != p.id || n != p.n {
				t.Errorf("%s %v: listed #%d = %v with %v, want %s with %v", when, args, i, id, n, p.id, p.n)
			}
		}
	}
	filters := func(when string) {
		t.Helper()
		for _, args := range []map[string]any{{}, {"status": "ACTIVE"}, {"status": "PAUSED"}, {"sinceDate": "2026-02-10", "untilDate": "2026-03-02"}} {
			check(when, args)
		}
	}
	filters("the fixture and 60 positions")
	f.exec(t, `SELECT rollup_fold()`)
	filters("folded")
	f.exec(t, `DELETE FROM applications WHERE company_id = $1 AND candidate_id = $2`, f.acme.ID, f.c[2])
	f.exec(t, `UPDATE jobs SET is_deleted = true WHERE company_id = $1 AND title = 'Generated 7'`, f.acme.ID)
	filters("pending changes")
	f.exec(t, `SELECT rollup_fold()`)
	filters("folded changes")
}
