package store_test

import (
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func syncPage(t *testing.T, st *store.Store, co *models.Company, seen time.Time, apps ...store.SyncedApplication) (store.SyncCounts, []store.CreatedApplication) {
	t.Helper()
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	counts, created, err := tx.SyncApplications(co, apps, seen)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return counts, created
}

func synced(ext, cand, job string, at time.Time) store.SyncedApplication {
	return store.SyncedApplication{RemoteID: "kmb_" + ext, ExternalID: ext, JobRemoteID: "kmb_" + job, Outcome: "PENDING", Stage: "Applied",
		CandidateRemoteID: "kmb_" + cand, CandidateExternalID: cand, FirstName: "First " + cand, LastName: "Last", Email: cand + "@example.com", ChangedAt: at}
}

// TestSyncApplications checks what a page of synced applications guarantees: applications
// created once for imported jobs (others skipped, ones deleted before first sight not created),
// one candidate per ATS candidate id, re-reads counting nothing, a status a workflow set kept
// until the ATS's verdict changes, deletions closed and kept, a full pass closing what it did not
// see, and another company's records with the same ATS ids never touched.
func TestSyncApplications(t *testing.T) {
	st := newStore(t)
	co, other := company(t, st, "acme"), company(t, st, "globex")
	db := st.DB().WithContext(t.Context())
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []*models.Company{co, other} {
		upsertImported(t, st, c, importedJobs(1, 2, "Job", true, at))
		if err := db.Exec(`INSERT INTO aggregator_integrations (company_id, integration_id, state) VALUES (?, ?, 'connected')`, c.ID, "sim:"+c.Slug).Error; err != nil {
			t.Fatal(err)
		}
	}
	gone := synced("A4", "C4", "E0001", at)
	gone.RemoteDeletedAt, gone.UpstreamStatus = &at, store.UpstreamClosed
	page := []store.SyncedApplication{synced("A1", "C1", "E0001", at), synced("A2", "C1", "E0002", at), synced("A3", "C3", "E0099", at), gone}
	counts, created := syncPage(t, st, co, at, page...)
	if counts != (store.SyncCounts{Created: 2, Skipped: 1}) || len(created) != 2 {
		t.Fatalf("first page: %+v, %d created; want 2 created, 1 skipped", counts, len(created))
	}
	if created[0].CandidateID != created[1].CandidateID || created[0].InterviewerID != "acme-E0001" && created[1].InterviewerID != "acme-E0001" {
		t.Errorf("created = %+v; want one candidate for both and the jobs' interviewer ids", created)
	}
	// The same ATS ids at Globex are Globex's own.
	if counts, _ := syncPage(t, st, other, at, synced("A1", "C1", "E0001", at), synced("A2", "C1", "E0002", at)); counts.Created != 2 {
		t.Fatalf("Globex's page: %+v", counts)
	}
	status := func(c *models.Company, ext string) string {
		t.Helper()
		var s string
		if err := db.Raw(`SELECT status FROM applications WHERE company_id = ? AND source = 'ats' AND external_id = ?`, c.ID, ext).Scan(&s).Error; err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Re-read unchanged: nothing counted; a status a workflow set stays.
	if err := db.Exec(`UPDATE applications SET status = 'screening' WHERE company_id = ? AND external_id = 'A1'`, co.ID).Error; err != nil {
		t.Fatal(err)
	}
	if counts, created := syncPage(t, st, co, at, page...); counts != (store.SyncCounts{Skipped: 1}) || len(created) != 0 {
		t.Fatalf("unchanged page: %+v, %d created", counts, len(created))
	}
	if s := status(co, "A1"); s != "screening" {
		t.Errorf("A1 after an unchanged page = %s, want screening", s)
	}

	// The ATS declines A1 and deletes A2; C1 changes e-mail address.
	later := at.Add(time.Hour)
	a1, a2 := synced("A1", "C1", "E0001", later), synced("A2", "C1", "E0002", later)
	a1.Outcome, a1.UpstreamStatus, a1.Email = "DECLINED", store.UpstreamDeclined, "new@example.com"
	a2.RemoteDeletedAt, a2.UpstreamStatus, a2.Email = &later, store.UpstreamClosed, "new@example.com"
	if counts, _ := syncPage(t, st, co, later, a1, a2); counts != (store.SyncCounts{Updated: 1, Closed: 1}) {
		t.Fatalf("changed page: %+v, want 1 updated, 1 closed", counts)
	}
	if s1, s2 := status(co, "A1"), status(co, "A2"); s1 != "declined" || s2 != "closed" {
		t.Errorf("A1, A2 = %s, %s; want declined, closed", s1, s2)
	}
	var email string
	db.Raw(`SELECT email FROM candidates WHERE company_id = ? AND external_id = 'C1'`, co.ID).Scan(&email)
	if email != "new@example.com" {
		t.Errorf("C1's e-mail = %s", email)
	}
	// A workflow moves A1 on; the ATS's verdict is unchanged, so the next pass keeps it.
	if err := db.Exec(`UPDATE applications SET status = 'archived' WHERE company_id = ? AND external_id = 'A1'`, co.ID).Error; err != nil {
		t.Fatal(err)
	}
	syncPage(t, st, co, later, a1, a2)
	if s := status(co, "A1"); s != "archived" {
		t.Errorf("A1 after a pass with the same verdict = %s, want archived", s)
	}

	// A full pass that saw only A1 closes A2's record (already closed) and nothing else; one that
	// saw nothing closes A1, which is kept.
	closed, _, err := st.FinishApplicationSync(t.Context(), co.ID, later, &later, true)
	if err != nil || closed != 0 {
		t.Fatalf("full pass that saw everything: %d closed, %v", closed, err)
	}
	closed, _, err = st.FinishApplicationSync(t.Context(), co.ID, later.Add(time.Hour), nil, true)
	if err != nil || closed != 1 || status(co, "A1") != "closed" {
		t.Fatalf("full pass that saw nothing: %d closed (A1 %s), %v; want A1 closed", closed, status(co, "A1"), err)
	}
	var apps int64
	db.Raw(`SELECT count(*) FROM applications WHERE company_id = ? AND source = 'ats'`, co.ID).Scan(&apps)
	if apps != 2 {
		t.Errorf("Acme's applications = %d, want 2 (closed, not deleted)", apps)
	}
	if s1, s2 := status(other, "A1"), status(other, "A2"); s1 != "new" || s2 != "new" {
		t.Errorf("Globex's A1, A2 = %s, %s; want new: Acme's sync touched them", s1, s2)
	}
	db.Raw(`SELECT email FROM candidates WHERE company_id = ? AND external_id = 'C1'`, other.ID).Scan(&email)
	if email != "C1@example.com" {
		t.Errorf("Globex's C1 e-mail = %s", email)
	}
	if ok, err := st.SyncsApplications(t.Context(), co.ID); err != nil || !ok {
		t.Errorf("SyncsApplications(acme) = %v, %v; want true", ok, err)
	}
}
