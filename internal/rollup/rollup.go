// Package rollup rebuilds and verifies the statistics rollups of migration 00007 (session_daily,
// completion_slots, evaluation_daily, fraud_daily, identity_daily, candidate_daily, job_totals, job_daily,
// candidate_journeys, candidate_media, journey_daily) and the score histograms of migration 00047
// (evaluation_scores, job_evaluation_scores, fraud_scores, candidate_scores, candidate_score_counts,
// completion_slot_totals, media_candidates, journey_last_daily).
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
