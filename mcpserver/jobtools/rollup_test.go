package jobtools_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// Company-wide byDecision and funnel read the rollups of migration 00007 (session_daily,
// candidate_journeys) and candidatesPerPosition reads job_totals; the fixture's rows are inserted
// through SQL, so the triggers fill them. These tests check the rollup reads against the source
// rows: at partial-day window ends, against independent SQL, and after updates and deletes.

// exec runs a statement on the fixture's database (the rollup triggers run).
func (f *fixture) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := f.h.DB.SQL.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
}

// addSession inserts an Acme session without an application; STARTED and COMPLETED sessions get
// started_at (and COMPLETED completed_at) after invited.
func (f *fixture) addSession(t *testing.T, cand, job uuid.UUID, invited time.Time, status, decision string) {
	t.Helper()
	f.exec(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, started_at, completed_at, decision)
		VALUES ($1, $2, $3, $4::text, 'VIDEO', $5::timestamptz,
		        CASE WHEN $4::text IN ('STARTED', 'COMPLETED') THEN $5::timestamptz + interval '1 hour' END,
		        CASE WHEN $4::text = 'COMPLETED' THEN $5::timestamptz + interval '2 hours' END, $6)`,
		f.acme.ID, cand, job, status, invited, decision)
}

// decisions calls byDecision and returns the sessions per decision (every decision present) and
// the total.
func (f *fixture) decisions(t *testing.T, args map[string]any) (map[string]float64, float64) {
	t.Helper()
	m, _ := f.decode(t, "getCandidatePipelineStats", withMetric(args, "byDecision"))
	out := map[string]float64{}
	for _, d := range jsonPath(t, m, "byDecision.decisions").([]any) {
		out[jsonPath(t, d, "decision").(string)] = num(t, d, "sessions")
	}
	return out, num(t, m, "byDecision.totalSessions")
}

// stages calls the funnel and returns its candidates per stage.
func (f *fixture) stages(t *testing.T, args map[string]any) [6]float64 {
	t.Helper()
	m, _ := f.decode(t, "getCandidatePipelineStats", withMetric(args, "funnel"))
	var out [6]float64
	for i := range out {
		out[i] = num(t, m, "funnel.stages."+itoa(i)+".candidates")
	}
	return out
}

func withMetric(args map[string]any, metric string) map[string]any {
	m := map[string]any{"metric": metric}
	for k, v := range args {
		m[k] = v
	}
	return m
}

func decisionMap(none, accepted, rejected, submitted, placed, hired float64) map[string]float64 {
	return map[string]float64{"NONE": none, "ACCEPTED": accepted, "REJECTED": rejected, "SUBMITTED": submitted,
		"PLACED": placed, "HIRED": hired}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestPipelineByDecisionEdges checks that company-wide byDecision counts the partial days at a
// window's ends from the sessions, exactly, around both ends.
func TestPipelineByDecisionEdges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Eve's sessions on J4 (the fixture has none in April).
	for _, s := range []struct{ at, decision string }{
		{"2026-04-10T02:00:00Z", "PLACED"},       // start day, before the start
		{"2026-04-10T15:29:59.999Z", "REJECTED"}, // just before the start
		{"2026-04-10T15:30:00Z", "ACCEPTED"},     // the start (inclusive)
		{"2026-04-11T00:00:00Z", "NONE"},         // first whole day
		{"2026-04-15T12:00:00Z", "HIRED"},
		{"2026-04-19T23:59:59.999Z", "NONE"},      // last whole day
		{"2026-04-20T08:14:59.999Z", "SUBMITTED"}, // just before the end
		{"2026-04-20T08:15:00Z", "PLACED"},        // the end (exclusive)
		{"2026-04-20T20:00:00Z", "REJECTED"},      // end day, after the end
	} {
		f.addSession(t, f.c[5], f.j[4], at(s.at), "COMPLETED", s.decision)
	}
	check := func(name string, args map[string]any, want map[string]float64) {
		t.Helper()
		got, total := f.decisions(t, args)
		wantTotal := 0.0
		for _, n := range want {
			wantTotal += n
		}
		if !sameCounts(got, want) || total != wantTotal {
			t.Errorf("%s: byDecision = %v (total %v), want %v", name, got, total, want)
		}
	}
	// 04-10 15:30Z (given as 17:30+02:00) .. 04-20 08:15Z: whole days 04-11..04-19 from the
	// rollup, 04-10 and 04-20 from the sessions.
	ragged := map[string]any{"sinceDate": "2026-04-10T17:30:00+02:00", "untilDate": "2026-04-20T08:15:00Z"}
	check("ragged window", ragged, decisionMap(2, 1, 0, 1, 0, 1))
	ragged["positionId"] = f.j[4].String()
	check("ragged window, J4 (source rows)", ragged, decisionMap(2, 1, 0, 1, 0, 1))
	// Whole days only (untilDate is inclusive).
	check("whole days", map[string]any{"sinceDate": "2026-04-11", "untilDate": "2026-04-19"}, decisionMap(2, 0, 0, 0, 0, 1))
	// No whole day: the window is one edge.
	check("inside one day", map[string]any{"sinceDate": "2026-04-10T15:00:00Z", "untilDate": "2026-04-10T16:00:00Z"}, decisionMap(0, 1, 1, 0, 0, 0))
	// Open start, ragged end: the fixture's six sessions plus 04-10 02:00 and 15:29:59.
	check("open start", map[string]any{"untilDate": "2026-04-10T15:30:00Z"}, decisionMap(3, 1, 2, 0, 1, 1))
	// Ragged start, open end: from 04-20 08:15 on.
	check("open end", map[string]any{"sinceDate": "2026-04-20T08:15:00Z"}, decisionMap(0, 0, 1, 0, 1, 0))
	// Globex's session (02-13 09:00) never counts, whether its day is whole or an edge.
	check("Globex's day", map[string]any{"sinceDate": "2026-02-13", "untilDate": "2026-02-13"}, decisionMap(0, 0, 0, 0, 0, 0))
	check("Globex's hour", map[string]any{"sinceDate": "2026-02-13T08:00:00Z", "untilDate": "2026-02-13T10:00:00Z"}, decisionMap(0, 0, 0, 0, 0, 0))
}

// TestPipelineRollupsMatchSource generates applications and sessions at arbitrary times and
// checks byDecision and the funnel, company-wide and per job, against counts computed here in
// plain SQL from the source tables.
func TestPipelineRollupsMatchSource(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	db := f.h.DB.SQL
	f.exec(t, `INSERT INTO candidates (company_id, first_name, last_name, status, created_at)
		SELECT $1, 'Gen', 'Candidate ' || i, (ARRAY['new', 'screening', 'hired'])[1 + i % 3],
		       timestamptz '2026-01-01' + i * interval '3 days 5 hours 7 minutes' FROM generate_series(1, 30) i`, f.acme.ID)
	var cands []uuid.UUID
	rows, err := db.QueryContext(ctx, `SELECT id FROM candidates WHERE company_id = $1 ORDER BY first_name, last_name`, f.acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		cands = append(cands, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()

	// Applications, then sessions (mostly after an application, some before or without one), each
	// set in one statement so the statement-level triggers see many rows at once.
	rng := rand.New(rand.NewPCG(7, 11))
	start := at("2026-01-01T00:00:00Z")
	when := func() time.Time { return start.Add(time.Duration(rng.Int64N(int64(160 * 24 * time.Hour)))) }
	jobs := f.j[1:7]
	var aCand, aJob, aAt, sCand, sJob, sAt, sStatus, sDecision []string
	statuses := []string{"INVITED", "STARTED", "COMPLETED", "COMPLETED", "EXPIRED", "CANCELLED"}
	for range 80 {
		c, j, t0 := cands[rng.IntN(len(cands))], jobs[rng.IntN(len(jobs))], when()
		if rng.IntN(5) > 0 {
			aCand, aJob, aAt = append(aCand, c.String()), append(aJob, j.String()), append(aAt, t0.Format(time.RFC3339Nano))
		}
		for range rng.IntN(3) {
			st, d := statuses[rng.IntN(len(statuses))], "NONE"
			if st == "COMPLETED" {
				d = string(models.AllDecisions()[rng.IntN(len(models.AllDecisions()))])
			}
			inv := t0.Add(time.Duration(rng.Int64N(int64(20*24*time.Hour))) - 2*24*time.Hour)
			sCand, sJob, sAt = append(sCand, c.String()), append(sJob, j.String()), append(sAt, inv.Format(time.RFC3339Nano))
			sStatus, sDecision = append(sStatus, st), append(sDecision, d)
		}
	}
	f.exec(t, `INSERT INTO applications (company_id, candidate_id, job_id, source, created_at)
		SELECT $1, c::uuid, j::uuid, 'manual', a::timestamptz FROM unnest($2::text[], $3::text[], $4::text[]) AS x(c, j, a)`,
		f.acme.ID, models.StringArray(aCand), models.StringArray(aJob), models.StringArray(aAt))
	f.exec(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, started_at, completed_at, decision)
		SELECT $1, c::uuid, j::uuid, st, 'VIDEO', a::timestamptz,
		       CASE WHEN st IN ('STARTED', 'COMPLETED') OR (st = 'EXPIRED' AND extract(second FROM a::timestamptz) < 20)
		            THEN a::timestamptz + interval '10 minutes' END,
		       CASE WHEN st = 'COMPLETED' THEN a::timestamptz + interval '40 minutes' END, d
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(c, j, a, st, d)`,
		f.acme.ID, models.StringArray(sCand), models.StringArray(sJob), models.StringArray(sAt), models.StringArray(sStatus), models.StringArray(sDecision))

	// The plain-SQL cohort funnel: entry per candidate, then EXISTS per stage.
	const funnelSQL = `
		WITH s AS (
			SELECT * FROM interview_sessions WHERE company_id = $1 AND ($2::uuid IS NULL OR job_id = $2)
		), cohort AS (
			SELECT candidate_id FROM (
				SELECT candidate_id, created_at AS t FROM applications WHERE company_id = $1 AND ($2::uuid IS NULL OR job_id = $2)
				UNION ALL
				SELECT candidate_id, invited_at FROM s
			) e GROUP BY candidate_id
			HAVING min(t) >= coalesce($3::timestamptz, '-infinity') AND min(t) < coalesce($4::timestamptz, 'infinity')
		)
		SELECT count(*),
		       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM s WHERE s.candidate_id = c.candidate_id)),
		       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM s WHERE s.candidate_id = c.candidate_id
		                                      AND (s.started_at IS NOT NULL OR s.status IN ('STARTED', 'COMPLETED')))),
		       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM s WHERE s.candidate_id = c.candidate_id AND s.status = 'COMPLETED')),
		       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM s WHERE s.candidate_id = c.candidate_id
		                                      AND s.decision IN ('ACCEPTED', 'SUBMITTED', 'PLACED', 'HIRED'))),
		       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM s WHERE s.candidate_id = c.candidate_id AND s.decision = 'HIRED'))
		FROM cohort c`
	const decisionSQL = `
		SELECT decision, count(*) FROM interview_sessions
		WHERE company_id = $1 AND ($2::uuid IS NULL OR job_id = $2)
		  AND invited_at >= coalesce($3::timestamptz, '-infinity') AND invited_at < coalesce($4::timestamptz, 'infinity')
		GROUP BY decision`

	windows := []struct{ since, until string }{
		{"", ""},
		{"2026-02-01T00:00:00Z", ""},
		{"", "2026-03-17T00:00:00Z"},
		{"2026-01-20T13:45:00Z", "2026-04-02T07:10:00Z"},
		{"2026-02-10T22:00:00-05:00", "2026-05-31T23:30:00+05:30"},
		{"2026-03-03T10:00:00Z", "2026-03-03T20:00:00Z"},
		{"2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"},
	}
	scopes := append([]uuid.UUID{uuid.Nil}, jobs...)
	nonEmpty := 0
	for _, w := range windows {
		var since, until *time.Time
		args := map[string]any{}
		if w.since != "" {
			v := at(w.since)
			since, args["sinceDate"] = &v, w.since
		}
		if w.until != "" {
			v := at(w.until)
			until, args["untilDate"] = &v, w.until
		}
		for _, job := range scopes {
			name := fmt.Sprintf("window %q..%q, ", w.since, w.until)
			var jobArg *uuid.UUID
			if job == uuid.Nil {
				name += "company-wide"
				args["companyWide"] = true
				delete(args, "positionId")
			} else {
				name += "job " + job.String()
				jobArg = &job
				args["positionId"] = job.String()
				delete(args, "companyWide")
			}
			if job == uuid.Nil {
				wantStatus := countsBy(t, db, `SELECT status, count(*) FROM candidates WHERE company_id = $1
					AND ($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at < $3) GROUP BY 1`,
					f.acme.ID, since, until)
				m, _ := f.decode(t, "getCandidatePipelineStats", withMetric(args, "byStatus"))
				gotStatus := map[string]float64{}
				for _, s := range jsonPath(t, m, "byStatus.statuses").([]any) {
					gotStatus[jsonPath(t, s, "status").(string)] = num(t, s, "candidates")
				}
				if !sameCounts(gotStatus, wantStatus) {
					t.Errorf("%s: byStatus = %v, want %v", name, gotStatus, wantStatus)
				}
			}
			var want [6]float64
			if err := db.QueryRowContext(ctx, funnelSQL, f.acme.ID, jobArg, since, until).Scan(&want[0], &want[1], &want[2], &want[3], &want[4], &want[5]); err != nil {
				t.Fatal(err)
			}
			if got := f.stages(t, args); got != want {
				t.Errorf("%s: funnel = %v, want %v", name, got, want)
			}
			wantDec := decisionMap(0, 0, 0, 0, 0, 0)
			wantTotal := 0.0
			for d, n := range countsBy(t, db, decisionSQL, f.acme.ID, jobArg, since, until) {
				wantDec[d], wantTotal = n, wantTotal+n
			}
			if got, total := f.decisions(t, args); !sameCounts(got, wantDec) || total != wantTotal {
				t.Errorf("%s: byDecision = %v (total %v), want %v (total %v)", name, got, total, wantDec, wantTotal)
			}
			if want[0] > 0 && wantTotal > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < len(windows)*len(scopes)/2 {
		t.Errorf("only %d of %d comparisons are non-empty; the generated data is too sparse", nonEmpty, len(windows)*len(scopes))
	}
}

// TestPipelineRollupsFollowWrites checks that the answers follow updates and deletes of the
// source rows (the rollups are trigger-maintained, not stale copies).
func TestPipelineRollupsFollowWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	all := map[string]any{}
	march := map[string]any{"sinceDate": "2026-03-01", "untilDate": "2026-03-31"}
	carolsDay := map[string]any{"sinceDate": "2026-02-16T06:00:00Z", "untilDate": "2026-02-17"}
	checkDec := func(step string, args map[string]any, want map[string]float64) {
		t.Helper()
		if got, _ := f.decisions(t, args); !sameCounts(got, want) {
			t.Errorf("%s: byDecision(%v) = %v, want %v", step, args, got, want)
		}
	}
	checkFunnel := func(step string, args map[string]any, want [6]float64) {
		t.Helper()
		if got := f.stages(t, args); got != want {
			t.Errorf("%s: funnel(%v) = %v, want %v", step, args, got, want)
		}
	}
	applicants := func() map[string]float64 {
		m, _ := f.decode(t, "getPositionStats", map[string]any{"metric": "candidatesPerPosition"})
		out := map[string]float64{}
		for _, p := range jsonPath(t, m, "candidatesPerPosition.topPositions").([]any) {
			out[jsonPath(t, p, "id").(string)] = num(t, p, "candidates")
		}
		return out
	}
	// getJobsSummary's session counts (job_totals) against the sessions.
	checkSummary := func(step string) {
		t.Helper()
		want := countsBy(t, f.h.Store.SQL(), `SELECT j.id::text || ' ' || count(s.id) || ' ' || count(s.id) FILTER (WHERE s.status = 'COMPLETED'), 1
			FROM jobs j LEFT JOIN interview_sessions s ON s.company_id = j.company_id AND s.job_id = j.id
			WHERE j.company_id = $1 AND NOT j.is_deleted GROUP BY j.id`, f.acme.ID)
		m, _ := f.decode(t, "getJobsSummary", nil)
		got := map[string]float64{}
		for _, j := range jsonPath(t, m, "jobs").([]any) {
			got[fmt.Sprintf("%s %v %v", jsonPath(t, j, "id"), num(t, j, "sessions"), num(t, j, "completedSessions"))] = 1
		}
		if !sameCounts(got, want) {
			t.Errorf("%s: getJobsSummary sessions = %v, source %v", step, got, want)
		}
	}
	checkSummary("fixture")
	checkDec("fixture", all, decisionMap(3, 1, 1, 0, 0, 1))
	checkDec("fixture", carolsDay, decisionMap(1, 0, 0, 0, 0, 0))
	checkFunnel("fixture", all, [6]float64{4, 4, 3, 3, 2, 1})

	// Carol completes s3 and is hired.
	f.exec(t, `UPDATE interview_sessions SET status = 'COMPLETED', started_at = invited_at + interval '1 hour',
		completed_at = invited_at + interval '2 hours', decision = 'HIRED' WHERE id = $1`, f.s[3])
	checkDec("s3 hired", all, decisionMap(2, 1, 1, 0, 0, 2))
	checkDec("s3 hired", carolsDay, decisionMap(0, 0, 0, 0, 0, 1))
	checkFunnel("s3 hired", all, [6]float64{4, 4, 4, 4, 3, 2})
	checkFunnel("s3 hired, J1", map[string]any{"positionId": f.j[1].String()}, [6]float64{3, 3, 3, 3, 3, 2})
	checkSummary("s3 hired")

	// Bob's hired session s2 is deleted: he keeps s4 (STARTED), so he started but completed nothing.
	f.exec(t, `DELETE FROM interview_sessions WHERE id = $1`, f.s[2])
	checkDec("s2 deleted", all, decisionMap(2, 1, 1, 0, 0, 1))
	checkFunnel("s2 deleted", all, [6]float64{4, 4, 4, 3, 2, 1})

	// Dave's s6 moves from 03-11 to 04-01: March loses its REJECTED session.
	checkDec("before the move", march, decisionMap(1, 0, 1, 0, 0, 0))
	f.exec(t, `UPDATE interview_sessions SET invited_at = '2026-04-01T09:00:00Z' WHERE id = $1`, f.s[6])
	checkDec("s6 moved", march, decisionMap(1, 0, 0, 0, 0, 0))
	checkDec("s6 moved", map[string]any{"sinceDate": "2026-04-01"}, decisionMap(0, 0, 1, 0, 0, 0))

	// Dave's only application (J3, 03-10) is deleted: he now enters with s6 on 04-01, and J3 has
	// no applicants.
	since := map[string]any{"sinceDate": "2026-03-15"}
	checkFunnel("before the application delete", since, [6]float64{0, 0, 0, 0, 0, 0})
	if got := applicants()[f.j[3].String()]; got != 1 {
		t.Errorf("J3 applicants before the delete = %v, want 1", got)
	}
	f.exec(t, `DELETE FROM applications WHERE company_id = $1 AND candidate_id = $2`, f.acme.ID, f.c[4])
	checkFunnel("application deleted", since, [6]float64{1, 1, 1, 1, 0, 0})
	if got := applicants()[f.j[3].String()]; got != 0 {
		t.Errorf("J3 applicants after the delete = %v, want 0", got)
	}

	// Alice is deleted (cascading to her applications and sessions).
	f.exec(t, `DELETE FROM candidates WHERE id = $1`, f.c[1])
	checkDec("Alice deleted", all, decisionMap(1, 0, 1, 0, 0, 1))
	checkFunnel("Alice deleted", all, [6]float64{3, 3, 3, 2, 1, 1})
	checkSummary("Alice deleted")
	if got := applicants(); got[f.j[1].String()] != 2 || got[f.j[2].String()] != 0 {
		t.Errorf("applicants after Alice's deletion: J1 %v, J2 %v; want 2, 0", got[f.j[1].String()], got[f.j[2].String()])
	}
}

// countsBy runs a query of (key, count) rows and returns the counts by key.
func countsBy(t *testing.T, db *sql.DB, query string, args ...any) map[string]float64 {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]float64{}
	for rows.Next() {
		var k string
		var n float64
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		m[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}
