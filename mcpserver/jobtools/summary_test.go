package jobtools_test

import (
	"testing"

	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

func pageTitles(t *testing.T, m map[string]any) []string {
	t.Helper()
	var out []string
	for _, j := range jsonPath(t, m, "jobs").([]any) {
		out = append(out, jsonPath(t, j, "title").(string))
	}
	return out
}

func TestJobsSummaryDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m, r := f.decode(t, "getJobsSummary", nil)
	// Six jobs (J7 is soft-deleted): open J1 J2 J4, closed J3 J5 J6; ACTIVE J1 J2 J6, PAUSED J3,
	// GENERATING J4, FAILED J5; sessions on J1 J2 J3.
	expect(t, m, map[string]float64{
		"totalJobs": 6, "openJobs": 3, "closedJobs": 3, "activeJobs": 3, "pausedJobs": 1, "generatingJobs": 1,
		"failedJobs": 1, "jobsWithInterviews": 3, "limit": 50, "offset": 0,
	})
	if m["hasMore"] != false || jsonPath(t, m, "filters.includeClosedJobs") != true {
		t.Errorf("hasMore %v includeClosedJobs %v", m["hasMore"], jsonPath(t, m, "filters.includeClosedJobs"))
	}
	want := []string{"Product Designer", "Frontend Engineer", "Data Analyst", "Sales Manager", "Backend Engineer", "Senior Backend Engineer"}
	if got := pageTitles(t, m); !equal(got, want) {
		t.Errorf("page = %v, want %v (newest first)", got, want)
	}
	j1 := jsonPath(t, m, "jobs.5").(map[string]any)
	if j1["id"] != f.j[1].String() || j1["externalId"] != "A-100" || j1["status"] != "ACTIVE" || j1["isOpen"] != true ||
		j1["createdAt"] != "2026-01-05T09:00:00Z" || j1["link"] != "https://app.example.com/jobs/"+f.j[1].String() ||
		j1["sessions"] != float64(4) || j1["completedSessions"] != float64(2) {
		t.Errorf("J1 row = %v", j1)
	}
	contains(t, r.Text, "Total jobs:      6", "Open:            3", "With interviews: 3", "## Jobs 1-6 of 6 (newest first)",
		"Senior Backend Engineer", "https://app.example.com/jobs/"+f.j[1].String(), "2026-01-05", "## ATS coverage")
	lacks(t, r.Text, "Legacy Deleted Job", "More jobs match")
}

func TestJobsSummaryFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, c := range []struct {
		name  string
		args  map[string]any
		total float64
		page  []string
	}{
		{"open only", map[string]any{"includeClosedJobs": false}, 3, []string{"Data Analyst", "Backend Engineer", "Senior Backend Engineer"}},
		{"closed included explicitly", map[string]any{"includeClosedJobs": true}, 6, nil},
		{"status any case", map[string]any{"status": "paused"}, 1, []string{"Sales Manager"}},
		{"status ACTIVE open only", map[string]any{"status": "ACTIVE", "includeClosedJobs": false}, 2, []string{"Backend Engineer", "Senior Backend Engineer"}},
		// untilDate is inclusive of its day: J3 was created 2026-03-02, J7 (deleted) 03-15.
		{"window", map[string]any{"sinceDate": "2026-02-10", "untilDate": "2026-03-02"}, 2, []string{"Sales Manager", "Backend Engineer"}},
		{"since only", map[string]any{"sinceDate": "2026-05-01"}, 2, []string{"Product Designer", "Frontend Engineer"}},
		{"userId", map[string]any{"userId": f.reyes.String()}, 2, []string{"Frontend Engineer", "Sales Manager"}},
		// Partial, case-insensitive, order-agnostic; Globex's job by the same user is not counted.
		{"userName partial", map[string]any{"userName": "scully"}, 2, []string{"Backend Engineer", "Senior Backend Engineer"}},
		{"userName reversed", map[string]any{"userName": "Scully Dana"}, 2, nil},
		// "Ann Lee" also matches "Ann Leeds" partially; the exact full name wins.
		{"userName exact wins", map[string]any{"userName": "ann lee"}, 1, []string{"Product Designer"}},
		{"member without jobs", map[string]any{"userName": "Skinner"}, 0, []string{}},
	} {
		m, _ := f.decode(t, "getJobsSummary", c.args)
		if got := num(t, m, "totalJobs"); got != c.total {
			t.Errorf("%s: totalJobs = %v, want %v", c.name, got, c.total)
		}
		if c.page != nil {
			if got := pageTitles(t, m); !equal(got, c.page) {
				t.Errorf("%s: page = %v, want %v", c.name, got, c.page)
			}
		}
	}
	m, r := f.decode(t, "getJobsSummary", map[string]any{"userName": "scully"})
	if jsonPath(t, m, "filters.userId") != f.scully.String() || jsonPath(t, m, "filters.userName") != "Dana Scully" {
		t.Errorf("resolved filters = %v", m["filters"])
	}
	contains(t, r.Text, "created by Dana Scully ("+f.scully.String()+")")
	m, _ = f.decode(t, "getJobsSummary", map[string]any{"includeClosedJobs": false})
	expect(t, m, map[string]float64{"openJobs": 3, "closedJobs": 0, "activeJobs": 2, "generatingJobs": 1})
	m, r = f.decode(t, "getJobsSummary", map[string]any{"sinceDate": "2026-02-10", "untilDate": "2026-03-02"})
	if jsonPath(t, m, "filters.createdWindow.since") != "2026-02-10T00:00:00Z" || jsonPath(t, m, "filters.createdWindow.until") != "2026-03-03T00:00:00Z" {
		t.Errorf("window = %v", jsonPath(t, m, "filters.createdWindow"))
	}
	contains(t, r.Text, "created 2026-02-10T00:00:00Z to 2026-03-03T00:00:00Z (end exclusive)")

	// A userId outside the company is allowed (nothing matches) with a notice.
	outsider := f.h.Call(t, f.acmeKey, "getJobsSummary", map[string]any{"userId": "00000000-0000-4000-8000-000000000001"}, nil)
	noticeIn(t, outsider, "userId 00000000-0000-4000-8000-000000000001 is not a member of this company; only jobs it created here are counted")

	f.toolError(t, "getJobsSummary", map[string]any{"userName": "dana"}, nil, `userName "dana" matches several members`,
		"Dana Reyes (userId "+f.reyes.String()+")", "Dana Scully (userId "+f.scully.String()+")", "pass userId")
	f.toolError(t, "getJobsSummary", map[string]any{"userName": "Nobody Here"}, nil, `no member of this company is named like "Nobody Here"`)
	f.toolError(t, "getJobsSummary", map[string]any{"userName": "scully", "userId": f.scully.String()}, nil, "pass userId or userName, not both")
	f.toolError(t, "getJobsSummary", map[string]any{"userId": "dana"}, nil, `userId "dana" is not a UUID`)
	f.toolError(t, "getJobsSummary", map[string]any{"status": "open"}, nil, "status must be one of GENERATING, ACTIVE, PAUSED, FAILED")
	f.toolError(t, "getJobsSummary", map[string]any{"sinceDate": "March 1"}, nil, "sinceDate")
	f.toolError(t, "getJobsSummary", map[string]any{"sinceDate": "2026-04-01", "untilDate": "2026-03-01"}, nil, "sinceDate must be before untilDate")
}

// TestJobsSummaryPaging checks that totals cover the whole filtered set whatever the page.
func TestJobsSummaryPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	all := []string{"Product Designer", "Frontend Engineer", "Data Analyst", "Sales Manager", "Backend Engineer", "Senior Backend Engineer"}
	for _, c := range []struct {
		limit, offset int
		page          []string
		hasMore       bool
	}{
		{1, 0, all[:1], true},
		{2, 2, all[2:4], true},
		{2, 4, all[4:], false},
		{1, 5, all[5:], false},
		{3, 6, []string{}, false},
		{10, 100, []string{}, false},
	} {
		m, r := f.decode(t, "getJobsSummary", map[string]any{"limit": c.limit, "offset": c.offset})
		expect(t, m, map[string]float64{"totalJobs": 6, "openJobs": 3, "closedJobs": 3, "activeJobs": 3, "pausedJobs": 1,
			"jobsWithInterviews": 3, "limit": float64(c.limit), "offset": float64(c.offset)})
		if got := pageTitles(t, m); !equal(got, c.page) || m["hasMore"] != c.hasMore {
			t.Errorf("limit %d offset %d: page %v hasMore %v; want %v %v", c.limit, c.offset, got, m["hasMore"], c.page, c.hasMore)
		}
		if c.hasMore {
			contains(t, r.Text, "More jobs match: call again with offset")
		}
	}
	m, r := f.decode(t, "getJobsSummary", map[string]any{"limit": 1000})
	expect(t, m, map[string]float64{"limit": 200, "totalJobs": 6})
	noticeIn(t, r, "limit 1000 is above the maximum 200; used 200")
	m, _ = f.decode(t, "getJobsSummary", map[string]any{"limit": 200})
	if n := m["notices"]; n != nil {
		t.Errorf("limit 200 (the maximum) gave notices %v", n)
	}
	f.toolError(t, "getJobsSummary", map[string]any{"limit": 0}, nil, "limit must be at least 1")
	f.toolError(t, "getJobsSummary", map[string]any{"offset": -1}, nil, "offset must be at least 0")
}

func TestATSCoverage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// All weeks: ids A-100 X-1 A-101 X-2 A-102 A-106 X-3 A-103 (8 distinct); in the service and
	// not deleted: A-100 A-101 A-102 A-103 (4; A-106 is deleted, X-* never imported and Globex's
	// are another company's); with sessions: J1 J2 J3 (3).
	m, r := f.decode(t, "getJobsSummary", nil)
	if jsonPath(t, m, "atsCoverage.supported") != true || jsonPath(t, m, "atsCoverage.atsType") != "ATS-A" {
		t.Fatalf("atsCoverage = %v", m["atsCoverage"])
	}
	expect(t, m, map[string]float64{"atsCoverage.atsJobsCreated": 8, "atsCoverage.serviceJobsImported": 4,
		"atsCoverage.serviceJobsWithInterviews": 3, "atsCoverage.coveragePercent": 50, "atsCoverage.interviewPercent": 37.5,
		"atsCoverage.weeksCovered": 4})
	contains(t, r.Text, "Weeks covered:             4", "ATS jobs created:          8", "Imported into the service: 4 (50.0%)", "With interviews:           3 (37.5%)")

	// The summary's window applies: weeks of 2026-02-09 and 2026-03-02 hold A-101 A-100 X-2
	// A-102 A-106 X-3 (6), of which A-101 A-100 A-102 are imported and all three interviewed.
	m, _ = f.decode(t, "getJobsSummary", map[string]any{"sinceDate": "2026-02-01", "untilDate": "2026-03-31", "limit": 1})
	expect(t, m, map[string]float64{"atsCoverage.atsJobsCreated": 6, "atsCoverage.serviceJobsImported": 3,
		"atsCoverage.serviceJobsWithInterviews": 3, "atsCoverage.coveragePercent": 50, "atsCoverage.interviewPercent": 50,
		"atsCoverage.weeksCovered": 2})
	// A week starting on untilDate's day is inside (untilDate is inclusive).
	m, _ = f.decode(t, "getJobsSummary", map[string]any{"sinceDate": "2026-04-06", "untilDate": "2026-04-06"})
	expect(t, m, map[string]float64{"atsCoverage.atsJobsCreated": 1, "atsCoverage.serviceJobsImported": 1,
		"atsCoverage.serviceJobsWithInterviews": 0, "atsCoverage.coveragePercent": 100, "atsCoverage.interviewPercent": 0,
		"atsCoverage.weeksCovered": 1})

	// No report weeks in the window: zero counts, percentages null (zero denominator).
	m, r = f.decode(t, "getJobsSummary", map[string]any{"sinceDate": "2026-06-01"})
	expect(t, m, map[string]float64{"atsCoverage.atsJobsCreated": 0, "atsCoverage.serviceJobsImported": 0, "atsCoverage.weeksCovered": 0})
	isNull(t, m, "atsCoverage.coveragePercent", "atsCoverage.interviewPercent")
	contains(t, r.Text, "Imported into the service: 0 (n/a)")

	// Other ATS types, and no ATS: unsupported, every figure null (Globex has ATS-B rows).
	gr := f.h.OK(t, f.globexKey, "getJobsSummary", nil)
	var g map[string]any
	gr.Decode(t, &g)
	if jsonPath(t, g, "atsCoverage.supported") != false || jsonPath(t, g, "atsCoverage.atsType") != "ATS-B" {
		t.Errorf("Globex atsCoverage = %v", g["atsCoverage"])
	}
	nulls := []string{"atsCoverage.atsJobsCreated", "atsCoverage.serviceJobsImported", "atsCoverage.serviceJobsWithInterviews",
		"atsCoverage.coveragePercent", "atsCoverage.interviewPercent", "atsCoverage.weeksCovered"}
	isNull(t, g, nulls...)
	contains(t, gr.Text, "Not available for ATS-B")
	ir := f.h.OK(t, tooltest.KeyCaller(f.initech), "getJobsSummary", nil)
	var i map[string]any
	ir.Decode(t, &i)
	if jsonPath(t, i, "atsCoverage.supported") != false || num(t, i, "totalJobs") != 0 {
		t.Errorf("Initech = %v", i)
	}
	isNull(t, i, append(nulls, "atsCoverage.atsType")...)
	contains(t, ir.Text, "the company has no ATS configured", "No jobs on this page.")
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
