package bulkload

import (
	"context"
	"sync"
)

// Turnstile lets tables build their indexes in a fixed order, at most a limit at a time: when
// Postgres backends share the cores evenly, building one index at a time leaves the critical
// table (the seed's candidates) a core. The limit can grow once that table is done.
type Turnstile struct {
	mu    sync.Mutex
	limit int
	used  int
	next  int           // rank of the next table to start
	wake  chan struct{} // closed and replaced whenever the state changes
}

// NewTurnstile lets limit tables through at a time, in the order of their ranks 0, 1, 2...
func NewTurnstile(limit int) *Turnstile {
	return &Turnstile{limit: limit, wake: make(chan struct{})}
}

// Acquire waits until every lower rank has gone through and a place is free, or ctx ends.
func (s *Turnstile) Acquire(ctx context.Context, rank int) error {
	for {
		s.mu.Lock()
		if s.next == rank && s.used < s.limit {
			s.next++
			s.used++
			s.signal()
			s.mu.Unlock()
			return nil
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// signal wakes the waiters; s.mu is held.
func (s *Turnstile) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// Release frees the place taken by Acquire.
func (s *Turnstile) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used--
	s.signal()
}

// SetLimit changes how many tables may build at a time.
func (s *Turnstile) SetLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = n
	s.signal()
}
