package outbox

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// acceptInFlight bounds the starts Accept has in the background at once; past it Accept starts
// in the request (backpressure). About the starts in flight at 100 accepts a second with the
// dev server's start latency under a backlog (~250 ms p99): with 256, a burst of accepts (the
// bench's 300 submissions) put them all at Temporal at once, past the start timeout, and their
// retries' backoff slowed the settlement (settled/floor 0.59 -> 0.56 and 0.54 -> 0.48).
const acceptInFlight = 32

// retryQueue bounds the accepted starts that failed and wait for the launcher's retry; past it
// one is left to the reconciler.
const retryQueue = 4096

// Backoff of the launcher's retry of accepted starts that failed: the first retry after
// retryFirst, doubling up to retryMax while Temporal still does not take them.
const (
	retryFirst = 500 * time.Millisecond
	retryMax   = 15 * time.Second
)

// accepting is the state of the starts Accept hands to the background.
type accepting struct {
	once      sync.Once
	sem       chan struct{}
	retries   chan *models.WorkflowStart
	unhealthy atomic.Bool // a start failed since the last one taken
	wg        sync.WaitGroup

	mu     sync.Mutex
	taking map[uuid.UUID]struct{} // rows this launcher is starting in the background or retrying
}

func (l *Launcher) acceptInit() *accepting {
	a := &l.accept
	a.once.Do(func() {
		a.sem = make(chan struct{}, acceptInFlight)
		a.retries = make(chan *models.WorkflowStart, retryQueue)
		a.taking = map[uuid.UUID]struct{}{}
		go l.retryLoop()
	})
	return a
}

// took records how a start went: a start taken means Temporal is healthy, one that failed that
// it is not, until a start is taken again.
func (l *Launcher) took(err error) {
	l.accept.unhealthy.Store(err != nil)
}

// Healthy reports whether Temporal took the last start this launcher made (or it has made none).
func (l *Launcher) Healthy() bool { return !l.accept.unhealthy.Load() }

// Accept takes ws's start for a request that answers as soon as it returns nil: the accept paths
// (createJob, partner submissions, inviteCandidate, assessment links), whose rows are committed.
//
// While Temporal is healthy (no start failed since the last one taken) and fewer than
// acceptInFlight are in flight, the start is made in the background, with a context detached
// from the request and the start timeout, and Accept returns nil at once: the request's latency
// does not include Temporal's. A background start taken is recorded as Launch's are; one that
// fails marks Temporal unhealthy and leaves the row pending, never refused, since its request
// was answered 2xx: the launcher retries it with backoff (retryFirst to retryMax) and the
// reconciler starts it after the grace period if this process dies first.
//
// While Temporal is unhealthy, or the background is full, Accept starts in the request like
// Launch: on failure the row is refused and the error wraps ErrUnavailable (503), unless a
// start of the row already failed after a 2xx (a background or reconciler attempt): that row
// stays pending, is handed to the retry, and Accept returns nil, the repeat being answered as
// the request it repeats. A row this launcher is already starting or retrying is not started
// again.
func (l *Launcher) Accept(ctx context.Context, ws *models.WorkflowStart) error {
	if ws.StartedAt != nil {
		return nil
	}
	a := l.acceptInit()
	a.mu.Lock()
	_, busy := a.taking[ws.ID]
	a.mu.Unlock()
	if busy {
		return nil
	}
	if l.Healthy() {
		select {
		case a.sem <- struct{}{}:
			a.mu.Lock()
			a.taking[ws.ID] = struct{}{}
			a.mu.Unlock()
			row := *ws
			a.wg.Add(1)
			go l.background(context.WithoutCancel(ctx), &row)
			return nil
		default:
		}
	}
	err := l.startTaken(ctx, ws)
	if err == nil {
		return nil
	}
	refused, rerr := l.Store.RefuseStartUnlessAccepted(context.WithoutCancel(ctx), ws.ID, err.Error())
	if rerr != nil {
		l.Log.ErrorContext(ctx, "workflow start refusal not recorded", "workflow_id", ws.WorkflowID, "err", rerr)
	}
	if rerr == nil && !refused {
		l.Log.WarnContext(ctx, "workflow start of an accepted request not taken again; retried", "workflow_id", ws.WorkflowID, "kind", ws.Kind, "err", err)
		l.retryLater(ctx, ws)
		return nil
	}
	l.Log.WarnContext(ctx, "workflow not started", "workflow_id", ws.WorkflowID, "kind", ws.Kind, "err", err)
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

// background makes an accepted start after its request answered.
func (l *Launcher) background(ctx context.Context, ws *models.WorkflowStart) {
	a := &l.accept
	defer a.wg.Done()
	err := l.startTaken(ctx, ws)
	<-a.sem
	if err == nil {
		l.release(ws.ID)
		return
	}
	l.Log.WarnContext(ctx, "accepted workflow start not taken; retried", "workflow_id", ws.WorkflowID, "kind", ws.Kind, "err", err)
	if ferr := l.Store.DeferStart(ctx, ws.ID, err.Error()); ferr != nil {
		l.Log.ErrorContext(ctx, "accepted workflow start's failure not recorded", "workflow_id", ws.WorkflowID, "err", ferr)
	}
	l.retryLater(ctx, ws)
}

func (l *Launcher) release(id uuid.UUID) {
	a := &l.accept
	a.mu.Lock()
	delete(a.taking, id)
	a.mu.Unlock()
}

// Retry hands a start that Launch did not get taken to the launcher's retry (from retryFirst,
// doubling to retryMax), for a caller whose work goes on without it: an interview's
// signal-with-start after a committed transition, which its run would otherwise see only at its
// next pause (a minute) or through the reconciler.
func (l *Launcher) Retry(ctx context.Context, ws *models.WorkflowStart) {
	l.acceptInit()
	row := *ws
	l.retryLater(ctx, &row)
}

// retryLater hands an accepted start that failed to retryLoop, or leaves it to the reconciler
// when that many wait.
func (l *Launcher) retryLater(ctx context.Context, ws *models.WorkflowStart) {
	a := &l.accept
	a.mu.Lock()
	a.taking[ws.ID] = struct{}{}
	a.mu.Unlock()
	select {
	case a.retries <- ws:
	default:
		l.release(ws.ID)
		l.Log.WarnContext(ctx, "accepted workflow start left to the reconciler", "workflow_id", ws.WorkflowID)
	}
}

// retryLoop retries the accepted starts that failed, for the life of the process: one first,
// and when Temporal takes it the rest, at most batchInFlight at a time; while it does not, the
// wait doubles from retryFirst to retryMax.
func (l *Launcher) retryLoop() {
	a := &l.accept
	var pending []*models.WorkflowStart
	wait := retryFirst
	for {
		if len(pending) == 0 {
			pending = append(pending, <-a.retries)
			wait = retryFirst
		}
		time.Sleep(wait)
	drain:
		for len(pending) < retryQueue {
			select {
			case ws := <-a.retries:
				pending = append(pending, ws)
			default:
				break drain
			}
		}
		if !l.retryOne(pending[0]) {
			wait = min(2*wait, retryMax)
			continue
		}
		wait = retryFirst
		rest := pending[1:]
		failed := make([]bool, len(rest))
		var wg sync.WaitGroup
		sem := make(chan struct{}, batchInFlight)
		for i, ws := range rest {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				failed[i] = !l.retryOne(ws)
			}()
		}
		wg.Wait()
		left := pending[:0]
		for i, ws := range rest {
			if failed[i] {
				left = append(left, ws)
			}
		}
		pending = left
	}
}

// retryOne starts an accepted start again and reports whether Temporal took it.
func (l *Launcher) retryOne(ws *models.WorkflowStart) bool {
	if err := l.startTaken(context.Background(), ws); err != nil {
		return false
	}
	l.release(ws.ID)
	l.Log.Info("accepted workflow started on retry", "workflow_id", ws.WorkflowID, "kind", ws.Kind, "age", time.Since(ws.CreatedAt).Round(time.Millisecond))
	return true
}

// Wait waits until the starts Accept made in the background have been answered by Temporal (or
// timed out), or ctx ends: a process that stops waits here so its accepted starts are taken
// rather than left to the reconciler. Starts that failed stay with the retry and the reconciler.
func (l *Launcher) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { l.accept.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
