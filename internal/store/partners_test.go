package store_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// partnerAndJob creates a partner of co and an active job (ATS id 5001) that partners submit to.
func partnerAndJob(t *testing.T, st *store.Store, co *models.Company) (*models.Partner, *models.Job) {
	t.Helper()
	box, err := secretbox.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	p := &models.Partner{CompanyID: co.ID, Name: "board", CallbackURL: "https://board.example.com/cb"}
	if err := st.CreatePartner(t.Context(), box, p, store.PartnerSecrets{CallbackSecret: "cbs", SigningSecret: "whsec"}); err != nil {
		t.Fatal(err)
	}
	job := &models.Job{CompanyID: co.ID, ExternalID: "5001", InterviewerID: co.Slug + "-5001", Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
	if err := st.DB().Create(job).Error; err != nil {
		t.Fatal(err)
	}
	return p, job
}

// TestSubmitPartnerApplicationOnce: a first submission writes the application, its applicant
// and its run's start together; a repeat writes neither again and returns the start not taken
// yet; a first submission whose start cannot be written (its workflow id taken) writes no
// application either.
func TestSubmitPartnerApplicationOnce(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	acme := company(t, st, "acme")
	p, job := partnerAndJob(t, st, acme)
	submission := func(applicant, workflowID string) store.PartnerSubmission {
		start := func(wid string) models.WorkflowStart {
			return models.WorkflowStart{CompanyID: acme.ID, Kind: "test", WorkflowID: wid, CompanySlug: acme.Slug, Input: []byte(`{}`)}
		}
		return store.PartnerSubmission{
			Application: &models.PartnerApplication{ID: uuid.New(), CompanyID: acme.ID, PartnerID: p.ID, ATSApplicantID: applicant, ATSJobID: "5001", JobID: job.ID,
				Applicant: models.NewJSON(&models.PartnerApplicant{FirstName: "Ada", Email: "ada@example.com"})},
			Start: start(workflowID), Replay: start(workflowID + "/replay"), ReplayID: uuid.New(),
		}
	}
	starts := func(wid string) (n int64) {
		if err := st.DB().Model(&models.WorkflowStart{}).Where("workflow_id = ?", wid).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	first, err := st.SubmitPartnerApplication(ctx, submission("1001", "test/acme/1001"))
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || first.Start == nil || first.Application.Status != models.PartnerStatusInFlight {
		t.Fatalf("first submission = %+v, want created, in flight, with its start", first)
	}
	var stored models.PartnerApplication
	if err := st.DB().First(&stored, "company_id = ? AND ats_applicant_id = ?", acme.ID, "1001").Error; err != nil {
		t.Fatal(err)
	}
	if stored.ID != first.Application.ID || stored.Applicant.V == nil || stored.Applicant.V.Email != "ada@example.com" || starts("test/acme/1001") != 1 {
		t.Fatalf("stored %+v with %d starts, want the submission's id and applicant and one start", stored, starts("test/acme/1001"))
	}

	again, err := st.SubmitPartnerApplication(ctx, submission("1001", "test/acme/1001"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Start == nil || again.Start.ID != first.Start.ID || again.Application.ID != first.Application.ID || starts("test/acme/1001") != 1 {
		t.Fatalf("repeat = %+v, want the first application and its start, not a new one", again)
	}

	if _, err := st.SubmitPartnerApplication(ctx, submission("1002", "test/acme/1001")); err == nil {
		t.Fatal("a submission whose start's workflow id is taken was accepted")
	}
	var n int64
	if err := st.DB().Model(&models.PartnerApplication{}).Where("company_id = ? AND ats_applicant_id = ?", acme.ID, "1002").Count(&n).Error; err != nil || n != 0 {
		t.Fatalf("%d applications 1002 (err %v) after their start failed, want none", n, err)
	}
}

// TestAttachPartnerApplicantResumes: the applicant kept on a partner application becomes a
// candidate and an application once; an attach that stopped after the candidate's step goes on
// with that candidate; attaching again changes nothing; an application with neither an applicant
// nor a candidate is ErrNotFound.
func TestAttachPartnerApplicantResumes(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	acme := company(t, st, "acme")
	p, job := partnerAndJob(t, st, acme)
	ext := "7001"
	pa := &models.PartnerApplication{ID: uuid.New(), CompanyID: acme.ID, PartnerID: p.ID, ATSApplicantID: "1001", ATSJobID: "5001", ATSCandidateID: &ext, JobID: job.ID,
		Applicant: models.NewJSON(&models.PartnerApplicant{FirstName: "Ada", LastName: "Quinn", Email: "Ada@Example.com", Phone: "+14155550101"})}
	if err := st.DB().Create(pa).Error; err != nil {
		t.Fatal(err)
	}
	// The candidate's step committed, the application's did not.
	email, phone := "ada@example.com", "+14155550101"
	cand := &models.Candidate{CompanyID: acme.ID, FirstName: "Ada", LastName: "Quinn", Email: &email, Phone: &phone, ExternalID: &ext, Status: "interviewing"}
	if err := st.DB().Create(cand).Error; err != nil {
		t.Fatal(err)
	}
	if err := st.DB().Model(pa).Update("candidate_id", cand.ID).Error; err != nil {
		t.Fatal(err)
	}

	got, err := st.AttachPartnerApplicant(ctx, acme.ID, pa.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.CandidateID == nil || *got.CandidateID != cand.ID || got.ApplicationID == nil || got.Applicant.V != nil {
		t.Fatalf("attached = %+v, want the stored candidate, an application and no applicant kept", got)
	}
	var app models.Application
	if err := st.DB().First(&app, "company_id = ? AND id = ?", acme.ID, *got.ApplicationID).Error; err != nil {
		t.Fatal(err)
	}
	if app.CandidateID != cand.ID || app.JobID != job.ID || app.Source != models.ApplicationSourcePartner || app.ExternalID == nil || *app.ExternalID != "1001" {
		t.Errorf("application = %+v", app)
	}
	again, err := st.AttachPartnerApplicant(ctx, acme.ID, pa.ID)
	if err != nil || *again.ApplicationID != *got.ApplicationID || *again.CandidateID != cand.ID {
		t.Errorf("attach again = %+v, %v, want the same candidate and application", again, err)
	}
	var candidates, apps int64
	st.DB().Model(&models.Candidate{}).Where("company_id = ?", acme.ID).Count(&candidates)
	st.DB().Model(&models.Application{}).Where("company_id = ?", acme.ID).Count(&apps)
	if candidates != 1 || apps != 1 {
		t.Errorf("%d candidates and %d applications, want one of each", candidates, apps)
	}

	bare := &models.PartnerApplication{ID: uuid.New(), CompanyID: acme.ID, PartnerID: p.ID, ATSApplicantID: "1002", ATSJobID: "5001", JobID: job.ID}
	if err := st.DB().Create(bare).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := st.AttachPartnerApplicant(ctx, acme.ID, bare.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("attach without an applicant: err = %v, want ErrNotFound", err)
	}
	if _, err := st.AttachPartnerApplicant(ctx, acme.ID, uuid.New()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("attach of no application: err = %v, want ErrNotFound", err)
	}
}
