// Package gctune sets the Go garbage collector's policy of recruitd's processes and of the Go
// servers recruitd starts (the Temporal dev server), unless the operator set GOGC or GOMEMLIMIT.
//
// Go's default (GOGC=100: collect when the heap has doubled its live size) suits programs with
// large heaps. recruitd's processes keep small live heaps (tens of MB) and allocate fast: every
// request, statement and workflow task. Profiled under `bench partner`, the collector's marking
// took 6.6% of all the machine's CPU samples (Temporal 4.2, recruitd 2.4); with GOGC=400 it took
// 1.9%. The price is a heap that may grow to five times its live size, bounded by a soft
// memory limit at three quarters of the container's memory when there is one.
package gctune

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Percent is the GOGC recruitd uses when none is set.
const Percent = 400

// Apply sets this process's policy from getenv and the cgroup limit read from memoryMax (the
// contents of /sys/fs/cgroup/memory.max; "" or "max" for none). The Go runtime has already
// applied GOGC and GOMEMLIMIT when they are set; Apply leaves them.
func Apply(getenv func(string) string, memoryMax string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
	if limit := softLimit(memoryMax); getenv("GOMEMLIMIT") == "" && limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}

// ApplyProcess is Apply with this process's environment and cgroup.
func ApplyProcess() {
	b, _ := os.ReadFile("/sys/fs/cgroup/memory.max")
	Apply(os.Getenv, string(b))
}

// softLimit is three quarters of the cgroup's memory limit, 0 without one.
func softLimit(memoryMax string) int64 {
	s := strings.TrimSpace(memoryMax)
	if s == "" || s == "max" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= math.MaxInt64/4 {
		return 0
	}
	return n / 4 * 3
}

// ChildEnv returns env with GOGC=Percent added when env sets no GOGC, for a Go server recruitd
// starts (its runtime reads the variable at start).
func ChildEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") {
			return env
		}
	}
	return append(env, "GOGC="+strconv.Itoa(Percent))
}
