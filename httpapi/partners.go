package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/partners"
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

// submitPartnerApplication checks the rate limit per key (429) and the body (400), then lets
// internal/partners check, record and start the submission (partners.Applications.Submit, whose
// errors the error table maps) and answers 202.
func (s *server) submitPartnerApplication(c *gin.Context) {
	key := callerKey(c)
	if ok, wait := s.partnerLimits.Allow(c.Request.Context(), key.ID.String()); !ok {
		s.fail(c, tooMany("RATE_LIMITED", "too many submissions with this API key; retry after the Retry-After delay", wait))
		return
	}
	var req PartnerApplicationRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	co, ctx := company(c), c.Request.Context()
	res, err := s.Partners.Submit(ctx, partners.Submission{Company: co, PartnerID: key.PartnerID,
		ApplicantID: deref(req.ATSApplicantID), JobID: deref(req.ATSJobID), CandidateID: deref(req.ATSCandidateID)})
	if errors.Is(err, partners.ErrATSUnavailable) {
		s.Log.WarnContext(ctx, "ats lookup failed", "request_id", requestID(c), "company", co.Slug, "ats_type", deref((*string)(co.ATSType)), "err", err)
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	s.Log.InfoContext(ctx, "partner application accepted", "request_id", requestID(c), "company", co.Slug,
		"application_id", res.Application.ID, "created", res.Created, "replay", res.Replay != nil)
	c.JSON(http.StatusAccepted, PartnerApplicationResponse{Success: true, ApplicationID: res.Application.ID.String(), Created: res.Created})
}
