package devstack

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Exited is closed when the cluster's postmaster has exited.
func (p *Postgres) Exited() <-chan struct{} { return p.proc.done }

// Exited is closed when the dev server has exited.
func (t *Temporal) Exited() <-chan struct{} { return t.proc.done }

// maxBackoff caps the pause between two attempts to restart a child.
const maxBackoff = 15 * time.Second

// Supervisor restarts a child that dies, so a development stack never sits half dead. A restart
// that fails is tried again after a pause that doubles from Backoff up to 15 s, for up to
// RetryFor after the death. A child that cannot be restarted within RetryFor, or that dies more
// than MaxRestarts times within Window, is given up on: GiveUp is called with the reason
// (recruitd dev then stops everything with that message). docs/local-development.md states
// these defaults.
type Supervisor struct {
	Log         *slog.Logger
	MaxRestarts int           // default 3
	Window      time.Duration // default 5 minutes
	RetryFor    time.Duration // default 2 minutes
	Backoff     time.Duration // default 1 second
	GiveUp      func(error)
}

// Watch waits for the child named name to exit (exited is its current exit channel) and
// restarts it with start, which returns the new exit channel. It returns when ctx ends or it
// gives up.
func (s *Supervisor) Watch(ctx context.Context, name string, exited <-chan struct{}, start func(context.Context) (<-chan struct{}, error)) {
	maxRestarts, window := s.MaxRestarts, s.Window
	if maxRestarts <= 0 {
		maxRestarts = 3
	}
	if window <= 0 {
		window = 5 * time.Minute
	}
	log := orDiscard(s.Log)
	var restarts []time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-exited:
		}
		if ctx.Err() != nil {
			return // stopping: the exit was ours
		}
		now := time.Now()
		recent := restarts[:0]
		for _, at := range restarts {
			if now.Sub(at) < window {
				recent = append(recent, at)
			}
		}
		restarts = recent
		if len(restarts) >= maxRestarts {
			err := fmt.Errorf("%s died %d times within %s; stopping the whole stack (see its log)", name, len(restarts)+1, window)
			log.Error("dev service keeps dying", "service", name, "restarts", len(restarts))
			s.GiveUp(err)
			return
		}
		restarts = append(restarts, now)
		log.Warn("dev service exited; restarting it", "service", name, "restart", len(restarts), "of", maxRestarts)
		next, err := s.restart(ctx, log, name, start)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Error("dev service did not restart", "service", name, "err", err)
			s.GiveUp(err)
			return
		}
		log.Info("dev service restarted", "service", name)
		exited = next
	}
}

// restart calls start until it succeeds, backing off between attempts, for up to RetryFor.
func (s *Supervisor) restart(ctx context.Context, log *slog.Logger, name string, start func(context.Context) (<-chan struct{}, error)) (<-chan struct{}, error) {
	retryFor, pause := s.RetryFor, s.Backoff
	if retryFor <= 0 {
		retryFor = 2 * time.Minute
	}
	if pause <= 0 {
		pause = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, retryFor)
	defer cancel()
	for attempt := 1; ; attempt++ {
		next, err := start(ctx)
		if err == nil {
			return next, nil
		}
		deadline, _ := ctx.Deadline()
		if ctx.Err() != nil || time.Until(deadline) < pause {
			return nil, fmt.Errorf("%s exited and did not restart within %s (%d attempts): %w", name, retryFor, attempt, err)
		}
		log.Warn("dev service did not restart; trying again", "service", name, "attempt", attempt, "retry_in", pause, "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s exited and did not restart within %s (%d attempts): %w", name, retryFor, attempt, err)
		case <-time.After(pause):
		}
		pause = min(2*pause, maxBackoff)
	}
}
