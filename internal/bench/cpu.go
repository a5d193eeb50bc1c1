package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// CPU is the CPU time (user plus system) used so far by this process ("recruitd") and by each
// process tree it started, named by the tree's first process (e.g. "postgres": the postmaster,
// its live backends and the backends it reaped). Zero where /proc cannot be read.
type CPU map[string]time.Duration

type procStat struct {
	ppid                         int
	comm                         string
	utime, stime, cutime, cstime int64
}

// readStat reads the fields of /proc/<pid>/stat that CPU needs.
func readStat(pid string) (procStat, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3 (state)
	if len(f) < 15 {
		return procStat{}, false
	}
	n := func(i int) int64 { v, _ := strconv.ParseInt(f[i-3], 10, 64); return v }
	return procStat{ppid: int(n(4)), comm: s[open+1 : end], utime: n(14), stime: n(15), cutime: n(16), cstime: n(17)}, true
}

// SampleCPU reads the CPU used so far by this process and by each tree of its child processes.
func SampleCPU() CPU {
	out := CPU{}
	self := os.Getpid()
	if st, ok := readStat(strconv.Itoa(self)); ok {
		out["recruitd"] = time.Duration(st.utime+st.stime) * clockTick
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	procs := map[int]procStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(e.Name()); ok {
			procs[pid] = st
		}
	}
	// A process's time counts for the child of this process it descends from; a tree's reaped
	// processes are in its members' cutime and cstime.
	for pid, st := range procs {
		p, top := pid, 0
		for range 64 {
			q, ok := procs[p]
			if !ok || p <= 1 {
				break
			}
			if q.ppid == self {
				top = p
				break
			}
			p = q.ppid
		}
		if top == 0 {
			continue
		}
		name := procs[top].comm
		out[name] += time.Duration(st.utime+st.stime+st.cutime+st.cstime) * clockTick
	}
	return out
}

// Sub is the CPU used between before and c.
func (c CPU) Sub(before CPU) CPU {
	d := CPU{}
	for k, v := range c {
		d[k] = v - before[k]
	}
	return d
}

// PerUnit says the CPU milliseconds per unit of each process tree and in all, e.g.
// "CPU per workflow: recruitd 3.1 ms, postgres 1.2 ms, temporal 4.0 ms, all 8.3 ms".
func (c CPU) PerUnit(unit string, units int64) string {
	if units <= 0 {
		units = 1
	}
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	slices.Sort(names)
	var all time.Duration
	parts := make([]string, 0, len(names)+1)
	for _, k := range names {
		all += c[k]
		parts = append(parts, fmt.Sprintf("%s %.1f ms", k, ms(c[k])/float64(units)))
	}
	parts = append(parts, fmt.Sprintf("all %.1f ms", ms(all)/float64(units)))
	return fmt.Sprintf("CPU per %s: %s", unit, strings.Join(parts, ", "))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
