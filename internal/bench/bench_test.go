package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var l Latencies
	for i := 1; i <= 100; i++ {
		l = append(l, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 1: time.Millisecond} {
		if got := l.Percentile(p); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", p, got, want)
		}
	}
	if got := (Latencies{}).Percentile(50); got != 0 {
		t.Errorf("empty Percentile = %v", got)
	}
}

func TestOpenLoopKeepsTheRate(t *testing.T) {
	var calls atomic.Int64
	begin := time.Now()
	lat, failed := OpenLoop(context.Background(), 100, 500*time.Millisecond, io.Discard, func(context.Context) error {
		if calls.Add(1)%10 == 0 {
			return errors.New("boom")
		}
		time.Sleep(30 * time.Millisecond) // slower than the interval: an open loop does not wait
		return nil
	})
	if calls.Load() != 50 || failed != 5 || len(lat) != 45 {
		t.Errorf("calls %d, failed %d, latencies %d; want 50, 5, 45", calls.Load(), failed, len(lat))
	}
	if took := time.Since(begin); took > 900*time.Millisecond {
		t.Errorf("open loop of 0.5s took %s: calls were serialised", took)
	}
}

func TestOpenLoopProgressInAFile(t *testing.T) {
	var out bytes.Buffer // not a terminal: a line per step, no redrawing
	OpenLoop(context.Background(), 100, 300*time.Millisecond, &out, func(context.Context) error { return nil })
	got := out.String()
	if strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("OpenLoop progress in a file holds a carriage return or an escape sequence: %q", got)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "30/30 requests sent, 30 answered, 0 failed (") || !strings.HasSuffix(lines[0], " answered/s)") {
		t.Errorf("OpenLoop progress = %q, want one line: 30/30 requests sent, 30 answered, 0 failed and the rate", lines)
	}
}

func TestBurst(t *testing.T) {
	var inFlight, peak atomic.Int64
	failed := Burst(context.Background(), 40, 4, func(_ context.Context, i int) error {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		inFlight.Add(-1)
		if i%8 == 0 {
			return errors.New("x")
		}
		return nil
	})
	if failed != 5 || peak.Load() > 4 {
		t.Errorf("failed %d (want 5), peak concurrency %d (want <= 4)", failed, peak.Load())
	}
}
