package httpapi

import (
	"net/http"
	"net/mail"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/invite"
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
	created, err := s.Invitations.Invite(c.Request.Context(), invite.Request{
		Company: company(c), InterviewerID: inv.interviewerID, Candidate: inv.candidate, Channels: inv.channels, Medium: inv.medium,
		RequestID: requestID(c),
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, InviteCandidateResponse{
		Success: true, SessionID: created.Session.ID.String(), CandidateID: created.Candidate.ID.String(),
		InterviewLink: s.Config.Links().Interview(created.Session.LinkToken),
	})
}
