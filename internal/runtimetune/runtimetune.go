// Package runtimetune sets the Go runtime's policy of recruitd's processes and of the Go servers
// recruitd starts (the Temporal dev server), unless the operator set the runtime's variables: the
// garbage collector's (GOGC, GOMEMLIMIT) for every process, and the processors' (GOMAXPROCS) for
// the processes that run beside the Postgres and Temporal they started.
//
// The collector. Go's default (GOGC=100: collect when the heap has doubled its live size) suits
// programs with large heaps. recruitd's processes keep small live heaps (tens of MB) and allocate
// fast: every request, statement and workflow task. Profiled under `bench partner`, the
// collector's marking took 6.6% of all the machine's CPU samples (Temporal 4.2, recruitd 2.4);
// with GOGC=400 it took 1.9%. The price is a heap that may grow to five times its live size,
// bounded by a soft memory limit at three quarters of the container's memory when there is one.
//
// The processors. Go runs goroutines on GOMAXPROCS threads at once, by default one per core (or
// per core of the container's CPU quota), as if the process had the cores to itself. `recruitd
// dev` and `recruitd bench` share theirs with their own Postgres and Temporal. When the kernel
// gives a core to Postgres, the recruitd thread it set aside keeps its P, and the goroutines
// queued there (a request whose database answer just came) wait for that thread's next slice or
// for another P to steal them, and under load every P is busy. With SharedProcs Ps per core the
// kernel, which sees every runnable thread of the machine, decides when they run. See
// ShareCores for the measurement.
package runtimetune

import (
	"math"
	"os"
	"runtime"
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

// SharedProcs is GOMAXPROCS per core of a process that shares its cores (ShareCores).
const SharedProcs = 4

// ShareCores sets GOMAXPROCS to SharedProcs per core, for a process that runs beside the Postgres
// and Temporal it started on the same cores (`recruitd dev`, `recruitd bench`), unless the
// operator set GOMAXPROCS or a CPU quota bounds the process. The runtime has read the quota
// already (cgroup v1 or v2): its default is then below the cores, and threads past the quota
// would be throttled.
//
// Measured with `recruitd bench partner` on 2 cores at 100 submissions/s, a rate past what the
// pipeline settles (so every core is busy): the 202's p99 was 38-55 ms in five runs with 2 Ps and
// 21-31 ms with 8, alternating; the runtime's own scheduling latency (/sched/latencies) at its
// 99.9th percentile went from 10.5 to 7.3 ms.
func ShareCores(getenv func(string) string) {
	if getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) < runtime.NumCPU() {
		return
	}
	runtime.GOMAXPROCS(SharedProcs * runtime.NumCPU())
}

// ShareCoresProcess is ShareCores with this process's environment.
func ShareCoresProcess() { ShareCores(os.Getenv) }
