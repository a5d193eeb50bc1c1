package devstack

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSupervisorRestartsThenGivesUp(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	gaveUp := make(chan error, 1)
	s := &Supervisor{MaxRestarts: 2, Window: time.Minute, GiveUp: func(err error) { gaveUp <- err }}
	exits := make(chan chan struct{}, 8)
	starts := 0
	first := make(chan struct{})
	go s.Watch(ctx, "postgres", first, func(context.Context) (<-chan struct{}, error) {
		starts++
		c := make(chan struct{})
		exits <- c
		return c, nil
	})
	close(first) // dies: restart 1
	close(<-exits)
	// dies again: restart 2
	close(<-exits)
	// dies a third time within the window: given up
	select {
	case err := <-gaveUp:
		if err == nil || starts != 2 {
			t.Errorf("GiveUp(%v) after %d restarts, want an error after 2", err, starts)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the supervisor did not give up on a child that kept dying")
	}
}

func TestSupervisorGivesUpWhenRestartFails(t *testing.T) {
	gaveUp := make(chan error, 1)
	s := &Supervisor{GiveUp: func(err error) { gaveUp <- err }}
	exited := make(chan struct{})
	close(exited)
	go s.Watch(t.Context(), "temporal", exited, func(context.Context) (<-chan struct{}, error) {
		return nil, errors.New("port in use")
	})
	select {
	case err := <-gaveUp:
		if err == nil {
			t.Error("GiveUp(nil)")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no GiveUp after a failed restart")
	}
}

func TestSupervisorIgnoresExitWhenStopping(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s := &Supervisor{GiveUp: func(error) { t.Error("GiveUp called while stopping") }}
	exited := make(chan struct{})
	done := make(chan struct{})
	go func() {
		s.Watch(ctx, "postgres", exited, func(context.Context) (<-chan struct{}, error) {
			t.Error("restarted while stopping")
			return nil, nil
		})
		close(done)
	}()
	cancel()
	close(exited)
	<-done
}
