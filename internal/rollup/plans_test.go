package rollup_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestTriggersKeepTheirPlans changes one row at a time, the way the service does, on one
// connection, and counts how often Postgres planned each statement the rollup triggers ran
// (pg_stat_statements, nested statements included). A statement whose plan PL/pgSQL keeps is
// planned a few times (five custom plans, then the generic one, and again when a table's
// statistics change); one built with EXECUTE, or one whose generic plan never wins (array keys
// under plan_cache_mode auto), is planned on every call. Migrations 00063, 00068 and 00069.
func TestTriggersKeepTheirPlans(t *testing.T) {
	db, ids := seeded(t)
	ctx := t.Context()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	a := ids[0]
	// Each step changes the row at offset $2 of the company's rows, a different one each round (the
	// jobs and identity checks, fewer, in turn).
	steps := []struct{ name, stmt string }{
		{"an application", `INSERT INTO applications (company_id, job_id, candidate_id, source, status, created_at, updated_at)
			SELECT company_id, job_id, candidate_id, source, status, created_at - interval '10 days', updated_at
			FROM applications WHERE company_id = $1 ORDER BY id OFFSET $2 LIMIT 1`},
		{"a session completes", `UPDATE interview_sessions SET status = 'COMPLETED', started_at = invited_at + interval '1 hour',
			completed_at = invited_at + interval '2 hours', duration_seconds = 1800
			WHERE id = (SELECT id FROM interview_sessions WHERE company_id = $1 AND status <> 'COMPLETED' ORDER BY id OFFSET $2 LIMIT 1)`},
		{"a decision", `UPDATE interview_sessions SET decision = 'HIRED'
			WHERE id = (SELECT id FROM interview_sessions WHERE company_id = $1 ORDER BY id OFFSET $2 LIMIT 1)`},
		{"an evaluation", `INSERT INTO cheating_evaluations (company_id, session_id, candidate_id, job_id, cheating_score, created_at)
			SELECT company_id, id, candidate_id, job_id, 61.5, completed_at + interval '1 hour' FROM interview_sessions s
			WHERE company_id = $1 AND status = 'COMPLETED' AND NOT EXISTS (SELECT 1 FROM cheating_evaluations e WHERE e.session_id = s.id)
			ORDER BY id OFFSET $2 LIMIT 1`},
		{"a fraud check", `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, created_at)
			SELECT company_id, id, 20.5, created_at + interval '1 day' FROM candidates WHERE company_id = $1 ORDER BY id OFFSET $2 LIMIT 1`},
		{"an identity check concludes", `UPDATE identity_verifications SET status = 'FAILED', failure_reason = 'Selfie does not match',
			completed_at = created_at + interval '1 hour'
			WHERE id = (SELECT id FROM identity_verifications WHERE company_id = $1 ORDER BY id
				OFFSET $2 % (SELECT count(*) FROM identity_verifications WHERE company_id = $1) LIMIT 1)`},
		{"a job pauses", `UPDATE jobs SET status = CASE status WHEN 'ACTIVE' THEN 'PAUSED' ELSE 'ACTIVE' END
			WHERE id = (SELECT id FROM jobs WHERE company_id = $1 ORDER BY id OFFSET $2 % (SELECT count(*) FROM jobs WHERE company_id = $1) LIMIT 1)`},
	}
	const rounds = 30
	for i := range rounds {
		for _, s := range steps {
			res, err := conn.ExecContext(ctx, s.stmt, a, i)
			if err != nil {
				t.Fatalf("%s, round %d: %v", s.name, i, err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("%s, round %d: %d rows changed, want 1", s.name, i, n)
			}
		}
	}
	checkAll(t, db, ids, "the single-row changes")

	var nested, replanned []string
	for _, p := range pgtest.PlansOf(t, conn, false, rounds) {
		nested = append(nested, p.Query)
		if p.Plans*2 > p.Calls {
			replanned = append(replanned, fmt.Sprintf("%d plans in %d calls: %.200s", p.Plans, p.Calls, p.Query))
		}
	}
	// The count is only evidence if the triggers' statements were tracked at all.
	for _, want := range []string{"INSERT INTO candidate_journeys", "INSERT INTO candidate_media", "INSERT INTO flag_last_daily",
		"INSERT INTO identity_daily", "INSERT INTO candidate_scores", "INSERT INTO job_counts_deltas"} {
		found := false
		for _, q := range nested {
			found = found || strings.Contains(q, want)
		}
		if !found {
			t.Errorf("no trigger statement %q was called %d times; the steps do not reach it", want, rounds)
		}
	}
	if len(replanned) > 0 {
		t.Errorf("%d trigger statements were planned on most of their calls:\n%s", len(replanned), strings.Join(replanned, "\n"))
	}
}
