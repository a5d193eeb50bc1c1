package jobtools_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestJobDetailsByID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m, r := f.decode(t, "getJobDetails", map[string]any{"jobId": f.j[1].String()})
	if m["matchedBy"] != "jobId" || jsonPath(t, m, "job.title") != "Senior Backend Engineer" {
		t.Fatalf("matchedBy %v, title %v", m["matchedBy"], jsonPath(t, m, "job.title"))
	}
	for path, want := range map[string]any{
		"job.externalId": "A-100", "job.interviewerId": "acme-A-100", "job.status": "ACTIVE", "job.isOpen": true,
		"job.deleted": false, "job.active": true, "job.identityVerificationEnabled": true,
		"job.resumeFitTemplate.name": "Engineering Fit", "job.resumeFitTemplate.id": f.rfEngineering.String(),
		"job.createdAt": "2026-01-05T09:00:00Z", "job.generatedAt": "2026-01-05T10:00:00Z",
		"job.createdBy.name": "Dana Scully", "job.createdBy.id": f.scully.String(),
		"job.guide.exists": true, "job.link": "https://app.example.com/jobs/" + f.j[1].String(),
		"sessionStatus": nil,
	} {
		got := lookup(m, path)
		if got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	// J1: 4 applications from 3 distinct candidates (Bob applied twice); sessions s1-s4.
	expect(t, m, map[string]float64{
		"job.guide.questions": 3, "job.guide.gradingCriteria": 2, "job.guide.learningObjectives": 2, "job.guide.skills": 3,
		"pipeline.applications": 4, "pipeline.candidates": 3, "pipeline.sessions": 4,
		"pipeline.sessionsByStatus.INVITED": 1, "pipeline.sessionsByStatus.STARTED": 1, "pipeline.sessionsByStatus.COMPLETED": 2,
		"pipeline.sessionsByStatus.EXPIRED": 0, "pipeline.sessionsByStatus.CANCELLED": 0,
		"pipeline.decisions.NONE": 2, "pipeline.decisions.ACCEPTED": 1, "pipeline.decisions.HIRED": 1,
		"pipeline.decisions.REJECTED": 0, "pipeline.decisions.SUBMITTED": 0, "pipeline.decisions.PLACED": 0,
		"sessionLimit": 10,
	})
	// Default sessionLimit 10 lists all four, newest invitation first, with names and links.
	sessions := jsonPath(t, m, "recentSessions").([]any)
	wantOrder := []uuid.UUID{f.s[4], f.s[3], f.s[2], f.s[1]}
	if len(sessions) != len(wantOrder) {
		t.Fatalf("recentSessions = %d, want %d", len(sessions), len(wantOrder))
	}
	for i, id := range wantOrder {
		if got := jsonPath(t, sessions[i], "id"); got != id.String() {
			t.Errorf("recentSessions[%d] = %v, want %v", i, got, id)
		}
	}
	s0 := sessions[0].(map[string]any)
	if s0["candidateName"] != "Bob Brown" || s0["status"] != "STARTED" || s0["link"] != "https://app.example.com/sessions/"+f.s[4].String() ||
		s0["candidateLink"] != "https://app.example.com/candidates/"+f.c[2].String() || s0["completedAt"] != nil {
		t.Errorf("recentSessions[0] = %v", s0)
	}
	if s3 := sessions[3].(map[string]any); s3["decision"] != "ACCEPTED" || s3["durationSeconds"] != float64(1800) || s3["completedAt"] != "2026-01-11T12:00:00Z" {
		t.Errorf("recentSessions[3] = %v", s3)
	}
	contains(t, r.Text, "# Job: Senior Backend Engineer", "External id (ATS):      A-100", "Identity verification:  enabled",
		"Engineering Fit", "Dana Scully", "## Pipeline", "COMPLETED       2", "## Recent sessions (up to 10, newest invitation first)",
		"Bob Brown", "Carol Chen", "https://app.example.com/sessions/"+f.s[1].String(), "https://app.example.com/candidates/"+f.c[1].String(),
		"2026-03-02T09:00:00Z")
	lacks(t, r.Text, "Note:")
}

func TestJobDetailsIdentification(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	title := func(args map[string]any, meta map[string]any) (string, map[string]any) {
		t.Helper()
		r := f.call(t, "getJobDetails", args, meta)
		var m map[string]any
		r.Decode(t, &m)
		return jsonPath(t, m, "job.title").(string), m
	}
	if got, m := title(map[string]any{"externalId": "A-101"}, nil); got != "Backend Engineer" || m["matchedBy"] != "externalId" {
		t.Errorf("externalId A-101 = %q (%v)", got, m["matchedBy"])
	}
	// Fuzzy, order-agnostic title matching; an exact title wins and the others are listed.
	got, m := title(map[string]any{"jobName": "backend engineer"}, nil)
	if got != "Backend Engineer" || m["matchedBy"] != "jobName" {
		t.Errorf("jobName backend engineer = %q", got)
	}
	others, _ := m["otherMatches"].([]any)
	if len(others) != 1 || jsonPath(t, others[0], "id") != f.j[1].String() || jsonPath(t, others[0], "title") != "Senior Backend Engineer" {
		t.Errorf("otherMatches = %v; want only Senior Backend Engineer (Frontend Engineer lacks the word backend)", others)
	}
	r := f.call(t, "getJobDetails", map[string]any{"jobName": "backend engineer"}, nil)
	noticeIn(t, r, `jobName "backend engineer" matched several jobs; showing the best match "Backend Engineer" (others are listed; pass jobId to pick one)`)
	contains(t, r.Text, "Other matching jobs:", f.j[1].String())
	if got, m := title(map[string]any{"jobName": "engineer SENIOR backend"}, nil); got != "Senior Backend Engineer" || m["otherMatches"] != nil {
		t.Errorf("jobName engineer SENIOR backend = %q, others %v", got, m["otherMatches"])
	}
	if got, _ := title(map[string]any{"jobName": "Prodcut Desinger"}, nil); got != "Product Designer" {
		t.Errorf("misspelt jobName = %q, want Product Designer", got)
	}
	r = f.call(t, "getJobDetails", map[string]any{"jobName": "Prodcut Desinger"}, nil)
	noticeIn(t, r, `no job title contains every word of jobName "Prodcut Desinger"; showing the closest title "Product Designer"`)
	// A deleted job is found by id (and says so) but not by name.
	_, m = title(map[string]any{"jobId": f.j[7].String()}, nil)
	if jsonPath(t, m, "job.deleted") != true || jsonPath(t, m, "job.active") != false {
		t.Errorf("deleted job: deleted %v active %v", jsonPath(t, m, "job.deleted"), jsonPath(t, m, "job.active"))
	}
	f.toolError(t, "getJobDetails", map[string]any{"jobName": "Legacy Deleted Job"}, nil, `no job title matches "Legacy Deleted Job"`)
	// Job context (_meta) when no identifier is given; an identifier wins over it.
	ctx := map[string]any{"io.recruitd/jobId": f.j[3].String()}
	if got, m := title(map[string]any{}, ctx); got != "Sales Manager" || m["matchedBy"] != "jobContext" {
		t.Errorf("job context = %q (%v)", got, m["matchedBy"])
	}
	if got, _ := title(map[string]any{"jobId": f.j[2].String()}, ctx); got != "Backend Engineer" {
		t.Errorf("jobId with a job context = %q", got)
	}
	// J3: generated, failed and creator-less variants.
	_, m = title(map[string]any{"jobId": f.j[5].String()}, nil)
	if jsonPath(t, m, "job.failureReason") != "description too short" || jsonPath(t, m, "job.generatedAt") != nil {
		t.Errorf("failed job: %v %v", jsonPath(t, m, "job.failureReason"), jsonPath(t, m, "job.generatedAt"))
	}
	_, m = title(map[string]any{"jobId": f.j[4].String()}, nil)
	if jsonPath(t, m, "job.createdBy") != nil || jsonPath(t, m, "job.resumeFitTemplate") != nil || jsonPath(t, m, "job.guide.exists") != false {
		t.Errorf("generating job: %v", m["job"])
	}
	if s := jsonPath(t, m, "recentSessions").([]any); len(s) != 0 {
		t.Errorf("J4 sessions = %v", s)
	}

	f.toolError(t, "getJobDetails", map[string]any{}, nil, "pass one of jobId, externalId or jobName")
	f.toolError(t, "getJobDetails", map[string]any{"jobId": f.j[1].String(), "jobName": "Sales"}, nil, "exactly one of jobId, externalId or jobName", "jobId and jobName")
	f.toolError(t, "getJobDetails", map[string]any{"externalId": "A-100", "jobName": "Sales", "jobId": f.j[1].String()}, nil, "exactly one")
	f.toolError(t, "getJobDetails", map[string]any{"jobId": "42"}, nil, `jobId "42" is not a job UUID`)
	f.toolError(t, "getJobDetails", map[string]any{"jobId": uuid.NewString()}, nil, "no job with id")
	f.toolError(t, "getJobDetails", map[string]any{"externalId": "NOPE-1"}, nil, `no job with externalId "NOPE-1"`)
	f.toolError(t, "getJobDetails", map[string]any{"jobName": "zzqx"}, nil, `no job title matches "zzqx"`)
}

func TestJobDetailsSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := func(m map[string]any) []string {
		var out []string
		for _, s := range jsonPath(t, m, "recentSessions").([]any) {
			out = append(out, jsonPath(t, s, "id").(string))
		}
		return out
	}
	j1 := f.j[1].String()
	m, _ := f.decode(t, "getJobDetails", map[string]any{"jobId": j1, "sessionLimit": 2})
	if got := ids(m); strings.Join(got, ",") != f.s[4].String()+","+f.s[3].String() {
		t.Errorf("sessionLimit 2 = %v, want s4, s3", got)
	}
	// sessionStatus filters the list (any case) but not the pipeline counts.
	m, r := f.decode(t, "getJobDetails", map[string]any{"jobId": j1, "sessionStatus": "completed"})
	if got := ids(m); strings.Join(got, ",") != f.s[2].String()+","+f.s[1].String() || m["sessionStatus"] != "COMPLETED" {
		t.Errorf("sessionStatus completed = %v (%v)", got, m["sessionStatus"])
	}
	expect(t, m, map[string]float64{"pipeline.sessions": 4})
	contains(t, r.Text, "## Recent sessions (up to 10, status COMPLETED, newest invitation first)")
	m, _ = f.decode(t, "getJobDetails", map[string]any{"jobId": j1, "sessionStatus": "CANCELLED"})
	if got := ids(m); len(got) != 0 {
		t.Errorf("CANCELLED sessions = %v", got)
	}
	// Clamp above the maximum, with the notice in text and structuredContent.
	m, r = f.decode(t, "getJobDetails", map[string]any{"jobId": j1, "sessionLimit": 500})
	expect(t, m, map[string]float64{"sessionLimit": 50})
	noticeIn(t, r, "sessionLimit 500 is above the maximum 50; used 50")
	if len(ids(m)) != 4 {
		t.Errorf("clamped list = %v", ids(m))
	}
	f.toolError(t, "getJobDetails", map[string]any{"jobId": j1, "sessionLimit": 0}, nil, "sessionLimit must be at least 1")
	f.toolError(t, "getJobDetails", map[string]any{"jobId": j1, "sessionStatus": "DONE"}, nil,
		"sessionStatus must be one of INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED")
}

// lookup is jsonPath without failing on a missing key (nil).
func lookup(v any, path string) any {
	for _, seg := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[seg]
	}
	return v
}
