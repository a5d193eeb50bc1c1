package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// JobReadiness is what an invitation needs to know of its job: the job, and how many questions
// its interview guide has (0 while none is generated).
type JobReadiness struct {
	Job       models.Job
	Questions int
}

// JobReadiness loads the company's job (deleted ones too) with its guide's question count.
func (s *Store) JobReadiness(ctx context.Context, companyID, jobID uuid.UUID) (*JobReadiness, error) {
	var r JobReadiness
	db := s.db.WithContext(ctx)
	if err := db.First(&r.Job, "company_id = ? AND id = ?", companyID, jobID).Error; err != nil {
		return nil, notFound(err, "job "+jobID.String())
	}
	err := db.Raw(`SELECT count(q.id) FROM interview_guides g JOIN interview_questions q ON q.company_id = g.company_id AND q.guide_id = g.id
		WHERE g.company_id = ? AND g.job_id = ?`, companyID, jobID).Row().Scan(&r.Questions)
	if err != nil {
		return nil, fmt.Errorf("count questions of job %s: %w", jobID, err)
	}
	return &r, nil
}

// WaitForJob records that the run workflowID waits for the job's interview (idempotent).
func (s *Store) WaitForJob(ctx context.Context, companyID, jobID uuid.UUID, workflowID string) error {
	err := s.db.WithContext(ctx).Exec(`INSERT INTO job_ready_waits (company_id, workflow_id, job_id) VALUES (?, ?, ?)
		ON CONFLICT (company_id, workflow_id) DO UPDATE SET job_id = EXCLUDED.job_id`, companyID, workflowID, jobID).Error
	if err != nil {
		return fmt.Errorf("record wait of %s for job %s: %w", workflowID, jobID, err)
	}
	return nil
}

// StopWaitingForJob forgets the run's wait.
func (s *Store) StopWaitingForJob(ctx context.Context, companyID uuid.UUID, workflowID string) error {
	if err := s.db.WithContext(ctx).Exec(`DELETE FROM job_ready_waits WHERE company_id = ? AND workflow_id = ?`, companyID, workflowID).Error; err != nil {
		return fmt.Errorf("forget wait of %s: %w", workflowID, err)
	}
	return nil
}
