package rollup

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// FoldEvery is how often a worker folds the pending deltas (FoldLoop). The views (job_totals,
// job_daily, and since migration 00056 session_daily, completion_slots, completion_slot_totals,
// journey_daily, journey_last_daily, media_candidates and candidate_daily, since 00059 job_counts and since 00061
// job_score_daily) are exact whatever the
// interval; it bounds how many deltas a read of them adds up (at most the changes of one
// interval, plus those of a fold that failed).
const FoldEvery = 5 * time.Second

// Fold moves the pending deltas into the folded rows, each table's in one statement (the
// per-job job_rollup_deltas of migration 00050 into job_totals_folded and job_daily_folded, and
// each <table>_deltas of the tables of rollup_folded, migrations 00056, 00059 and 00061, into
// <table>_folded), and returns how many it folded; -1 when another fold was running (it will
// have folded them).
func Fold(ctx context.Context, db *sql.DB) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT rollup_fold()").Scan(&n); err != nil {
		return 0, fmt.Errorf("fold rollup deltas: %w", err)
	}
	return n, nil
}

// FoldLoop runs Fold every interval until ctx ends. A failed fold is logged and tried again at
// the next tick; nothing is lost (the deltas stay, and the views count them).
func FoldLoop(ctx context.Context, db *sql.DB, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := Fold(ctx, db); err != nil && ctx.Err() == nil {
			log.Warn("rollup deltas not folded; next tick tries again", "err", err)
		}
	}
}
