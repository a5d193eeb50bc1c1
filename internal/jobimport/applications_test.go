package jobimport

import (
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/store"
)

// TestSyncedApplications: one entry per ATS application id (the latest change wins), the ATS's
// verdict as an upstream status, the candidate's first e-mail address and valid mobile number
// first, in E.164.
func TestSyncedApplications(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	cand := aggregator.Candidate{ID: "kc1", RemoteID: "C1", FirstName: " Ada ", LastName: "Lovelace",
		Emails: []string{"not an address", "Ada@Example.COM"},
		Phones: []aggregator.Phone{{Number: "n/a", Type: "MOBILE"}, {Number: "(202) 555-0143", Type: "HOME"}, {Number: "+1 415 555 2671", Type: "MOBILE"}}}
	page := []aggregator.Application{
		{ID: "k1", RemoteID: "A1", JobID: "kj", Outcome: "PENDING", Candidate: cand, ChangedAt: t1},
		{ID: "k1", RemoteID: "A1", JobID: "kj", Outcome: "HIRED", Candidate: cand, ChangedAt: t0},
		{ID: "k2", JobID: "kj", Outcome: "DECLINED", Candidate: aggregator.Candidate{ID: "kc2"}, ChangedAt: t0},
		{ID: "k3", RemoteID: "A3", JobID: "kj", Candidate: cand, ChangedAt: t0, RemoteDeletedAt: &t0},
	}
	apps, maxSeen := SyncedApplications(page)
	if len(apps) != 3 || !maxSeen.Equal(t1) {
		t.Fatalf("SyncedApplications = %d entries, latest %v; want 3, %v", len(apps), maxSeen, t1)
	}
	a := apps[0]
	if a.ExternalID != "A1" || a.UpstreamStatus != store.UpstreamInProcess || a.FirstName != "Ada" || a.Email != "Ada@example.com" ||
		a.Phone != "+14155552671" || a.CandidateExternalID != "C1" || a.JobRemoteID != "kj" {
		t.Errorf("A1 = %+v", a)
	}
	if apps[1].ExternalID != "k2" || apps[1].CandidateExternalID != "kc2" || apps[1].UpstreamStatus != store.UpstreamDeclined || apps[1].Email != "" || apps[1].Phone != "" {
		t.Errorf("k2 = %+v; want the aggregator's ids, declined, no contacts", apps[1])
	}
	if apps[2].UpstreamStatus != store.UpstreamClosed {
		t.Errorf("A3 = %+v, want closed", apps[2])
	}
	if got := candidatePhone([]aggregator.Phone{{Number: "555-0100"}}); got != "555-0100" {
		t.Errorf("candidatePhone(an invalid number) = %q, want it as written", got)
	}
}
