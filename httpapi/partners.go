package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/ats"
	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// PartnerApplicationRequest is the body of POST /v2/api/partner-applications.
type PartnerApplicationRequest struct {
	ATSApplicantID *string `json:"atsApplicantId"`
	ATSJobID       *string `json:"atsJobId"`
	ATSCandidateID *string `json:"atsCandidateId"`
}

// PartnerApplicationResponse is the 202 answer; a terminal callback follows.
type PartnerApplicationResponse struct {
	Success       bool   `json:"success"`
	ApplicationID string `json:"applicationId"`
	Created       bool   `json:"created"`
}

var (
	errNoCallbackEndpoint = newError(http.StatusConflict, "NO_CALLBACK_ENDPOINT", "this API key is not bound to a partner with a callback endpoint; ask the company to register your callback URL and bind your key (recruitd partners add, apikey create --partner)")
	errUnsupportedATS     = newError(http.StatusUnprocessableEntity, "UNSUPPORTED_ATS", "the company's ATS does not support partner applications")
	errJobNotFound        = newError(http.StatusNotFound, "JOB_NOT_FOUND", "no job of this company matches the ATS job id")
	errJobClosed          = newError(http.StatusConflict, "JOB_CLOSED", "the job is closed or not active")
	errNoPartnerTrigger   = newError(http.StatusConflict, "NO_PARTNER_TRIGGER", "the job's workflow has no enabled partner_application trigger")
	errApplicantNotFound  = newError(http.StatusNotFound, "APPLICANT_NOT_FOUND", "the applicant or candidate does not exist in the ATS")
	errJobMismatch        = newError(http.StatusUnprocessableEntity, "ID_MISMATCH", "atsJobId does not match the applicant record")
	errCandidateMismatch  = newError(http.StatusUnprocessableEntity, "ID_MISMATCH", "atsCandidateId does not match the applicant record")
	errATSUnavailable     = newError(http.StatusServiceUnavailable, "ATS_UNAVAILABLE", "the ATS did not answer in time or failed; retry with backoff")
	errOtherPartner       = newError(http.StatusConflict, "SUBMITTED_BY_ANOTHER_PARTNER", "this applicant was submitted by another partner; only that partner receives its status and callbacks")
)

func isATSID(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0 && strconv.FormatInt(n, 10) == s
}

// submitPartnerApplication checks, in this order: rate limit per key (429), body (400),
// callback endpoint of the key's partner (409); then answers a repeat of an applicant submitted
// before (see repeat). A first submission is checked further: ATS type (422), the job named by
// atsJobId and its workflow (404/409, before any ATS call), the ATS record (404, or 503 on any
// ATS failure), the cross-checks (422), the job derived from the record (404/409); then the
// submission is recorded (202).
func (s *server) submitPartnerApplication(c *gin.Context) {
	key := callerKey(c)
	if ok, wait := s.partnerLimits.Allow(key.ID.String()); !ok {
		s.fail(c, tooMany("RATE_LIMITED", "too many submissions with this API key; retry after the Retry-After delay", wait))
		return
	}
	var req PartnerApplicationRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	co := company(c)
	ctx := c.Request.Context()
	applicant, jobID, candidateID := deref(req.ATSApplicantID), deref(req.ATSJobID), deref(req.ATSCandidateID)
	atsType := models.ATSType("")
	if co.ATSType != nil {
		atsType = *co.ATSType
	}
	var missing []string
	if applicant == "" {
		missing = append(missing, "atsApplicantId")
	}
	if jobID == "" && ats.RequiresJobID(atsType) {
		missing = append(missing, "atsJobId (required for "+string(atsType)+")")
	}
	if len(missing) > 0 {
		s.fail(c, newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "missing required fields: "+strings.Join(missing, ", ")))
		return
	}
	var f fieldErrors
	for name, v := range map[string]string{"atsApplicantId": applicant, "atsJobId": jobID, "atsCandidateId": candidateID} {
		if v != "" && !isATSID(v) {
			f.add("%s must be a positive integer id, as a string", name)
		}
	}
	if err := f.err(); err != nil {
		s.fail(c, err)
		return
	}
	if key.PartnerID == nil {
		s.fail(c, errNoCallbackEndpoint)
		return
	}
	prev, err := s.Store.PartnerApplicationByApplicant(ctx, co.ID, applicant)
	switch {
	case err == nil:
		s.repeat(c, co, *key.PartnerID, prev, jobID, candidateID)
		return
	case !errors.Is(err, store.ErrNotFound):
		s.fail(c, err)
		return
	}
	client, err := s.atsClient(co)
	if errors.Is(err, ats.ErrUnsupported) {
		s.fail(c, errUnsupportedATS)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	var job *models.Job
	if jobID != "" {
		if job, err = s.partnerJob(ctx, co.ID, jobID); err != nil {
			s.fail(c, err)
			return
		}
	}

	rec, err := client.Applicant(ctx, ats.Lookup{ApplicantID: applicant, JobID: jobID})
	switch {
	case errors.Is(err, ats.ErrNotFound):
		s.fail(c, errApplicantNotFound)
		return
	case errors.Is(err, ats.ErrInvalidID):
		s.fail(c, newError(http.StatusBadRequest, "INVALID_FIELD", err.Error()))
		return
	case err != nil:
		s.Log.WarnContext(ctx, "ats lookup failed", "request_id", requestID(c), "company", co.Slug, "ats_type", atsType, "err", err)
		c.Header("Retry-After", "30")
		s.fail(c, errATSUnavailable)
		return
	}
	if jobID != "" && rec.JobID != jobID {
		s.fail(c, errJobMismatch)
		return
	}
	if candidateID != "" && rec.CandidateID != candidateID {
		s.fail(c, errCandidateMismatch)
		return
	}
	if job == nil {
		if job, err = s.partnerJob(ctx, co.ID, rec.JobID); err != nil {
			s.fail(c, err)
			return
		}
	}
	pa := &models.PartnerApplication{CompanyID: co.ID, PartnerID: *key.PartnerID, ATSApplicantID: applicant, ATSJobID: rec.JobID, JobID: job.ID}
	if rec.CandidateID != "" {
		pa.ATSCandidateID = &rec.CandidateID
	}
	s.submit(c, co, pa, rec)
}

// repeat answers a repeat of an applicant submitted before. Only the partner (409) and the ids
// the request names (422 against the stored application) are checked: the job, its workflow and
// the company's ATS were checked by the first submission, and a job paused, closed or deleted
// since, a trigger disabled or an ATS gone does not stop a repeat from being answered like the
// first (202, then the running submission's callback or a replay of the settled one).
func (s *server) repeat(c *gin.Context, co *models.Company, partnerID uuid.UUID, prev *models.PartnerApplication, jobID, candidateID string) {
	if prev.PartnerID != partnerID {
		s.fail(c, errOtherPartner)
		return
	}
	if jobID != "" && prev.ATSJobID != jobID {
		s.fail(c, errJobMismatch)
		return
	}
	if candidateID != "" && deref(prev.ATSCandidateID) != candidateID {
		s.fail(c, errCandidateMismatch)
		return
	}
	s.submit(c, co, &models.PartnerApplication{CompanyID: co.ID, PartnerID: partnerID, ATSApplicantID: prev.ATSApplicantID, ATSJobID: prev.ATSJobID, JobID: prev.JobID}, nil)
}

// partnerApplicationNS derives application ids: one id per (company, ATS applicant).
var partnerApplicationNS = uuid.MustParse("6f1b0b52-4a8e-4f4e-9a51-2f0d5c9a7e11")

func partnerApplicationID(companyID uuid.UUID, atsApplicantID string) uuid.UUID {
	return uuid.NewSHA1(partnerApplicationNS, []byte(companyID.String()+"/"+atsApplicantID))
}

// partnerJob finds the job an application is for and checks that it takes partner applications.
func (s *server) partnerJob(ctx context.Context, companyID uuid.UUID, atsJobID string) (*models.Job, error) {
	job, err := s.Store.JobByExternalID(ctx, companyID, atsJobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errJobNotFound
	}
	if err != nil {
		return nil, err
	}
	if job.Status != models.JobStatusActive || !job.IsOpen {
		return nil, errJobClosed
	}
	ok, err := s.Store.EnabledTrigger(ctx, companyID, models.TriggerPartnerApplication)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNoPartnerTrigger
	}
	return job, nil
}

// atsClient builds the company's ATS client from the row authentication loaded (no query).
func (s *server) atsClient(co *models.Company) (ats.Client, error) {
	if co.ATSType == nil {
		return nil, ats.ErrUnsupported
	}
	creds, err := store.OpenATSCredentials(s.Box, co)
	if err != nil {
		return nil, err
	}
	return ats.New(*co.ATSType, ats.Config{BaseURL: creds["baseUrl"], Credentials: creds, Timeout: s.Config.ATSTimeout})
}

// submit records the submission once, starts what it needs started and answers 202; rec is
// the ATS record of a first submission (nil for a repeat).
func (s *server) submit(c *gin.Context, co *models.Company, pa *models.PartnerApplication, rec *ats.Applicant) {
	ctx := c.Request.Context()
	if pa.ID == uuid.Nil {
		pa.ID = partnerApplicationID(co.ID, pa.ATSApplicantID)
	}
	sub := store.PartnerSubmission{Application: pa, ReplayID: uuid.New()}
	if rec != nil {
		a := &models.PartnerApplicant{FirstName: rec.FirstName, LastName: rec.LastName, Email: rec.Email}
		if rec.Phone != "" {
			a.Phone, _ = phone.Normalize(rec.Phone, "US")
		}
		pa.Applicant = models.NewJSON(a)
	}
	sub.Start = workflows.PartnerApplicationStart(co.Slug, pa.ATSApplicantID, workflows.PartnerInput{
		CompanyID: co.ID, PartnerApplicationID: pa.ID, Deadline: time.Duration(co.PartnerDeadlineSeconds) * time.Second,
	})
	sub.Replay = workflows.CallbackStart(co.Slug, workflows.CallbackInput{CompanyID: co.ID, CallbackID: sub.ReplayID}, "")
	res, err := s.Store.SubmitPartnerApplication(ctx, sub)
	if errors.Is(err, store.ErrOtherPartner) {
		s.fail(c, errOtherPartner)
		return
	}
	if err != nil {
		s.fail(c, fmt.Errorf("submit partner application: %w", err))
		return
	}
	if res.Start != nil {
		if err := s.Launcher.Launch(ctx, res.Start); err != nil {
			s.fail(c, err)
			return
		}
	}
	s.Log.InfoContext(ctx, "partner application accepted", "request_id", requestID(c), "company", co.Slug,
		"application_id", res.Application.ID, "created", res.Created, "replay", res.Replay != nil)
	c.JSON(http.StatusAccepted, PartnerApplicationResponse{Success: true, ApplicationID: res.Application.ID.String(), Created: res.Created})
}
