package jobtools_test

import (
	"strconv"
	"testing"
)

func TestPositionStats(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	m, r := f.decode(t, "getPositionStats", map[string]any{"metric": "openPositions"})
	// Open: J1 J2 (ACTIVE), J4 (GENERATING); J7 is open but deleted.
	expect(t, m, map[string]float64{"openPositions.count": 3, "openPositions.byStatus.ACTIVE": 2,
		"openPositions.byStatus.GENERATING": 1, "openPositions.byStatus.PAUSED": 0, "openPositions.byStatus.FAILED": 0})
	if got := titlesAt(t, m, "openPositions.positions"); !equal(got, []string{"Data Analyst", "Backend Engineer", "Senior Backend Engineer"}) {
		t.Errorf("open positions = %v", got)
	}
	if m["totalPositions"] != nil || m["candidatesPerPosition"] != nil || jsonPath(t, m, "openPositions.truncated") != false {
		t.Errorf("other metric blocks set: %v", m)
	}
	contains(t, r.Text, "# Open positions: 3", "GENERATING  1", "https://app.example.com/jobs/"+f.j[4].String())
	m, _ = f.decode(t, "getPositionStats", map[string]any{"metric": "openPositions", "status": "active"})
	expect(t, m, map[string]float64{"openPositions.count": 2})

	m, r = f.decode(t, "getPositionStats", map[string]any{"metric": "totalPositions"})
	expect(t, m, map[string]float64{"totalPositions.count": 6, "totalPositions.open": 3, "totalPositions.closed": 3,
		"totalPositions.byStatus.ACTIVE": 3, "totalPositions.byStatus.PAUSED": 1, "totalPositions.byStatus.GENERATING": 1,
		"totalPositions.byStatus.FAILED": 1})
	contains(t, r.Text, "# Total positions: 6", "Open:    3", "soft-deleted positions excluded")
	// Created 2026-03-01 .. 2026-04-30: J3 and J4 (J7, created 03-15, is deleted).
	m, _ = f.decode(t, "getPositionStats", map[string]any{"metric": "totalPositions", "sinceDate": "2026-03-01", "untilDate": "2026-04-30"})
	expect(t, m, map[string]float64{"totalPositions.count": 2, "totalPositions.open": 1, "totalPositions.byStatus.PAUSED": 1})
	if jsonPath(t, m, "createdWindow.since") != "2026-03-01T00:00:00Z" {
		t.Errorf("window = %v", m["createdWindow"])
	}

	// Distinct applying candidates: J1 3 (Bob applied twice), J2 1, J3 1, J4 J5 J6 0.
	m, r = f.decode(t, "getPositionStats", map[string]any{"metric": "candidatesPerPosition"})
	expect(t, m, map[string]float64{"candidatesPerPosition.positions": 6, "candidatesPerPosition.positionsWithoutCandidates": 3,
		"candidatesPerPosition.average": 0.83, "candidatesPerPosition.median": 0.5, "candidatesPerPosition.max": 3})
	top := jsonPath(t, m, "candidatesPerPosition.topPositions").([]any)
	if jsonPath(t, top[0], "id") != f.j[1].String() || num(t, top[0], "candidates") != 3 || num(t, top[5], "candidates") != 0 {
		t.Errorf("topPositions = %v", top)
	}
	contains(t, r.Text, "Average per position:         0.83", "Median per position:          0.5", "Senior Backend Engineer")
	// ACTIVE only: J1 3, J2 1, J6 0.
	m, _ = f.decode(t, "getPositionStats", map[string]any{"metric": "candidatesPerPosition", "status": "ACTIVE"})
	expect(t, m, map[string]float64{"candidatesPerPosition.positions": 3, "candidatesPerPosition.average": 1.33,
		"candidatesPerPosition.median": 1, "candidatesPerPosition.positionsWithoutCandidates": 1})
	// No positions: average and median are null.
	m, _ = f.decode(t, "getPositionStats", map[string]any{"metric": "candidatesPerPosition", "sinceDate": "2026-06-01"})
	expect(t, m, map[string]float64{"candidatesPerPosition.positions": 0, "candidatesPerPosition.max": 0})
	isNull(t, m, "candidatesPerPosition.average", "candidatesPerPosition.median")

	f.toolError(t, "getPositionStats", map[string]any{"metric": "positions"}, nil, "openPositions", "totalPositions", "candidatesPerPosition")
	f.toolError(t, "getPositionStats", map[string]any{}, nil, "metric")
	f.toolError(t, "getPositionStats", map[string]any{"metric": "totalPositions", "status": "CLOSED"}, nil,
		"status must be one of GENERATING, ACTIVE, PAUSED, FAILED")
}

func TestPipelineStatsByStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	statuses := func(m map[string]any) map[string]float64 {
		out := map[string]float64{}
		for _, s := range jsonPath(t, m, "byStatus.statuses").([]any) {
			out[jsonPath(t, s, "status").(string)] = num(t, s, "candidates")
		}
		return out
	}
	m, r := f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byStatus"})
	if got, want := statuses(m), map[string]float64{"new": 2, "interviewing": 1, "hired": 1, "rejected": 1}; !sameCounts(got, want) {
		t.Errorf("company byStatus = %v, want %v", got, want)
	}
	expect(t, m, map[string]float64{"byStatus.totalCandidates": 5, "byStatus.statuses.0.percent": 40})
	if jsonPath(t, m, "byStatus.statuses.0.status") != "new" || jsonPath(t, m, "scope.source") != "companyWide" || jsonPath(t, m, "scope.job") != nil {
		t.Errorf("byStatus = %v", m)
	}
	contains(t, r.Text, "Scope:             company-wide", "candidate creation date", "new           2           40.0%")
	// Company-wide the window is the candidate's creation: only Eve (2026-05-10).
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byStatus", "sinceDate": "2026-05-01"})
	if got := statuses(m); !sameCounts(got, map[string]float64{"new": 1}) {
		t.Errorf("windowed byStatus = %v", got)
	}
	// For a job: candidates who applied to it (J1: Alice, Bob, Carol), by application date.
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byStatus", "positionId": f.j[1].String()})
	if got := statuses(m); !sameCounts(got, map[string]float64{"interviewing": 1, "hired": 1, "new": 1}) {
		t.Errorf("J1 byStatus = %v", got)
	}
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byStatus", "positionId": f.j[1].String(), "sinceDate": "2026-02-01"})
	if got := statuses(m); !sameCounts(got, map[string]float64{"new": 1, "hired": 1}) { // Carol 02-15, Bob's second 03-01
		t.Errorf("J1 byStatus since February = %v", got)
	}
	// No candidates: an empty list and no division by zero.
	m, r = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byStatus", "positionId": f.j[6].String()})
	if got := statuses(m); len(got) != 0 || num(t, m, "byStatus.totalCandidates") != 0 {
		t.Errorf("J6 byStatus = %v", got)
	}
	contains(t, r.Text, "No candidates.")
}

func TestPipelineStatsByDecision(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// All six sessions: NONE s3 s4 s5, ACCEPTED s1, REJECTED s6, HIRED s2.
	m, r := f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byDecision"})
	expect(t, m, map[string]float64{"byDecision.totalSessions": 6,
		"byDecision.decisions.0.sessions": 3, "byDecision.decisions.0.percent": 50,
		"byDecision.decisions.1.sessions": 1, "byDecision.decisions.2.sessions": 1, "byDecision.decisions.3.sessions": 0,
		"byDecision.decisions.4.sessions": 0, "byDecision.decisions.5.sessions": 1})
	order := []string{"NONE", "ACCEPTED", "REJECTED", "SUBMITTED", "PLACED", "HIRED"}
	for i, d := range order {
		dc := jsonPath(t, m, "byDecision.decisions."+itoa(i)).(map[string]any)
		if dc["decision"] != d {
			t.Errorf("decisions[%d] = %v, want %s", i, dc["decision"], d)
		}
		if _, ok := dc["candidates"]; ok {
			t.Errorf("decisions[%d] has a candidates count (not additive over days): %v", i, dc)
		}
	}
	contains(t, r.Text, "session invitation date", "Total sessions: 6")
	lacks(t, r.Text, "Candidates")
	// Invited in March: s4 (NONE) and s6 (REJECTED).
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byDecision", "sinceDate": "2026-03-01", "untilDate": "2026-03-31"})
	expect(t, m, map[string]float64{"byDecision.totalSessions": 2, "byDecision.decisions.0.sessions": 1, "byDecision.decisions.2.sessions": 1})
	// Nothing in the window: every percentage is null.
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "byDecision", "sinceDate": "2026-06-01"})
	expect(t, m, map[string]float64{"byDecision.totalSessions": 0})
	isNull(t, m, "byDecision.decisions.0.percent", "byDecision.decisions.5.percent")
}

// TestPipelineScope checks positionId vs the _meta job context vs companyWide.
func TestPipelineScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctxJ1 := map[string]any{"io.recruitd/jobId": f.j[1].String()}
	sessions := func(args, meta map[string]any) (float64, map[string]any) {
		t.Helper()
		r := f.call(t, "getCandidatePipelineStats", args, meta)
		var m map[string]any
		r.Decode(t, &m)
		return num(t, m, "byDecision.totalSessions"), m
	}
	byDecision := map[string]any{"metric": "byDecision"}
	if n, m := sessions(byDecision, ctxJ1); n != 4 || jsonPath(t, m, "scope.source") != "jobContext" || jsonPath(t, m, "scope.job.id") != f.j[1].String() {
		t.Errorf("job context: %v sessions, scope %v", n, m["scope"])
	}
	if n, m := sessions(map[string]any{"metric": "byDecision", "positionId": f.j[2].String()}, ctxJ1); n != 1 || jsonPath(t, m, "scope.source") != "positionId" {
		t.Errorf("positionId over job context: %v sessions, scope %v", n, m["scope"])
	}
	if n, m := sessions(map[string]any{"metric": "byDecision", "companyWide": true}, ctxJ1); n != 6 || jsonPath(t, m, "scope.source") != "companyWide" {
		t.Errorf("companyWide over job context: %v sessions, scope %v", n, m["scope"])
	}
	if n, _ := sessions(byDecision, nil); n != 6 {
		t.Errorf("no context: %v sessions", n)
	}
	r := f.call(t, "getCandidatePipelineStats", byDecision, ctxJ1)
	contains(t, r.Text, `Scope:             job "Senior Backend Engineer" (`+f.j[1].String()+", from the job open in the client)", "https://app.example.com/jobs/"+f.j[1].String())
	// A context that is not a job is ignored with a notice.
	r = f.call(t, "getCandidatePipelineStats", byDecision, map[string]any{"io.recruitd/jobId": "not-a-uuid"})
	noticeIn(t, r, `ignored the job context io.recruitd/jobId "not-a-uuid": not a UUID`)

	f.toolError(t, "getCandidatePipelineStats", map[string]any{"metric": "byDecision", "positionId": f.j[1].String(), "companyWide": true}, nil, "not both")
	f.toolError(t, "getCandidatePipelineStats", map[string]any{"metric": "byDecision", "positionId": "J1"}, nil, `positionId "J1" is not a job UUID`)
	f.toolError(t, "getCandidatePipelineStats", map[string]any{"metric": "stages"}, nil, "byStatus", "byDecision", "funnel")
	f.toolError(t, "getCandidatePipelineStats", map[string]any{}, nil, "metric")
}

func TestPipelineFunnel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	type stage struct {
		n             float64
		prev, applied any // float64 or nil
	}
	check := func(name string, m map[string]any, want []stage) {
		t.Helper()
		names := []string{"applied", "invited", "started", "completed", "positiveDecision", "hired"}
		for i, w := range want {
			s := jsonPath(t, m, "funnel.stages."+itoa(i))
			if jsonPath(t, s, "stage") != names[i] || num(t, s, "candidates") != w.n ||
				jsonPath(t, s, "conversionFromPrevious") != w.prev || jsonPath(t, s, "conversionFromApplied") != w.applied {
				t.Errorf("%s: stage %d = %v, want %s %v prev %v applied %v", name, i, s, names[i], w.n, w.prev, w.applied)
			}
		}
	}
	// Pipeline entry (first application or invitation): Alice 01-10, Bob 01-12, Carol 02-15,
	// Dave 03-10; Eve has neither.
	// Company, all time: cohort (applied) and invited Alice Bob Carol Dave (4); started Alice Bob
	// Dave (3); completed Alice Bob Dave (3); positive Alice (ACCEPTED) Bob (HIRED) (2); hired Bob (1).
	m, r := f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel"})
	check("company", m, []stage{{4, nil, nil}, {4, 100.0, 100.0}, {3, 75.0, 75.0}, {3, 100.0, 75.0}, {2, 66.7, 50.0}, {1, 50.0, 25.0}})
	contains(t, r.Text, "# Candidate funnel", "6. Hired", "66.7%", "pipeline entry (each candidate's first application or invitation)")
	// J1 by job context: Alice Bob Carol entered and were invited; Alice Bob started, completed,
	// positive; Bob hired.
	r = f.call(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel"}, map[string]any{"io.recruitd/jobId": f.j[1].String()})
	r.Decode(t, &m)
	check("J1", m, []stage{{3, nil, nil}, {3, 100.0, 100.0}, {2, 66.7, 66.7}, {2, 100.0, 66.7}, {2, 100.0, 66.7}, {1, 50.0, 33.3}})
	contains(t, r.Text, "entry into the job's pipeline")
	// Since February the cohort is Carol and Dave (Alice's J2 application and Bob's second J1
	// application and s4 are later activity of earlier entrants): both invited; Dave started and
	// completed (s6, REJECTED); no positive decision, so hired's conversion from previous is null.
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel", "sinceDate": "2026-02-01"})
	check("since February", m, []stage{{2, nil, nil}, {2, 100.0, 100.0}, {1, 50.0, 50.0}, {1, 100.0, 50.0}, {0, 0.0, 0.0}, {0, nil, 0.0}})
	// Job entry counts per job: Alice entered J2 on 02-20 (invited, s5 EXPIRED, never started).
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": f.j[2].String(), "sinceDate": "2026-02-01"})
	check("J2 since February", m, []stage{{1, nil, nil}, {1, 100.0, 100.0}, {0, 0.0, 0.0}, {0, nil, 0.0}, {0, nil, 0.0}, {0, nil, 0.0}})
	// J1 since 2026-01-12: Bob (entered 01-12 09:00, hired through s2) and Carol.
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": f.j[1].String(), "sinceDate": "2026-01-12"})
	check("J1 since 01-12", m, []stage{{2, nil, nil}, {2, 100.0, 100.0}, {1, 50.0, 50.0}, {1, 100.0, 50.0}, {1, 100.0, 50.0}, {1, 100.0, 50.0}})
	// J1 in March: Bob's second application and s4 are not an entry.
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": f.j[1].String(), "sinceDate": "2026-03-01"})
	check("J1 since March", m, []stage{{0, nil, nil}, {0, nil, nil}, {0, nil, nil}, {0, nil, nil}, {0, nil, nil}, {0, nil, nil}})
	// Empty scope: every conversion is null.
	m, _ = f.decode(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": f.j[6].String()})
	check("J6", m, []stage{{0, nil, nil}, {0, nil, nil}, {0, nil, nil}, {0, nil, nil}, {0, nil, nil}, {0, nil, nil}})
}

func titlesAt(t *testing.T, m map[string]any, path string) []string {
	t.Helper()
	var out []string
	for _, j := range jsonPath(t, m, path).([]any) {
		out = append(out, jsonPath(t, j, "title").(string))
	}
	return out
}

func sameCounts(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func itoa(i int) string { return strconv.Itoa(i) }
