package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync/atomic"
	"time"
)

// Counter keeps buckets and slots that every replica shares (internal/store: one row per key in
// Postgres, one statement per check).
type Counter interface {
	TakeToken(ctx context.Context, key string, interval time.Duration, burst int) (bool, time.Duration, error)
	// TakeTokenThen is TakeToken of first and, when it had one, of then, in one round trip.
	TakeTokenThen(ctx context.Context, first, then Bucket) (bool, time.Duration, error)
	AcquireSlot(ctx context.Context, key, lease string, max int, ttl time.Duration) (bool, error)
	ReleaseSlot(ctx context.Context, key, lease string) error
	SweepTokens(ctx context.Context) (int64, error)
}

// Bucket is a token bucket of a Counter: key's, refilled one token per Interval up to Burst.
type Bucket struct {
	Key      string
	Interval time.Duration
	Burst    int
}

// CheckTimeout bounds one shared check; a slower or failed one is answered by the process's own
// buckets, and so are the checks of the next FallbackFor.
const CheckTimeout = 500 * time.Millisecond

// FallbackFor is how long the limits answer from the process's own buckets after the shared
// store failed.
const FallbackFor = 5 * time.Second

// SweepEvery is how often the shared buckets that are full again are deleted.
const SweepEvery = time.Minute

// Shared is a process's way to the fleet's buckets: the limits made from it check the Counter,
// and fall back together to their own buckets for FallbackFor once a check failed (so a hung
// database costs one CheckTimeout per FallbackFor, not one per limit or per request).
type Shared struct {
	counter Counter
	log     *slog.Logger
	down    atomic.Int64 // unix nanoseconds until which the shared store is not asked
	swept   atomic.Int64 // unix nanoseconds of the last sweep
}

// NewShared returns the limits' access to counter; a nil counter means per process only.
func NewShared(counter Counter, log *slog.Logger) *Shared {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Shared{counter: counter, log: log}
	s.swept.Store(time.Now().UnixNano())
	return s
}

// ok reports whether the shared store may be asked now.
func (s *Shared) ok() bool { return s.counter != nil && time.Now().UnixNano() >= s.down.Load() }

// failed records a failed check of ctx: unless ctx itself ended (the client went away), the
// limits answer from their own buckets for FallbackFor.
func (s *Shared) failed(ctx context.Context, name string, err error) {
	if ctx.Err() != nil {
		return
	}
	s.down.Store(time.Now().Add(FallbackFor).UnixNano())
	s.log.Warn("shared limit unavailable: limiting per process for a while", "limit", name, "for", FallbackFor, "err", err)
}

// sweep deletes, at most once per SweepEvery and in the background, the shared buckets that
// are full again.
func (s *Shared) sweep() {
	now := time.Now().UnixNano()
	last := s.swept.Load()
	if now-last < int64(SweepEvery) || !s.swept.CompareAndSwap(last, now) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := s.counter.SweepTokens(ctx); err != nil {
			s.log.Warn("shared limits not swept", "err", err)
		}
	}()
}

// Limit is a token bucket per key that every replica on one Counter spends from: perSecond
// tokens per second up to burst, fleet-wide. While the Counter fails it falls back to the
// process's own buckets of the same size (a fleet of n then allows up to n times the limit).
type Limit struct {
	*Shared
	name     string
	interval time.Duration
	burst    int
	local    *Buckets
}

// Limit returns the limit name (the prefix of its keys in the Counter) of perSecond tokens per
// second and burst tokens; perSecond <= 0 means no limit.
func (s *Shared) Limit(name string, perSecond float64, burst int) *Limit {
	l := &Limit{Shared: s, name: name, local: New(perSecond, burst)}
	if perSecond > 0 {
		l.interval = time.Duration(float64(time.Second) / perSecond)
		l.burst = max(burst, 1)
	}
	return l
}

// Allow takes a token from key's bucket. When there is none it takes nothing and returns how
// long until there is one.
func (l *Limit) Allow(ctx context.Context, key string) (bool, time.Duration) {
	if l.interval == 0 {
		return true, 0
	}
	if !l.ok() {
		return l.local.Allow(key)
	}
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	ok, wait, err := l.counter.TakeToken(cctx, l.name+":"+key, l.interval, l.burst)
	if err != nil {
		l.failed(ctx, l.name, err)
		return l.local.Allow(key)
	}
	l.sweep()
	return ok, wait
}

// AllowThen takes a token from key's bucket and, when it had one, from then's bucket of
// thenKey: a request's two limits (the candidate page's per address, then per link) in one round
// trip to the shared store, charged in that order as two Allows would be. When either is refused
// it returns how long until that one has a token.
func (l *Limit) AllowThen(ctx context.Context, key string, then *Limit, thenKey string) (bool, time.Duration) {
	switch {
	case l.interval == 0:
		return then.Allow(ctx, thenKey)
	case then.interval == 0:
		return l.Allow(ctx, key)
	case !l.ok() || then.Shared != l.Shared:
		if ok, wait := l.Allow(ctx, key); !ok {
			return false, wait
		}
		return then.Allow(ctx, thenKey)
	}
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	ok, wait, err := l.counter.TakeTokenThen(cctx, Bucket{l.name + ":" + key, l.interval, l.burst}, Bucket{then.name + ":" + thenKey, then.interval, then.burst})
	if err != nil {
		l.failed(ctx, l.name, err)
		if ok, wait := l.local.Allow(key); !ok {
			return false, wait
		}
		return then.local.Allow(thenKey)
	}
	l.sweep()
	return ok, wait
}

// CallSlots caps concurrent work per key across every replica on one Counter: a slot is a lease
// that expires after ttl, so one a crashed replica held comes back. While the Counter fails it
// falls back to the process's own slots of the same cap.
type CallSlots struct {
	*Shared
	name  string
	max   int
	ttl   time.Duration
	local *Slots
}

// CallSlots allows max concurrent holders per key fleet-wide, each for at most ttl; max <= 0
// means no cap.
func (s *Shared) CallSlots(name string, max int, ttl time.Duration) *CallSlots {
	return &CallSlots{Shared: s, name: name, max: max, ttl: ttl, local: NewSlots(max)}
}

// Acquire takes a slot of key, reporting false when all are held. Call the release it returns
// when done (also after false: it does nothing then).
func (s *CallSlots) Acquire(ctx context.Context, key string) (bool, func()) {
	if s.max <= 0 {
		return true, func() {}
	}
	if !s.ok() {
		return s.acquireLocal(key)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	lease := hex.EncodeToString(b[:])
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	ok, err := s.counter.AcquireSlot(cctx, s.name+":"+key, lease, s.max, s.ttl)
	if err != nil {
		s.failed(ctx, s.name, err)
		return s.acquireLocal(key)
	}
	if !ok {
		return false, func() {}
	}
	return true, func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CheckTimeout)
		defer cancel()
		if err := s.counter.ReleaseSlot(rctx, s.name+":"+key, lease); err != nil {
			s.log.Warn("call slot not released: it expires", "limit", s.name, "after", s.ttl, "err", err)
		}
	}
}

func (s *CallSlots) acquireLocal(key string) (bool, func()) {
	if !s.local.Acquire(key) {
		return false, func() {}
	}
	return true, func() { s.local.Release(key) }
}
