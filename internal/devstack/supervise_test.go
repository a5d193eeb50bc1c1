package devstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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

func TestSupervisorRetriesAFailedRestart(t *testing.T) {
	gaveUp := make(chan error, 1)
	s := &Supervisor{Backoff: 10 * time.Millisecond, GiveUp: func(err error) { gaveUp <- err }}
	exited := make(chan struct{})
	close(exited)
	restarted := make(chan int, 1)
	attempts := 0
	go s.Watch(t.Context(), "postgres", exited, func(context.Context) (<-chan struct{}, error) {
		attempts++
		if attempts < 3 {
			return nil, errors.New("pre-existing shared memory block is still in use")
		}
		restarted <- attempts
		return make(chan struct{}), nil
	})
	select {
	case n := <-restarted:
		if n != 3 {
			t.Errorf("restarted on attempt %d, want 3", n)
		}
	case err := <-gaveUp:
		t.Fatalf("gave up after a failed restart: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("not restarted")
	}
}

func TestSupervisorGivesUpWhenRestartKeepsFailing(t *testing.T) {
	gaveUp := make(chan error, 1)
	s := &Supervisor{RetryFor: 300 * time.Millisecond, Backoff: 20 * time.Millisecond, GiveUp: func(err error) { gaveUp <- err }}
	exited := make(chan struct{})
	close(exited)
	attempts := 0
	go s.Watch(t.Context(), "temporal", exited, func(context.Context) (<-chan struct{}, error) {
		attempts++
		return nil, errors.New("port in use")
	})
	select {
	case err := <-gaveUp:
		if err == nil || !strings.Contains(err.Error(), "port in use") || attempts < 3 {
			t.Errorf("GiveUp(%v) after %d attempts, want the cause after several", err, attempts)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no GiveUp after restarts that kept failing")
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

// TestSupervisorBringsBackKilledPostgres: kill -9 of the postmaster while a backend is busy in a
// query. That backend outlives the postmaster and holds its shared memory, so a postmaster
// started at once refuses to run ("pre-existing shared memory block ... is still in use"); the
// supervisor waits for the old processes, restarts the cluster, and queries succeed again.
func TestSupervisorBringsBackKilledPostgres(t *testing.T) {
	dir := t.TempDir()
	removeRelocated(t, dir)
	ctx := t.Context()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	opts := PostgresOptions{Dir: dir, Port: port, Fast: true, Log: testLogger(t)} // recruitd dev's port is fixed too
	pg, err := StartPostgres(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var current atomic.Pointer[Postgres]
	current.Store(pg)
	t.Cleanup(func() { current.Load().Destroy(context.Background()) })
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SET synchronous_commit = on; CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before the kill')"); err != nil {
		t.Fatal(err)
	}
	busy, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var busyPID int
	if err := busy.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&busyPID); err != nil {
		t.Fatal(err)
	}
	// A loop that never waits on a latch, so it does not notice the postmaster's death; the
	// statement timeout ends it should anything go wrong.
	go busy.Exec(context.WithoutCancel(ctx), "SET statement_timeout = '60s'; DO $$ BEGIN LOOP END LOOP; END $$")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var state string
		err := conn.QueryRow(ctx, "SELECT state FROM pg_stat_activity WHERE pid = $1", busyPID).Scan(&state)
		if err == nil && state == "active" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the busy backend did not start its loop (state %q, %v)", state, err)
		}
	}
	conn.Close(ctx)

	restarted := make(chan *Postgres, 1)
	gaveUp := make(chan error, 1)
	sv := &Supervisor{Log: testLogger(t), GiveUp: func(err error) { gaveUp <- err }}
	go sv.Watch(ctx, "postgres", pg.Exited(), func(ctx context.Context) (<-chan struct{}, error) {
		next, err := current.Load().Restart(ctx, opts)
		if err != nil {
			return nil, err
		}
		current.Store(next)
		restarted <- next
		return next.Exited(), nil
	})
	if err := syscall.Kill(pg.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var next *Postgres
	select {
	case next = <-restarted:
	case err := <-gaveUp:
		t.Fatalf("the supervisor gave up: %v", err)
	case <-time.After(90 * time.Second):
		t.Fatal("postgres not restarted within 90 s")
	}
	if next.Port() != pg.Port() {
		t.Errorf("restarted on port %d, want %d", next.Port(), pg.Port())
	}
	if err := syscall.Kill(busyPID, 0); !errors.Is(err, syscall.ESRCH) && !isZombie(busyPID) {
		t.Errorf("the old busy backend %d still runs after the restart", busyPID)
	}
	conn, err = pgx.Connect(ctx, next.URL("postgres"))
	if err != nil {
		t.Fatalf("connect after the restart: %v", err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "before the kill" {
		t.Errorf("SELECT v FROM kept after the restart = %q, %v", v, err)
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}
