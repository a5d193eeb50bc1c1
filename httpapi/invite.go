package httpapi

import (
	"time"

	"context"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/personname"
	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// InviteCandidateRequest is the body of POST /v1/api/inviteCandidate.
type InviteCandidateRequest struct {
	InterviewerID *string           `json:"interviewerId"`
	Candidate     *CandidateRequest `json:"candidate"`
	// Channels in order of preference; the invitation falls back to the next on failure.
	Channels   []string `json:"channels"`
	MediumType *string  `json:"mediumType"`
}

// CandidateRequest names and reaches the candidate.
type CandidateRequest struct {
	FirstName *string `json:"firstName"`
	LastName  *string `json:"lastName"`
	Email     *string `json:"email"`
	Phone     *string `json:"phone"`
}

// InviteCandidateResponse answers inviteCandidate.
type InviteCandidateResponse struct {
	Success       bool   `json:"success"`
	SessionID     string `json:"sessionId"`
	CandidateID   string `json:"candidateId"`
	InterviewLink string `json:"interviewLink"`
}

// defaultInviteChannels apply when a request names none.
var defaultInviteChannels = []models.MessageChannel{models.MessageChannelEmail, models.MessageChannelSMS}

var (
	errNoContact    = newError(http.StatusBadRequest, "NO_USABLE_CONTACT", "the candidate has no e-mail address or phone number that the chosen channels can reach")
	errJobNotActive = newError(http.StatusConflict, "JOB_NOT_ACTIVE", "the job is not active or is closed; candidates can be invited only to ACTIVE, open jobs")
)

// invitation is a validated inviteCandidate request.
type invitation struct {
	interviewerID string
	candidate     store.CandidateInput
	channels      []models.MessageChannel
	medium        models.MediumType
}

func (r *InviteCandidateRequest) validate() (*invitation, error) {
	var missing []string
	if blank(r.InterviewerID) {
		missing = append(missing, "interviewerId")
	}
	if r.Candidate == nil {
		missing = append(missing, "candidate")
	}
	if len(missing) > 0 {
		return nil, newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "missing required fields: "+strings.Join(missing, ", "))
	}
	var f fieldErrors
	inv := &invitation{interviewerID: deref(r.InterviewerID), medium: models.MediumTypeVideo}
	cand := r.Candidate
	inv.candidate = store.CandidateInput{FirstName: deref(cand.FirstName), LastName: deref(cand.LastName)}
	f.maxLen("candidate.firstName", inv.candidate.FirstName, maxTitle)
	f.maxLen("candidate.lastName", inv.candidate.LastName, maxTitle)
	for _, n := range []struct{ field, name string }{{"candidate.firstName", inv.candidate.FirstName}, {"candidate.lastName", inv.candidate.LastName}} {
		if err := personname.Check(n.name); err != nil {
			f.add("%s: %v (a name is one line of text: no line breaks, tabs or other control characters)", n.field, err)
		}
	}
	if e := deref(cand.Email); e != "" {
		addr, err := mail.ParseAddress(e)
		if err != nil || addr.Address != e || len(e) > 254 {
			f.add("candidate.email %q is not an e-mail address", truncate(e, 80))
		} else {
			inv.candidate.Email = e
		}
	}
	if p := deref(cand.Phone); p != "" {
		e164, ok := phone.Normalize(p, "US")
		if !ok {
			f.add("candidate.phone %q is not a valid phone number", truncate(p, 40))
		} else {
			inv.candidate.Phone = e164
		}
	}
	f.maxItems("channels", len(r.Channels), 4)
	for i, ch := range r.Channels {
		c, err := models.ParseMessageChannel(ch)
		if err != nil || c == models.MessageChannelOutbox {
			f.add("channels[%d] %q: want one of email, sms, whatsapp, phone", i, truncate(ch, 20))
			continue
		}
		inv.channels = append(inv.channels, c)
	}
	if r.MediumType != nil {
		m, err := models.ParseMediumType(*r.MediumType)
		if err != nil {
			f.add("mediumType: %v", err)
		}
		inv.medium = m
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if len(inv.channels) == 0 {
		inv.channels = defaultInviteChannels
	}
	usable := inv.channels[:0:0]
	for _, ch := range inv.channels {
		if _, ok := channels.Address(ch, inv.candidate.Email, inv.candidate.Phone); ok {
			usable = append(usable, ch)
		}
	}
	if len(usable) == 0 {
		return nil, errNoContact
	}
	inv.channels = usable
	return inv, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (s *server) inviteCandidate(c *gin.Context) {
	var req InviteCandidateRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	inv, err := req.validate()
	if err != nil {
		s.fail(c, err)
		return
	}
	co := company(c)
	ctx := c.Request.Context()
	job, err := s.Store.JobByInterviewerID(ctx, co.ID, inv.interviewerID)
	if errors.Is(err, store.ErrNotFound) {
		s.fail(c, errNoInterviewer)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	if job.Status != models.JobStatusActive || !job.IsOpen {
		s.fail(c, errJobNotActive)
		return
	}
	sessionID := uuid.New()
	start := kinds.InviteStart(co.Slug, job.InterviewerID, kinds.FlowInput{
		CompanyID: co.ID, Trigger: models.TriggerManualInvite, JobID: job.ID, SessionID: sessionID,
		Channels: inv.channels, MediumType: inv.medium,
	})
	interview := kinds.InterviewStart(co.Slug, co.ID, sessionID, job.ID, models.SessionStatusInvited)
	created, err := s.Store.CreateInvitation(ctx, store.InvitationInput{
		CompanyID: co.ID, JobID: job.ID, SessionID: sessionID, Candidate: inv.candidate,
		Source: models.ApplicationSourceManual, Medium: inv.medium,
		ExpiresAt: time.Now().UTC().Add(time.Duration(co.InterviewExpirySeconds) * time.Second), FlowWorkflowID: start.WorkflowID,
	}, &start, &interview)
	if err != nil {
		s.fail(c, fmt.Errorf("invite to %s: %w", job.InterviewerID, err))
		return
	}
	if err := s.Launcher.Launch(ctx, &start); err != nil {
		// The caller retries with a new invitation: this one must never be sent, even if its
		// start was taken after all. Its interview run (the reconciler starts the renewed,
		// pending start) ends at once.
		cancelled := kinds.InterviewStart(co.Slug, co.ID, sessionID, job.ID, models.SessionStatusCancelled)
		if _, _, cerr := s.Store.CancelSession(context.WithoutCancel(ctx), store.CancelSessionInput{
			CompanyID: co.ID, SessionID: sessionID, By: store.CancelledByRefusedInvitation, Start: cancelled,
		}); cerr != nil {
			s.Log.ErrorContext(ctx, "refused invitation not cancelled", "request_id", requestID(c), "session_id", sessionID, "err", cerr)
		}
		s.fail(c, err)
		return
	}
	// The session's lifecycle; a refused start is resumed by the reconciler.
	if err := s.Launcher.Launch(ctx, &interview); err != nil {
		s.Log.WarnContext(ctx, "interview start deferred to the reconciler", "request_id", requestID(c), "session_id", sessionID, "err", err)
	}
	c.JSON(http.StatusOK, InviteCandidateResponse{
		Success: true, SessionID: created.Session.ID.String(), CandidateID: created.Candidate.ID.String(),
		InterviewLink: s.Config.Links().Interview(created.Session.LinkToken),
	})
}
