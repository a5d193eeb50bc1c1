package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// CandidateInput identifies a candidate by contact; Email and Phone (E.164) may each be empty.
type CandidateInput struct {
	FirstName, LastName string
	Email, Phone        string
	ExternalID          string
}

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

// fillContact adds a contact the stored candidate lacks; it never overwrites one.
func fillContact(tx *gorm.DB, c *models.Candidate, email, phone string) error {
	updates := map[string]any{}
	if c.Email == nil && email != "" {
		c.Email = &email
		updates["email"] = email
	}
	if c.Phone == nil && phone != "" {
		c.Phone = &phone
		updates["phone"] = phone
	}
	if len(updates) == 0 {
		return nil
	}
	if err := tx.Model(c).Where("company_id = ?", c.CompanyID).Updates(updates).Error; err != nil {
		return fmt.Errorf("update candidate contact: %w", err)
	}
	return nil
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

// Session loads a company's interview session.
func (s *Store) Session(ctx context.Context, companyID, sessionID uuid.UUID) (*models.InterviewSession, error) {
	var sess models.InterviewSession
	if err := s.db.WithContext(ctx).First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "session "+sessionID.String())
	}
	return &sess, nil
}

// Candidate loads a company's candidate.
func (s *Store) Candidate(ctx context.Context, companyID, candidateID uuid.UUID) (*models.Candidate, error) {
	var c models.Candidate
	if err := s.db.WithContext(ctx).First(&c, "company_id = ? AND id = ?", companyID, candidateID).Error; err != nil {
		return nil, notFound(err, "candidate "+candidateID.String())
	}
	return &c, nil
}

// CreateMessage records a message of a candidate's conversation.
func (s *Store) CreateMessage(ctx context.Context, m *models.Message) error {
	if err := s.db.WithContext(ctx).Create(m).Error; err != nil {
		return fmt.Errorf("create message: %w", err)
	}
	return nil
}

// MessageBySendKey finds the company's message sent by the activity with this send key
// (models.Message.SendKey); ErrNotFound when there is none.
func (s *Store) MessageBySendKey(ctx context.Context, companyID uuid.UUID, key string) (*models.Message, error) {
	var m models.Message
	if err := s.db.WithContext(ctx).First(&m, "company_id = ? AND send_key = ?", companyID, key).Error; err != nil {
		return nil, notFound(err, "message by send key")
	}
	return &m, nil
}

// RequeueMessage makes an earlier attempt's message (queued or failed) the current attempt's:
// queued again, with the text and address of this attempt.
func (s *Store) RequeueMessage(ctx context.Context, m *models.Message) error {
	err := s.db.WithContext(ctx).Model(&models.Message{}).Where("company_id = ? AND id = ?", m.CompanyID, m.ID).Updates(map[string]any{
		"status": models.MessageStatusQueued, "channel": m.Channel, "to_address": m.ToAddress, "subject": m.Subject, "body": m.Body, "error": nil,
	}).Error
	if err != nil {
		return fmt.Errorf("requeue message %s: %w", m.ID, err)
	}
	return nil
}

// MessageResult is the outcome of one delivery attempt.
type MessageResult struct {
	Status            models.MessageStatus
	Provider          string
	ProviderMessageID string
	Error             string
}

// FinishMessage records a delivery attempt's outcome on its message.
func (s *Store) FinishMessage(ctx context.Context, companyID, messageID uuid.UUID, r MessageResult) error {
	upd := map[string]any{"status": r.Status, "provider": nullable(r.Provider), "provider_message_id": nullable(r.ProviderMessageID), "error": nullable(r.Error)}
	if r.Status == models.MessageStatusSent {
		upd["sent_at"] = time.Now().UTC()
	}
	if err := s.db.WithContext(ctx).Model(&models.Message{}).Where("company_id = ? AND id = ?", companyID, messageID).Updates(upd).Error; err != nil {
		return fmt.Errorf("finish message %s: %w", messageID, err)
	}
	return nil
}

// Conversation returns a candidate's messages, oldest first.
func (s *Store) Conversation(ctx context.Context, companyID, candidateID uuid.UUID) ([]models.Message, error) {
	var ms []models.Message
	if err := s.db.WithContext(ctx).Where("company_id = ? AND candidate_id = ?", companyID, candidateID).Order("created_at, id").Find(&ms).Error; err != nil {
		return nil, fmt.Errorf("load conversation: %w", err)
	}
	return ms, nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Application loads a company's application.
func (s *Store) Application(ctx context.Context, companyID, applicationID uuid.UUID) (*models.Application, error) {
	var app models.Application
	if err := s.db.WithContext(ctx).First(&app, "company_id = ? AND id = ?", companyID, applicationID).Error; err != nil {
		return nil, notFound(err, "application "+applicationID.String())
	}
	return &app, nil
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

// SetApplicationStatus sets an application's free-text status.
func (s *Store) SetApplicationStatus(ctx context.Context, companyID, id uuid.UUID, status string) error {
	return s.setStatus(ctx, &models.Application{}, companyID, id, status)
}

// SetCandidateStatus sets a candidate's free-text status.
func (s *Store) SetCandidateStatus(ctx context.Context, companyID, id uuid.UUID, status string) error {
	return s.setStatus(ctx, &models.Candidate{}, companyID, id, status)
}

// SetJobStatus moves a generated job between ACTIVE and PAUSED.
func (s *Store) SetJobStatus(ctx context.Context, companyID, id uuid.UUID, status models.JobStatus) error {
	if status != models.JobStatusActive && status != models.JobStatusPaused {
		return fmt.Errorf("job status %q: want ACTIVE or PAUSED", status)
	}
	res := s.db.WithContext(ctx).Model(&models.Job{}).
		Where("company_id = ? AND id = ? AND status IN ?", companyID, id, []models.JobStatus{models.JobStatusActive, models.JobStatusPaused}).
		Update("status", status)
	if res.Error != nil {
		return fmt.Errorf("set job status: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("generated job %s: %w", id, ErrNotFound)
	}
	return nil
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
	c, _, err := findOrCreateCandidate(tx, companyID, in)
	if err != nil {
		return nil, nil, err
	}
	app := models.Application{CompanyID: companyID, CandidateID: c.ID, JobID: jobID, ExternalID: &externalID, Source: source, Status: "new"}
	if err := tx.Create(&app).Error; err != nil {
		return nil, nil, fmt.Errorf("create application: %w", err)
	}
	return c, &app, nil
}

// findOrCreateCandidate finds the company's candidate by e-mail (case-insensitive) or phone and
// fills in a contact it lacks, or creates one. Concurrent calls for the same contact are
// serialised by an advisory lock held until the transaction ends, so they share one candidate.
func findOrCreateCandidate(tx *gorm.DB, companyID uuid.UUID, in CandidateInput) (*models.Candidate, bool, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	lockKey := companyID.String() + "|" + email + "|" + in.Phone
	if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", lockKey).Error; err != nil {
		return nil, false, fmt.Errorf("lock candidate: %w", err)
	}
	q := tx.Where("company_id = ?", companyID)
	switch {
	case email != "" && in.Phone != "":
		q = q.Where("(lower(email) = ? OR phone = ?)", email, in.Phone)
	case email != "":
		q = q.Where("lower(email) = ?", email)
	case in.Phone != "":
		q = q.Where("phone = ?", in.Phone)
	default:
		q = nil
	}
	if q != nil {
		var found []models.Candidate
		if err := q.Order("created_at").Limit(1).Find(&found).Error; err != nil {
			return nil, false, fmt.Errorf("find candidate: %w", err)
		}
		if len(found) == 1 {
			c := found[0]
			return &c, false, fillContact(tx, &c, email, in.Phone)
		}
	}
	c := models.Candidate{CompanyID: companyID, FirstName: in.FirstName, LastName: in.LastName, Status: "interviewing"}
	if email != "" {
		c.Email = &email
	}
	if in.Phone != "" {
		c.Phone = &in.Phone
	}
	if in.ExternalID != "" {
		c.ExternalID = &in.ExternalID
	}
	if err := tx.Create(&c).Error; err != nil {
		return nil, false, fmt.Errorf("create candidate: %w", err)
	}
	return &c, true, nil
}
