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
// start of its workflow can name it.
type InvitationInput struct {
	CompanyID, JobID, SessionID uuid.UUID
	Candidate                   CandidateInput
	Source                      models.ApplicationSource
	Medium                      models.MediumType
}

// CreateInvitation finds the company's candidate by e-mail (case-insensitive) or phone, or creates
// one, then creates an application for the job and an INVITED session with a fresh link token,
// and records the start of the invitation's workflow, all in one transaction. Concurrent
// invitations of the same contact are serialised by an advisory lock, so they share one
// candidate.
func (s *Store) CreateInvitation(ctx context.Context, in InvitationInput, start *models.WorkflowStart) (*Invitation, error) {
	companyID, jobID, source, medium := in.CompanyID, in.JobID, in.Source, in.Medium
	var inv Invitation
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		c, created, err := findOrCreateCandidate(tx, companyID, in.Candidate)
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
		}
		if err := tx.Create(&inv.Session).Error; err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return insertStart(tx, start)
	})
	if err != nil {
		return nil, err
	}
	return &inv, nil
}
