// Package bench generates load for `make bench`: an open loop at a fixed request rate (latency
// under a steady arrival rate, not under a client's back-pressure) and closed bursts (throughput).
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recruitd/recruitd/internal/progress"
)

// Latencies are observed call durations.
type Latencies []time.Duration

// Percentile returns the p-th percentile (0 < p <= 100), nearest rank.
func (l Latencies) Percentile(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// OpenLoop starts f every 1/rate seconds for d, whether or not earlier calls have returned, and
// reports each call's latency and the number that failed. It shows its progress on out (see
// package progress): redrawn on a terminal, a line every 10s in a file or a pipe.
func OpenLoop(ctx context.Context, rate float64, d time.Duration, out io.Writer, f func(context.Context) error) (Latencies, int) {
	interval := time.Duration(float64(time.Second) / rate)
	total := int(d / interval)
	var mu sync.Mutex
	lat := make(Latencies, 0, total)
	var sent, failed, done atomic.Int64
	show := progress.Start(out, progress.Options{Terminal: progress.IsTerminal(out)}, func(fr progress.Frame) []string {
		counts := fmt.Sprintf("%d/%d requests sent, %d answered, %d failed", sent.Load(), total, done.Load(), failed.Load())
		switch {
		case fr.Terminal:
			return []string{"  " + counts}
		case fr.Periodic:
			return []string{fmt.Sprintf("  %s %s (%.1f answered/s)", progress.Clock(fr.Elapsed), counts, float64(done.Load())/fr.Elapsed.Seconds())}
		}
		return nil
	})
	defer show.Stop() // after the calls in flight have returned: the last line has every count
	var wg sync.WaitGroup
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for sent.Load() < int64(total) {
		select {
		case <-ctx.Done():
			wg.Wait()
			return lat, int(failed.Load())
		case <-tick.C:
			sent.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				begin := time.Now()
				err := f(ctx)
				took := time.Since(begin)
				done.Add(1)
				if err != nil {
					failed.Add(1)
					return
				}
				mu.Lock()
				lat = append(lat, took)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	return lat, int(failed.Load())
}

// Burst calls f n times with at most c calls in flight and returns how many failed.
func Burst(ctx context.Context, n, c int, f func(ctx context.Context, i int) error) int {
	var failed atomic.Int64
	sem := make(chan struct{}, c)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(ctx, i); err != nil {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(failed.Load())
}

// WaitFor polls done every interval until it reports true, ctx ends, or timeout passes.
func WaitFor(ctx context.Context, timeout, interval time.Duration, done func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, err := done(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("not done after %s", timeout)
			}
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
