// Package outbox starts workflows from the start outbox (table workflow_starts). A request
// writes its rows and the workflow's start in one transaction, commits, and only then asks
// Temporal to start the workflow, so no database connection waits on Temporal and no workflow
// ever runs before its rows exist. Starts are idempotent (starter.Starter), so a start that
// is repeated (a request's retry, the reconciler) never runs the work twice.
//
// The accept paths (createJob, partner submissions, inviteCandidate, assessment links) call
// Accept: while Temporal is believed healthy the start is made in the background and the request
// answers 2xx right after its commit; a background start that fails leaves the row pending (its
// caller was told 2xx), and the launcher retries it, the reconciler if the process dies first.
// While Temporal is believed unhealthy (a start failed since the last one taken) or the
// background is full, Accept starts in the request like Launch, which other callers use.
//
// What each way out of a request that starts in it leaves:
//   - started: the row is marked started; the request answers 2xx.
//   - Temporal did not take the start (down, or slower than the start timeout): the row is marked
//     refused and the request answers 503 with Retry-After. A repeat of the request starts it;
//     the reconciler leaves it alone, because the caller was told it did not happen, unless the
//     kind's late run reaches nobody outside recruitd (kinds.Kind.ResumeRefused: a job's
//     generation, so a job whose caller never retried does not stay GENERATING).
//   - the process died between commit and start: the row is neither; the reconciler starts it.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/starter"
)

// ErrUnavailable means Temporal did not take a start in time; the caller should answer 503 and
// the client retry.
var ErrUnavailable = errors.New("the workflow service is unavailable")

// Launcher starts outbox rows and records how each start went.
type Launcher struct {
	Store   *store.Store
	Starter starter.Starter
	Log     *slog.Logger
	// Timeout bounds one start (default 2 s), so a request answers within about 3 s while
	// Temporal is down.
	Timeout time.Duration
	// Grace is how old a row must be before the reconciler starts it (default 30 s), so it
	// does not race the request that wrote it.
	Grace time.Duration

	semOnce sync.Once
	sem     chan struct{} // LaunchMany's starts in flight

	markOnce sync.Once
	marks    chan uuid.UUID // starts Launch took, for markLoop to record

	accept accepting // Accept's background starts and retries
}

func (l *Launcher) grace() time.Duration {
	if l.Grace > 0 {
		return l.Grace
	}
	return 30 * time.Second
}

// Resumable reports whether a repeat of the request that wrote ws is that request's retry, to be
// answered as the request would have been (after Launch, a no-op once started): its start was
// refused within the hour (the request answered 503; the reconciler may have started it since,
// for kinds that allow it), or it is pending and older than the grace period (the request
// died). A younger pending start belongs to a request still running.
func (l *Launcher) Resumable(ws *models.WorkflowStart) bool {
	if ws.RefusedAt != nil {
		return time.Since(*ws.RefusedAt) < time.Hour
	}
	return ws.StartedAt == nil && time.Since(ws.CreatedAt) > l.grace()
}

func (l *Launcher) timeout() time.Duration {
	if l.Timeout > 0 {
		return l.Timeout
	}
	return 2 * time.Second
}

// Launch starts ws's workflow after the transaction that wrote ws committed. On failure it
// marks ws refused and returns an error wrapping ErrUnavailable. A start taken is recorded after
// Launch returns, with the others taken meanwhile in one statement (markLoop): the request does
// not wait for it, and a record lost with the process costs the reconciler one repeated,
// idempotent start.
func (l *Launcher) Launch(ctx context.Context, ws *models.WorkflowStart) error {
	if ws.StartedAt != nil {
		return nil
	}
	if err := l.startTaken(ctx, ws); err != nil {
		if rerr := l.Store.RefuseStart(context.WithoutCancel(ctx), ws.ID, err.Error()); rerr != nil {
			l.Log.ErrorContext(ctx, "workflow start refusal not recorded", "workflow_id", ws.WorkflowID, "err", rerr)
		}
		l.Log.WarnContext(ctx, "workflow not started", "workflow_id", ws.WorkflowID, "kind", ws.Kind, "err", err)
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return nil
}

// startTaken starts ws within the start timeout and records how it went: Temporal's health
// (took) and, when taken, the start (markLater, and ws.StartedAt).
func (l *Launcher) startTaken(ctx context.Context, ws *models.WorkflowStart) error {
	sctx, cancel := context.WithTimeout(ctx, l.timeout())
	err := l.Starter.Start(sctx, ws)
	cancel()
	l.took(err)
	if err == nil {
		l.markLater(ctx, ws.ID)
		now := time.Now()
		ws.StartedAt = &now
	}
	return err
}

// markQueue bounds the marks waiting for markLoop; past it Launch records its own.
const markQueue = 4096

// markLater hands the record of a start taken to markLoop, or records it now when markLoop is
// that far behind.
func (l *Launcher) markLater(ctx context.Context, id uuid.UUID) {
	l.markOnce.Do(func() {
		l.marks = make(chan uuid.UUID, markQueue)
		go l.markLoop()
	})
	select {
	case l.marks <- id:
	default:
		if err := l.Store.MarkLaunched(context.WithoutCancel(ctx), []uuid.UUID{id}); err != nil {
			l.Log.WarnContext(ctx, "workflow start not recorded", "workflow_start", id, "err", err)
		}
	}
}

// markLoop records the starts Launch took, those queued together in one statement, for the
// life of the process.
func (l *Launcher) markLoop() {
	batch := make([]uuid.UUID, 0, 500)
	for id := range l.marks {
		batch = append(batch[:0], id)
	drain:
		for len(batch) < cap(batch) {
			select {
			case id := <-l.marks:
				batch = append(batch, id)
			default:
				break drain
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := l.Store.MarkLaunched(ctx, batch); err != nil {
			l.Log.Warn("workflow starts not recorded", "count", len(batch), "err", err)
		}
		cancel()
	}
}

// start starts ws and marks it started. A mark that fails is logged: the start is idempotent,
// so the reconciler's repeat costs one call.
func (l *Launcher) start(ctx context.Context, ws *models.WorkflowStart) error {
	sctx, cancel := context.WithTimeout(ctx, l.timeout())
	defer cancel()
	if err := l.Starter.Start(sctx, ws); err != nil {
		return err
	}
	if err := l.Store.MarkStarted(context.WithoutCancel(ctx), ws.ID); err != nil {
		l.Log.WarnContext(ctx, "workflow start not recorded", "workflow_id", ws.WorkflowID, "err", err)
	}
	now := time.Now()
	ws.StartedAt = &now
	return nil
}

// Reconcile starts, oldest first, up to limit rows that were neither started nor refused and are
// older than the grace period: those a crash between commit and start left. It returns how many
// it started; a start that fails again is counted on the row and retried on the next pass.
func (l *Launcher) Reconcile(ctx context.Context, limit int) (int, error) {
	rows, err := l.Store.PendingStarts(ctx, time.Now().Add(-l.grace()), limit, kinds.ResumeRefused())
	if err != nil {
		return 0, err
	}
	started := 0
	for i := range rows {
		ws := &rows[i]
		if err := l.start(ctx, ws); err != nil {
			l.Log.WarnContext(ctx, "reconciler: workflow not started", "workflow_id", ws.WorkflowID, "attempts", ws.Attempts+1, "err", err)
			if ferr := l.Store.FailStart(ctx, ws.ID, err.Error()); ferr != nil {
				return started, ferr
			}
			continue
		}
		started++
		l.Log.InfoContext(ctx, "reconciler: started a workflow left unstarted", "workflow_id", ws.WorkflowID, "kind", ws.Kind, "age", time.Since(ws.CreatedAt).Round(time.Second))
	}
	return started, nil
}

// StartRetention is how long a started row stays in the outbox: long past any retry of the
// request that wrote it (Resumable looks back an hour).
const StartRetention = 30 * 24 * time.Hour

// pruneEvery is how often Run prunes.
const pruneEvery = time.Hour

// Prune deletes rows started more than StartRetention ago, a thousand at a time, except those of
// kinds that keep them (kinds.Kind.KeepStarted), and returns how many it deleted.
func (l *Launcher) Prune(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	for {
		n, err := l.Store.PruneStarts(ctx, now.Add(-StartRetention), kinds.KeepStarted(), 1000)
		total += n
		if err != nil || n < 1000 {
			return total, err
		}
	}
}

// HRSuiteRetention is how long an HR-suite delivery is kept once every row has a final outcome
// (store.FinishHRSuiteDelivery): a replay within it reprocesses the delivery; after it the
// delivery is deleted and the dedupe records it made stay.
const HRSuiteRetention = 30 * 24 * time.Hour

// PruneHRSuiteDeliveries deletes deliveries final for more than HRSuiteRetention, a hundred at a
// time (bodies run to megabytes), and returns how many it deleted.
func (l *Launcher) PruneHRSuiteDeliveries(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	for {
		n, err := l.Store.PruneHRSuiteDeliveries(ctx, now.Add(-HRSuiteRetention), 100)
		total += n
		if err != nil || n < 100 {
			return total, err
		}
	}
}

// holdGrace is how long past its expiry a held assessment link is left to its own workflow before
// the hourly upkeep deletes it (a workflow that never ran, or was terminated).
const holdGrace = time.Hour

// Run reconciles every interval, and prunes every hour (the start outbox, HR-suite deliveries
// past their retention, assessment-link holds their workflow did not end), until ctx ends.
func (l *Launcher) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var lastPrune time.Time
	for {
		if _, err := l.Reconcile(ctx, 100); err != nil && ctx.Err() == nil {
			l.Log.WarnContext(ctx, "reconciler pass failed", "err", err)
		}
		if time.Since(lastPrune) >= pruneEvery {
			lastPrune = time.Now()
			n, err := l.Prune(ctx, lastPrune)
			switch {
			case err != nil && ctx.Err() == nil:
				l.Log.WarnContext(ctx, "start outbox prune failed", "err", err)
			case n > 0:
				l.Log.InfoContext(ctx, "start outbox pruned", "rows", n, "started_before", lastPrune.Add(-StartRetention).Format(time.DateOnly))
			}
			n, err = l.PruneHRSuiteDeliveries(ctx, lastPrune)
			switch {
			case err != nil && ctx.Err() == nil:
				l.Log.WarnContext(ctx, "hr-suite delivery prune failed", "err", err)
			case n > 0:
				l.Log.InfoContext(ctx, "hr-suite deliveries pruned", "deliveries", n, "final_before", lastPrune.Add(-HRSuiteRetention).Format(time.DateOnly))
			}
			n, err = l.Store.PruneAssessmentHolds(ctx, lastPrune.Add(-holdGrace))
			switch {
			case err != nil && ctx.Err() == nil:
				l.Log.WarnContext(ctx, "assessment link hold prune failed", "err", err)
			case n > 0:
				l.Log.WarnContext(ctx, "assessment link holds past their window deleted; their workflows did not", "holds", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
