package interviewtools_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

// TestTopCandidatesAreDistinct: topCandidates ranks candidates, one row each (their best session),
// also when one candidate's sessions fill the first pages of the ranking: limit n gives n distinct
// candidates.
func TestTopCandidatesAreDistinct(t *testing.T) {
	h := tooltest.New(t, time.Time{}, interviewtools.Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	db := h.Store.DB()
	create := func(v any) {
		t.Helper()
		if err := db.Create(v).Error; err != nil {
			t.Fatal(err)
		}
	}
	job := &models.Job{CompanyID: acme.ID, ExternalID: "A-1", InterviewerID: "acme-A-1", Title: "Welder", Status: models.JobStatusActive}
	create(job)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	candidate := func(name string) uuid.UUID {
		c := &models.Candidate{CompanyID: acme.ID, FirstName: name, LastName: "Test", Status: "new"}
		create(c)
		return c.ID
	}
	session := func(cand uuid.UUID, rating float64) {
		done := at.Add(time.Hour)
		create(&models.InterviewSession{CompanyID: acme.ID, CandidateID: cand, JobID: job.ID, Status: models.SessionStatusCompleted,
			MediumType: models.MediumTypeVideo, InvitedAt: at, CompletedAt: &done, RecruiterRating: &rating})
	}
	// Ann holds the 40 best sessions (rating 10, then 9.9 ...), more than two pages of a limit of 10; then 30
	// candidates with one session each, rated 5 down to 2.1.
	ann := candidate("Ann")
	for i := range 40 {
		session(ann, 10-float64(i)*0.01)
	}
	want := []string{ann.String()}
	for i := range 30 {
		c := candidate(fmt.Sprintf("Other%02d", i))
		session(c, 5-float64(i)*0.1)
		want = append(want, c.String())
	}

	for _, limit := range []int{1, 10, 25, 100} {
		var out struct {
			TopCandidates []struct {
				Rank            int     `json:"rank"`
				CandidateID     string  `json:"candidateId"`
				RecruiterRating float64 `json:"recruiterRating"`
			} `json:"topCandidates"`
		}
		h.OK(t, tooltest.KeyCaller(acme), "getInterviewStats", map[string]any{"metric": "topCandidates", "limit": limit}).Decode(t, &out)
		wantN := min(limit, len(want))
		var got []string
		for i, r := range out.TopCandidates {
			got = append(got, r.CandidateID)
			if r.Rank != i+1 {
				t.Errorf("getInterviewStats(topCandidates, limit %d) row %d has rank %d", limit, i, r.Rank)
			}
		}
		if len(got) != wantN || fmt.Sprint(got) != fmt.Sprint(want[:wantN]) {
			t.Errorf("getInterviewStats(topCandidates, limit %d) = %d candidates %v, want %d distinct: Ann (best 10), then the others by rating", limit, len(got), got, wantN)
		}
		if len(out.TopCandidates) > 0 && out.TopCandidates[0].RecruiterRating != 10 {
			t.Errorf("getInterviewStats(topCandidates, limit %d) first rating = %v, want Ann's best, 10", limit, out.TopCandidates[0].RecruiterRating)
		}
	}
}

// TestTopCandidatesBestMatchingSession: with a decision filter or a window, a candidate is ranked
// by their best session among the matching ones, not left out because a better session does not
// match; equal sessions resolve to one row.
func TestTopCandidatesBestMatchingSession(t *testing.T) {
	h := tooltest.New(t, time.Time{}, interviewtools.Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	db := h.Store.DB()
	create := func(v any) {
		t.Helper()
		if err := db.Create(v).Error; err != nil {
			t.Fatal(err)
		}
	}
	job := &models.Job{CompanyID: acme.ID, ExternalID: "A-1", InterviewerID: "acme-A-1", Title: "Welder", Status: models.JobStatusActive}
	create(job)
	candidate := func(name string) uuid.UUID {
		c := &models.Candidate{CompanyID: acme.ID, FirstName: name, LastName: "Test", Status: "new"}
		create(c)
		return c.ID
	}
	session := func(cand uuid.UUID, rating float64, decision models.Decision, done time.Time) {
		create(&models.InterviewSession{CompanyID: acme.ID, CandidateID: cand, JobID: job.ID, Status: models.SessionStatusCompleted,
			MediumType: models.MediumTypeVideo, InvitedAt: done.Add(-time.Hour), CompletedAt: &done, RecruiterRating: &rating, Decision: decision})
	}
	march, may := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ann, bob, cyd := candidate("Ann"), candidate("Bob"), candidate("Cyd")
	session(ann, 10, models.DecisionRejected, march) // Ann's best, rejected, in March
	session(ann, 6, models.DecisionAccepted, may)
	session(bob, 8, models.DecisionAccepted, march)
	session(bob, 8, models.DecisionAccepted, march) // the same rank twice: one row
	session(cyd, 7, models.DecisionHired, may)

	type row struct {
		CandidateID     string  `json:"candidateId"`
		RecruiterRating float64 `json:"recruiterRating"`
	}
	for _, tt := range []struct {
		name string
		args map[string]any
		want []row
	}{
		{"all", map[string]any{}, []row{{ann.String(), 10}, {bob.String(), 8}, {cyd.String(), 7}}},
		{"accepted", map[string]any{"decision": []string{"ACCEPTED"}}, []row{{bob.String(), 8}, {ann.String(), 6}}},
		{"since April", map[string]any{"sinceDate": "2026-04-01"}, []row{{cyd.String(), 7}, {ann.String(), 6}}},
	} {
		args := map[string]any{"metric": "topCandidates"}
		for k, v := range tt.args {
			args[k] = v
		}
		var out struct {
			TopCandidates []row `json:"topCandidates"`
		}
		h.OK(t, tooltest.KeyCaller(acme), "getInterviewStats", args).Decode(t, &out)
		if fmt.Sprint(out.TopCandidates) != fmt.Sprint(tt.want) {
			t.Errorf("%s: topCandidates = %v, want %v", tt.name, out.TopCandidates, tt.want)
		}
	}
}
