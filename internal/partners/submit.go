package partners

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/ats"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/personname"
	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Submission is a partner's request: the ATS ids as sent (trimmed, empty when absent), the
// caller's company and the partner its API key is bound to (nil for a key bound to none).
type Submission struct {
	Company     *models.Company
	PartnerID   *uuid.UUID
	ApplicantID string
	JobID       string
	CandidateID string
}

// Accepted is a submission recorded, and its start launched.
type Accepted struct {
	Application *models.PartnerApplication
	// Created is false for a repeat of an applicant submitted before.
	Created bool
	// Replay is the callback a repeat of a settled application replays; nil otherwise.
	Replay *models.Callback
}

// Submit checks a submission in this order: its fields (ErrMissingFields, ErrInvalidField), the
// callback endpoint of the key's partner (ErrNoCallbackEndpoint); then it answers a repeat of an
// applicant submitted before (see repeat). A first submission is checked further: the ATS type
// (ErrUnsupportedATS), the job named by JobID and its flow (ErrJobNotFound, ErrJobClosed,
// ErrNoPartnerTrigger, before any ATS call), the ATS record (ErrApplicantNotFound, or
// ErrATSUnavailable on any ATS failure), the cross-checks (ErrJobMismatch,
// ErrCandidateMismatch), the job derived from the record; then the submission is recorded and
// its start launched (outbox.ErrUnavailable when Temporal does not take it).
func (a *Applications) Submit(ctx context.Context, sub Submission) (*Accepted, error) {
	co := sub.Company
	if err := checkFields(co, sub); err != nil {
		return nil, err
	}
	if sub.PartnerID == nil {
		return nil, ErrNoCallbackEndpoint
	}
	// One statement reads the earlier application, the job and the trigger; they are checked in
	// the order above.
	look, err := a.Store.LookUpSubmission(ctx, co.ID, sub.ApplicantID, sub.JobID)
	if err != nil {
		return nil, err
	}
	if look.Previous != nil {
		return a.repeat(ctx, co, *sub.PartnerID, look.Previous, sub.JobID, sub.CandidateID)
	}
	client, err := a.atsClient(co)
	if errors.Is(err, ats.ErrUnsupported) {
		return nil, ErrUnsupportedATS
	}
	if err != nil {
		return nil, err
	}
	var job *models.Job
	if sub.JobID != "" {
		if job, err = checkJob(look.Job, look.TriggerEnabled); err != nil {
			return nil, err
		}
	}
	rec, err := client.Applicant(ctx, ats.Lookup{ApplicantID: sub.ApplicantID, JobID: sub.JobID})
	switch {
	case errors.Is(err, ats.ErrNotFound):
		return nil, ErrApplicantNotFound
	case errors.Is(err, ats.ErrInvalidID):
		return nil, &FieldError{Kind: ErrInvalidField, detail: err.Error()}
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrATSUnavailable, err)
	}
	if sub.JobID != "" && rec.JobID != sub.JobID {
		return nil, ErrJobMismatch
	}
	if sub.CandidateID != "" && rec.CandidateID != sub.CandidateID {
		return nil, ErrCandidateMismatch
	}
	if job == nil {
		if job, err = a.job(ctx, co.ID, rec.JobID); err != nil {
			return nil, err
		}
	}
	pa := &models.PartnerApplication{CompanyID: co.ID, PartnerID: *sub.PartnerID, ATSApplicantID: sub.ApplicantID, ATSJobID: rec.JobID, JobID: job.ID}
	if rec.CandidateID != "" {
		pa.ATSCandidateID = &rec.CandidateID
	}
	return a.record(ctx, co, pa, rec)
}

// checkFields checks that the ids a submission requires are present (atsJobId only for the ATS
// types that look records up by job) and that every id is a positive integer.
func checkFields(co *models.Company, sub Submission) error {
	atsType := models.ATSType("")
	if co.ATSType != nil {
		atsType = *co.ATSType
	}
	var missing []string
	if sub.ApplicantID == "" {
		missing = append(missing, "atsApplicantId")
	}
	if sub.JobID == "" && ats.RequiresJobID(atsType) {
		missing = append(missing, "atsJobId (required for "+string(atsType)+")")
	}
	if len(missing) > 0 {
		return &FieldError{Kind: ErrMissingFields, detail: "missing required fields: " + strings.Join(missing, ", ")}
	}
	var bad []string
	for _, f := range []struct{ name, v string }{{"atsApplicantId", sub.ApplicantID}, {"atsJobId", sub.JobID}, {"atsCandidateId", sub.CandidateID}} {
		if f.v != "" && !isATSID(f.v) {
			bad = append(bad, f.name+" must be a positive integer id, as a string")
		}
	}
	if len(bad) > 0 {
		return &FieldError{Kind: ErrInvalidField, detail: strings.Join(bad, "; ")}
	}
	return nil
}

func isATSID(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0 && strconv.FormatInt(n, 10) == s
}

// repeat answers a repeat of an applicant submitted before. Only the partner (ErrOtherPartner)
// and the ids the request names (the mismatch errors, against the stored application) are
// checked: the job, its flow and the company's ATS were checked by the first submission, and a
// job paused, closed or deleted since, a trigger disabled or an ATS gone does not stop a repeat
// from being answered like the first (accepted, then the running submission's callback or a
// replay of the settled one).
func (a *Applications) repeat(ctx context.Context, co *models.Company, partnerID uuid.UUID, prev *models.PartnerApplication, jobID, candidateID string) (*Accepted, error) {
	if prev.PartnerID != partnerID {
		return nil, ErrOtherPartner
	}
	if jobID != "" && prev.ATSJobID != jobID {
		return nil, ErrJobMismatch
	}
	if candidateID != "" && (prev.ATSCandidateID == nil || strings.TrimSpace(*prev.ATSCandidateID) != candidateID) {
		return nil, ErrCandidateMismatch
	}
	return a.record(ctx, co, &models.PartnerApplication{CompanyID: co.ID, PartnerID: partnerID, ATSApplicantID: prev.ATSApplicantID, ATSJobID: prev.ATSJobID, JobID: prev.JobID}, nil)
}

// applicationNS derives application ids: one id per (company, ATS applicant).
var applicationNS = uuid.MustParse("6f1b0b52-4a8e-4f4e-9a51-2f0d5c9a7e11")

// applicationID is the id of the company's partner application for an ATS applicant, the same
// for every submission of it.
func applicationID(companyID uuid.UUID, atsApplicantID string) uuid.UUID {
	return uuid.NewSHA1(applicationNS, []byte(companyID.String()+"/"+atsApplicantID))
}

// job finds the job an application is for and checks that it takes partner applications.
func (a *Applications) job(ctx context.Context, companyID uuid.UUID, atsJobID string) (*models.Job, error) {
	job, err := a.Store.JobByExternalID(ctx, companyID, atsJobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrJobNotFound
	}
	if err != nil {
		return nil, err
	}
	if job.Status != models.JobStatusActive || !job.IsOpen {
		return nil, ErrJobClosed
	}
	ok, err := a.Store.EnabledTrigger(ctx, companyID, models.TriggerPartnerApplication)
	if err != nil {
		return nil, err
	}
	return checkJob(job, ok)
}

// checkJob checks that the job (nil: not found) takes partner applications, its company's
// partner_application trigger being enabled or not.
func checkJob(job *models.Job, triggerEnabled bool) (*models.Job, error) {
	switch {
	case job == nil:
		return nil, ErrJobNotFound
	case job.Status != models.JobStatusActive || !job.IsOpen:
		return nil, ErrJobClosed
	case !triggerEnabled:
		return nil, ErrNoPartnerTrigger
	}
	return job, nil
}

// atsClient builds the company's ATS client from the row authentication loaded (no query).
func (a *Applications) atsClient(co *models.Company) (ats.Client, error) {
	if co.ATSType == nil {
		return nil, ats.ErrUnsupported
	}
	creds, err := store.OpenATSCredentials(a.Box, co)
	if err != nil {
		return nil, err
	}
	return ats.New(*co.ATSType, ats.Config{BaseURL: creds["baseUrl"], Credentials: creds, Timeout: a.ATSTimeout})
}

// record records the submission once and launches the start it needs taken; rec is the ATS
// record of a first submission (nil for a repeat).
func (a *Applications) record(ctx context.Context, co *models.Company, pa *models.PartnerApplication, rec *ats.Applicant) (*Accepted, error) {
	pa.ID = applicationID(co.ID, pa.ATSApplicantID)
	sub := store.PartnerSubmission{Application: pa, ReplayID: uuid.New()}
	if rec != nil {
		ap := &models.PartnerApplicant{FirstName: personname.Clean(rec.FirstName), LastName: personname.Clean(rec.LastName), Email: rec.Email}
		if rec.Phone != "" {
			ap.Phone, _ = phone.Normalize(rec.Phone, "US")
		}
		pa.Applicant = models.NewJSON(ap)
	}
	sub.Start = kinds.PartnerApplicationStart(co.Slug, pa.ATSApplicantID, kinds.PartnerInput{
		CompanyID: co.ID, PartnerApplicationID: pa.ID, Deadline: time.Duration(co.PartnerDeadlineSeconds) * time.Second,
	})
	sub.Replay = kinds.CallbackStart(co.Slug, kinds.CallbackInput{CompanyID: co.ID, CallbackID: sub.ReplayID}, "")
	res, err := a.Store.SubmitPartnerApplication(ctx, sub)
	if errors.Is(err, store.ErrOtherPartner) {
		return nil, ErrOtherPartner
	}
	if err != nil {
		return nil, fmt.Errorf("submit partner application: %w", err)
	}
	if res.Start != nil {
		if err := a.Launcher.Accept(ctx, res.Start); err != nil {
			return nil, err
		}
	}
	return &Accepted{Application: res.Application, Created: res.Created, Replay: res.Replay}, nil
}
