package interviewtools_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

type statsOut = interviewtools.InterviewStatsOutput

const jobMeta = toolkit.JobContextMetaKey

func TestInterviewStatsCounts(t *testing.T) {
	f := setup(t)
	stat := func(args map[string]any, meta map[string]any) (statsOut, string) {
		t.Helper()
		o, r := call[statsOut](t, f, nil, "getInterviewStats", args, meta)
		return o, r.Text
	}
	j1, j2 := f.job["J1"].String(), f.job["J2"].String()
	tests := []struct {
		name      string
		args      map[string]any
		meta      map[string]any
		interview int64 // completedInterviews
		cands     int64 // completedCandidates
		source    string
	}{
		// S1 S2 S3 S4 S9 S10 S11; candidates C1 C2 C3 C4 C5.
		{"all", nil, nil, 7, 5, "companyWide"},
		// J1: S1 S2 S9 S11 (C1 C2 C4 C5).
		{"positionId", map[string]any{"positionId": j1}, nil, 4, 4, "positionId"},
		// J2 from the job context: S3 S4 S10 (C3 C1 C5).
		{"job context", nil, map[string]any{jobMeta: j2}, 3, 3, "jobContext"},
		{"positionId beats job context", map[string]any{"positionId": j1}, map[string]any{jobMeta: j2}, 4, 4, "positionId"},
		{"companyWide beats job context", map[string]any{"companyWide": true}, map[string]any{jobMeta: j2}, 7, 5, "companyWide"},
		// VIDEO: S1 S3 S4 S10 (C1 C3 C5).
		{"mediumType", map[string]any{"mediumType": []string{"VIDEO"}}, nil, 4, 3, "companyWide"},
		// any case; PHONE + BOTH: S2 S9 S11 (C2 C4 C5).
		{"mediumType any case", map[string]any{"mediumType": []string{"phone", "Both"}}, nil, 3, 3, "companyWide"},
		// completed since 04-01: S4 S9 S10 S11 (C1 C4 C5) — S9 was invited on 03-31.
		{"sinceDate", map[string]any{"sinceDate": "2026-04-01"}, nil, 4, 3, "companyWide"},
		// untilDate is inclusive of its day: S1 (03-02) and S2 (03-06 13:30).
		{"untilDate inclusive", map[string]any{"untilDate": "2026-03-06"}, nil, 2, 2, "companyWide"},
		// an RFC 3339 end is exclusive: S1 only.
		{"untilDate timestamp", map[string]any{"untilDate": "2026-03-06T13:30:00Z"}, nil, 1, 1, "companyWide"},
		{"empty window", map[string]any{"sinceDate": "2025-01-01", "untilDate": "2025-01-31"}, nil, 0, 0, "companyWide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"metric": "completedInterviews"}
			for k, v := range tt.args {
				args[k] = v
			}
			o, text := stat(args, tt.meta)
			if o.CompletedInterviews == nil || *o.CompletedInterviews != tt.interview || o.Scope.Source != tt.source {
				t.Errorf("completedInterviews = %d (scope %s), want %d (%s)\n%s", i64(o.CompletedInterviews), o.Scope.Source, tt.interview, tt.source, text)
			}
			if o.CompletedCandidates != nil || o.ByStatus != nil {
				t.Errorf("other metrics present: %+v", o)
			}
			args["metric"] = "completedCandidates"
			o, text = stat(args, tt.meta)
			if o.CompletedCandidates == nil || *o.CompletedCandidates != tt.cands {
				t.Errorf("completedCandidates = %d, want %d\n%s", i64(o.CompletedCandidates), tt.cands, text)
			}
		})
	}

	// Cross-check the headline figures with differently written SQL.
	var n, c int64
	if err := f.h.Store.SQL().QueryRowContext(t.Context(), `SELECT count(*), count(DISTINCT candidate_id) FROM interview_sessions
		WHERE company_id = $1 AND completed_at IS NOT NULL`, f.acme.ID).Scan(&n, &c); err != nil {
		t.Fatal(err)
	}
	if n != 7 || c != 5 {
		t.Errorf("fixture drifted: %d completed sessions of %d candidates", n, c)
	}

	o, text := stat(map[string]any{"metric": "completedInterviews", "positionId": j1}, nil)
	contains(t, "scoped text", text, "Backend Engineer", f.h.Env.Links.Job(f.job["J1"]), "Completed interviews: 4", "positionId")
	if o.Scope.Job == nil || o.Scope.Job.Title != "Backend Engineer" || o.Window.Basis != "interview_sessions.completed_at" {
		t.Errorf("scope/window = %+v %+v", o.Scope, o.Window)
	}
	// A job context naming a job of another company is ignored with a notice.
	o, r := call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "completedInterviews"}, map[string]any{jobMeta: f.job["G1"].String()})
	if i64(o.CompletedInterviews) != 7 {
		t.Errorf("foreign job context: completedInterviews = %d, want 7", i64(o.CompletedInterviews))
	}
	hasNotice(t, "foreign job context", o.Notices, r, "ignored the job context")
	// positionId of another company is an error.
	toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "completedInterviews", "positionId": f.job["G1"].String()}, "not a job of this company")
	toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "completedInterviews", "positionId": "backend"}, "not a job UUID")
	toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "completedInterviews", "sinceDate": "last week"}, "sinceDate", "ISO date")
}

func TestInterviewStatsAverageDuration(t *testing.T) {
	f := setup(t)
	o, r := call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "averageDuration"}, nil)
	d := o.AverageDuration
	// 300 600 900 1200 1500 1800 2400: mean 8700/7 = 1242.857 -> 1242.9.
	if d == nil || d.Sessions != 7 || d.WithoutDuration != 0 || f64(d.AverageSeconds) != 1242.9 {
		t.Fatalf("averageDuration = %+v", d)
	}
	contains(t, "averageDuration text", r.Text, "20m 43s", "Sessions: 7")
	notContains(t, "averageDuration text", r.Text, "Median")
	for _, gone := range []string{"medianSeconds", "minSeconds", "maxSeconds"} {
		if strings.Contains(string(r.Structured), gone) {
			t.Errorf("output still has %s: %s", gone, r.Structured)
		}
	}
	// J1: 300 900 1200 1800 -> 1050.
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "averageDuration", "positionId": f.job["J1"].String()}, nil)
	if d := o.AverageDuration; f64(d.AverageSeconds) != 1050 || d.Sessions != 4 {
		t.Errorf("J1 averageDuration = %+v", d)
	}
	// A completed session without duration is counted apart, in both scopes.
	f.exec(t, `UPDATE interview_sessions SET duration_seconds = NULL WHERE id = $1`, f.sess["S11"])
	o, r = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "averageDuration", "positionId": f.job["J1"].String()}, nil)
	if d := o.AverageDuration; d.Sessions != 3 || d.WithoutDuration != 1 || f64(d.AverageSeconds) != 1300 {
		t.Errorf("J1 averageDuration without S11 = %+v", d)
	}
	contains(t, "without duration", r.Text, "1 completed session(s) have no recorded duration")
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "averageDuration"}, nil)
	if d := o.AverageDuration; d.Sessions != 6 || d.WithoutDuration != 1 || f64(d.AverageSeconds) != 1400 { // 8400 / 6
		t.Errorf("averageDuration without S11 = %+v", d)
	}
	// mediumType company-wide: VIDEO S1 S3 S4 S10 -> (1800+600+2400+1500)/4 = 1575.
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "averageDuration", "mediumType": []string{"VIDEO"}}, nil)
	if d := o.AverageDuration; d.Sessions != 4 || f64(d.AverageSeconds) != 1575 {
		t.Errorf("VIDEO averageDuration = %+v", d)
	}
	o, r = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "averageDuration", "sinceDate": "2025-01-01", "untilDate": "2025-02-01"}, nil)
	if d := o.AverageDuration; d.Sessions != 0 || d.AverageSeconds != nil {
		t.Errorf("empty averageDuration = %+v", d)
	}
	contains(t, "empty", r.Text, "No completed interview")
}

func TestInterviewStatsBreakdowns(t *testing.T) {
	f := setup(t)
	// byStatus, by invitation time; all statuses listed, zeros included.
	o, r := call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byStatus"}, nil)
	want := map[string]int64{"INVITED": 1, "STARTED": 1, "COMPLETED": 7, "EXPIRED": 1, "CANCELLED": 1, "INCOMPLETE": 0, "DECLINED": 0}
	checkStatus(t, "byStatus", o, want, 11)
	if o.Window.Basis != "interview_sessions.invited_at" {
		t.Errorf("byStatus basis = %s", o.Window.Basis)
	}
	contains(t, "byStatus text", r.Text, "COMPLETED", "63.6%", "Total sessions: 11", "invitation time")
	// invited since 04-01: S4 S10 S11 (COMPLETED), S5 (INVITED), S7 (STARTED); S9 (invited 03-31) is out.
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byStatus", "sinceDate": "2026-04-01"}, nil)
	checkStatus(t, "byStatus since", o, map[string]int64{"INVITED": 1, "STARTED": 1, "COMPLETED": 3, "EXPIRED": 0, "CANCELLED": 0}, 5)
	// J2 via the job context: S3 S4 S10 COMPLETED, S7 STARTED, S8 CANCELLED.
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byStatus"}, map[string]any{jobMeta: f.job["J2"].String()})
	checkStatus(t, "byStatus J2", o, map[string]int64{"INVITED": 0, "STARTED": 1, "COMPLETED": 3, "EXPIRED": 0, "CANCELLED": 1}, 5)

	// byMediumType: every medium listed; sessions and completed.
	o, r = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byMediumType"}, nil)
	wantM := map[string][2]int64{"VIDEO": {5, 4}, "PHONE": {3, 2}, "EXTERNAL": {0, 0}, "BOTH": {1, 1}, "WHATSAPP": {1, 0}, "PHONE_SMS": {0, 0}, "SMS": {1, 0}, "NONE": {0, 0}}
	if len(o.ByMediumType) != 8 {
		t.Fatalf("byMediumType rows = %+v", o.ByMediumType)
	}
	for _, m := range o.ByMediumType {
		if w := wantM[m.MediumType]; m.Sessions != w[0] || m.Completed != w[1] {
			t.Errorf("byMediumType %s = %d/%d, want %v", m.MediumType, m.Sessions, m.Completed, w)
		}
	}
	if i64(o.TotalSessions) != 11 {
		t.Errorf("byMediumType total = %d", i64(o.TotalSessions))
	}
	contains(t, "byMediumType text", r.Text, "VIDEO", "80.0%")
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byMediumType", "mediumType": []string{"PHONE", "SMS"}}, nil)
	if len(o.ByMediumType) != 2 || o.ByMediumType[0].MediumType != "PHONE" || o.ByMediumType[0].Sessions != 3 || o.ByMediumType[1].Sessions != 1 || i64(o.TotalSessions) != 4 {
		t.Errorf("filtered byMediumType = %+v", o.ByMediumType)
	}

	// byInterviewer: J1 S1 S2 S5 S6 S9 S11 (4 completed), J2 S3 S4 S7 S8 S10 (3 completed); J3 has none.
	o, r = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byInterviewer"}, nil)
	if len(o.ByInterviewer) != 2 {
		t.Fatalf("byInterviewer = %+v", o.ByInterviewer)
	}
	b1, b2 := o.ByInterviewer[0], o.ByInterviewer[1]
	if b1.JobTitle != "Backend Engineer" || b1.Sessions != 6 || b1.Completed != 4 || f64(b1.CompletionRate) != 66.7 ||
		b2.JobTitle != "Sales Associate" || b2.Sessions != 5 || b2.Completed != 3 || f64(b2.CompletionRate) != 60 ||
		b1.JobLink != f.h.Env.Links.Job(f.job["J1"]) || i64(o.InterviewerJobs) != 2 || i64(o.TotalSessions) != 11 {
		t.Errorf("byInterviewer = %+v", o.ByInterviewer)
	}
	contains(t, "byInterviewer text", r.Text, "Backend Engineer", "66.7%", "Sales Associate", "60.0%", f.h.Env.Links.Job(f.job["J2"]))
	notContains(t, "byInterviewer text", r.Text, "Data Analyst")
	// mediumType filters byInterviewer too: VIDEO → J1 S1 S6 (1 completed), J2 S3 S4 S10 (3 completed).
	o, _ = call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "byInterviewer", "mediumType": []string{"VIDEO"}}, nil)
	if len(o.ByInterviewer) != 2 || o.ByInterviewer[0].JobTitle != "Sales Associate" || o.ByInterviewer[0].Sessions != 3 || o.ByInterviewer[1].Completed != 1 {
		t.Errorf("VIDEO byInterviewer = %+v", o.ByInterviewer)
	}
}

func checkStatus(t *testing.T, what string, o statsOut, want map[string]int64, total int64) {
	t.Helper()
	if len(o.ByStatus) != 7 || i64(o.TotalSessions) != total {
		t.Fatalf("%s = %+v total %d", what, o.ByStatus, i64(o.TotalSessions))
	}
	var order []string
	for _, s := range o.ByStatus {
		order = append(order, s.Status)
		if s.Count != want[s.Status] {
			t.Errorf("%s %s = %d, want %d", what, s.Status, s.Count, want[s.Status])
		}
	}
	if !slices.Equal(order, []string{"INVITED", "STARTED", "COMPLETED", "EXPIRED", "CANCELLED", "INCOMPLETE", "DECLINED"}) {
		t.Errorf("%s order = %v", what, order)
	}
}

func TestInterviewStatsTopCandidates(t *testing.T) {
	f := setup(t)
	top := func(args map[string]any) (statsOut, *tooltest.Result) {
		t.Helper()
		a := map[string]any{"metric": "topCandidates"}
		for k, v := range args {
			a[k] = v
		}
		o, r := call[statsOut](t, f, nil, "getInterviewStats", a, nil)
		return o, r
	}
	sessions := func(o statsOut) []string {
		var s []string
		for _, c := range o.TopCandidates {
			for k, id := range f.sess {
				if id.String() == c.SessionID {
					s = append(s, k)
				}
			}
		}
		return s
	}
	// Candidates by their best session: recruiter rating desc, then service rating desc; John Smith's S4 (8) is
	// behind his S1 (9), so he is listed once; unrated S10 S11 left out.
	o, r := top(nil)
	if got := sessions(o); !slices.Equal(got, []string{"S1", "S3", "S9", "S2"}) || *o.Limit != 10 {
		t.Errorf("topCandidates = %v (limit %d)", got, *o.Limit)
	}
	c := o.TopCandidates[0]
	if c.Rank != 1 || c.CandidateName != "John Smith" || f64(c.RecruiterRating) != 9 || f64(c.ServiceRating) != 8.5 || c.Decision != "ACCEPTED" ||
		c.CandidateLink != f.h.Env.Links.Candidate(f.cand["C1"]) || c.SessionLink != f.h.Env.Links.Session(f.sess["S1"]) ||
		c.JobTitle != "Backend Engineer" || c.CompletedAt != "2026-03-02T14:30:00Z" {
		t.Errorf("first = %+v", c)
	}
	if o.TopCandidates[3].Rank != 4 || o.TopCandidates[3].RecruiterRating != nil || f64(o.TopCandidates[3].ServiceRating) != 9.5 {
		t.Errorf("last = %+v", o.TopCandidates[3])
	}
	contains(t, "top text", r.Text, "John Smith", "Jane Smithers", f.h.Env.Links.Session(f.sess["S1"]), f.h.Env.Links.Candidate(f.cand["C2"]), "2026-03-02")

	o, _ = top(map[string]any{"decision": []string{"HIRED", "accepted"}})
	if got := sessions(o); !slices.Equal(got, []string{"S1", "S3"}) || !slices.Equal(o.Decisions, []string{"HIRED", "ACCEPTED"}) {
		t.Errorf("decision filter = %v %v", got, o.Decisions)
	}
	o, _ = top(map[string]any{"limit": 2})
	if got := sessions(o); !slices.Equal(got, []string{"S1", "S3"}) || len(o.Messages) != 0 {
		t.Errorf("limit 2 = %v %v", got, o.Messages)
	}
	o, r = top(map[string]any{"limit": 500})
	if *o.Limit != 100 || len(o.TopCandidates) != 4 {
		t.Errorf("limit 500 = %d", *o.Limit)
	}
	hasNotice(t, "limit clamp", o.Notices, r, "limit 500 is above the maximum 100; used 100")
	o, _ = top(map[string]any{"limit": 100})
	if len(o.Messages) != 0 {
		t.Errorf("limit 100 notices = %v", o.Messages)
	}
	toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "topCandidates", "limit": 0}, "limit must be at least 1")
	// Filters: window by completion, job, medium.
	o, _ = top(map[string]any{"sinceDate": "2026-04-01"})
	if got := sessions(o); !slices.Equal(got, []string{"S4", "S9"}) {
		t.Errorf("since = %v", got)
	}
	o, _ = top(map[string]any{"positionId": f.job["J1"].String(), "mediumType": []string{"PHONE"}})
	if got := sessions(o); !slices.Equal(got, []string{"S9", "S2"}) {
		t.Errorf("J1 PHONE = %v", got)
	}
	o, r = top(map[string]any{"decision": []string{"PLACED"}})
	if len(o.TopCandidates) != 0 || o.TopCandidates == nil {
		t.Errorf("PLACED = %+v", o.TopCandidates)
	}
	contains(t, "none", r.Text, "No rated completed interview")
	// limit and decision on other metrics are ignored with a notice.
	o2, r2 := call[statsOut](t, f, nil, "getInterviewStats", map[string]any{"metric": "completedInterviews", "limit": 5, "decision": []string{"HIRED"}}, nil)
	if i64(o2.CompletedInterviews) != 7 {
		t.Errorf("completedInterviews with decision = %d", i64(o2.CompletedInterviews))
	}
	hasNotice(t, "ignored limit", o2.Notices, r2, "limit applies only to metric topCandidates")
	hasNotice(t, "ignored decision", o2.Notices, r2, "decision applies only to metric topCandidates")
}

func TestInterviewStatsEnumErrors(t *testing.T) {
	f := setup(t)
	// metric is an enum in the schema: the SDK's validation names every allowed value.
	text := toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "bogus"}, "completedCandidates", "completedInterviews", "averageDuration",
		"byInterviewer", "byStatus", "byMediumType", "topCandidates")
	contains(t, "metric error", text, "metric")
	toolErr(t, f, nil, "getInterviewStats", map[string]any{}, "metric")
	toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "byStatus", "mediumType": []string{"VIDEO", "FAX"}},
		`mediumType must be one of VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS, NONE (got "FAX")`)
	toolErr(t, f, nil, "getInterviewStats", map[string]any{"metric": "topCandidates", "decision": []string{"MAYBE"}},
		`decision must be one of NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED (got "MAYBE")`)
}

func TestToolsList(t *testing.T) {
	f := setup(t)
	tools := f.h.Tools(t, tooltest.KeyCaller(f.acme))
	want := []string{"getCandidateReport", "getCandidateVerification", "getCheatingDetectionStats", "getFraudVerificationStats",
		"getIdentityVerificationStats", "getInterviewStats", "getInterviewTimeOfDayBreakdown"}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || tl.OutputSchema == nil {
			t.Errorf("%s: description/annotations/output schema missing", tl.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v", names)
	}
	enums := map[string]map[string][]string{
		"getInterviewStats": {"metric": {"completedCandidates", "completedInterviews", "averageDuration", "byInterviewer", "byStatus", "byMediumType", "topCandidates"}},
		"getCheatingDetectionStats": {"metric": {"flaggedCandidates", "flaggedInterviews", "flaggedPercentage", "byJob", "flaggedDetails"},
			"sortByJobMetric": {"rate", "count"}},
		"getFraudVerificationStats":    {"metric": {"flaggedCandidates", "riskBreakdown", "flaggedDetails"}},
		"getIdentityVerificationStats": {"metric": {"statusBreakdown", "verificationRate", "failureReasons", "failedDetails"}},
	}
	for _, tl := range tools {
		schema := schemaMap(t, tl.InputSchema)
		props, _ := schema["properties"].(map[string]any)
		if _, ok := props["companyId"]; !ok {
			t.Errorf("%s: no companyId input", tl.Name)
		}
		for prop, values := range enums[tl.Name] {
			p, _ := props[prop].(map[string]any)
			got, _ := p["enum"].([]any)
			var gs []string
			for _, g := range got {
				gs = append(gs, g.(string))
			}
			if !slices.Equal(gs, values) {
				t.Errorf("%s.%s enum = %v, want %v", tl.Name, prop, gs, values)
			}
			if d, _ := p["description"].(string); !strings.Contains(d, values[0]) {
				t.Errorf("%s.%s description %q", tl.Name, prop, d)
			}
		}
	}
}

func schemaMap(t *testing.T, s any) map[string]any {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
