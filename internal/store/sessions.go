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

// OpenSession returns the application's INVITED or STARTED session, creating an INVITED one
// when there is none.
func (s *Store) OpenSession(ctx context.Context, companyID, applicationID uuid.UUID, medium models.MediumType) (*models.InterviewSession, error) {
	var out models.InterviewSession
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
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
			out = open[0]
			return nil
		}
		out = models.InterviewSession{
			CompanyID: companyID, ApplicationID: &app.ID, CandidateID: app.CandidateID, JobID: app.JobID,
			Status: models.SessionStatusInvited, MediumType: medium, InvitedAt: time.Now().UTC(), Decision: models.DecisionNone,
		}
		if err := tx.Create(&out).Error; err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelSession cancels a session that is still INVITED: its invitation must not be sent.
func (s *Store) CancelSession(ctx context.Context, companyID, sessionID uuid.UUID) error {
	err := s.db.WithContext(ctx).Model(&models.InterviewSession{}).
		Where("company_id = ? AND id = ? AND status = ?", companyID, sessionID, models.SessionStatusInvited).
		Update("status", models.SessionStatusCancelled).Error
	if err != nil {
		return fmt.Errorf("cancel session %s: %w", sessionID, err)
	}
	return nil
}
