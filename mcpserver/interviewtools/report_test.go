package interviewtools_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

type reportOut = interviewtools.CandidateReportOutput

func names(o reportOut) []string {
	var n []string
	for _, c := range o.Candidates {
		n = append(n, c.Name)
	}
	return n
}

func (f *fixture) sessKeys(ids ...string) []string {
	var out []string
	for _, id := range ids {
		for k, v := range f.sess {
			if v.String() == id {
				out = append(out, k)
			}
		}
	}
	return out
}

func reportSessions(f *fixture, c interviewtools.ReportCandidate) []string {
	var ids []string
	for _, s := range c.Sessions {
		ids = append(ids, s.SessionID)
	}
	return f.sessKeys(ids...)
}

func TestCandidateReportMatching(t *testing.T) {
	f := setup(t)
	rep := func(args map[string]any) (reportOut, string) {
		t.Helper()
		o, r := call[reportOut](t, f, nil, "getCandidateReport", args, nil)
		return o, r.Text
	}
	tests := []struct {
		args map[string]any
		want []string // most recently updated first
	}{
		{map[string]any{"name": "smith john"}, []string{"John Smith"}}, // order-agnostic
		{map[string]any{"name": "John Smith"}, []string{"John Smith"}},
		{map[string]any{"name": "  JOHN   smith "}, []string{"John Smith"}},
		{map[string]any{"name": "smi"}, []string{"John Smith", "Jane Smithers"}}, // partial
		{map[string]any{"name": "john"}, []string{"John Smith", "Alice Johnson"}},
		{map[string]any{"name": "ohn mit"}, []string{"John Smith"}},
		{map[string]any{"name": "smith zelda"}, nil}, // the other company's candidate
		{map[string]any{"name": "100%"}, nil},        // LIKE metacharacters are literal
		{map[string]any{"name": "_"}, nil},
		{map[string]any{"email": "john.smith@example.com"}, []string{"John Smith"}},
		{map[string]any{"email": "JOHN.Smith@Example.COM"}, []string{"John Smith"}}, // case-insensitive
		{map[string]any{"email": "john.smith@example"}, nil},                        // exact: partial does not match
		{map[string]any{"email": "john"}, nil},
		{map[string]any{"email": "zelda@globex.test"}, nil},
		{map[string]any{"name": "smith", "email": "jane@example.com"}, []string{"Jane Smithers"}}, // both must match
		{map[string]any{"name": "bob", "email": "jane@example.com"}, nil},
		// jobName / status keep only candidates with a matching session.
		{map[string]any{"name": "smi", "jobName": "backend"}, []string{"John Smith", "Jane Smithers"}},
		{map[string]any{"name": "mendez", "jobName": "data"}, nil},
		{map[string]any{"name": "smi", "status": "cancelled"}, []string{"Jane Smithers"}},
	}
	for _, tt := range tests {
		o, text := rep(tt.args)
		if got := names(o); !slices.Equal(got, tt.want) {
			t.Errorf("getCandidateReport(%v) = %v, want %v", tt.args, got, tt.want)
		}
		if len(tt.want) == 0 {
			contains(t, "no match", text, "No candidate of this company matches")
		}
	}

	// More than 10 candidates: the 10 most recently updated, and say so.
	o, r := call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "clone"}, nil)
	if len(o.Candidates) != 10 || !o.MoreCandidates || o.Candidates[0].Name != "Clone Person11" || o.Candidates[9].Name != "Clone Person02" {
		t.Errorf("clone = %v more %v", names(o), o.MoreCandidates)
	}
	hasNotice(t, "more candidates", o.Notices, r, "more than 10 candidates match")
	o, _ = rep(map[string]any{"name": "person1"}) // Person10, Person11
	if len(o.Candidates) != 2 || o.MoreCandidates || len(o.Messages) != 0 {
		t.Errorf("person1 = %v", names(o))
	}

	toolErr(t, f, nil, "getCandidateReport", map[string]any{}, "name", "email")
	toolErr(t, f, nil, "getCandidateReport", map[string]any{"name": "   "}, "name", "email")
	toolErr(t, f, nil, "getCandidateReport", map[string]any{"jobName": "Backend"}, "name", "email")
	toolErr(t, f, nil, "getCandidateReport", map[string]any{"name": "smith", "status": "DONE"},
		`status must be one of INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED, INCOMPLETE, DECLINED (got "DONE")`)
	toolErr(t, f, nil, "getCandidateReport", map[string]any{"name": "a b c d e f g"}, "at most 6")
}

func TestCandidateReportSessions(t *testing.T) {
	f := setup(t)
	links := f.h.Env.Links
	o, r := call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "smith john"}, nil)
	if len(o.Candidates) != 1 {
		t.Fatalf("candidates = %v", names(o))
	}
	c := o.Candidates[0]
	if c.CandidateID != f.cand["C1"].String() || *c.Email != "john.smith@example.com" || *c.Phone != "+15555550100" || c.Title != "Engineer" ||
		c.Location != "New York, NY" || c.Link != links.Candidate(f.cand["C1"]) || c.TotalSessions != 2 || o.SessionLimit != 5 {
		t.Errorf("candidate = %+v", c)
	}
	// Newest first: S4 (invited 04-09), S1 (03-01).
	if got := reportSessions(f, c); !slices.Equal(got, []string{"S4", "S1"}) {
		t.Fatalf("sessions = %v", got)
	}
	s4, s1 := c.Sessions[0], c.Sessions[1]
	// S1: completed 03-02 14:30, invited 03-01 10:00 → 28.5 h = 102600 s; fraud F1 30 (high risk); cheating 85 ≥ 70.
	if s1.Decision != "ACCEPTED" || f64(s1.RecruiterRating) != 9 || f64(s1.ServiceRating) != 8.5 || *s1.RecruiterReview != "recruiter review of S1" ||
		*s1.ServiceReview != "service review of S1" || s1.InviteToCompletionSeconds == nil || *s1.InviteToCompletionSeconds != 102600 ||
		f64(s1.FraudVerificationScore) != 30 || !*s1.FraudHighRisk || f64(s1.CheatingScore) != 85 || !*s1.CheatingFlagged ||
		s1.JobTitle != "Backend Engineer" || s1.Status != "COMPLETED" || s1.MediumType != "VIDEO" || s1.InvitedAt != "2026-03-01T10:00:00Z" ||
		*s1.CompletedAt != "2026-03-02T14:30:00Z" || s1.SessionLink != links.Session(f.sess["S1"]) || s1.JobLink != links.Job(f.job["J1"]) {
		t.Errorf("S1 = %+v", s1)
	}
	// Notes: 12 on S1, the 10 newest first; S4 has one; C1 has two general notes, newest first.
	var bodies []string
	for _, n := range s1.Notes {
		bodies = append(bodies, n.Body)
	}
	var want []string
	for i := 12; i >= 3; i-- {
		want = append(want, fmt.Sprintf("S1 note %02d", i))
	}
	if !slices.Equal(bodies, want) || s1.Notes[0].CreatedAt != "2026-03-03T12:00:00Z" {
		t.Errorf("S1 notes = %v", s1.Notes)
	}
	if len(s4.Notes) != 1 || s4.Notes[0].Body != "S4 note" || len(c.Notes) != 2 || c.Notes[0].Body != "General note B" || c.Notes[1].Body != "General note A" {
		t.Errorf("S4 notes %v, general notes %v", s4.Notes, c.Notes)
	}
	// S4: F5 20 → high risk; cheating 88; recruiter rating 8, no service rating; completed 04-10 22:15 - 04-09 10:00 = 36.25 h.
	if f64(s4.FraudVerificationScore) != 20 || !*s4.FraudHighRisk || f64(s4.CheatingScore) != 88 || s4.ServiceRating != nil ||
		*s4.InviteToCompletionSeconds != 130500 {
		t.Errorf("S4 = %+v", s4)
	}
	contains(t, "report text", r.Text, "## John Smith", links.Candidate(f.cand["C1"]), links.Session(f.sess["S1"]), links.Job(f.job["J1"]),
		"S1 note 12", "General note B", "28h 30m 00s (102600 s)", "30/100, high risk: yes", "85 (threshold 70), flagged: yes", "2 shown of 2")
	notContains(t, "report text", r.Text, "S1 note 02", "S1 note 01")

	// Jane: S8 CANCELLED (newest) and S2 COMPLETED. Non-completed → inviteToCompletionSeconds null. S8 has no fraud row of its
	// own and Jane no candidate-level one → her latest check, F2 of S2 (80, not high risk), as getCandidateVerification
	// reports; no cheating evaluation → null, "notEvaluated". S2: F2 80 → not high risk; cheating 40 → not flagged.
	o, r = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"email": "jane@example.com"}, nil)
	jane := o.Candidates[0]
	if got := reportSessions(f, jane); !slices.Equal(got, []string{"S8", "S2"}) {
		t.Fatalf("jane sessions = %v", got)
	}
	s8, s2 := jane.Sessions[0], jane.Sessions[1]
	if s8.InviteToCompletionSeconds != nil || s8.CompletedAt != nil || f64(s8.FraudVerificationScore) != 80 || s8.FraudHighRisk == nil || *s8.FraudHighRisk ||
		s8.FraudCheck != "otherSession" || s8.FraudCheckSessionID == nil || *s8.FraudCheckSessionID != f.sess["S2"].String() ||
		s8.CheatingFlagged != nil || s8.CheatingScore != nil || s8.CheatingEvaluation != "notEvaluated" || s8.RecruiterRating != nil || s8.Notes == nil || len(s8.Notes) != 0 {
		t.Errorf("S8 = %+v", s8)
	}
	if f64(s2.FraudVerificationScore) != 80 || *s2.FraudHighRisk || s2.FraudCheck != "thisSession" || f64(s2.CheatingScore) != 40 || *s2.CheatingFlagged ||
		s2.CheatingEvaluation != "evaluated" || s2.RecruiterRating != nil || *s2.InviteToCompletionSeconds != 99000 {
		t.Errorf("S2 = %+v", s2)
	}
	contains(t, "jane text", r.Text, "80/100, high risk: no (the candidate's latest check, made for session "+f.sess["S2"].String()+")",
		"80/100, high risk: no (check of this session)", "Cheating score:       not evaluated")
	var ver struct {
		Fraud *struct {
			Score float64 `json:"score"`
		} `json:"fraud"`
	}
	vr := f.h.OK(t, tooltest.KeyCaller(f.acme), "getCandidateVerification", map[string]any{"email": "jane@example.com"})
	vr.Decode(t, &ver)
	if ver.Fraud == nil || ver.Fraud.Score != f64(s8.FraudVerificationScore) {
		t.Errorf("getCandidateVerification(jane) fraud %+v, getCandidateReport S8 fraud %v; want the same score", ver.Fraud, f64(s8.FraudVerificationScore))
	}
	// Bob: the candidate-level fraud check F3 (49.5, no session) applies to his sessions; S3's cheating 70 = threshold → flagged.
	// 11 general notes → the 10 newest.
	o, _ = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "jones"}, nil)
	bob := o.Candidates[0]
	if got := reportSessions(f, bob); !slices.Equal(got, []string{"S3", "S6"}) {
		t.Fatalf("bob sessions = %v", got)
	}
	if s3 := bob.Sessions[0]; f64(s3.FraudVerificationScore) != 49.5 || !*s3.FraudHighRisk || s3.FraudCheck != "candidate" || s3.FraudCheckSessionID != nil ||
		f64(s3.CheatingScore) != 70 || !*s3.CheatingFlagged {
		t.Errorf("S3 = %+v", s3)
	}
	if s6 := bob.Sessions[1]; s6.Status != "EXPIRED" || s6.InviteToCompletionSeconds != nil || f64(s6.FraudVerificationScore) != 49.5 || s6.CheatingScore != nil {
		t.Errorf("S6 = %+v", s6)
	}
	if len(bob.Notes) != 10 || bob.Notes[0].Body != "Bob general 11" || bob.Notes[9].Body != "Bob general 02" {
		t.Errorf("bob notes = %v", bob.Notes)
	}
	// Alice: F4 is exactly 50 → not high risk (below 50 only).
	o, _ = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "alice", "status": "COMPLETED"}, nil)
	if a := o.Candidates[0]; len(a.Sessions) != 1 || f64(a.Sessions[0].FraudVerificationScore) != 50 || *a.Sessions[0].FraudHighRisk || a.TotalSessions != 1 {
		t.Errorf("alice = %+v", a)
	}

	// Session filters and limit.
	o, _ = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "john smith", "jobName": "SALES"}, nil)
	if got := reportSessions(f, o.Candidates[0]); !slices.Equal(got, []string{"S4"}) || o.Candidates[0].TotalSessions != 1 {
		t.Errorf("jobName sessions = %v", got)
	}
	o, _ = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "alice", "status": "started"}, nil)
	if got := reportSessions(f, o.Candidates[0]); !slices.Equal(got, []string{"S7"}) {
		t.Errorf("status sessions = %v", got)
	}
	o, r = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "alice", "limit": 1}, nil)
	if a := o.Candidates[0]; !slices.Equal(reportSessions(f, a), []string{"S7"}) || a.TotalSessions != 3 || o.SessionLimit != 1 {
		t.Errorf("limit 1 = %v of %d", reportSessions(f, a), a.TotalSessions)
	}
	contains(t, "limit text", r.Text, "1 shown of 3")
	o, r = call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "alice", "limit": 50}, nil)
	if o.SessionLimit != 20 || len(o.Candidates[0].Sessions) != 3 {
		t.Errorf("limit 50 = %d", o.SessionLimit)
	}
	hasNotice(t, "limit clamp", o.Notices, r, "limit 50 is above the maximum 20; used 20")
	toolErr(t, f, nil, "getCandidateReport", map[string]any{"name": "alice", "limit": 0}, "limit must be at least 1")
}

func TestCandidateReportFlags(t *testing.T) {
	f := setup(t)
	peter := func() interviewtools.ReportSession {
		t.Helper()
		o, _ := call[reportOut](t, f, f.initech, "getCandidateReport", map[string]any{"name": "peter"}, nil)
		if len(o.Candidates) != 1 || len(o.Candidates[0].Sessions) != 1 {
			t.Fatalf("peter = %+v", o)
		}
		return o.Candidates[0].Sessions[0]
	}
	// Both flags off: all four integrity fields null although rows exist.
	s := peter()
	if s.FraudHighRisk != nil || s.FraudVerificationScore != nil || s.CheatingFlagged != nil || s.CheatingScore != nil ||
		s.FraudCheck != "off" || s.CheatingEvaluation != "off" {
		t.Errorf("flags off = %+v", s)
	}
	_, r := call[reportOut](t, f, f.initech, "getCandidateReport", map[string]any{"name": "peter"}, nil)
	contains(t, "flags off text", r.Text, "n/a (fraud detection off)", "n/a (cheating detection off)")
	// model_cheat_detection_enabled only: cheating fields, no fraud fields.
	f.setFlags(t, f.initech, false, true)
	if s := peter(); f64(s.CheatingScore) != 90 || !*s.CheatingFlagged || s.FraudVerificationScore != nil || s.FraudHighRisk != nil {
		t.Errorf("cheat only = %+v", s)
	}
	// fraud_detection_enabled only: fraud fields; cheating fields stay null (they follow model_cheat_detection_enabled).
	f.setFlags(t, f.initech, true, false)
	if s := peter(); f64(s.FraudVerificationScore) != 10 || !*s.FraudHighRisk || s.CheatingScore != nil || s.CheatingFlagged != nil {
		t.Errorf("fraud only = %+v", s)
	}
	// The company's cheat threshold decides the flag.
	f.setFlags(t, f.initech, true, true)
	f.exec(t, `UPDATE companies SET cheat_threshold = 95 WHERE id = $1`, f.initech.ID)
	if s := peter(); f64(s.CheatingScore) != 90 || *s.CheatingFlagged {
		t.Errorf("threshold 95 = %+v", s)
	}
	// Enabled but no evaluation and no verification of the candidate: null, said apart (S10 of acme).
	o, r := call[reportOut](t, f, nil, "getCandidateReport", map[string]any{"name": "mendez", "jobName": "sales"}, nil)
	if s := o.Candidates[0].Sessions[0]; s.CheatingScore != nil || s.CheatingFlagged != nil || s.CheatingEvaluation != "notEvaluated" ||
		s.FraudVerificationScore != nil || s.FraudHighRisk != nil || s.FraudCheck != "none" {
		t.Errorf("S10 = %+v", s)
	}
	contains(t, "S10 text", r.Text, "no verification of this candidate", "not evaluated")
}
