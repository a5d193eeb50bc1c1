package gctune

import (
	"runtime/debug"
	"slices"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))

	p := Apply(env(nil), "max\n")
	if p.Percent != Percent || p.PercentFromEnv || p.Limit != 0 {
		t.Fatalf("no settings, no cgroup limit: %+v", p)
	}
	if got := debug.SetGCPercent(-1); got != Percent {
		t.Fatalf("GC percent %d, want %d", got, Percent)
	}
	debug.SetGCPercent(Percent)

	p = Apply(env(nil), "4294967296\n")
	if p.Limit != 3<<30 || p.LimitFromEnv {
		t.Fatalf("4 GiB cgroup: %+v, want a 3 GiB soft limit", p)
	}
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Fatalf("memory limit %d", got)
	}

	// What the runtime read from the environment stays.
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	p = Apply(env(map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}), "4294967296")
	if p.Percent != 150 || !p.PercentFromEnv || p.Limit != 1<<30 || !p.LimitFromEnv {
		t.Fatalf("from the environment: %+v", p)
	}
	if got := debug.SetGCPercent(-1); got != 150 {
		t.Fatalf("GC percent %d, want the environment's 150", got)
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
