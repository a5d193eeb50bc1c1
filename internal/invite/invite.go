// Package invite is the home of manual invitations (POST /v1/api/inviteCandidate): the rules of
// an invitation (the channels tried and which can reach the candidate, the job it is for and
// whether it takes candidates), its recording with the starts of its runs (the invitation's
// flow and the session's interview), their launch after the commit, and what becomes of an
// invitation whose flow Temporal does not take. The entrance (httpapi/invite.go) checks the
// request's shape and maps the errors below through its error table; the flow that sends it is
// workflows/flow.go with its activities in activities/invite.go.
package invite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Invitations invites candidates to interviews. cmd/recruitd wires it.
type Invitations struct {
	Store    *store.Store
	Launcher *outbox.Launcher
	Log      *slog.Logger
}

// DefaultChannels are tried, in this order, when an invitation names none.
var DefaultChannels = []models.MessageChannel{models.MessageChannelEmail, models.MessageChannelSMS}

// An invitation's refusals, in the order Invite checks them.
var (
	// ErrNoContact: none of the channels can reach the candidate's e-mail address or phone.
	ErrNoContact = errors.New("the candidate has no contact the channels can reach")
	// ErrInterviewerNotFound: the company has no job with the interviewer id.
	ErrInterviewerNotFound = errors.New("no interviewer with this id")
	// ErrJobNotActive: the job is not ACTIVE, or is closed.
	ErrJobNotActive = errors.New("the job is not active or is closed")
)

// Request is an invitation whose fields have their shapes checked: the company, the job's
// interviewer id, the candidate (a valid e-mail address and an E.164 phone, either may be
// empty), the channels in order of preference (none: DefaultChannels) and the interview's
// medium. RequestID names the request in logs.
type Request struct {
	Company       *models.Company
	InterviewerID string
	Candidate     store.CandidateInput
	Channels      []models.MessageChannel
	Medium        models.MediumType
	RequestID     string
}

// Invite checks an invitation in this order: the channels that can reach the candidate (only
// those are tried; ErrNoContact when none), the job (ErrInterviewerNotFound, ErrJobNotActive);
// then it records the candidate (found by e-mail or phone, or created), the application and an
// INVITED session expiring after the company's interview expiry, with the starts of the
// invitation's flow and the session's interview, in one transaction, and launches them.
//
// When Temporal does not take the flow's start (outbox.ErrUnavailable) the caller retries with a
// new invitation, so this one must never be sent, even if its start was taken after all: the
// session is cancelled, and its interview run (the reconciler starts the renewed start) ends at
// once. An interview start Temporal does not take is left to the reconciler.
func (i *Invitations) Invite(ctx context.Context, r Request) (*store.Invitation, error) {
	chans := r.Channels
	if len(chans) == 0 {
		chans = DefaultChannels
	}
	usable := make([]models.MessageChannel, 0, len(chans))
	for _, ch := range chans {
		if _, ok := channels.Address(ch, r.Candidate.Email, r.Candidate.Phone); ok {
			usable = append(usable, ch)
		}
	}
	if len(usable) == 0 {
		return nil, ErrNoContact
	}
	co := r.Company
	job, err := i.Store.JobByInterviewerID(ctx, co.ID, r.InterviewerID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrInterviewerNotFound
	}
	if err != nil {
		return nil, err
	}
	if job.Status != models.JobStatusActive || !job.IsOpen {
		return nil, ErrJobNotActive
	}
	sessionID := uuid.New()
	start := kinds.InviteStart(co.Slug, job.InterviewerID, kinds.FlowInput{
		CompanyID: co.ID, Trigger: models.TriggerManualInvite, JobID: job.ID, SessionID: sessionID,
		Channels: usable, MediumType: r.Medium,
	})
	interview := kinds.InterviewStart(co.Slug, co.ID, sessionID, job.ID, models.SessionStatusInvited)
	created, err := i.Store.CreateInvitation(ctx, store.InvitationInput{
		CompanyID: co.ID, JobID: job.ID, SessionID: sessionID, Candidate: r.Candidate,
		Source: models.ApplicationSourceManual, Medium: r.Medium,
		ExpiresAt: time.Now().UTC().Add(time.Duration(co.InterviewExpirySeconds) * time.Second), FlowWorkflowID: start.WorkflowID,
	}, &start, &interview)
	if err != nil {
		return nil, fmt.Errorf("invite to %s: %w", job.InterviewerID, err)
	}
	log := i.Log.With("request_id", r.RequestID, "session_id", sessionID)
	if err := i.Launcher.Accept(ctx, &start); err != nil {
		cancelled := kinds.InterviewStart(co.Slug, co.ID, sessionID, job.ID, models.SessionStatusCancelled)
		if _, _, cerr := i.Store.CancelSession(context.WithoutCancel(ctx), store.CancelSessionInput{
			CompanyID: co.ID, SessionID: sessionID, By: store.CancelledByRefusedInvitation, Start: cancelled,
		}); cerr != nil {
			log.ErrorContext(ctx, "refused invitation not cancelled", "err", cerr)
		}
		return nil, err
	}
	if err := i.Launcher.Accept(ctx, &interview); err != nil {
		log.WarnContext(ctx, "interview start deferred to the reconciler", "err", err)
	}
	return created, nil
}
