package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func importedJobs(from, to int, title string, open bool, at time.Time) []store.ImportedJob {
	var out []store.ImportedJob
	for i := from; i <= to; i++ {
		ext := fmt.Sprintf("E%04d", i)
		out = append(out, store.ImportedJob{RemoteID: "kmb_" + ext, ExternalID: ext, Title: title + " " + ext, Description: "d",
			RemoteStatus: "OPEN", Location: "Berlin", Open: open, ChangedAt: at, RemoteCreatedAt: &at})
	}
	return out
}

// forCompany gives each job what the job import gives it: the id, interviewer id and 'New Job
// from ATS' start it has if the upsert creates it.
func forCompany(co *models.Company, jobs []store.ImportedJob) []store.ImportedJob {
	for i := range jobs {
		j := &jobs[i]
		j.ID, j.InterviewerID = uuid.New(), co.Slug+"-"+j.ExternalID
		j.Start = kinds.NewJobStart(co.Slug, co.ID, j.ID, j.ExternalID, j.InterviewerID)
	}
	return jobs
}

func upsertImported(t *testing.T, st *store.Store, co *models.Company, jobs []store.ImportedJob) (store.ImportCounts, []models.WorkflowStart) {
	t.Helper()
	counts, starts, err := jobimport.WriteJobPage(t.Context(), st, co, forCompany(co, jobs))
	if err != nil {
		t.Fatal(err)
	}
	return counts, starts
}

// TestUpsertImportedJobs checks what a page guarantees: jobs created once, the changed ones
// updated or closed, unchanged ones left alone and not counted, an aggregator record per job
// pointing at it, and one start row per created job, returned with its id.
func TestUpsertImportedJobs(t *testing.T) {
	st := newStore(t)
	co := company(t, st, "acme")
	other := company(t, st, "globex")
	db := st.DB().WithContext(t.Context())
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

	counts, starts := upsertImported(t, st, co, importedJobs(1, 300, "Job", true, at))
	if counts != (store.ImportCounts{Created: 300, Generating: 300}) || len(starts) != 600 {
		t.Fatalf("first page: %+v, %d starts; want 300 created, each with its new-job and generation starts", counts, len(starts))
	}
	var pending []models.WorkflowStart
	if err := db.Where("company_id = ? AND kind = ?", co.ID, kinds.NewJob.Name).Find(&pending).Error; err != nil {
		t.Fatal(err)
	}
	byID := map[uuid.UUID]models.WorkflowStart{}
	for _, ws := range pending {
		byID[ws.ID] = ws
	}
	var generations int
	for _, ws := range starts {
		if ws.Kind == kinds.JobGeneration.Name {
			generations++
			if !strings.HasPrefix(ws.WorkflowID, "job-generation/acme/E") || !strings.HasSuffix(ws.WorkflowID, "@20260301T090000.000Z") {
				t.Errorf("generation start %s, want job-generation/acme/<ext>@<changed at>", ws.WorkflowID)
			}
			continue
		}
		got, ok := byID[ws.ID]
		if !ok || got.WorkflowID != ws.WorkflowID || ws.CreatedAt.IsZero() || got.StartedAt != nil {
			t.Fatalf("returned start %s (%s) is not the pending row %+v", ws.ID, ws.WorkflowID, got)
		}
	}
	if len(pending) != 300 || generations != 300 {
		t.Fatalf("%d new-job start rows and %d generations, want 300 of each", len(pending), generations)
	}
	var linked int64
	db.Raw(`SELECT count(*) FROM aggregator_jobs a JOIN jobs j ON j.company_id = a.company_id AND j.id = a.job_id
		WHERE a.company_id = ? AND a.ats_job_id = j.external_id AND a.name = j.title AND a.location = 'Berlin'
		  AND j.status = 'GENERATING' AND j.interviewer_id = 'acme-' || j.external_id`, co.ID).Scan(&linked)
	if linked != 300 {
		t.Fatalf("%d aggregator records point at their job, want 300", linked)
	}

	// The same page again changes nothing and starts nothing.
	var updatedAt time.Time
	db.Raw(`SELECT max(updated_at) FROM jobs WHERE company_id = ?`, co.ID).Scan(&updatedAt)
	counts, starts = upsertImported(t, st, co, importedJobs(1, 300, "Job", true, at))
	if counts != (store.ImportCounts{}) || len(starts) != 0 {
		t.Fatalf("repeated page: %+v, %d starts; want nothing", counts, len(starts))
	}
	var again time.Time
	db.Raw(`SELECT max(updated_at) FROM jobs WHERE company_id = ?`, co.ID).Scan(&again)
	if !again.Equal(updatedAt) {
		t.Errorf("a repeated page rewrote jobs: updated_at %s, was %s", again, updatedAt)
	}

	// Renamed, closed, unchanged and new jobs in one page.
	later := at.Add(time.Hour)
	page := append(importedJobs(1, 10, "Renamed", true, later), importedJobs(11, 15, "Job", false, later)...)
	page = append(page, importedJobs(16, 20, "Job", true, later)...)
	page = append(page, importedJobs(301, 302, "New", true, later)...)
	counts, starts = upsertImported(t, st, co, page)
	if counts != (store.ImportCounts{Created: 2, Updated: 10, Closed: 5, Generating: 2}) || len(starts) != 4 {
		t.Fatalf("mixed page: %+v, %d starts; want 2 created (and generated), 10 updated, 5 closed, 4 starts", counts, len(starts))
	}
	var j models.Job
	if err := db.First(&j, "company_id = ? AND external_id = ?", co.ID, "E0012").Error; err != nil || j.IsOpen {
		t.Errorf("closed job: %+v, %v", j, err)
	}
	var seen time.Time
	db.Raw(`SELECT changed_at FROM aggregator_jobs WHERE company_id = ? AND remote_id = 'kmb_E0018'`, co.ID).Scan(&seen)
	if !seen.Equal(later) {
		t.Errorf("unchanged job's record changed_at = %s, want %s", seen, later)
	}
	// Closing again is neither an update nor a close.
	counts, _ = upsertImported(t, st, co, importedJobs(11, 15, "Job", false, later))
	if counts != (store.ImportCounts{}) {
		t.Errorf("closed again: %+v, want nothing", counts)
	}

	// Another company's jobs with the same external ids are its own.
	counts, starts = upsertImported(t, st, other, importedJobs(1, 3, "Job", true, at))
	if counts != (store.ImportCounts{Created: 3, Generating: 3}) || len(starts) != 6 {
		t.Fatalf("other company: %+v, %d starts", counts, len(starts))
	}
	var total int64
	db.Raw(`SELECT count(*) FROM jobs`).Scan(&total)
	if total != 305 {
		t.Errorf("%d jobs in all, want 305", total)
	}
}

// TestUpsertImportedJobsConcurrentWriter: a job with the same external id committed by another
// transaction while the page waits for it is left as it is, and still gets its aggregator record.
func TestUpsertImportedJobsConcurrentWriter(t *testing.T) {
	pdb := pgtest.New(t)
	st, err := store.FromSQL(pdb.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	co := company(t, st, "acme")
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	page := importedJobs(1, 2, "Job", true, at)

	tx, err := pdb.SQL.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var theirs uuid.UUID
	if err := tx.QueryRowContext(t.Context(), `INSERT INTO jobs (company_id, external_id, interviewer_id, title, external_title, description, status, is_open)
		VALUES ($1, 'E0001', 'acme-theirs', 'Job E0001', 'Job E0001', 'd', 'ACTIVE', true) RETURNING id`, co.ID).Scan(&theirs); err != nil {
		t.Fatal(err)
	}
	type result struct {
		counts store.ImportCounts
		starts []models.WorkflowStart
		err    error
	}
	done := make(chan result, 1)
	go func() {
		counts, starts, err := jobimport.WriteJobPage(t.Context(), st, co, forCompany(co, page))
		done <- result{counts, starts, err}
	}()
	// Wait until the page is blocked on the uncommitted job, then commit it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := pdb.SQL.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page never waited for the concurrent job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.counts != (store.ImportCounts{Created: 1, Generating: 1}) || len(r.starts) != 2 || r.starts[0].WorkflowID != "new-job/acme/E0002" ||
		r.starts[1].Kind != kinds.JobGeneration.Name {
		t.Fatalf("counts %+v, starts %+v; want E0002 created and started", r.counts, r.starts)
	}
	var jobID uuid.UUID
	if err := st.DB().Raw(`SELECT job_id FROM aggregator_jobs WHERE company_id = ? AND remote_id = 'kmb_E0001'`, co.ID).Row().Scan(&jobID); err != nil || jobID != theirs {
		t.Fatalf("aggregator record of E0001 points at %s (%v), want the concurrent job %s", jobID, err, theirs)
	}
}

// TestImportedJobDescriptions: a job imported without a description is FAILED with the reason
// and generates nothing; the description arriving later makes it GENERATING with a generation
// start; a changed description is a new guide version with its own start; an unchanged one
// starts nothing.
func TestImportedJobDescriptions(t *testing.T) {
	st := newStore(t)
	co := company(t, st, "acme")
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	job := func(descr string, when time.Time) []store.ImportedJob {
		j := importedJobs(1, 1, "Nurse", true, when)
		j[0].Description = descr
		return j
	}
	load := func() models.Job {
		t.Helper()
		var j models.Job
		if err := st.DB().First(&j, "company_id = ? AND external_id = 'E0001'", co.ID).Error; err != nil {
			t.Fatal(err)
		}
		return j
	}
	generations := func(starts []models.WorkflowStart) (ids []string) {
		for _, ws := range starts {
			if ws.Kind == kinds.JobGeneration.Name {
				ids = append(ids, ws.WorkflowID)
			}
		}
		return ids
	}

	counts, starts := upsertImported(t, st, co, job("   ", at))
	if j := load(); counts.Generating != 0 || len(generations(starts)) != 0 || j.Status != models.JobStatusFailed ||
		j.FailureReason == nil || *j.FailureReason != store.NoDescriptionReason {
		t.Fatalf("blank description: %+v, starts %v, job %s %v; want FAILED with the reason and no generation", counts, generations(starts), j.Status, j.FailureReason)
	}
	later := at.Add(time.Hour)
	_, starts = upsertImported(t, st, co, job("Care for patients on a busy ward.", later))
	if j := load(); j.Status != models.JobStatusGenerating || j.FailureReason != nil || j.GuideVersion != 2 ||
		len(generations(starts)) != 1 || generations(starts)[0] != "job-generation/acme/E0001@20260301T100000.000Z" {
		t.Fatalf("description given: job %s %v v%d, generations %v; want GENERATING, version 2, one start", j.Status, j.FailureReason, j.GuideVersion, generations(starts))
	}
	// Generated meanwhile: the job is ACTIVE; the same description again starts nothing.
	if err := st.DB().Exec(`UPDATE jobs SET status = 'ACTIVE' WHERE company_id = ?`, co.ID).Error; err != nil {
		t.Fatal(err)
	}
	if _, starts = upsertImported(t, st, co, job("Care for patients on a busy ward.", later)); len(starts) != 0 {
		t.Fatalf("unchanged description: starts %v, want none", starts)
	}
	evenLater := later.Add(time.Hour)
	_, starts = upsertImported(t, st, co, job("Care for patients on a busy ward, nights included.", evenLater))
	if j := load(); j.Status != models.JobStatusActive || j.GuideVersion != 3 || len(generations(starts)) != 1 {
		t.Fatalf("changed description: job %s v%d, generations %v; want ACTIVE kept, version 3, one start", j.Status, j.GuideVersion, generations(starts))
	}
}
