package outbox

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// batchInFlight bounds the starts all LaunchMany calls of a Launcher have in flight at once:
// several deliveries or import pages launching together share it, so together they do not
// push Temporal past the start timeout.
const batchInFlight = 16

// LaunchMany starts committed rows, at most batchInFlight at a time across the Launcher, and
// marks those taken in one update. Rows not taken stay pending (not refused: no caller was told
// anything) for a repeat and the reconciler; the error is the first failure.
func (l *Launcher) LaunchMany(ctx context.Context, rows []models.WorkflowStart) error {
	l.semOnce.Do(func() { l.sem = make(chan struct{}, batchInFlight) })
	var (
		mu      sync.Mutex
		started []uuid.UUID
		first   error
		failed  int
		wg      sync.WaitGroup
		sem     = l.sem
	)
	for i := range rows {
		ws := &rows[i]
		if ws.StartedAt != nil {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			sctx, cancel := context.WithTimeout(ctx, l.timeout())
			err := l.Starter.Start(sctx, ws)
			cancel()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if failed++; first == nil {
					first = err
				}
				return
			}
			started = append(started, ws.ID)
		}()
	}
	wg.Wait()
	if err := l.Store.MarkStartedMany(context.WithoutCancel(ctx), started); err != nil {
		l.Log.WarnContext(ctx, "workflow starts not recorded", "count", len(started), "err", err)
	}
	if first != nil {
		return fmt.Errorf("%w: %d of %d starts not taken, the first: %v", ErrUnavailable, failed, len(rows), first)
	}
	return nil
}

// LaunchPending launches the company's pending starts of kind (those a crashed attempt
// committed but did not launch, or that Temporal did not take), batch at a time, calling beat
// (when set) after each batch: however many are left and however slowly Temporal answers, a
// heartbeating caller is not timed out. It stops at the first batch not taken.
func (l *Launcher) LaunchPending(ctx context.Context, companyID uuid.UUID, kind string, batch int, beat func()) error {
	for {
		pending, err := l.Store.PendingCompanyStarts(ctx, companyID, kind, batch)
		if err != nil || len(pending) == 0 {
			return err
		}
		err = l.LaunchMany(ctx, pending)
		if beat != nil {
			beat()
		}
		if err != nil || len(pending) < batch {
			return err
		}
	}
}
