// Package rollup rebuilds and verifies the statistics rollups of migration 00007 (session_daily,
// completion_slots, evaluation_daily, fraud_daily, identity_daily, candidate_daily, job_totals, job_daily,
// candidate_journeys, candidate_media, journey_daily) and the score histograms of migration 00047
// (evaluation_scores, job_evaluation_scores, fraud_scores, candidate_scores, candidate_score_counts,
// completion_slot_totals, media_candidates, journey_last_daily) and the last-flag steps of migration
// 00052 (flag_last_daily); since migration 00050 job_totals and job_daily are views over their
// folded rows and the pending per-job deltas (Fold), and job_applicants counts each job's
// applications per candidate.
// Statement-level triggers keep them exact as the source tables change; Rebuild recomputes a
// company's from scratch (for loads that run with triggers off), and Check compares the stored
// rows with a rebuild.
package rollup

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Tables are the rollup tables, with the condition that makes a row count (rows whose counts
// dropped to zero may remain and are ignored).
var Tables = []struct{ Name, NonZero string }{
	{"session_daily", "sessions <> 0"},
	{"completion_slots", "completed <> 0 OR duration_n <> 0 OR duration_sum <> 0"},
	{"evaluation_daily", "evaluated <> 0"},
	{"fraud_daily", "verifications <> 0 OR disposable_email <> 0 OR voip_phone <> 0 OR vpn_proxy_ip <> 0 OR thin_profile <> 0 OR footprint_anomaly <> 0 OR band_0_25 <> 0 OR band_25_50 <> 0 OR band_50_75 <> 0 OR band_75_100 <> 0"},
	{"identity_daily", "verifications <> 0"},
	{"job_totals", "applicants <> 0 OR sessions <> 0 OR completed <> 0 OR evaluated <> 0"},
	{"job_daily", "sessions <> 0 OR completed <> 0 OR evaluated <> 0"},
	{"job_applicants", "applications <> 0"},
	{"candidate_daily", "candidates <> 0"},
	{"candidate_journeys", "true"},
	{"candidate_media", "true"},
	{"journey_daily", "candidates <> 0"},
	{"evaluation_scores", "evaluated <> 0"},
	{"job_evaluation_scores", "evaluated <> 0"},
	{"fraud_scores", "verifications <> 0"},
	{"candidate_scores", "true"},
	{"candidate_score_counts", "candidates <> 0"},
	{"completion_slot_totals", "completed <> 0 OR duration_n <> 0 OR duration_sum <> 0"},
	{"media_candidates", "candidates <> 0"},
	{"journey_last_daily", "candidates <> 0"},
	{"flag_last_daily", "candidates <> 0"},
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Parts are the independent parts of a rebuild, each a set of rollup tables computed from its own
// sources, so a loader can run them on separate connections at once.
// The two largest come first.
var Parts = []string{"journeys", "media", "sessions", "other", "scores"}

// Rebuild recomputes every rollup of the company from the source tables.
func Rebuild(ctx context.Context, db execer, company uuid.UUID) error {
	if _, err := db.ExecContext(ctx, "SELECT rollup_rebuild($1)", company); err != nil {
		return fmt.Errorf("rebuild rollups of company %s: %w", company, err)
	}
	return nil
}

// RebuildPart recomputes one of Parts.
func RebuildPart(ctx context.Context, db execer, company uuid.UUID, part string) error {
	if _, err := db.ExecContext(ctx, "SELECT rollup_rebuild($1, $2)", company, part); err != nil {
		return fmt.Errorf("rebuild rollups (%s) of company %s: %w", part, company, err)
	}
	return nil
}

// Check reports every rollup row of the company that differs from a fresh rebuild (the rebuild
// is rolled back). It returns nil when the rollups are exact.
func Check(ctx context.Context, db *sql.DB, company uuid.UUID) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range Tables {
		stmt := fmt.Sprintf(`CREATE TEMP TABLE stored_%[1]s ON COMMIT DROP AS
			SELECT * FROM %[1]s WHERE company_id = $1 AND (%[2]s)`, t.Name, t.NonZero)
		if _, err := tx.ExecContext(ctx, stmt, company); err != nil {
			return err
		}
	}
	if err := Rebuild(ctx, tx, company); err != nil {
		return err
	}
	var problems []string
	for _, t := range Tables {
		stmt := fmt.Sprintf(`
			SELECT 'stored', row_to_json(x)::text FROM (TABLE stored_%[1]s EXCEPT SELECT * FROM %[1]s WHERE company_id = $1) x
			UNION ALL
			SELECT 'expected', row_to_json(x)::text FROM (SELECT * FROM %[1]s WHERE company_id = $1 EXCEPT TABLE stored_%[1]s) x
			LIMIT 20`, t.Name)
		rows, err := tx.QueryContext(ctx, stmt, company)
		if err != nil {
			return err
		}
		for rows.Next() {
			var side, row string
			if err := rows.Scan(&side, &row); err != nil {
				rows.Close()
				return err
			}
			problems = append(problems, fmt.Sprintf("%s %s: %s", t.Name, side, row))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("rollups of company %s differ from a rebuild:\n%s", company, strings.Join(problems, "\n"))
	}
	return nil
}

// PerCandidate are the rollups with a row per candidate (job_applicants: per candidate and
// job). A loader that generates every row of its candidates may compute these itself and load
// them with the sources (triggers off), then rebuild the rest with LoadParts.
var PerCandidate = []string{"candidate_journeys", "candidate_media", "candidate_scores", "job_applicants"}

// LoadParts are the independent parts of rebuilding every rollup of a company but PerCandidate,
// whose rows must be loaded already (the part "derived" aggregates them). They may run on
// separate connections at once.
var LoadParts = []string{"sessions", "other", "histograms", "derived"}

// loadPartSQL are the statements of the parts of LoadParts that rollup_rebuild has no part for:
// its part 'other' without job_applicants,
// its part 'scores' without candidate_scores (with flag_last_daily, migration 00052), and the rollups its parts 'journeys', 'media' and
// 'scores' derive from the per-candidate ones. They follow rollup_rebuild (migration 00047);
// Check compares the result with it.
var loadPartSQL = map[string][]string{
	// rollup_rebuild's part 'other' (migration 00050) without job_applicants.
	"other": {
		`SELECT rollup_fold_jobs($1)`,
		`DELETE FROM evaluation_daily WHERE company_id = $1`,
		`DELETE FROM fraud_daily WHERE company_id = $1`,
		`DELETE FROM identity_daily WHERE company_id = $1`,
		`DELETE FROM candidate_daily WHERE company_id = $1`,
		`DELETE FROM job_totals_folded WHERE company_id = $1`,
		`INSERT INTO evaluation_daily
		 SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, count(*)
		 FROM cheating_evaluations WHERE company_id = $1 GROUP BY 1, 2`,
		`INSERT INTO fraud_daily
		 SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, count(*),
		        count(*) FILTER (WHERE disposable_email), count(*) FILTER (WHERE voip_phone),
		        count(*) FILTER (WHERE vpn_proxy_ip), count(*) FILTER (WHERE thin_profile),
		        count(*) FILTER (WHERE footprint_anomaly),
		        count(*) FILTER (WHERE overall_verification_score < 25),
		        count(*) FILTER (WHERE overall_verification_score >= 25 AND overall_verification_score < 50),
		        count(*) FILTER (WHERE overall_verification_score >= 50 AND overall_verification_score < 75),
		        count(*) FILTER (WHERE overall_verification_score >= 75)
		 FROM fraud_verifications WHERE company_id = $1 GROUP BY 1, 2`,
		`INSERT INTO identity_daily
		 SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), count(*)
		 FROM identity_verifications WHERE company_id = $1 GROUP BY 1, 2, 3, 4`,
		`INSERT INTO candidate_daily
		 SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, count(*)
		 FROM candidates WHERE company_id = $1 GROUP BY 1, 2, 3`,
		`INSERT INTO job_totals_folded
		 SELECT $1, j.id, coalesce(a.n, 0), coalesce(s.n, 0), coalesce(s.completed, 0), coalesce(e.n, 0)
		 FROM jobs j
		 LEFT JOIN (SELECT job_id, count(DISTINCT candidate_id) AS n FROM applications
		            WHERE company_id = $1 AND job_id IS NOT NULL GROUP BY 1) a ON a.job_id = j.id
		 LEFT JOIN (SELECT job_id, count(*) AS n, count(*) FILTER (WHERE status = 'COMPLETED') AS completed
		            FROM interview_sessions WHERE company_id = $1 GROUP BY 1) s ON s.job_id = j.id
		 LEFT JOIN (SELECT job_id, count(*) AS n FROM cheating_evaluations WHERE company_id = $1 GROUP BY 1) e ON e.job_id = j.id
		 WHERE j.company_id = $1 AND (a.n IS NOT NULL OR s.n IS NOT NULL OR e.n IS NOT NULL)`,
	},
	"histograms": {
		`DELETE FROM completion_slot_totals WHERE company_id = $1`,
		`INSERT INTO completion_slot_totals
		 SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), count(*),
		        count(duration_seconds), coalesce(sum(duration_seconds), 0)
		 FROM interview_sessions WHERE company_id = $1 AND status = 'COMPLETED' GROUP BY 1, 2`,
		`DELETE FROM evaluation_scores WHERE company_id = $1`,
		`DELETE FROM job_evaluation_scores WHERE company_id = $1`,
		`WITH e AS MATERIALIZED (
		     SELECT floor(cheating_score)::smallint AS score, (created_at AT TIME ZONE 'UTC')::date AS day, job_id, count(*) AS n
		     FROM cheating_evaluations WHERE company_id = $1 GROUP BY 1, 2, 3
		 ), d AS (
		     INSERT INTO evaluation_scores SELECT $1, score, day, sum(n) FROM e GROUP BY 2, 3
		 )
		 INSERT INTO job_evaluation_scores SELECT $1, score, job_id, sum(n) FROM e GROUP BY 2, 3`,
		`DELETE FROM fraud_scores WHERE company_id = $1`,
		`INSERT INTO fraud_scores
		 SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, count(*)
		 FROM fraud_verifications WHERE company_id = $1 GROUP BY 1, 2, 3`,
		`SELECT rollup_flag_last_daily_rebuild($1)`,
	},
	"derived": {
		`DELETE FROM media_candidates WHERE company_id = $1`,
		`INSERT INTO media_candidates
		 SELECT company_id, medium_type, count(*) FROM candidate_media WHERE company_id = $1 GROUP BY 1, 2`,
		`DELETE FROM journey_daily WHERE company_id = $1`,
		`INSERT INTO journey_daily
		 SELECT company_id, (entered_at AT TIME ZONE 'UTC')::date, invited, started, completed, positive, hired, count(*)
		 FROM candidate_journeys WHERE company_id = $1 GROUP BY 1, 2, 3, 4, 5, 6, 7`,
		`DELETE FROM journey_last_daily WHERE company_id = $1`,
		`INSERT INTO journey_last_daily
		 SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, count(*)
		 FROM candidate_journeys WHERE company_id = $1 AND completed_n > 0 GROUP BY 1, 2`,
		`DELETE FROM candidate_score_counts WHERE company_id = $1`,
		`INSERT INTO candidate_score_counts
		 SELECT company_id, 'cheating', floor(max_cheating)::smallint, count(*) FROM candidate_scores
		 WHERE company_id = $1 AND max_cheating IS NOT NULL GROUP BY 1, 2, 3
		 UNION ALL
		 SELECT company_id, 'fraud', floor(min_fraud)::smallint, count(*) FROM candidate_scores
		 WHERE company_id = $1 AND min_fraud IS NOT NULL GROUP BY 1, 2, 3`,
	},
}

// RebuildLoadPart recomputes one of LoadParts.
func RebuildLoadPart(ctx context.Context, db execer, company uuid.UUID, part string) error {
	stmts, ok := loadPartSQL[part]
	if !ok {
		return RebuildPart(ctx, db, company, part)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q, company); err != nil {
			return fmt.Errorf("rebuild rollups (%s) of company %s: %w", part, company, err)
		}
	}
	return nil
}
