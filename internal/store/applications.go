package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// Application loads a company's application.
func (s *Store) Application(ctx context.Context, companyID, applicationID uuid.UUID) (*models.Application, error) {
	var app models.Application
	if err := s.db.WithContext(ctx).First(&app, "company_id = ? AND id = ?", companyID, applicationID).Error; err != nil {
		return nil, notFound(err, "application "+applicationID.String())
	}
	return &app, nil
}

// CreateApplication finds or creates the company's candidate (as CreateInvitation does) and
// creates the job's application with the external id, or returns the one that exists for
// (source, externalID).
func (s *Store) CreateApplication(ctx context.Context, companyID, jobID uuid.UUID, in CandidateInput, source models.ApplicationSource, externalID string) (*models.Candidate, *models.Application, error) {
	var cand *models.Candidate
	var app *models.Application
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		cand, app, err = createApplication(tx, companyID, jobID, in, source, externalID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return cand, app, nil
}

// createApplication is CreateApplication inside tx.
func createApplication(tx *gorm.DB, companyID, jobID uuid.UUID, in CandidateInput, source models.ApplicationSource, externalID string) (*models.Candidate, *models.Application, error) {
	var cand models.Candidate
	var existing []models.Application
	if err := tx.Where("company_id = ? AND external_id = ? AND source = ?", companyID, externalID, source).Limit(1).Find(&existing).Error; err != nil {
		return nil, nil, fmt.Errorf("find application: %w", err)
	}
	if len(existing) == 1 {
		app := existing[0]
		if err := tx.First(&cand, "company_id = ? AND id = ?", companyID, app.CandidateID).Error; err != nil {
			return nil, nil, notFound(err, "candidate "+app.CandidateID.String())
		}
		return &cand, &app, nil
	}
	c, _, err := findOrCreateCandidate(tx, companyID, in, string(source))
	if err != nil {
		return nil, nil, err
	}
	app := models.Application{CompanyID: companyID, CandidateID: c.ID, JobID: jobID, ExternalID: &externalID, Source: source, Status: "new"}
	if err := tx.Create(&app).Error; err != nil {
		return nil, nil, fmt.Errorf("create application: %w", err)
	}
	return c, &app, nil
}

// SetApplicationStatus sets an application's free-text status.
func (s *Store) SetApplicationStatus(ctx context.Context, companyID, id uuid.UUID, status string) error {
	return s.setStatus(ctx, &models.Application{}, companyID, id, status)
}

func (s *Store) setStatus(ctx context.Context, model any, companyID, id uuid.UUID, status string) error {
	res := s.db.WithContext(ctx).Model(model).Where("company_id = ? AND id = ?", companyID, id).Update("status", status)
	if res.Error != nil {
		return fmt.Errorf("set status: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("set status of %s: %w", id, ErrNotFound)
	}
	return nil
}

// ApplicationRow is an application as an operator lists it: its source and ATS id, its
// candidate and job, its status and its latest interview session (nil when none).
type ApplicationRow struct {
	ID             uuid.UUID
	Source         models.ApplicationSource
	ExternalID     *string
	Status         string
	CandidateName  string
	CandidateEmail *string
	JobExternalID  string
	JobTitle       string
	SessionID      *uuid.UUID
	SessionStatus  *string
	CreatedAt      time.Time
}

// ListApplications returns up to limit of the company's applications, newest first; of one
// source when source is not empty.
func (s *Store) ListApplications(ctx context.Context, companyID uuid.UUID, source models.ApplicationSource, limit int) ([]ApplicationRow, error) {
	var out []ApplicationRow
	err := s.db.WithContext(ctx).Raw(`
SELECT a.id, a.source, a.external_id, a.status, trim(c.first_name || ' ' || c.last_name) AS candidate_name, c.email AS candidate_email,
       j.external_id AS job_external_id, j.title AS job_title, s.id AS session_id, s.status AS session_status, a.created_at
FROM applications a
JOIN candidates c ON c.company_id = a.company_id AND c.id = a.candidate_id
JOIN jobs j ON j.company_id = a.company_id AND j.id = a.job_id
LEFT JOIN LATERAL (
  SELECT id, status FROM interview_sessions
  WHERE company_id = a.company_id AND application_id = a.id
  ORDER BY invited_at DESC LIMIT 1) s ON true
WHERE a.company_id = ? AND (? = '' OR a.source = ?)
ORDER BY a.created_at DESC, a.id
LIMIT ?`, companyID, string(source), string(source), limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list applications: %w", err)
	}
	return out, nil
}

// InvitationReadiness is what an invitation's flow reads before it opens a session: its job's
// readiness and the company's invitation settings.
type InvitationReadiness struct {
	JobReadiness
	CompanySlug            string
	InterviewExpirySeconds int
	InvitationWaitSeconds  int
}

// invitationReadinessRow is InvitationReadiness' one row: the job's columns, its guide's
// question count and the company's settings.
type invitationReadinessRow struct {
	models.Job
	Questions              int
	CompanySlug            string
	InterviewExpirySeconds int
	InvitationWaitSeconds  int
}

// InvitationReadiness loads the company's job (deleted ones too) with its guide's question
// count (JobReadiness) and the company's slug, interview expiry and invitation wait, in one
// statement.
func (s *Store) InvitationReadiness(ctx context.Context, companyID, jobID uuid.UUID) (*InvitationReadiness, error) {
	var rows []invitationReadinessRow
	err := s.db.WithContext(ctx).Raw(`
SELECT j.*,
       (SELECT count(q.id) FROM interview_guides g JOIN interview_questions q ON q.company_id = g.company_id AND q.guide_id = g.id
        WHERE g.company_id = j.company_id AND g.job_id = j.id) AS questions,
       c.slug AS company_slug, c.interview_expiry_seconds, c.invitation_wait_seconds
FROM jobs j JOIN companies c ON c.id = j.company_id
WHERE j.company_id = ? AND j.id = ?`, companyID, jobID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read readiness of job %s: %w", jobID, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("job %s: %w", jobID, ErrNotFound)
	}
	r := rows[0]
	return &InvitationReadiness{JobReadiness: JobReadiness{Job: r.Job, Questions: r.Questions}, CompanySlug: r.CompanySlug,
		InterviewExpirySeconds: r.InterviewExpirySeconds, InvitationWaitSeconds: r.InvitationWaitSeconds}, nil
}
