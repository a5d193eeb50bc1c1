// Package rollup rebuilds and verifies the statistics rollups of migration 00007 (session_daily,
// completion_slots, evaluation_daily, fraud_daily, identity_daily, candidate_daily, job_totals, job_daily,
// candidate_journeys, candidate_media, journey_daily) and the score histograms of migration 00047
// (evaluation_scores, job_evaluation_scores, fraud_scores, candidate_scores, candidate_score_counts,
// completion_slot_totals, media_candidates, journey_last_daily) and the last-flag steps of migration
// 00052 (flag_last_daily), of migration 00061 the cheating evaluations by job, day and score
// point (job_score_daily, a view like those of rollup_folded) and their running counts
// (job_score_running; each job's last row in job_score_latest, migration 00066; its rows before
// each Monday in job_score_weekly, migration 00071) and, of migration 00059, the per-job running totals (job_daily_running,
// over job_daily_folded; each job's last day in job_daily_latest, migration 00070, and its rows before each Monday in job_daily_weekly, migration 00071) and the job counts (job_counts, a view like job_totals); since migration 00050 job_totals and job_daily are views over their
// folded rows and the pending per-job deltas (Fold), and job_applicants counts each job's
// applications per candidate; since migration 00056 session_daily, completion_slots,
// completion_slot_totals, journey_daily, journey_last_daily, media_candidates and candidate_daily
// are views over <table>_folded and <table>_deltas the same way (their tables are listed in
// rollup_folded); since migration 00067 the jobs by resume-fit template (resume_fit_jobs) and
// by guide from a template (guide_template_jobs), views of rollup_folded too.
// Statement-level triggers keep them exact as the source tables change; Rebuild recomputes a
// company's from scratch (for loads that run with triggers off), and Check compares the stored
// rows with a rebuild.
package rollup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
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
	{"job_daily_running", "true"},
	{"job_daily_latest", "true"},
	{"job_daily_weekly", "true"},
	{"job_counts", "jobs <> 0"},
	{"job_score_daily", "evaluated <> 0"},
	{"job_score_running", "true"},
	{"job_score_latest", "true"},
	{"job_score_weekly", "true"},
	{"resume_fit_jobs", "jobs <> 0"},
	{"guide_template_jobs", "jobs <> 0"},
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

// checkTries is how often Check runs when a concurrent fold (the workers' fold loop) keeps
// changing the rows its snapshot folds.
const checkTries = 5

// Check reports every rollup row of the company that differs from a fresh rebuild (the rebuild
// is rolled back). It returns nil when the rollups are exact. Its snapshot folds the pending
// per-job deltas, so a fold committed meanwhile by the workers aborts it (40001); it then runs
// again on a new snapshot.
func Check(ctx context.Context, db *sql.DB, company uuid.UUID) error {
	var err error
	for range checkTries {
		var pgErr *pgconn.PgError
		if err = check(ctx, db, company); !errors.As(err, &pgErr) || pgErr.Code != "40001" || ctx.Err() != nil {
			return err
		}
	}
	return err
}

func check(ctx context.Context, db *sql.DB, company uuid.UUID) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// job_daily_running and job_score_running have the folded days only (readers add the pending
	// deltas), and a rebuild folds them first: fold them before taking the stored rows too (rolled
	// back with the rest).
	if _, err := tx.ExecContext(ctx, "SELECT rollup_fold_jobs($1), rollup_fold_table('job_score_daily', $1)", company); err != nil {
		return fmt.Errorf("fold per-job rollup deltas of company %s: %w", company, err)
	}
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

// Generated are the company-wide rollups that a loader generating every row of its
// candidates may count itself and add to the company's rows: all but PerCandidate and the
// per-job ones of LoadParts. A view's rows (job_totals, job_daily and the tables of
// rollup_folded) are added to its <table>_folded; job_score_running's, job_score_latest's and job_score_weekly's rows
// are those of the loader's own jobs, which have none yet.
var Generated = []string{
	"session_daily", "completion_slots", "evaluation_daily", "fraud_daily", "identity_daily", "job_totals", "job_daily",
	"candidate_daily", "journey_daily", "evaluation_scores", "job_evaluation_scores", "fraud_scores",
	"candidate_score_counts", "completion_slot_totals", "media_candidates", "journey_last_daily", "flag_last_daily",
	"job_score_daily", "job_score_running", "job_score_latest", "job_score_weekly",
}

// LoadParts are the independent parts of rebuilding every rollup of a company but PerCandidate
// and Generated, whose rows must be loaded already. They may run on separate connections at
// once. Every rollup of Tables is in PerCandidate, Generated or a part
// (TestLoadPartsCoverEveryRollup); a rollup added to rollup_rebuild needs one of them, and
// TestScaleIsDeterministic's Check fails until it has.
var LoadParts = []string{"jobs"}

// LoadPartTables are the rollups each of LoadParts recomputes.
var LoadPartTables = map[string][]string{
	"jobs": {"job_daily_running", "job_daily_latest", "job_daily_weekly", "job_counts", "resume_fit_jobs", "guide_template_jobs"},
}

// loadPartSQL are the statements of LoadParts that rollup_rebuild has no part for: the per-job
// running totals over the loaded job_daily_folded (and their last days) and the jobs by status (migration 00059), by
// resume-fit template and by guide from a template (migration 00067).
var loadPartSQL = map[string][]string{
	"jobs": {`SELECT rollup_job_daily_running_rebuild($1)`, `SELECT rollup_job_counts_rebuild($1)`},
}

// Uncovered are the rollups of Tables that neither PerCandidate, Generated nor LoadParts
// compute: a loader that finds some rebuilds everything with Parts instead.
func Uncovered() []string {
	covered := map[string]bool{}
	for _, name := range PerCandidate {
		covered[name] = true
	}
	for _, name := range Generated {
		covered[name] = true
	}
	for _, part := range LoadParts {
		for _, name := range LoadPartTables[part] {
			covered[name] = true
		}
	}
	var missing []string
	for _, t := range Tables {
		if !covered[t.Name] {
			missing = append(missing, t.Name)
		}
	}
	return missing
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
