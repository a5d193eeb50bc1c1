package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// SessionReport is the stored report of one interview session (table interview_reports), built
// and read by internal/report, which owns the meaning of its fields: Criteria and Tags are the
// JSON arrays it encodes. Rating is nil unless Status is ready; Reason is set when it is
// insufficient_data; Model names the model when Engine is openai.
type SessionReport struct {
	SessionID     uuid.UUID                    `gorm:"column:session_id;type:uuid;primaryKey"`
	CompanyID     uuid.UUID                    `gorm:"column:company_id;type:uuid"`
	Status        string                       `gorm:"column:status"`
	Rating        *float64                     `gorm:"column:rating;type:numeric(4,2)"`
	Summary       string                       `gorm:"column:summary"`
	Reason        *string                      `gorm:"column:reason"`
	RubricVersion string                       `gorm:"column:rubric_version"`
	Engine        string                       `gorm:"column:engine"`
	Model         *string                      `gorm:"column:model"`
	Criteria      models.JSON[json.RawMessage] `gorm:"column:criteria;type:jsonb"`
	Tags          models.JSON[json.RawMessage] `gorm:"column:tags;type:jsonb"`
	CreatedAt     time.Time                    `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (SessionReport) TableName() string { return "interview_reports" }

// SaveReport stores r, the report of session r.SessionID of company r.CompanyID, and in the same
// transaction sets the session's service_rating to r.Rating (NULL when nil) and its
// service_review to r.Summary, the fields the tools read. It happens once per session: when the
// session already has a report, SaveReport changes nothing and returns the stored one with
// created false, so a retried evaluation never rewrites a report. A session of another company
// is ErrNotFound.
func (s *Store) SaveReport(ctx context.Context, r SessionReport) (saved *SessionReport, created bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "session_id"}}, DoNothing: true}).
			Omit("created_at").Create(&r)
		if res.Error != nil {
			return fmt.Errorf("insert report of session %s: %w", r.SessionID, res.Error)
		}
		if res.RowsAffected == 1 {
			created = true
			upd := tx.Exec(`UPDATE interview_sessions SET service_rating = ?, service_review = ? WHERE company_id = ? AND id = ?`,
				r.Rating, r.Summary, r.CompanyID, r.SessionID)
			if upd.Error != nil {
				return fmt.Errorf("set rating of session %s: %w", r.SessionID, upd.Error)
			}
		}
		var out SessionReport
		if err := tx.First(&out, "company_id = ? AND session_id = ?", r.CompanyID, r.SessionID).Error; err != nil {
			return notFound(err, "report of session "+r.SessionID.String())
		}
		saved = &out
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return saved, created, nil
}

// Report loads the session's report; ErrNotFound while it has none.
func (s *Store) Report(ctx context.Context, companyID, sessionID uuid.UUID) (*SessionReport, error) {
	var r SessionReport
	if err := s.db.WithContext(ctx).First(&r, "company_id = ? AND session_id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "report of session "+sessionID.String())
	}
	return &r, nil
}

// ReportSources is what a session's report is made from: the session, its transcript (every
// turn, in seq order) and its job's current guide, whose grading criteria are the rubric and
// whose structured questions carry the tags; Guide is nil when the job has none.
type ReportSources struct {
	Session models.InterviewSession
	Turns   []models.InterviewTurn
	Guide   *GuideView
}

// ReportSources loads what the report of the session is made from; ErrNotFound for a session
// the company does not have.
func (s *Store) ReportSources(ctx context.Context, companyID, sessionID uuid.UUID) (*ReportSources, error) {
	var src ReportSources
	db := s.db.WithContext(ctx)
	if err := db.First(&src.Session, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "session "+sessionID.String())
	}
	if err := db.Where("company_id = ? AND session_id = ?", companyID, sessionID).Order("seq").Find(&src.Turns).Error; err != nil {
		return nil, fmt.Errorf("load transcript of session %s: %w", sessionID, err)
	}
	g, err := s.Guide(ctx, companyID, src.Session.JobID)
	switch {
	case err == nil:
		src.Guide = g
	case !errors.Is(err, ErrNotFound):
		return nil, err
	}
	return &src, nil
}
