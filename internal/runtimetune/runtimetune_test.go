package runtimetune

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	Apply(env(nil), "max\n")
	if percent() != Percent || limit() != math.MaxInt64 {
		t.Fatalf("no settings, no cgroup limit: GC percent %d, memory limit %d; want %d and none", percent(), limit(), Percent)
	}
	Apply(env(nil), "4294967296\n")
	if limit() != 3<<30 {
		t.Fatalf("4 GiB cgroup: memory limit %d, want a 3 GiB soft limit", limit())
	}

	// What the runtime read from the environment stays.
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	Apply(env(map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}), "4294967296")
	if percent() != 150 || limit() != 1<<30 {
		t.Fatalf("from the environment: GC percent %d, memory limit %d; want 150 and 1 GiB", percent(), limit())
	}
}

func TestSoftLimit(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "max": 0, "max\n": 0, "junk": 0, "-5": 0, "0": 0, "1000\n": 750, "9223372036854775807": 0} {
		if got := softLimit(in); got != want {
			t.Errorf("softLimit(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestChildEnv(t *testing.T) {
	if got := ChildEnv([]string{"A=1"}); !slices.Equal(got, []string{"A=1", "GOGC=400"}) {
		t.Errorf("added: %q", got)
	}
	if got := ChildEnv([]string{"GOGC=off", "A=1"}); !slices.Equal(got, []string{"GOGC=off", "A=1"}) {
		t.Errorf("kept: %q", got)
	}
}

func TestShareCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cores := runtime.NumCPU()
	shared := SharedProcs * cores
	type shareCase struct {
		name, gomaxprocs string
		before, want     int
	}
	cases := []shareCase{
		{"the runtime's default, one per core", "", cores, shared},
		{"set by the operator", "3", cores, cores},
	}
	if cores > 1 { // a quota shows as a default below the cores
		cases = append(cases, shareCase{"bounded by a CPU quota", "", cores - 1, cores - 1})
	}
	for _, c := range cases {
		runtime.GOMAXPROCS(c.before)
		ShareCores(env(map[string]string{"GOMAXPROCS": c.gomaxprocs}))
		if got := runtime.GOMAXPROCS(0); got != c.want {
			t.Errorf("%s: GOMAXPROCS %d, want %d", c.name, got, c.want)
		}
	}
}
