package seed

import (
	"testing"
	"time"
)

// TestJobsPerCandidates: a company has a job per CandidatesPerJob candidates (500 when 0), at
// least 20; the bench gives a small pool the jobs of a larger one this way.
func TestJobsPerCandidates(t *testing.T) {
	for _, c := range []struct{ candidates, perJob, jobs int }{
		{100_000, 0, 200}, {100_000, 500, 200}, {100_000, 50, 2_000}, {300, 0, 20}, {300, 10, 30},
	} {
		o := ScaleOptions{Companies: 2, Candidates: c.candidates, CandidatesPerJob: c.perJob, Seed: 1, AsOf: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		g := planCompany(1, 2, &o, o.AsOf.UnixMicro())
		g.buildCompany()
		if len(g.jobs) != c.jobs {
			t.Errorf("%d candidates, %d per job: %d jobs, want %d", c.candidates, c.perJob, len(g.jobs), c.jobs)
		}
	}
}
