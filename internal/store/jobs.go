package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// CreateJob inserts j and the start of its generation workflow in one transaction.
// ErrConflict when the company already has j.ExternalID: the unique index decides, so
// concurrent duplicates cannot both succeed.
func (s *Store) CreateJob(ctx context.Context, j *models.Job, start *models.WorkflowStart) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(j).Error; err != nil {
			return notFound(err, "create job "+j.InterviewerID)
		}
		return insertStart(tx, start)
	})
}

// Job loads a company's job by id, deleted ones included.
func (s *Store) Job(ctx context.Context, companyID, jobID uuid.UUID) (*models.Job, error) {
	var j models.Job
	if err := s.db.WithContext(ctx).First(&j, "company_id = ? AND id = ?", companyID, jobID).Error; err != nil {
		return nil, notFound(err, "job "+jobID.String())
	}
	return &j, nil
}

// JobByInterviewerID loads a company's job that is not deleted.
func (s *Store) JobByInterviewerID(ctx context.Context, companyID uuid.UUID, interviewerID string) (*models.Job, error) {
	var j models.Job
	err := s.db.WithContext(ctx).First(&j, "company_id = ? AND interviewer_id = ? AND NOT is_deleted", companyID, interviewerID).Error
	if err != nil {
		return nil, notFound(err, "interviewer "+interviewerID)
	}
	return &j, nil
}

// JobFilter narrows ListJobs.
type JobFilter struct {
	Status *models.JobStatus // nil: jobs whose generation completed (ACTIVE and PAUSED)
	Cursor string            // from the previous page's next cursor
	Limit  int
}

// ErrBadCursor means a pagination cursor was not made by ListJobs.
var ErrBadCursor = errors.New("invalid cursor")

// ListJobs returns a page of the company's jobs, newest first, and the cursor of the next page
// ("" on the last page). Keyset pagination on (created_at, id): pages stay stable while jobs are
// added. Without a status filter only generated jobs are listed (spec: a job "appears in the
// interviewer listing when done"); GENERATING and FAILED jobs need their status named.
func (s *Store) ListJobs(ctx context.Context, companyID uuid.UUID, f JobFilter) ([]models.Job, string, error) {
	q := s.db.WithContext(ctx).Where("company_id = ? AND NOT is_deleted", companyID)
	if f.Status != nil {
		q = q.Where("status = ?", *f.Status)
	} else {
		q = q.Where("status IN ?", []models.JobStatus{models.JobStatusActive, models.JobStatusPaused})
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q = q.Where("(created_at, id) < (?, ?)", at, id)
	}
	var jobs []models.Job
	if err := q.Order("created_at DESC, id DESC").Limit(f.Limit + 1).Find(&jobs).Error; err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	next := ""
	if len(jobs) > f.Limit {
		jobs = jobs[:f.Limit]
		last := jobs[len(jobs)-1]
		next = encodeCursor(last.CreatedAt, last.ID)
	}
	return jobs, next, nil
}

func encodeCursor(at time.Time, id uuid.UUID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.UTC().Format(time.RFC3339Nano) + "|" + id.String()))
}

func decodeCursor(c string) (time.Time, uuid.UUID, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, uuid.Nil, ErrBadCursor
	}
	ts, idStr, ok := strings.Cut(string(b), "|")
	at, err1 := time.Parse(time.RFC3339Nano, ts)
	id, err2 := uuid.Parse(idStr)
	if !ok || err1 != nil || err2 != nil {
		return time.Time{}, uuid.Nil, ErrBadCursor
	}
	return at, id, nil
}

// GuideContent is a generated interview guide ready to store.
type GuideContent struct {
	Title, ExternalTitle string
	Guide                models.InterviewGuide
	Questions            []models.InterviewQuestion
	Criteria             []models.GradingCriterion
}

// ErrGuideCurrent means SaveGuide found a guide of the same or a newer version than the one it
// was given: nothing was saved.
var ErrGuideCurrent = errors.New("the job's guide is as new as this one")

// SaveGuide stores g as the job's interview guide for description version, replacing the one it
// has. A GENERATING job moves to its wanted status (GenerationOptions.Active, set by createJob's
// `active` or by a flow's set_status while it was generating) or else to defaultStatus; an
// ACTIVE or PAUSED job (a new version of an imported job's description) keeps its status, and a
// guide as new as version is kept (ErrGuideCurrent). A FAILED or missing job is ErrNotFound. It
// returns the job's status.
func (s *Store) SaveGuide(ctx context.Context, companyID, jobID uuid.UUID, g GuideContent, version int, defaultStatus models.JobStatus) (models.JobStatus, error) {
	var status models.JobStatus
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var j models.Job
		err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&j, "company_id = ? AND id = ? AND status IN ?", companyID, jobID,
			[]models.JobStatus{models.JobStatusGenerating, models.JobStatusActive, models.JobStatusPaused}).Error
		if err != nil {
			return notFound(err, "job to generate "+jobID.String())
		}
		status = j.Status
		switch {
		case j.Status != models.JobStatusGenerating:
			var current int
			if err := tx.Raw(`SELECT coalesce(max(version), 0) FROM interview_guides WHERE company_id = ? AND job_id = ?`, companyID, jobID).
				Row().Scan(&current); err != nil {
				return fmt.Errorf("read guide version: %w", err)
			}
			if current >= version {
				return ErrGuideCurrent
			}
		case j.GenerationOptions.V.Active != nil && *j.GenerationOptions.V.Active:
			status = models.JobStatusActive
		case j.GenerationOptions.V.Active != nil:
			status = models.JobStatusPaused
		default:
			status = defaultStatus
		}
		if err := tx.Where("company_id = ? AND job_id = ?", companyID, jobID).Delete(&models.InterviewGuide{}).Error; err != nil {
			return fmt.Errorf("replace guide: %w", err)
		}
		g.Guide.CompanyID, g.Guide.JobID, g.Guide.Version = companyID, jobID, version
		if err := tx.Create(&g.Guide).Error; err != nil {
			return fmt.Errorf("create guide: %w", err)
		}
		for i := range g.Questions {
			g.Questions[i].CompanyID, g.Questions[i].GuideID, g.Questions[i].Position = companyID, g.Guide.ID, i+1
		}
		for i := range g.Criteria {
			g.Criteria[i].CompanyID, g.Criteria[i].GuideID, g.Criteria[i].Position = companyID, g.Guide.ID, i+1
		}
		if len(g.Questions) > 0 {
			if err := tx.Create(&g.Questions).Error; err != nil {
				return fmt.Errorf("create questions: %w", err)
			}
		}
		if len(g.Criteria) > 0 {
			if err := tx.Create(&g.Criteria).Error; err != nil {
				return fmt.Errorf("create criteria: %w", err)
			}
		}
		return tx.Model(&j).Where("company_id = ?", companyID).Updates(map[string]any{
			"title": g.Title, "external_title": g.ExternalTitle, "status": status,
			"generated_at": time.Now().UTC(), "failure_reason": nil,
		}).Error
	})
	return status, err
}

// FailJob records that the job's generation failed for good: a GENERATING job becomes FAILED
// with reason; an ACTIVE or PAUSED one (a new version of its description) keeps its status and
// the guide it has, and its failure reason says so.
func (s *Store) FailJob(ctx context.Context, companyID, jobID uuid.UUID, reason string) error {
	err := s.db.WithContext(ctx).Exec(`UPDATE jobs SET
		status = CASE WHEN status = 'GENERATING' THEN 'FAILED' ELSE status END,
		failure_reason = CASE WHEN status = 'GENERATING' THEN ?
			ELSE left('the interview for the changed description could not be generated (the previous one stays in use): ' || ?, 1000) END
		WHERE company_id = ? AND id = ? AND status IN ('GENERATING', 'ACTIVE', 'PAUSED')`, reason, reason, companyID, jobID).Error
	if err != nil {
		return fmt.Errorf("fail job %s: %w", jobID, err)
	}
	return nil
}

// GuideView is a job's stored interview guide.
type GuideView struct {
	Guide     models.InterviewGuide
	Questions []models.InterviewQuestion
	Criteria  []models.GradingCriterion
}

// Guide loads the job's guide; ErrNotFound while none is generated.
func (s *Store) Guide(ctx context.Context, companyID, jobID uuid.UUID) (*GuideView, error) {
	var v GuideView
	db := s.db.WithContext(ctx)
	if err := db.First(&v.Guide, "company_id = ? AND job_id = ?", companyID, jobID).Error; err != nil {
		return nil, notFound(err, "guide of job "+jobID.String())
	}
	if err := db.Where("company_id = ? AND guide_id = ?", companyID, v.Guide.ID).Order("position").Find(&v.Questions).Error; err != nil {
		return nil, fmt.Errorf("load questions: %w", err)
	}
	if err := db.Where("company_id = ? AND guide_id = ?", companyID, v.Guide.ID).Order("position").Find(&v.Criteria).Error; err != nil {
		return nil, fmt.Errorf("load criteria: %w", err)
	}
	return &v, nil
}

// JobByExternalID loads the company's job with the ATS job id, not deleted.
func (s *Store) JobByExternalID(ctx context.Context, companyID uuid.UUID, externalID string) (*models.Job, error) {
	var j models.Job
	err := s.db.WithContext(ctx).First(&j, "company_id = ? AND external_id = ? AND NOT is_deleted", companyID, externalID).Error
	if err != nil {
		return nil, notFound(err, "job "+externalID)
	}
	return &j, nil
}

// SetJobStatus moves a generated job between ACTIVE and PAUSED. A job whose interview is being
// generated keeps GENERATING and gets status when its guide is stored (GenerationOptions.Active).
func (s *Store) SetJobStatus(ctx context.Context, companyID, id uuid.UUID, status models.JobStatus) error {
	if status != models.JobStatusActive && status != models.JobStatusPaused {
		return fmt.Errorf("job status %q: want ACTIVE or PAUSED", status)
	}
	res := s.db.WithContext(ctx).Exec(`UPDATE jobs SET
		status = CASE WHEN status = 'GENERATING' THEN status ELSE ? END,
		generation_options = CASE WHEN status = 'GENERATING' THEN jsonb_set(generation_options, '{active}', to_jsonb(?::boolean)) ELSE generation_options END,
		updated_at = now()
		WHERE company_id = ? AND id = ? AND status IN ('ACTIVE', 'PAUSED', 'GENERATING')`,
		status, status == models.JobStatusActive, companyID, id)
	if res.Error != nil {
		return fmt.Errorf("set job status: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("generated job %s: %w", id, ErrNotFound)
	}
	return nil
}
