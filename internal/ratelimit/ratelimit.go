// Package ratelimit keeps token buckets per key (an API key, a client IP) and caps concurrent
// work per key. Memory is bounded: buckets idle long enough to be full again are dropped.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Buckets holds one token bucket per key, refilled at Every per second up to Burst.
type Buckets struct {
	every rate.Limit
	burst int

	mu    sync.Mutex
	m     map[string]*bucket
	swept time.Time
}

type bucket struct {
	lim  *rate.Limiter
	used time.Time
}

// New returns buckets of perSecond tokens per second and burst tokens. perSecond <= 0 means no
// limit.
func New(perSecond float64, burst int) *Buckets {
	if perSecond <= 0 {
		return &Buckets{every: rate.Inf}
	}
	return &Buckets{every: rate.Limit(perSecond), burst: max(burst, 1), m: map[string]*bucket{}}
}

// Allow takes a token from key's bucket. When there is none it takes nothing and returns how
// long until there is one.
func (b *Buckets) Allow(key string) (bool, time.Duration) {
	if b.every == rate.Inf {
		return true, 0
	}
	r := b.get(key).Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return false, d
	}
	return true, 0
}

func (b *Buckets) get(key string) *rate.Limiter {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	bk, ok := b.m[key]
	if !ok {
		bk = &bucket{lim: rate.NewLimiter(b.every, b.burst)}
		b.m[key] = bk
	}
	bk.used = now
	return bk.lim
}

// sweep drops, at most once a minute, the buckets unused for longer than a full refill takes:
// they would be full again, the same as new ones.
func (b *Buckets) sweep(now time.Time) {
	if now.Sub(b.swept) < time.Minute {
		return
	}
	b.swept = now
	idle := time.Duration(float64(b.burst)/float64(b.every)*float64(time.Second)) + time.Second
	for k, bk := range b.m {
		if now.Sub(bk.used) > idle {
			delete(b.m, k)
		}
	}
}

// Slots caps concurrent work per key.
type Slots struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

// NewSlots allows max concurrent holders per key; max <= 0 means no cap.
func NewSlots(max int) *Slots { return &Slots{max: max, n: map[string]int{}} }

// Acquire takes a slot of key, reporting false when all are held. Release it when done.
func (s *Slots) Acquire(key string) bool {
	if s.max <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key] >= s.max {
		return false
	}
	s.n[key]++
	return true
}

// Release returns a slot of key taken by Acquire.
func (s *Slots) Release(key string) {
	if s.max <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key] <= 1 {
		delete(s.n, key)
		return
	}
	s.n[key]--
}
