package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/models"
)

// PartnerSecrets are a partner's secrets in clear.
type PartnerSecrets struct {
	CallbackSecret string
	SigningSecret  string
}

// CreatePartner stores a partner with its secrets sealed under the company.
func (s *Store) CreatePartner(ctx context.Context, box *secretbox.Box, p *models.Partner, sec PartnerSecrets) error {
	var err error
	if p.ID == uuid.Nil {
		p.ID = uuid.New()
	}
	if p.CallbackSecret, err = box.Seal([]byte(sec.CallbackSecret), partnerSecretAD(p, "callback_secret")); err != nil {
		return err
	}
	if p.SigningSecret, err = box.Seal([]byte(sec.SigningSecret), partnerSecretAD(p, "signing_secret")); err != nil {
		return err
	}
	if err := s.db.WithContext(ctx).Create(p).Error; err != nil {
		return notFound(err, "create partner "+p.Name)
	}
	return nil
}

// Partner loads a company's partner.
func (s *Store) Partner(ctx context.Context, companyID, partnerID uuid.UUID) (*models.Partner, error) {
	var p models.Partner
	if err := s.db.WithContext(ctx).First(&p, "company_id = ? AND id = ?", companyID, partnerID).Error; err != nil {
		return nil, notFound(err, "partner "+partnerID.String())
	}
	return &p, nil
}

// PartnerByName loads a company's partner by name.
func (s *Store) PartnerByName(ctx context.Context, companyID uuid.UUID, name string) (*models.Partner, error) {
	var p models.Partner
	if err := s.db.WithContext(ctx).First(&p, "company_id = ? AND name = ?", companyID, name).Error; err != nil {
		return nil, notFound(err, "partner "+name)
	}
	return &p, nil
}

// ListPartners returns the company's partners by name.
func (s *Store) ListPartners(ctx context.Context, companyID uuid.UUID) ([]models.Partner, error) {
	var ps []models.Partner
	if err := s.db.WithContext(ctx).Where("company_id = ?", companyID).Order("name").Find(&ps).Error; err != nil {
		return nil, fmt.Errorf("list partners: %w", err)
	}
	return ps, nil
}

// partnerSecretAD binds a sealed partner secret to its company, its row and its column, so a
// sealed value copied to another row or column does not open.
func partnerSecretAD(p *models.Partner, column string) []byte {
	return []byte("partners/" + p.CompanyID.String() + "/" + p.ID.String() + "/" + column)
}

// OpenPartnerSecrets decrypts a partner's secrets.
func OpenPartnerSecrets(box *secretbox.Box, p *models.Partner) (PartnerSecrets, error) {
	cb, err := box.Open(p.CallbackSecret, partnerSecretAD(p, "callback_secret"))
	if err != nil {
		return PartnerSecrets{}, fmt.Errorf("callback secret of partner %s: %w", p.Name, err)
	}
	sg, err := box.Open(p.SigningSecret, partnerSecretAD(p, "signing_secret"))
	if err != nil {
		return PartnerSecrets{}, fmt.Errorf("signing secret of partner %s: %w", p.Name, err)
	}
	return PartnerSecrets{CallbackSecret: string(cb), SigningSecret: string(sg)}, nil
}

// BindAPIKey binds the company's key (id or prefix) to a partner.
func (s *Store) BindAPIKey(ctx context.Context, companyID, keyID, partnerID uuid.UUID) error {
	res := s.db.WithContext(ctx).Model(&models.APIKey{}).Where("company_id = ? AND id = ?", companyID, keyID).Update("partner_id", partnerID)
	if res.Error != nil {
		return fmt.Errorf("bind api key: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("api key %s: %w", keyID, ErrNotFound)
	}
	return nil
}

// PartnerApplicationByApplicant loads the company's application for an ATS applicant.
func (s *Store) PartnerApplicationByApplicant(ctx context.Context, companyID uuid.UUID, atsApplicantID string) (*models.PartnerApplication, error) {
	var pa models.PartnerApplication
	if err := s.db.WithContext(ctx).First(&pa, "company_id = ? AND ats_applicant_id = ?", companyID, atsApplicantID).Error; err != nil {
		return nil, notFound(err, "partner application "+atsApplicantID)
	}
	return &pa, nil
}

// PartnerApplication loads a company's partner application.
func (s *Store) PartnerApplication(ctx context.Context, companyID, id uuid.UUID) (*models.PartnerApplication, error) {
	var pa models.PartnerApplication
	if err := s.db.WithContext(ctx).First(&pa, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
		return nil, notFound(err, "partner application "+id.String())
	}
	return &pa, nil
}

// PartnerSubmission is a partner application to record (a first submission's with its
// Applicant from the ATS record), the start of its run, and the start of a replay's delivery
// (its callback's id chosen by the caller), which is used only when the applicant's earlier
// application is settled.
type PartnerSubmission struct {
	Application *models.PartnerApplication
	Start       models.WorkflowStart
	Replay      models.WorkflowStart
	ReplayID    uuid.UUID
}

// SubmitResult says what SubmitPartnerApplication did.
type SubmitResult struct {
	Application *models.PartnerApplication
	Created     bool
	// Replay is the callback created for a repeat of a settled application.
	Replay *models.Callback
	// Start is the workflow start the submission needs taken: the run's (new, or an earlier one
	// not started yet), or the replay's. nil when the run was started before.
	Start *models.WorkflowStart
}

// ErrOtherPartner means an applicant was submitted by another partner of the company, which
// alone receives its status and callbacks.
var ErrOtherPartner = errors.New("applicant submitted by another partner")

// SubmitPartnerApplication records a submission exactly once per (company, ATS applicant). A
// repeat by another partner than the first submitter's is ErrOtherPartner and changes nothing.
//
// A first submission inserts the application, with its applicant, and the start of its run in
// one statement (insertFirstSubmission), which the partner's 202 waits for. The run stores the
// applicant as a candidate and application (AttachPartnerApplicant), so the statement touches
// none of the rows the statistics rollups keep per company and day, which every submission of
// the company would wait for. A repeat takes a transaction that locks the application: while
// in flight it changes nothing (its run's callback answers it) and returns the run's start when
// it was not taken yet; after settlement it creates a replay callback of the settled status and
// the start of its delivery. Concurrent submissions are serialised on the unique (company,
// applicant) key.
func (s *Store) SubmitPartnerApplication(ctx context.Context, sub PartnerSubmission) (*SubmitResult, error) {
	pa := sub.Application
	created, err := s.insertFirstSubmission(ctx, pa, &sub.Start)
	if err != nil {
		return nil, err
	}
	if created {
		return &SubmitResult{Application: pa, Created: true, Start: &sub.Start}, nil
	}
	// A repeat: the application is there and committed (insertFirstSubmission's unique index
	// waited for a concurrent first insert).
	res := &SubmitResult{}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur models.PartnerApplication
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
			First(&cur, "company_id = ? AND ats_applicant_id = ?", pa.CompanyID, pa.ATSApplicantID).Error; err != nil {
			return notFound(err, "partner application "+pa.ATSApplicantID)
		}
		if cur.PartnerID != pa.PartnerID {
			return ErrOtherPartner
		}
		res.Application = &cur
		if !cur.Status.Settled() {
			var ws []models.WorkflowStart
			if err := tx.Where("company_id = ? AND workflow_id = ? AND started_at IS NULL", cur.CompanyID, sub.Start.WorkflowID).
				Limit(1).Find(&ws).Error; err != nil {
				return fmt.Errorf("find start of %s: %w", sub.Start.WorkflowID, err)
			}
			if len(ws) == 1 {
				res.Start = &ws[0]
			}
			return nil
		}
		reason := "repeat_submission"
		cb := &models.Callback{
			ID: sub.ReplayID, CompanyID: cur.CompanyID, PartnerApplicationID: cur.ID, PartnerID: pa.PartnerID,
			Status: cur.Status, Reason: &reason, InterviewLink: cur.InterviewLink, Replay: true,
		}
		if err := tx.Create(cb).Error; err != nil {
			return fmt.Errorf("create replay callback: %w", err)
		}
		res.Replay, res.Start = cb, &sub.Replay
		return insertStart(tx, &sub.Replay)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// insertFirstSubmission inserts pa and, when it was new, the start of its run, in one statement
// (one round trip, atomic without a transaction of its own; a transaction would take four). It
// reports false, having written nothing, when the company has the applicant already: a
// concurrent insert of it has committed by then, since the unique index waits for it. It sets
// the ids, status and times of pa and start that are not set.
func (s *Store) insertFirstSubmission(ctx context.Context, pa *models.PartnerApplication, start *models.WorkflowStart) (bool, error) {
	now := time.Now().UTC()
	if pa.ID == uuid.Nil {
		pa.ID = uuid.New()
	}
	applicant, err := pa.Applicant.Value()
	if err != nil {
		return false, fmt.Errorf("insert partner application: %w", err)
	}
	startArgs, err := chainedStartArgs(start, now)
	if err != nil {
		return false, fmt.Errorf("insert partner application: %w", err)
	}
	res := s.db.WithContext(ctx).Exec(`WITH pa AS (
	INSERT INTO partner_applications (id, company_id, partner_id, ats_applicant_id, ats_job_id, ats_candidate_id, job_id, applicant, status, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)
	ON CONFLICT DO NOTHING
	RETURNING id)
`+insertChainedStart+` pa`,
		append([]any{pa.ID, pa.CompanyID, pa.PartnerID, pa.ATSApplicantID, pa.ATSJobID, pa.ATSCandidateID, pa.JobID, applicant, models.PartnerStatusInFlight, now},
			startArgs...)...)
	if res.Error != nil {
		return false, fmt.Errorf("insert partner application %s and the start of %s: %w", pa.ATSApplicantID, start.WorkflowID, res.Error)
	}
	if res.RowsAffected == 0 {
		return false, nil
	}
	pa.Status, pa.CreatedAt = models.PartnerStatusInFlight, now
	return true, nil
}

// AttachPartnerApplicant stores the applicant of a partner application as the company's
// candidate (an existing one with the same e-mail address or phone, or a new one) and its
// application to the job, and clears the applicant from the partner application. An
// application attached before is returned as it is. ErrNotFound when the application does not
// exist, or has neither an attached candidate nor an applicant.
//
// The candidate and the application are stored in two transactions, each recorded on the
// partner application before it commits, so a repeat after a crash between them goes on where
// it stopped. Each statistics rollup row a company's inserts share (candidates per day, then
// applicants per job) is thus held only until the commit that follows its insert, not through
// the other insert's rollups.
func (s *Store) AttachPartnerApplicant(ctx context.Context, companyID, id uuid.UUID) (*models.PartnerApplication, error) {
	pa, err := s.attachStep(ctx, companyID, id, func(tx *gorm.DB, pa *models.PartnerApplication) error {
		if pa.CandidateID != nil {
			return nil
		}
		a := pa.Applicant.V
		if a == nil {
			return fmt.Errorf("applicant of partner application %s: %w", id, ErrNotFound)
		}
		in := CandidateInput{FirstName: a.FirstName, LastName: a.LastName, Email: a.Email, Phone: a.Phone}
		if pa.ATSCandidateID != nil {
			in.ExternalID = *pa.ATSCandidateID
		}
		c, _, err := findOrCreateCandidate(tx, companyID, in, string(models.ApplicationSourcePartner))
		if err != nil {
			return err
		}
		pa.CandidateID = &c.ID
		return tx.Model(pa).Where("company_id = ?", companyID).Update("candidate_id", c.ID).Error
	})
	if err != nil {
		return nil, err
	}
	if pa.ApplicationID != nil {
		return pa, nil
	}
	return s.attachStep(ctx, companyID, id, func(tx *gorm.DB, pa *models.PartnerApplication) error {
		if pa.ApplicationID != nil {
			return nil
		}
		if pa.CandidateID == nil {
			return fmt.Errorf("candidate of partner application %s: %w", id, ErrNotFound)
		}
		var apps []models.Application
		if err := tx.Where("company_id = ? AND external_id = ? AND source = ?", companyID, pa.ATSApplicantID, models.ApplicationSourcePartner).
			Limit(1).Find(&apps).Error; err != nil {
			return fmt.Errorf("find application: %w", err)
		}
		if len(apps) == 0 {
			ext := pa.ATSApplicantID
			apps = append(apps, models.Application{CompanyID: companyID, CandidateID: *pa.CandidateID, JobID: pa.JobID, ExternalID: &ext, Source: models.ApplicationSourcePartner, Status: "new"})
			if err := tx.Create(&apps[0]).Error; err != nil {
				return fmt.Errorf("create application: %w", err)
			}
		}
		pa.ApplicationID, pa.Applicant = &apps[0].ID, models.JSON[*models.PartnerApplicant]{}
		return tx.Model(pa).Where("company_id = ?", companyID).
			Updates(map[string]any{"application_id": apps[0].ID, "applicant": gorm.Expr("NULL")}).Error
	})
}

// attachStep runs one step of AttachPartnerApplicant on the locked partner application, in its
// own transaction.
func (s *Store) attachStep(ctx context.Context, companyID, id uuid.UUID, step func(*gorm.DB, *models.PartnerApplication) error) (*models.PartnerApplication, error) {
	var pa models.PartnerApplication
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&pa, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
			return notFound(err, "partner application "+id.String())
		}
		if err := step(tx, &pa); err != nil {
			return fmt.Errorf("attach applicant of partner application %s: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &pa, nil
}

// ErrAlreadySettled means an application's terminal callback was decided before.
var ErrAlreadySettled = errors.New("partner application already settled")

// SettlePartnerApplication decides the application's terminal status and creates its one
// terminal callback, in one transaction. Deciding twice returns the first decision's callback
// and ErrAlreadySettled; the unique index on terminal callbacks backs this up.
func (s *Store) SettlePartnerApplication(ctx context.Context, companyID, id uuid.UUID, status models.PartnerStatus, reason, link string) (*models.Callback, error) {
	var cb models.Callback
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var pa models.PartnerApplication
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&pa, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
			return notFound(err, "partner application "+id.String())
		}
		if pa.Status.Settled() {
			if err := tx.First(&cb, "partner_application_id = ? AND NOT replay", pa.ID).Error; err != nil {
				return notFound(err, "terminal callback of "+id.String())
			}
			return ErrAlreadySettled
		}
		now := time.Now().UTC()
		if err := tx.Model(&pa).Where("company_id = ?", companyID).Updates(map[string]any{
			"status": status, "reason": nullable(reason), "interview_link": nullable(link), "settled_at": now,
		}).Error; err != nil {
			return fmt.Errorf("settle partner application: %w", err)
		}
		cb = models.Callback{CompanyID: companyID, PartnerApplicationID: pa.ID, PartnerID: pa.PartnerID, Status: status, Reason: nullable(reason), InterviewLink: nullable(link)}
		if err := tx.Create(&cb).Error; err != nil {
			return fmt.Errorf("create callback: %w", err)
		}
		return nil
	})
	if errors.Is(err, ErrAlreadySettled) {
		return &cb, err
	}
	if err != nil {
		return nil, err
	}
	return &cb, nil
}

// Callback loads a company's callback.
func (s *Store) Callback(ctx context.Context, companyID, id uuid.UUID) (*models.Callback, error) {
	var cb models.Callback
	if err := s.db.WithContext(ctx).First(&cb, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
		return nil, notFound(err, "callback "+id.String())
	}
	return &cb, nil
}

// RecordAttempt stores a delivery attempt (once per callback and number) and the callback's
// state after it, in one statement.
func (s *Store) RecordAttempt(ctx context.Context, a *models.CallbackAttempt, state models.CallbackState) error {
	if a.ID == uuid.Nil {
		a.ID = uuid.New()
	}
	var delivered *time.Time
	if state == models.CallbackStateDelivered {
		delivered = &a.At
	}
	err := s.db.WithContext(ctx).Exec(`
WITH attempt AS (
  INSERT INTO callback_attempts (id, company_id, callback_id, number, at, duration_ms, status_code, error_class, response_body)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING)
UPDATE callbacks SET state = ?, attempts = GREATEST(attempts, ?), delivered_at = COALESCE(?::timestamptz, delivered_at)
WHERE company_id = ? AND id = ?`,
		a.ID, a.CompanyID, a.CallbackID, a.Number, a.At, a.DurationMS, a.StatusCode, a.ErrorClass, a.ResponseBody,
		state, a.Number, delivered, a.CompanyID, a.CallbackID).Error
	if err != nil {
		return fmt.Errorf("record attempt: %w", err)
	}
	return nil
}

// CallbackDelivery is a callback with what its delivery needs of its partner.
type CallbackDelivery struct {
	models.Callback
	Partner models.Partner
}

// callbackDeliveryRow is CallbackDelivery's one row.
type callbackDeliveryRow struct {
	models.Callback
	PartnerName           string
	PartnerCallbackURL    string
	PartnerCallbackSecret []byte
	PartnerSigningSecret  []byte
}

// CallbackDelivery loads a company's callback with its partner in one statement.
func (s *Store) CallbackDelivery(ctx context.Context, companyID, id uuid.UUID) (*CallbackDelivery, error) {
	var rows []callbackDeliveryRow
	err := s.db.WithContext(ctx).Raw(`
SELECT cb.*, p.name AS partner_name, p.callback_url AS partner_callback_url,
       p.callback_secret AS partner_callback_secret, p.signing_secret AS partner_signing_secret
FROM callbacks cb JOIN partners p ON p.company_id = cb.company_id AND p.id = cb.partner_id
WHERE cb.company_id = ? AND cb.id = ?`, companyID, id).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read callback %s: %w", id, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("callback %s: %w", id, ErrNotFound)
	}
	r := rows[0]
	return &CallbackDelivery{Callback: r.Callback, Partner: models.Partner{ID: r.PartnerID, CompanyID: companyID, Name: r.PartnerName,
		CallbackURL: r.PartnerCallbackURL, CallbackSecret: r.PartnerCallbackSecret, SigningSecret: r.PartnerSigningSecret}}, nil
}

// CallbackView is a callback with its application's ATS applicant id, for operators.
type CallbackView struct {
	models.Callback
	ATSApplicantID string `gorm:"column:ats_applicant_id"`
}

// ListCallbacks returns the company's most recent callbacks.
func (s *Store) ListCallbacks(ctx context.Context, companyID uuid.UUID, limit int) ([]CallbackView, error) {
	var out []CallbackView
	err := s.db.WithContext(ctx).Table("callbacks c").
		Select("c.*, pa.ats_applicant_id").
		Joins("JOIN partner_applications pa ON pa.company_id = c.company_id AND pa.id = c.partner_application_id").
		Where("c.company_id = ?", companyID).Order("c.created_at DESC").Limit(limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list callbacks: %w", err)
	}
	return out, nil
}

// CallbackAttempts returns a callback's attempts in order.
func (s *Store) CallbackAttempts(ctx context.Context, companyID, callbackID uuid.UUID) ([]models.CallbackAttempt, error) {
	var out []models.CallbackAttempt
	if err := s.db.WithContext(ctx).Where("company_id = ? AND callback_id = ?", companyID, callbackID).Order("number").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	return out, nil
}

// SubmissionLookup is what a partner submission checks before it calls the ATS: the company's
// application for the applicant (nil when none), the job with the ATS job id (nil when none or
// not asked for) and whether the company's partner_application workflow is enabled.
type SubmissionLookup struct {
	Previous       *models.PartnerApplication
	Job            *models.Job
	TriggerEnabled bool
}

// submissionLookupRow is SubmissionLookup's one row.
type submissionLookupRow struct {
	PaID             *uuid.UUID `gorm:"column:pa_id"`
	PaPartnerID      *uuid.UUID `gorm:"column:pa_partner_id"`
	PaJobID          *uuid.UUID `gorm:"column:pa_job_id"`
	PaATSJobID       *string    `gorm:"column:pa_ats_job_id"`
	PaATSCandidateID *string    `gorm:"column:pa_ats_candidate_id"`
	JobID            *uuid.UUID `gorm:"column:job_id"`
	JobStatus        *string    `gorm:"column:job_status"`
	JobIsOpen        *bool      `gorm:"column:job_is_open"`
	TriggerEnabled   *bool      `gorm:"column:trigger_enabled"`
}

// LookUpSubmission reads, in one statement, the company's partner application for the ATS
// applicant, its job with the ATS job id unless atsJobID is empty (as JobByExternalID) and
// whether its partner_application trigger is enabled (as EnabledTrigger).
func (s *Store) LookUpSubmission(ctx context.Context, companyID uuid.UUID, atsApplicantID, atsJobID string) (*SubmissionLookup, error) {
	var rows []submissionLookupRow
	err := s.db.WithContext(ctx).Raw(`
SELECT pa.id AS pa_id, pa.partner_id AS pa_partner_id, pa.job_id AS pa_job_id, pa.ats_job_id AS pa_ats_job_id,
       pa.ats_candidate_id AS pa_ats_candidate_id,
       j.id AS job_id, j.status AS job_status, j.is_open AS job_is_open, d.enabled AS trigger_enabled
FROM (SELECT 1) one
LEFT JOIN partner_applications pa ON pa.company_id = ? AND pa.ats_applicant_id = ?
LEFT JOIN LATERAL (SELECT id, status, is_open FROM jobs
  WHERE company_id = ? AND external_id = ? AND ? <> '' AND NOT is_deleted ORDER BY id LIMIT 1) j ON true
LEFT JOIN LATERAL (SELECT enabled FROM workflow_definitions
  WHERE company_id = ? AND trigger = ? ORDER BY version DESC, id LIMIT 1) d ON true`,
		companyID, atsApplicantID, companyID, atsJobID, atsJobID, companyID, models.TriggerPartnerApplication).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("look up submission of %s: %w", atsApplicantID, err)
	}
	out := &SubmissionLookup{}
	if len(rows) == 0 {
		return out, nil
	}
	r := rows[0]
	if r.PaID != nil {
		out.Previous = &models.PartnerApplication{ID: *r.PaID, CompanyID: companyID, PartnerID: orZero(r.PaPartnerID), ATSApplicantID: atsApplicantID,
			ATSJobID: orZero(r.PaATSJobID), ATSCandidateID: r.PaATSCandidateID, JobID: orZero(r.PaJobID)}
	}
	if r.JobID != nil {
		out.Job = &models.Job{ID: *r.JobID, CompanyID: companyID, ExternalID: atsJobID, Status: models.JobStatus(orZero(r.JobStatus)), IsOpen: orZero(r.JobIsOpen)}
	}
	out.TriggerEnabled = orZero(r.TriggerEnabled)
	return out, nil
}
