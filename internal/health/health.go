// Package health serves liveness and readiness probes.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Check reports whether one dependency is reachable.
type Check func(ctx context.Context) error

// Checker runs named checks for /readyz.
type Checker struct {
	checks  map[string]Check
	timeout time.Duration
}

// New returns a Checker; each check gets timeout.
func New(timeout time.Duration, checks map[string]Check) *Checker {
	return &Checker{checks: checks, timeout: timeout}
}

// Report is the body of /readyz.
type Report struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// Run executes every check concurrently.
func (c *Checker) Run(ctx context.Context) Report {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	rep := Report{Status: "ok", Checks: make(map[string]string, len(c.checks))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range c.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := "ok"
			if err := check(ctx); err != nil {
				// The probe says which dependency is down, not why: error text can carry hosts or users.
				res = "unavailable"
			}
			mu.Lock()
			rep.Checks[name] = res
			if res != "ok" {
				rep.Status = "unavailable"
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return rep
}

// Names lists the checks, sorted.
func (c *Checker) Names() []string {
	out := make([]string, 0, len(c.checks))
	for n := range c.checks {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Live answers /healthz: the process is up and serving.
func Live(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// Ready answers /readyz: 200 when every check passes, 503 otherwise.
func (c *Checker) Ready(w http.ResponseWriter, r *http.Request) {
	rep := c.Run(r.Context())
	code := http.StatusOK
	if rep.Status != "ok" {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, rep)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
