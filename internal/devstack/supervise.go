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

// Supervisor restarts a child that dies, so a development stack never sits half dead. A child
// that dies more than MaxRestarts times within Window is given up on: GiveUp is called with
// the reason (recruitd dev then stops everything with that message).
type Supervisor struct {
	Log         *slog.Logger
	MaxRestarts int           // default 3
	Window      time.Duration // default 5 minutes
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
		next, err := start(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Error("dev service did not restart", "service", name, "err", err)
			s.GiveUp(fmt.Errorf("%s exited and did not restart: %w", name, err))
			return
		}
		log.Info("dev service restarted", "service", name)
		exited = next
	}
}
