package store_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestAttachPartnerApplicantResumes: the applicant kept on a partner application becomes a
// candidate and an application once; an attach that stopped after the candidate's step goes on
// with that candidate; attaching again changes nothing; an application with neither an applicant
// nor a candidate is ErrNotFound.
func TestAttachPartnerApplicantResumes(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	acme := company(t, st, "acme")
	box, err := secretbox.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	p := &models.Partner{CompanyID: acme.ID, Name: "board", CallbackURL: "https://board.example.com/cb"}
	if err := st.CreatePartner(ctx, box, p, store.PartnerSecrets{CallbackSecret: "cbs", SigningSecret: "whsec"}); err != nil {
		t.Fatal(err)
	}
	job := &models.Job{CompanyID: acme.ID, ExternalID: "5001", InterviewerID: "acme-5001", Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
	if err := st.DB().Create(job).Error; err != nil {
		t.Fatal(err)
	}
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
