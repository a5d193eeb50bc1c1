package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// Session loads a company's interview session.
func (s *Store) Session(ctx context.Context, companyID, sessionID uuid.UUID) (*models.InterviewSession, error) {
	var sess models.InterviewSession
	if err := s.db.WithContext(ctx).First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "session "+sessionID.String())
	}
	return &sess, nil
}

// OpenSessionInput asks OpenSession for an application's session. When it creates one, the
// session gets the id of Start (the start of its interview run, written in the same
// transaction), expires at ExpiresAt and names FlowWorkflowID, the run that invites it.
type OpenSessionInput struct {
	CompanyID, ApplicationID uuid.UUID
	Medium                   models.MediumType
	SessionID                uuid.UUID
	ExpiresAt                time.Time
	FlowWorkflowID           string
	Start                    models.WorkflowStart
}

// OpenSession returns the application's INVITED or STARTED session, creating an INVITED one
// (with its interview's start) when there is none; created says which.
func (s *Store) OpenSession(ctx context.Context, in OpenSessionInput) (out *models.InterviewSession, created bool, err error) {
	companyID, applicationID, medium := in.CompanyID, in.ApplicationID, in.Medium
	out = new(models.InterviewSession)
	err = s.transactionRetryingDeadlocks(ctx, func(tx *gorm.DB) error {
		created = false
		var app models.Application
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&app, "company_id = ? AND id = ?", companyID, applicationID).Error; err != nil {
			return notFound(err, "application "+applicationID.String())
		}
		var open []models.InterviewSession
		if err := tx.Where("company_id = ? AND application_id = ? AND status IN ?", companyID, applicationID,
			[]models.SessionStatus{models.SessionStatusInvited, models.SessionStatusStarted}).Limit(1).Find(&open).Error; err != nil {
			return fmt.Errorf("find open session: %w", err)
		}
		if len(open) == 1 {
			*out = open[0]
			return nil
		}
		*out = models.InterviewSession{
			ID: in.SessionID, CompanyID: companyID, ApplicationID: &app.ID, CandidateID: app.CandidateID, JobID: app.JobID,
			Status: models.SessionStatusInvited, MediumType: medium, InvitedAt: time.Now().UTC(), Decision: models.DecisionNone,
			ExpiresAt: &in.ExpiresAt, FlowWorkflowID: &in.FlowWorkflowID,
		}
		if err := tx.Create(out).Error; err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		if err := insertInterviewEvent(tx, companyID, out.ID, models.EventInvited, nil, ""); err != nil {
			return err
		}
		created = true
		return insertStart(tx, &in.Start)
	})
	if err != nil {
		return nil, false, err
	}
	return out, created, nil
}
