package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// FlowDefinition loads the version in force of the company's definition for trigger.
func (s *Store) FlowDefinition(ctx context.Context, companyID uuid.UUID, trigger models.FlowTrigger) (*models.FlowDefinition, error) {
	var d models.FlowDefinition
	err := s.db.WithContext(ctx).Where("company_id = ? AND trigger = ?", companyID, trigger).Order("version DESC").First(&d).Error
	if err != nil {
		return nil, notFound(err, "workflow definition "+string(trigger))
	}
	return &d, nil
}

// SaveFlowDefinition stores a validated definition as the next version. Saving the same
// content as the version in force changes nothing and returns that version.
func (s *Store) SaveFlowDefinition(ctx context.Context, companyID uuid.UUID, trigger models.FlowTrigger, def json.RawMessage, enabled bool, hash string) (*models.FlowDefinition, error) {
	for attempt := 0; ; attempt++ {
		cur, err := s.FlowDefinition(ctx, companyID, trigger)
		version := 1
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		case cur.Hash == hash:
			return cur, nil
		default:
			version = cur.Version + 1
		}
		d := &models.FlowDefinition{CompanyID: companyID, Trigger: trigger, Version: version, Enabled: enabled, Definition: def, Hash: hash}
		err = s.db.WithContext(ctx).Create(d).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) && attempt < 3 {
			continue // a concurrent save took this version number
		}
		if err != nil {
			return nil, notFound(err, "save workflow definition "+string(trigger))
		}
		return d, nil
	}
}

// EnabledTrigger reports whether the company has an enabled definition for trigger.
func (s *Store) EnabledTrigger(ctx context.Context, companyID uuid.UUID, trigger models.FlowTrigger) (bool, error) {
	d, err := s.FlowDefinition(ctx, companyID, trigger)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check trigger %s: %w", trigger, err)
	}
	return d.Enabled, nil
}

// FlowSubjects is what a flow's conditions read about its run's company, job, candidate and
// application (flow facts), read in one statement. The job, candidate and application are nil
// when not asked for.
type FlowSubjects struct {
	CompanySlug, CompanyName string
	Job                      *models.Job
	Candidate                *models.Candidate
	Application              *models.Application
}

// flowSubjectsRow is FlowSubjects' one row: what is not asked for, or not found, is NULL.
type flowSubjectsRow struct {
	Slug, Name                                         string
	JobID                                              *uuid.UUID
	JobExternalID, InterviewerID, Title, JobStatus     *string
	IsOpen, IsDeleted                                  *bool
	CandidateID                                        *uuid.UUID
	FirstName, LastName, CandidateStatus, Email, Phone *string
	ApplicationID                                      *uuid.UUID
	Source, ApplicationStatus                          *string
}

// FlowSubjects reads the company and those of the job, candidate and application that are not
// uuid.Nil, in one statement; ErrNotFound names the first one asked for that the company does
// not have.
func (s *Store) FlowSubjects(ctx context.Context, companyID, jobID, candidateID, applicationID uuid.UUID) (*FlowSubjects, error) {
	var rows []flowSubjectsRow
	err := s.db.WithContext(ctx).Raw(`
SELECT c.slug, c.name,
       j.id AS job_id, j.external_id AS job_external_id, j.interviewer_id, j.title, j.status AS job_status, j.is_open, j.is_deleted,
       ca.id AS candidate_id, ca.first_name, ca.last_name, ca.status AS candidate_status, ca.email, ca.phone,
       a.id AS application_id, a.source, a.status AS application_status
FROM companies c
LEFT JOIN jobs j ON j.company_id = c.id AND j.id = ?
LEFT JOIN candidates ca ON ca.company_id = c.id AND ca.id = ?
LEFT JOIN applications a ON a.company_id = c.id AND a.id = ?
WHERE c.id = ?`, jobID, candidateID, applicationID, companyID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read flow subjects: %w", err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("company %s: %w", companyID, ErrNotFound)
	}
	r := rows[0]
	out := &FlowSubjects{CompanySlug: r.Slug, CompanyName: r.Name}
	if jobID != uuid.Nil {
		if r.JobID == nil {
			return nil, fmt.Errorf("job %s: %w", jobID, ErrNotFound)
		}
		out.Job = &models.Job{ID: *r.JobID, CompanyID: companyID, ExternalID: orZero(r.JobExternalID), InterviewerID: orZero(r.InterviewerID),
			Title: orZero(r.Title), Status: models.JobStatus(orZero(r.JobStatus)), IsOpen: orZero(r.IsOpen), IsDeleted: orZero(r.IsDeleted)}
	}
	if candidateID != uuid.Nil {
		if r.CandidateID == nil {
			return nil, fmt.Errorf("candidate %s: %w", candidateID, ErrNotFound)
		}
		out.Candidate = &models.Candidate{ID: *r.CandidateID, CompanyID: companyID, FirstName: orZero(r.FirstName), LastName: orZero(r.LastName),
			Status: orZero(r.CandidateStatus), Email: r.Email, Phone: r.Phone}
	}
	if applicationID != uuid.Nil {
		if r.ApplicationID == nil {
			return nil, fmt.Errorf("application %s: %w", applicationID, ErrNotFound)
		}
		out.Application = &models.Application{ID: *r.ApplicationID, CompanyID: companyID, Source: models.ApplicationSource(orZero(r.Source)), Status: orZero(r.ApplicationStatus)}
	}
	return out, nil
}

// orZero is *p, or the zero value for nil.
func orZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
