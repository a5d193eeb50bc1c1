package rollup_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// seeded loads two small companies (rollups rebuilt after the load) and returns their ids.
func seeded(t *testing.T) (*sql.DB, []uuid.UUID) {
	t.Helper()
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	if _, err := seed.Scale(t.Context(), st, seed.ScaleOptions{Companies: 2, Candidates: 200, SessionsPerCandidate: 3, Seed: 7, AsOf: asOf}); err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	rows, err := db.SQL.Query("SELECT id FROM companies ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if len(ids) < 2 {
		t.Fatalf("%d companies seeded", len(ids))
	}
	return db.SQL, ids
}

func checkAll(t *testing.T, db *sql.DB, ids []uuid.UUID, after string) {
	t.Helper()
	for _, id := range ids {
		if err := rollup.Check(context.Background(), db, id); err != nil {
			t.Fatalf("after %s: %v", after, err)
		}
	}
}

// TestTriggersKeepRollupsExact changes the source tables the ways the service and support do
// (single rows, bulk statements, cascades) and compares the trigger-maintained rollups with a
// rebuild after each step.
func TestTriggersKeepRollupsExact(t *testing.T) {
	db, ids := seeded(t)
	checkAll(t, db, ids, "the load")
	var rolled int
	if err := db.QueryRow("SELECT count(*) FROM candidate_journeys").Scan(&rolled); err != nil || rolled == 0 {
		t.Fatalf("candidate_journeys has %d rows (%v); the load did not build the rollups", rolled, err)
	}
	a := ids[0]
	steps := []struct{ name, stmt string }{
		{"one session completes", `UPDATE interview_sessions SET status = 'COMPLETED', started_at = invited_at + interval '1 hour',
			completed_at = invited_at + interval '2 hours', duration_seconds = 1234
			WHERE id = (SELECT id FROM interview_sessions WHERE company_id = $1 AND status = 'INVITED' ORDER BY id LIMIT 1)`},
		{"decisions change in bulk", `UPDATE interview_sessions SET decision = 'HIRED'
			WHERE company_id = $1 AND status = 'COMPLETED' AND id::text LIKE '%1'`},
		{"a completion moves across a slot and a day", `UPDATE interview_sessions SET completed_at = completed_at + interval '1 day 7 minutes',
			invited_at = invited_at + interval '3 hours'
			WHERE company_id = $1 AND status = 'COMPLETED' AND id::text LIKE '%2'`},
		{"durations are cleared", `UPDATE interview_sessions SET duration_seconds = NULL WHERE company_id = $1 AND id::text LIKE '%3'`},
		{"a completed session changes medium", `UPDATE interview_sessions SET medium_type = 'PHONE'
			WHERE company_id = $1 AND status = 'COMPLETED' AND medium_type <> 'PHONE' AND id::text LIKE '%5'`},
		{"an unrelated column changes", `UPDATE interview_sessions SET recruiter_review = 'ok' WHERE company_id = $1`},
		{"sessions are deleted", `DELETE FROM interview_sessions WHERE company_id = $1 AND id::text LIKE '%4'`},
		{"applications are deleted", `DELETE FROM applications WHERE company_id = $1 AND id::text LIKE '%5'`},
		{"a candidate applies again", `INSERT INTO applications (id, company_id, job_id, candidate_id, source, status, created_at, updated_at)
			SELECT gen_random_uuid(), company_id, job_id, candidate_id, source, status, created_at - interval '400 days', updated_at
			FROM applications WHERE company_id = $1 AND id::text LIKE '%6'`},
		{"a candidate applies twice to another job in one statement", `INSERT INTO applications (id, company_id, job_id, candidate_id, source, status, created_at, updated_at)
			SELECT gen_random_uuid(), a.company_id, j.id, a.candidate_id, a.source, a.status, a.created_at, a.updated_at
			FROM applications a CROSS JOIN generate_series(1, 2)
			JOIN LATERAL (SELECT id FROM jobs WHERE company_id = a.company_id AND id <> a.job_id ORDER BY id LIMIT 1) j ON true
			WHERE a.id = (SELECT id FROM applications WHERE company_id = $1 ORDER BY id LIMIT 1)`},
		{"applications move to another job", `UPDATE applications a SET job_id = (SELECT id FROM jobs WHERE company_id = a.company_id
			AND id <> a.job_id ORDER BY id DESC LIMIT 1) WHERE company_id = $1 AND id::text LIKE '%7'`},
		{"evaluations change", `UPDATE cheating_evaluations SET cheating_score = 99, created_at = created_at + interval '2 days'
			WHERE company_id = $1 AND id::text LIKE '%7'`},
		{"evaluations move within and across whole score points", `UPDATE cheating_evaluations SET cheating_score = CASE WHEN cheating_score < 99.5
			THEN cheating_score + 0.5 ELSE cheating_score - 30 END WHERE company_id = $1 AND id::text LIKE '%f'`},
		{"evaluations are deleted", `DELETE FROM cheating_evaluations WHERE company_id = $1 AND id::text LIKE '%8'`},
		{"candidates get a later evaluation", `INSERT INTO cheating_evaluations (company_id, session_id, candidate_id, job_id, cheating_score, created_at)
			SELECT company_id, id, candidate_id, job_id, 88.5, completed_at + interval '20 days' FROM interview_sessions s
			WHERE company_id = $1 AND status = 'COMPLETED' AND NOT EXISTS (SELECT 1 FROM cheating_evaluations e WHERE e.session_id = s.id)`},
		{"an evaluation becomes a candidate's first", `UPDATE cheating_evaluations SET created_at = created_at - interval '400 days'
			WHERE id = (SELECT id FROM cheating_evaluations WHERE company_id = $1 AND cheating_score >= 50 ORDER BY id LIMIT 1)`},
		{"fraud checks change", `UPDATE fraud_verifications SET overall_verification_score = 24.99, vpn_proxy_ip = NOT vpn_proxy_ip,
			created_at = created_at - interval '1 day' WHERE company_id = $1 AND id::text LIKE '%9'`},
		{"fraud scores move by a fraction of a point", `UPDATE fraud_verifications SET overall_verification_score = CASE
			WHEN overall_verification_score >= 0.3 THEN overall_verification_score - 0.3 ELSE 70 END WHERE company_id = $1 AND id::text LIKE '%0'`},
		{"fraud checks are deleted", `DELETE FROM fraud_verifications WHERE company_id = $1 AND id::text LIKE '%a'`},
		{"candidates get a later fraud check", `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, created_at)
			SELECT company_id, candidate_id, 12.5, created_at + interval '3 days' FROM fraud_verifications WHERE company_id = $1 AND id::text LIKE '%2'`},
		{"a fraud check moves before the candidate's others", `UPDATE fraud_verifications SET created_at = created_at - interval '30 days'
			WHERE company_id = $1 AND id::text LIKE '%3'`},
		{"identity checks conclude", `UPDATE identity_verifications SET status = 'FAILED', failure_reason = ' Selfie does not match ',
			completed_at = created_at + interval '1 hour' WHERE company_id = $1 AND id::text LIKE '%b'`},
		{"failure reasons change and checks move a day", `UPDATE identity_verifications SET failure_reason = NULL,
			created_at = created_at + interval '1 day' WHERE company_id = $1 AND status = 'FAILED' AND id::text LIKE '%c'`},
		{"identity checks are deleted", `DELETE FROM identity_verifications WHERE company_id = $1 AND id::text LIKE '%d'`},
		{"candidates change status", `UPDATE candidates SET status = 'interviewing' WHERE company_id = $1 AND id::text LIKE '%e'`},
		{"a candidate moves a day", `UPDATE candidates SET created_at = created_at - interval '1 day' WHERE id = (
			SELECT id FROM candidates WHERE company_id = $1 ORDER BY id LIMIT 1)`},
		{"a candidate is added", `INSERT INTO candidates (company_id, first_name, last_name, status, created_at, updated_at)
			VALUES ($1, 'New', 'Person', 'new', now(), now())`},
		{"a candidate is deleted (cascade)", `DELETE FROM candidates WHERE id = (
			SELECT candidate_id FROM interview_sessions WHERE company_id = $1 ORDER BY id LIMIT 1)`},
		{"jobs change status and are soft-deleted", `UPDATE jobs SET status = CASE status WHEN 'ACTIVE' THEN 'PAUSED' ELSE 'ACTIVE' END,
			is_deleted = id::text < '8', enable_identity_verification = NOT enable_identity_verification WHERE company_id = $1`},
		{"a job is deleted (cascade)", `DELETE FROM jobs WHERE id = (
			SELECT job_id FROM interview_sessions WHERE company_id = $1 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1)`},
	}
	for _, s := range steps {
		res, err := db.Exec(s.stmt, a)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			t.Fatalf("%s: no rows changed; the step tests nothing", s.name)
		}
		checkAll(t, db, ids, s.name)
	}

	// A whole company goes: its rollups go with it, the other company's stay exact.
	if _, err := db.Exec("DELETE FROM companies WHERE id = $1", a); err != nil {
		t.Fatal(err)
	}
	for _, tb := range rollup.Tables {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM "+tb.Name+" WHERE company_id = $1", a).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s keeps %d rows of the deleted company (%v)", tb.Name, n, err)
		}
	}
	checkAll(t, db, ids[1:], "another company's deletion")
}

// TestCheckFindsDrift proves Check is not vacuous: a rollup row changed behind the triggers'
// back is reported.
func TestCheckFindsDrift(t *testing.T) {
	db, ids := seeded(t)
	for _, tb := range rollup.Tables {
		corrupt := map[string]string{
			"session_daily":          "UPDATE session_daily_folded SET sessions = sessions + 1 WHERE ctid = (SELECT ctid FROM session_daily_folded WHERE company_id = $1 LIMIT 1)",
			"completion_slots":       "UPDATE completion_slots_folded SET duration_sum = duration_sum - 1 WHERE ctid = (SELECT ctid FROM completion_slots_folded WHERE company_id = $1 LIMIT 1)",
			"evaluation_daily":       "DELETE FROM evaluation_daily WHERE ctid = (SELECT ctid FROM evaluation_daily WHERE company_id = $1 LIMIT 1)",
			"fraud_daily":            "UPDATE fraud_daily SET band_50_75 = band_50_75 + 1 WHERE ctid = (SELECT ctid FROM fraud_daily WHERE company_id = $1 LIMIT 1)",
			"identity_daily":         "UPDATE identity_daily SET verifications = verifications + 1 WHERE ctid = (SELECT ctid FROM identity_daily WHERE company_id = $1 LIMIT 1)",
			"job_totals":             "UPDATE job_totals_folded SET applicants = applicants + 1 WHERE ctid = (SELECT ctid FROM job_totals_folded WHERE company_id = $1 LIMIT 1)",
			"job_daily":              "INSERT INTO job_rollup_deltas (company_id, job_id, day, completed) SELECT company_id, job_id, day, 1 FROM job_daily WHERE company_id = $1 LIMIT 1",
			"job_applicants":         "UPDATE job_applicants SET applications = applications + 1 WHERE ctid = (SELECT ctid FROM job_applicants WHERE company_id = $1 LIMIT 1)",
			"candidate_daily":        "UPDATE candidate_daily_folded SET status = 'x' || status WHERE ctid = (SELECT ctid FROM candidate_daily_folded WHERE company_id = $1 LIMIT 1)",
			"journey_daily":          "UPDATE journey_daily_folded SET candidates = candidates - 1 WHERE ctid = (SELECT ctid FROM journey_daily_folded WHERE company_id = $1 LIMIT 1)",
			"candidate_media":        "UPDATE candidate_media SET completed_n = completed_n + 1 WHERE ctid = (SELECT ctid FROM candidate_media WHERE company_id = $1 LIMIT 1)",
			"candidate_journeys":     "UPDATE candidate_journeys SET hired = NOT hired WHERE ctid = (SELECT ctid FROM candidate_journeys WHERE company_id = $1 LIMIT 1)",
			"evaluation_scores":      "UPDATE evaluation_scores SET score = score + 101 WHERE ctid = (SELECT ctid FROM evaluation_scores WHERE company_id = $1 LIMIT 1)",
			"job_evaluation_scores":  "UPDATE job_evaluation_scores SET evaluated = evaluated + 1 WHERE ctid = (SELECT ctid FROM job_evaluation_scores WHERE company_id = $1 LIMIT 1)",
			"fraud_scores":           "DELETE FROM fraud_scores WHERE ctid = (SELECT ctid FROM fraud_scores WHERE company_id = $1 LIMIT 1)",
			"journey_last_daily":     "UPDATE journey_last_daily_folded SET candidates = candidates + 2 WHERE ctid = (SELECT ctid FROM journey_last_daily_folded WHERE company_id = $1 LIMIT 1)",
			"completion_slot_totals": "UPDATE completion_slot_totals_folded SET duration_sum = duration_sum + 1 WHERE ctid = (SELECT ctid FROM completion_slot_totals_folded WHERE company_id = $1 LIMIT 1)",
			"media_candidates":       "UPDATE media_candidates_folded SET candidates = candidates - 1 WHERE ctid = (SELECT ctid FROM media_candidates_folded WHERE company_id = $1 LIMIT 1)",
			"candidate_scores":       "UPDATE candidate_scores SET max_cheating = CASE WHEN max_cheating > 50 THEN 1 ELSE 99 END WHERE ctid = (SELECT ctid FROM candidate_scores WHERE company_id = $1 AND max_cheating IS NOT NULL LIMIT 1)",
			"candidate_score_counts": "UPDATE candidate_score_counts SET candidates = candidates + 1 WHERE ctid = (SELECT ctid FROM candidate_score_counts WHERE company_id = $1 LIMIT 1)",
			"flag_last_daily":        "UPDATE flag_last_daily SET point = point + 101 WHERE ctid = (SELECT ctid FROM flag_last_daily WHERE company_id = $1 AND kind = 'fraud' LIMIT 1)",
			"job_counts":             "UPDATE job_counts_folded SET jobs = jobs + 1 WHERE ctid = (SELECT ctid FROM job_counts_folded WHERE company_id = $1 LIMIT 1)",
			"job_daily_running":      "UPDATE job_daily_running SET completed = completed + 1 WHERE ctid = (SELECT ctid FROM job_daily_running WHERE company_id = $1 LIMIT 1)",
			"job_daily_latest":       "UPDATE job_daily_latest SET day = day - 1 WHERE ctid = (SELECT ctid FROM job_daily_latest WHERE company_id = $1 LIMIT 1)",
			"job_score_daily":        "UPDATE job_score_daily_folded SET score = score + 101 WHERE ctid = (SELECT ctid FROM job_score_daily_folded WHERE company_id = $1 LIMIT 1)",
			"job_score_running":      "UPDATE job_score_running SET at_least[71] = at_least[71] + 1 WHERE ctid = (SELECT ctid FROM job_score_running WHERE company_id = $1 LIMIT 1)",
			"job_score_latest":       "UPDATE job_score_latest SET day = day - 1 WHERE ctid = (SELECT ctid FROM job_score_latest WHERE company_id = $1 LIMIT 1)",
			"job_daily_weekly":       "UPDATE job_daily_weekly SET sessions = sessions + 1 WHERE ctid = (SELECT ctid FROM job_daily_weekly WHERE company_id = $1 LIMIT 1)",
			"job_score_weekly":       "UPDATE job_score_weekly SET at_least[1] = at_least[1] + 1 WHERE ctid = (SELECT ctid FROM job_score_weekly WHERE company_id = $1 LIMIT 1)",
			"resume_fit_jobs":        "INSERT INTO resume_fit_jobs_deltas SELECT $1, gen_random_uuid(), 'ACTIVE', false, 1",
			// A job marked against its guide: the trigger counts it by the mark, the rebuild by the guide.
			"guide_template_jobs": "UPDATE jobs SET guide_from_template = NOT guide_from_template WHERE ctid = (SELECT ctid FROM jobs WHERE company_id = $1 LIMIT 1)",
		}[tb.Name]
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(corrupt, ids[0]); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		err = rollup.Check(context.Background(), db, ids[0])
		if err == nil || !strings.Contains(err.Error(), tb.Name) {
			t.Errorf("corrupted %s, Check said %v", tb.Name, err)
		}
		if err := rollup.Rebuild(context.Background(), db, ids[0]); err != nil {
			t.Fatal(err)
		}
	}
	checkAll(t, db, ids, "rebuilds")
}

// folded are the rollups kept as folded rows and pending deltas behind a view: the per-job ones
// (migration 00050), the company-wide ones (00056) and the evaluations by job, day and score (00061).
var folded = []string{"job_totals", "job_daily", "session_daily", "completion_slots", "completion_slot_totals",
	"journey_daily", "journey_last_daily", "media_candidates", "candidate_daily", "job_score_daily"}

// TestFoldKeepsViewsExact: session changes, evaluations, applications and new candidates append
// per-job and company-wide deltas, which the views (job_totals, job_daily, session_daily,
// completion_slots, ...) count at once; a fold moves them into the folded rows and changes
// nothing a reader sees; a second fold finds nothing.
func TestFoldKeepsViewsExact(t *testing.T) {
	db, ids := seeded(t)
	if _, err := db.Exec(`UPDATE interview_sessions SET status = 'COMPLETED', completed_at = invited_at + interval '1 hour'
		WHERE company_id = $1 AND status <> 'COMPLETED' AND id::text LIKE '%a'`, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM cheating_evaluations WHERE company_id = $1 AND id::text LIKE '%b'`, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`WITH c AS (INSERT INTO candidates (company_id, first_name, last_name, status, created_at, updated_at)
		VALUES ($1, 'New', 'Applicant', 'new', now(), now()) RETURNING id)
		INSERT INTO applications (company_id, candidate_id, job_id, source)
		SELECT $1, c.id, (SELECT id FROM jobs WHERE company_id = $1 ORDER BY id LIMIT 1), 'manual' FROM c`, ids[1]); err != nil {
		t.Fatal(err)
	}
	views := func() string {
		t.Helper()
		var parts []string
		for _, v := range folded {
			var s string
			if err := db.QueryRow(`SELECT coalesce(string_agg(row_to_json(t)::text, ';' ORDER BY row_to_json(t)::text), '')
				FROM `+v+` t WHERE company_id = ANY($1)`, pq(ids)).Scan(&s); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, v+": "+s)
		}
		return strings.Join(parts, "\n")
	}
	pending := func() map[string]int {
		t.Helper()
		m := map[string]int{}
		for _, tb := range append([]string{"job_rollup"}, folded[2:]...) {
			var n int
			if err := db.QueryRow("SELECT count(*) FROM " + tb + "_deltas").Scan(&n); err != nil {
				t.Fatal(err)
			}
			m[tb] = n
		}
		return m
	}
	for tb, n := range pending() {
		if n == 0 {
			t.Errorf("the changes appended no deltas to %s_deltas: the test folds nothing there", tb)
		}
	}
	checkAll(t, db, ids, "the changes, unfolded")
	before := views()
	n, err := rollup.Fold(context.Background(), db)
	if err != nil || n == 0 {
		t.Fatalf("Fold = %d, %v; want the pending deltas folded", n, err)
	}
	for tb, n := range pending() {
		if n != 0 {
			t.Errorf("%d deltas left in %s_deltas after a fold", n, tb)
		}
	}
	if after := views(); after != before {
		t.Errorf("a fold changed the views:\nbefore %s\nafter  %s", before, after)
	}
	if n, err := rollup.Fold(context.Background(), db); err != nil || n != 0 {
		t.Errorf("second Fold = %d, %v; want 0", n, err)
	}
	checkAll(t, db, ids, "a fold")
}

// pq is ids as a Postgres uuid[] literal.
func pq(ids []uuid.UUID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return "{" + strings.Join(s, ",") + "}"
}

// TestConcurrentApplicationsCountExactly: two applications to one job in concurrent
// transactions both count among the job's distinct applicants (a recount in each transaction
// missed the other's uncommitted row, and the later write kept its count).
func TestConcurrentApplicationsCountExactly(t *testing.T) {
	db, ids := seeded(t)
	var job uuid.UUID
	if err := db.QueryRow("SELECT id FROM jobs WHERE company_id = $1 ORDER BY id LIMIT 1", ids[0]).Scan(&job); err != nil {
		t.Fatal(err)
	}
	apply := func(tx *sql.Tx) error {
		var cand uuid.UUID
		if err := tx.QueryRow(`INSERT INTO candidates (company_id, first_name, last_name, status, created_at, updated_at)
			VALUES ($1, 'Con', 'Current', 'new', now(), now()) RETURNING id`, ids[0]).Scan(&cand); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO applications (company_id, candidate_id, job_id, source) VALUES ($1, $2, $3, 'manual')`, ids[0], cand, job)
		return err
	}
	first, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	if err := apply(first); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() {
		tx, err := db.Begin()
		if err != nil {
			second <- err
			return
		}
		defer tx.Rollback()
		if err := apply(tx); err != nil {
			second <- err
			return
		}
		second <- tx.Commit()
	}()
	time.Sleep(300 * time.Millisecond) // the second has counted (or waits on the job's row)
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	checkAll(t, db, ids, "two concurrent applications to one job")
}

// TestConcurrentCandidatesDoNotWait: a new candidate and application in one transaction do not
// wait for another company candidate's, uncommitted (before migration 00056 both updated the
// company's candidate_daily and journey_daily rows of the day, and the second waited for the
// first's commit), and both count exactly.
func TestConcurrentCandidatesDoNotWait(t *testing.T) {
	db, ids := seeded(t)
	var job uuid.UUID
	if err := db.QueryRow("SELECT id FROM jobs WHERE company_id = $1 ORDER BY id LIMIT 1", ids[0]).Scan(&job); err != nil {
		t.Fatal(err)
	}
	apply := func(tx *sql.Tx) error {
		_, err := tx.Exec(`WITH c AS (INSERT INTO candidates (company_id, first_name, last_name, status, created_at, updated_at)
			VALUES ($1, 'Con', 'Current', 'new', now(), now()) RETURNING id)
			INSERT INTO applications (company_id, candidate_id, job_id, source) SELECT $1, c.id, $2, 'manual' FROM c`, ids[0], job)
		return err
	}
	first, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	if err := apply(first); err != nil {
		t.Fatal(err)
	}
	second, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Rollback()
	if _, err := second.Exec("SET LOCAL lock_timeout = '2s'"); err != nil {
		t.Fatal(err)
	}
	if err := apply(second); err != nil {
		t.Fatalf("a candidate's application while another's is uncommitted: %v", err)
	}
	if err := second.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	checkAll(t, db, ids, "two concurrent candidates of one company")
}

// TestLoadPartsCoverEveryRollup fails when a rollup is added to Tables without a way for a
// loader with triggers off to compute it (generated per candidate, generated per company, or
// rebuilt by one of LoadParts): such a loader then falls back to rebuilding every rollup with
// rollup_rebuild, which costs minutes at a million candidates.
func TestLoadPartsCoverEveryRollup(t *testing.T) {
	if missing := rollup.Uncovered(); len(missing) > 0 {
		t.Errorf("rollups in none of PerCandidate, Generated and LoadParts: %v", missing)
	}
	known := map[string]bool{}
	for _, tab := range rollup.Tables {
		known[tab.Name] = true
	}
	seen := map[string]bool{}
	var all []string
	all = append(all, rollup.PerCandidate...)
	all = append(all, rollup.Generated...)
	for _, part := range rollup.LoadParts {
		all = append(all, rollup.LoadPartTables[part]...)
	}
	for _, name := range all {
		if !known[name] {
			t.Errorf("%s is not in rollup.Tables", name)
		}
		if seen[name] {
			t.Errorf("%s is computed twice", name)
		}
		seen[name] = true
	}
}
