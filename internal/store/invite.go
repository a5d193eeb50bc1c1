package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// Invitation is what CreateInvitation stored.
type Invitation struct {
	Candidate        models.Candidate
	CandidateCreated bool
	Application      models.Application
	Session          models.InterviewSession
}

// InvitationInput is an invitation to store: the session's id is chosen by the caller, so the
// starts of its workflows (the invitation's flow and the session's interview) can name it.
type InvitationInput struct {
	CompanyID, JobID, SessionID uuid.UUID
	Candidate                   CandidateInput
	Source                      models.ApplicationSource
	Medium                      models.MediumType
	// ExpiresAt is the invitation's expiry; FlowWorkflowID the flow run that sends it.
	ExpiresAt      time.Time
	FlowWorkflowID string
}

// CreateInvitation finds the company's candidate by e-mail (case-insensitive) or phone, or creates
// one, then creates an application for the job and an INVITED session with a fresh link token,
// and records the starts of the invitation's workflows, all in one transaction. Concurrent
// invitations of the same contact are serialised by an advisory lock, so they share one
// candidate.
func (s *Store) CreateInvitation(ctx context.Context, in InvitationInput, starts ...*models.WorkflowStart) (*Invitation, error) {
	companyID, jobID, source, medium := in.CompanyID, in.JobID, in.Source, in.Medium
	var inv Invitation
	err := s.transactionRetryingDeadlocks(ctx, func(tx *gorm.DB) error {
		c, created, err := findOrCreateCandidate(tx, companyID, in.Candidate, SourceInvitation)
		if err != nil {
			return err
		}
		inv.Candidate, inv.CandidateCreated = *c, created
		inv.Application = models.Application{CompanyID: companyID, CandidateID: inv.Candidate.ID, JobID: jobID, Source: source, Status: "invited"}
		if err := tx.Create(&inv.Application).Error; err != nil {
			return fmt.Errorf("create application: %w", err)
		}
		inv.Session = models.InterviewSession{
			ID: in.SessionID, CompanyID: companyID, ApplicationID: &inv.Application.ID, CandidateID: inv.Candidate.ID, JobID: jobID,
			Status: models.SessionStatusInvited, MediumType: medium, InvitedAt: time.Now().UTC(), Decision: models.DecisionNone,
			ExpiresAt: &in.ExpiresAt, FlowWorkflowID: &in.FlowWorkflowID,
		}
		if err := tx.Create(&inv.Session).Error; err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		if err := insertInterviewEvent(tx, in.CompanyID, in.SessionID, models.EventInvited, nil, ""); err != nil {
			return err
		}
		for _, ws := range starts {
			if err := insertStart(tx, ws); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &inv, nil
}
