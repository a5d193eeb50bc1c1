package interviewtools_test

import (
	"testing"
)

// TestTenantIsolation runs every tool (every metric) as acme: a foreign companyId is refused, and
// nothing of globex (names, e-mails, ids, job titles, reasons, notes) appears in acme's answers.
// The exact counts asserted in the other tests (globex has a completed, rated, flagged session)
// show that globex rows are not counted either.
func TestTenantIsolation(t *testing.T) {
	f := setup(t)
	markers := f.foreignMarkers()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"getInterviewTimeOfDayBreakdown", nil},
		{"getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2026-01-01", "timezone": "UTC"}},
		{"getCandidateReport", map[string]any{"name": "smith"}},
		{"getCandidateReport", map[string]any{"name": "s", "jobName": "e"}},
		{"getCandidateVerification", map[string]any{"name": "smith"}},
		{"getCandidateVerification", map[string]any{"email": "john.smith@example.com"}},
		{"getCandidateVerification", map[string]any{"sessionId": f.sess["S1"].String()}},
	}
	for _, m := range []string{"completedCandidates", "completedInterviews", "averageDuration", "byInterviewer", "byStatus", "byMediumType", "topCandidates"} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"getInterviewStats", map[string]any{"metric": m}})
	}
	for _, m := range []string{"flaggedCandidates", "flaggedInterviews", "flaggedPercentage", "byJob", "flaggedDetails"} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"getCheatingDetectionStats", map[string]any{"metric": m}})
	}
	for _, m := range []string{"flaggedCandidates", "riskBreakdown", "flaggedDetails"} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"getFraudVerificationStats", map[string]any{"metric": m, "threshold": 100}})
	}
	for _, m := range []string{"statusBreakdown", "verificationRate", "failureReasons", "failedDetails"} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"getIdentityVerificationStats", map[string]any{"metric": m}})
	}
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c.tool] = true
		f.h.AssertIsolated(t, f.acme, f.globex, c.tool, c.args, markers...)
	}
	if len(seen) != 7 {
		t.Errorf("isolation covers %d tools, want 7", len(seen))
	}

	// Globex sees its own data and none of acme's.
	acmeMarkers := []string{"John Smith", "john.smith@example.com", "Backend Engineer", f.cand["C1"].String(), f.sess["S1"].String()}
	f.h.AssertIsolated(t, f.globex, f.acme, "getCandidateReport", map[string]any{"name": "smith"}, acmeMarkers...)
	f.h.AssertIsolated(t, f.globex, f.acme, "getInterviewStats", map[string]any{"metric": "topCandidates"}, acmeMarkers...)
	o, _ := call[statsOut](t, f, f.globex, "getInterviewStats", map[string]any{"metric": "completedInterviews"}, nil)
	if i64(o.CompletedInterviews) != 1 {
		t.Errorf("globex completedInterviews = %d, want 1", i64(o.CompletedInterviews))
	}
	v, _ := call[verOut](t, f, f.globex, "getCandidateVerification", map[string]any{"name": "smith"}, nil)
	if v.Candidate.Name != "Zelda Smith" || len(v.OtherMatches) != 0 || v.Cheating == nil || v.Cheating.Score != 99 || v.Identity == nil {
		t.Errorf("globex verification = %+v", v)
	}
	// A job context naming acme's job is ignored for globex.
	o, r := call[statsOut](t, f, f.globex, "getInterviewStats", map[string]any{"metric": "byInterviewer"}, map[string]any{jobMeta: f.job["J1"].String()})
	if len(o.ByInterviewer) != 1 || o.ByInterviewer[0].JobTitle != "Globex Secret Job" {
		t.Errorf("globex byInterviewer = %+v", o.ByInterviewer)
	}
	notContains(t, "globex with acme job context", r.Text+string(r.Structured), "Backend Engineer")
}
