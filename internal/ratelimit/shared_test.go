package ratelimit_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/ratelimit"
	"github.com/recruitd/recruitd/internal/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func newStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestLimitIsFleetWide: two replicas' limits on one database allow the burst once in total,
// however the requests are spread and however many arrive at once; the refused get a wait of
// at most one interval; another key has its own bucket; tokens come back at the rate.
func TestLimitIsFleetWide(t *testing.T) {
	st := newStore(t)
	replicas := []*ratelimit.Limit{
		ratelimit.NewShared(st, nil).Limit("api-key", 2, 10),
		ratelimit.NewShared(st, nil).Limit("api-key", 2, 10),
	}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	var mu sync.Mutex
	var longest time.Duration
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, wait := replicas[i%2].Allow(t.Context(), "k1")
			if ok {
				allowed.Add(1)
				return
			}
			mu.Lock()
			longest = max(longest, wait)
			mu.Unlock()
		}()
	}
	wg.Wait()
	// 60 checks take well under a second here, so at most one token comes back meanwhile.
	if n := allowed.Load(); n < 10 || n > 11 {
		t.Errorf("60 checks over two replicas of a limit with burst 10 allowed %d, want 10 (not 20)", n)
	}
	if longest <= 0 || longest > 500*time.Millisecond {
		t.Errorf("a refused check's wait = %s, want up to one interval (500ms)", longest)
	}
	if ok, _ := replicas[1].Allow(t.Context(), "k2"); !ok {
		t.Error("another key was refused: keys must not share a bucket")
	}
	if ok, _ := ratelimit.NewShared(st, nil).Limit("other-limit", 2, 10).Allow(t.Context(), "k1"); !ok {
		t.Error("another limit's bucket of the same key was refused: limits must not share buckets")
	}
	time.Sleep(600 * time.Millisecond)
	if ok, wait := replicas[1].Allow(t.Context(), "k1"); !ok {
		t.Errorf("a check one interval later was refused (wait %s), want the token that came back", wait)
	}
}

// TestCallSlotsAreFleetWide: two replicas' call slots on one database hold the cap in total; a
// release frees one for either replica; a lease its replica never released expires.
func TestCallSlotsAreFleetWide(t *testing.T) {
	st := newStore(t)
	a := ratelimit.NewShared(st, nil).CallSlots("mcp-calls", 2, time.Second)
	b := ratelimit.NewShared(st, nil).CallSlots("mcp-calls", 2, time.Second)
	ok1, release1 := a.Acquire(t.Context(), "k")
	ok2, _ := b.Acquire(t.Context(), "k") // never released: its replica "died"
	if !ok1 || !ok2 {
		t.Fatalf("two acquisitions with a cap of 2 = %v, %v; want both", ok1, ok2)
	}
	if ok, _ := a.Acquire(t.Context(), "k"); ok {
		t.Error("a third acquisition on replica a was allowed, want the fleet's cap of 2")
	}
	if ok, _ := b.Acquire(t.Context(), "k"); ok {
		t.Error("a third acquisition on replica b was allowed, want the fleet's cap of 2")
	}
	if ok, release := b.Acquire(t.Context(), "other"); !ok {
		t.Error("another key was refused: keys must not share slots")
	} else {
		release()
	}
	release1()
	ok3, release3 := b.Acquire(t.Context(), "k")
	if !ok3 {
		t.Fatal("an acquisition after a release was refused")
	}
	release3()
	// The lease of the replica that never released it expires after its ttl.
	_, _ = a.Acquire(t.Context(), "k")
	if ok, _ := a.Acquire(t.Context(), "k"); ok {
		t.Fatal("the cap was not reached before the expiry")
	}
	time.Sleep(1100 * time.Millisecond)
	ok4, release4 := a.Acquire(t.Context(), "k")
	ok5, release5 := b.Acquire(t.Context(), "k")
	if !ok4 || !ok5 {
		t.Errorf("acquisitions after the leases expired = %v, %v; want both", ok4, ok5)
	}
	release4()
	release5()
	if n, err := st.SweepTokens(t.Context()); err != nil || n != 2 {
		t.Errorf("SweepTokens = %d, %v; want both keys' slot rows, none held, deleted", n, err)
	}
}

// failing is a Counter whose store is down.
type failing struct{ calls atomic.Int32 }

var errDown = errors.New("database down")

func (f *failing) TakeToken(context.Context, string, time.Duration, int) (bool, time.Duration, error) {
	f.calls.Add(1)
	return false, 0, errDown
}
func (f *failing) TakeTokenThen(context.Context, ratelimit.Bucket, ratelimit.Bucket) (bool, time.Duration, error) {
	f.calls.Add(1)
	return false, 0, errDown
}
func (f *failing) AcquireSlot(context.Context, string, string, int, time.Duration) (bool, error) {
	f.calls.Add(1)
	return false, errDown
}
func (f *failing) ReleaseSlot(context.Context, string, string) error { return errDown }
func (f *failing) SweepTokens(context.Context) (int64, error)        { return 0, errDown }

// TestLimitFallsBackPerProcess: while the shared store fails, the limits count in their own
// process (the burst, then refusals) and ask the store once per FallbackFor, not once per check
// nor once per limit.
func TestLimitFallsBackPerProcess(t *testing.T) {
	f := &failing{}
	sh := ratelimit.NewShared(f, nil)
	l := sh.Limit("api-key", 1, 3)
	allowed := 0
	for range 10 {
		if ok, _ := l.Allow(t.Context(), "k"); ok {
			allowed++
		}
	}
	if allowed != 3 || f.calls.Load() != 1 {
		t.Errorf("10 checks with the store down: %d allowed, the store asked %d times; want the burst of 3 and one ask", allowed, f.calls.Load())
	}
	if ok, _ := sh.Limit("page-addr", 1, 3).Allow(t.Context(), "k"); !ok || f.calls.Load() != 1 {
		t.Errorf("another limit's check with the store down = %v, the store asked %d times; want allowed by its own bucket, no second ask", ok, f.calls.Load())
	}
	s := sh.CallSlots("mcp-calls", 1, time.Minute)
	ok, release := s.Acquire(t.Context(), "k")
	if ok2, _ := s.Acquire(t.Context(), "k"); !ok || ok2 || f.calls.Load() != 1 {
		t.Errorf("acquisitions with the store down = %v, %v (store asked %d times); want the process's own cap of 1", ok, ok2, f.calls.Load())
	}
	release()
	if ok, _ := s.Acquire(t.Context(), "k"); !ok {
		t.Error("an acquisition after the release was refused")
	}
}

// BenchmarkSharedCheck is the cost one fleet-wide check adds to a request: one statement.
func BenchmarkSharedCheck(b *testing.B) {
	st := newStore(b)
	l := ratelimit.NewShared(st, nil).Limit("api-key", 1e6, 1e6)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if ok, _ := l.Allow(ctx, "bench"); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkLocalCheck is a process's own bucket, for comparison.
func BenchmarkLocalCheck(b *testing.B) {
	l := ratelimit.New(1e6, 1e6)
	for b.Loop() {
		l.Allow("bench")
	}
}

// BenchmarkSharedCallSlot is what the fleet-wide call cap adds to a tool call: an acquisition
// and a release, one statement each.
func BenchmarkSharedCallSlot(b *testing.B) {
	st := newStore(b)
	s := ratelimit.NewShared(st, nil).CallSlots("mcp-calls", 4, time.Minute)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		ok, release := s.Acquire(ctx, "bench")
		if !ok {
			b.Fatal("refused")
		}
		release()
	}
}

// counting counts a Counter's round trips.
type counting struct {
	ratelimit.Counter
	trips atomic.Int32
}

func (c *counting) TakeToken(ctx context.Context, key string, interval time.Duration, burst int) (bool, time.Duration, error) {
	c.trips.Add(1)
	return c.Counter.TakeToken(ctx, key, interval, burst)
}

func (c *counting) TakeTokenThen(ctx context.Context, first, then ratelimit.Bucket) (bool, time.Duration, error) {
	c.trips.Add(1)
	return c.Counter.TakeTokenThen(ctx, first, then)
}

// TestAllowThenIsOneRoundTrip: a request's two limits (the page's per address, then per link)
// cost one statement, charge the second only when the first allowed (as two Allows did), are
// fleet-wide, and report the wait of the limit that refused.
func TestAllowThenIsOneRoundTrip(t *testing.T) {
	st := newStore(t)
	c := &counting{Counter: st}
	sh := ratelimit.NewShared(c, nil)
	addr, link := sh.Limit("page-addr", 2, 2), sh.Limit("page-link", 1, 5)
	other := ratelimit.NewShared(st, nil).Limit("page-link", 1, 5) // another replica's
	for i := range 2 {
		if ok, wait := addr.AllowThen(t.Context(), "10.0.0.1", link, "L"); !ok {
			t.Fatalf("check %d refused (wait %s), want the address's burst of 2", i+1, wait)
		}
	}
	ok, wait := addr.AllowThen(t.Context(), "10.0.0.1", link, "L")
	if ok || wait <= 0 || wait > 500*time.Millisecond {
		t.Errorf("third check = %v, wait %s; want refused by the address, its wait up to its interval (500ms)", ok, wait)
	}
	if n := c.trips.Load(); n != 3 {
		t.Errorf("3 checks took %d round trips, want 3", n)
	}
	// The refused check did not charge the link: 5 - 2 tokens are left, on any replica.
	for i := range 3 {
		if ok, wait := other.Allow(t.Context(), "L"); !ok {
			t.Fatalf("the link's token %d of the 3 left was refused (wait %s): the refused check charged it", i+1, wait)
		}
	}
	// Now the link has none: a fresh address passes, the link refuses with its own wait.
	ok, wait = addr.AllowThen(t.Context(), "10.0.0.2", link, "L")
	if ok || wait <= 500*time.Millisecond || wait > time.Second {
		t.Errorf("check with the link spent = %v, wait %s; want refused by the link, its wait up to its interval (1s)", ok, wait)
	}
	// A limit that is off leaves the other one.
	if ok, _ := sh.Limit("off", 0, 0).AllowThen(t.Context(), "x", addr, "10.0.0.3"); !ok {
		t.Error("an address check behind a limit that is off was refused")
	}
}
