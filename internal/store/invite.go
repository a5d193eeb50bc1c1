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

// InvitationSubjects is what an invitation's delivery reads: its session, the session's
// candidate and job, and the company, in one statement. Each holds the columns an invitation
// uses (names, contacts, titles, the session's status, medium and link token).
type InvitationSubjects struct {
	Session   models.InterviewSession
	Candidate models.Candidate
	Job       models.Job
	Company   models.Company
}

// invitationSubjectsRow is InvitationSubjects' one row.
type invitationSubjectsRow struct {
	SessionID, CandidateID, JobID uuid.UUID
	ApplicationID                 *uuid.UUID
	SessionStatus                 models.SessionStatus
	MediumType                    models.MediumType
	LinkToken                     string
	FirstName, LastName           string
	Email, Phone                  *string
	Title, ExternalTitle          string
	Slug, Name                    string
}

// InvitationSubjects reads the session, its candidate and job and the company in one statement;
// ErrNotFound when the company has no such session.
func (s *Store) InvitationSubjects(ctx context.Context, companyID, sessionID uuid.UUID) (*InvitationSubjects, error) {
	var rows []invitationSubjectsRow
	err := s.db.WithContext(ctx).Raw(`
SELECT s.id AS session_id, s.candidate_id, s.job_id, s.application_id, s.status AS session_status, s.medium_type, s.link_token,
       ca.first_name, ca.last_name, ca.email, ca.phone, j.title, j.external_title, c.slug, c.name
FROM interview_sessions s
JOIN candidates ca ON ca.company_id = s.company_id AND ca.id = s.candidate_id
JOIN jobs j ON j.company_id = s.company_id AND j.id = s.job_id
JOIN companies c ON c.id = s.company_id
WHERE s.company_id = ? AND s.id = ?`, companyID, sessionID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read invitation of session %s: %w", sessionID, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	r := rows[0]
	return &InvitationSubjects{
		Session: models.InterviewSession{ID: r.SessionID, CompanyID: companyID, ApplicationID: r.ApplicationID, CandidateID: r.CandidateID,
			JobID: r.JobID, Status: r.SessionStatus, MediumType: r.MediumType, LinkToken: r.LinkToken},
		Candidate: models.Candidate{ID: r.CandidateID, CompanyID: companyID, FirstName: r.FirstName, LastName: r.LastName, Email: r.Email, Phone: r.Phone},
		Job:       models.Job{ID: r.JobID, CompanyID: companyID, Title: r.Title, ExternalTitle: r.ExternalTitle},
		Company:   models.Company{ID: companyID, Slug: r.Slug, Name: r.Name},
	}, nil
}
