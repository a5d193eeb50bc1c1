package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/bench/scenarios"
)

func TestBenchCommandOffersEveryScenario(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"recruitd", "bench", "--help"}, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios.All {
		first, _, _ := strings.Cut(s.Help, "\n")
		if !strings.Contains(out.String(), s.Name+":") || !strings.Contains(out.String(), first) {
			t.Errorf("bench --help lacks scenario %s:\n%s", s.Name, out.String())
		}
	}
	err := run(t.Context(), []string{"recruitd", "bench", "nope"}, func(string) string { return "" }, &out, &errOut)
	if want := `unknown scenario "nope" (available: ` + strings.Join(scenarios.Names(), ", ") + ")"; err == nil || err.Error() != want {
		t.Errorf("bench nope = %v, want %q", err, want)
	}
}

// TestBenchInALog runs the shortest form of two scenarios with stdout a pipe, as in CI or
// `make bench > out.txt`: a line per step, nothing redrawn.
func TestBenchInALog(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"bench", "jobs", "--duration", "2s", "--rate", "10", "--burst", "10", "--concurrency", "5"},
			[]string{"20/20 requests sent, 20 answered, 0 failed (", "scenario jobs", "ratio jobs/floor:", "target >= 0.9: ",
				"target p99 < 25ms at 100 req/s: not measured (--rate 10)", "JobGeneration", "activity tasks"}},
		// The demo tenant's 4 jobs and 40 generated, one per 5 candidates (the seed's own rate would
		// give its minimum, 20).
		{[]string{"bench", "mcp", "--candidates", "200", "--candidates-per-job", "5", "--iterations", "1", "--dir", t.TempDir()},
			[]string{"company demo: 203 candidates", ", 44 jobs", "searchDocumentation ", "getJobsSummary "}},
	} {
		t.Run(tc.args[1], func(t *testing.T) {
			out := runCmd(t, []string{"RECRUITD_ENCRYPTION_KEY=", "DATABASE_URL=", "TEMPORAL_ADDRESS="}, tc.args...)
			if strings.ContainsAny(out, "\r\x1b") {
				t.Errorf("recruitd %s redraws in a pipe:\n%q", strings.Join(tc.args, " "), out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("recruitd %s printed no %q:\n%s", strings.Join(tc.args, " "), w, out)
				}
			}
		})
	}
}
