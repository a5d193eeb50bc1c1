package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// ATSRecord is where a service application lives in the company's ATS: Target is an ATS type
// (ATS-A, ATS-B, ATS-C) or models.ATSTargetAggregator, Ref the record's id there (the
// aggregator's application id for the aggregator), RefJob the ATS job id (ATS-C records live
// under their job).
type ATSRecord struct {
	Target, Ref, RefJob string
}

// ATSRecordOf finds where the application lives in the company's ATS. ok is false when nothing
// may be written: an HR-suite company (its connection is read-only), an application the
// aggregator did not sync and that carries no ATS id, or an ATS type without write-back.
func (s *Store) ATSRecordOf(ctx context.Context, companyID, applicationID uuid.UUID) (ATSRecord, bool, error) {
	var row struct {
		HRSuite  bool
		ATSType  *string
		AggRef   *string
		External *string
		JobExt   *string
	}
	err := s.db.WithContext(ctx).Raw(`SELECT c.hr_suite_account AS hr_suite, c.ats_type,
       (SELECT g.remote_id FROM aggregator_applications g
         WHERE g.company_id = a.company_id AND g.application_id = a.id ORDER BY g.seen_at DESC LIMIT 1) AS agg_ref,
       a.external_id AS external, j.external_id AS job_ext
FROM applications a JOIN companies c ON c.id = a.company_id
JOIN jobs j ON j.company_id = a.company_id AND j.id = a.job_id
WHERE a.company_id = ? AND a.id = ?`, companyID, applicationID).Scan(&row).Error
	if err != nil {
		return ATSRecord{}, false, fmt.Errorf("ATS record of application %s: %w", applicationID, err)
	}
	switch {
	case row.HRSuite:
		return ATSRecord{}, false, nil
	case row.AggRef != nil && *row.AggRef != "":
		return ATSRecord{Target: models.ATSTargetAggregator, Ref: *row.AggRef}, true, nil
	case row.ATSType == nil || row.External == nil || *row.External == "":
		return ATSRecord{}, false, nil
	}
	switch t := models.ATSType(*row.ATSType); t {
	case models.ATSTypeA, models.ATSTypeB, models.ATSTypeC:
		rec := ATSRecord{Target: string(t), Ref: *row.External}
		if row.JobExt != nil {
			rec.RefJob = *row.JobExt
		}
		return rec, true, nil
	}
	return ATSRecord{}, false, nil
}

// InsertATSWrite writes w in the transaction unless the company has a write of its key already;
// created says which. w gets the stored row either way.
func (t *Tx) InsertATSWrite(w *models.ATSWrite) (created bool, err error) {
	res := t.db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "company_id"}, {Name: "key"}}, DoNothing: true}).Create(w)
	if res.Error != nil {
		return false, fmt.Errorf("record ATS write %s: %w", w.Key, res.Error)
	}
	if res.RowsAffected == 1 {
		return true, nil
	}
	if err := t.db.First(w, "company_id = ? AND key = ?", w.CompanyID, w.Key).Error; err != nil {
		return false, notFound(err, "ATS write "+w.Key)
	}
	return false, nil
}

// SetSessionDecision records the recruiter's decision on the session, and note (when not empty)
// as a recruiter note of the session by author (uuid.Nil: none), in the transaction.
func (t *Tx) SetSessionDecision(companyID, sessionID uuid.UUID, d models.Decision, note string, author uuid.UUID) (*models.InterviewSession, error) {
	var sess models.InterviewSession
	if err := t.db.Clauses(clause.Locking{Strength: "UPDATE"}).First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "session "+sessionID.String())
	}
	if err := t.db.Model(&sess).Where("company_id = ?", companyID).Updates(map[string]any{"decision": d, "updated_at": time.Now()}).Error; err != nil {
		return nil, fmt.Errorf("set decision of session %s: %w", sessionID, err)
	}
	sess.Decision = d
	if note != "" {
		var by any
		if author != uuid.Nil {
			by = author
		}
		if err := t.db.Exec(`INSERT INTO recruiter_notes (company_id, candidate_id, session_id, author_user_id, body) VALUES (?, ?, ?, ?, ?)`,
			companyID, sess.CandidateID, sessionID, by, note).Error; err != nil {
			return nil, fmt.Errorf("record note of session %s: %w", sessionID, err)
		}
	}
	return &sess, nil
}

// ATSWrite loads one of the company's writes.
func (s *Store) ATSWrite(ctx context.Context, companyID, id uuid.UUID) (*models.ATSWrite, error) {
	var w models.ATSWrite
	if err := s.db.WithContext(ctx).First(&w, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
		return nil, notFound(err, "ATS write "+id.String())
	}
	return &w, nil
}

// BeginATSWrite counts an attempt of a write that is pending or sending and marks it sending;
// a write that is done or failed is returned as it is (the caller does not write again).
// prior is the status before this attempt: sending means an earlier attempt may have reached
// the ATS.
func (s *Store) BeginATSWrite(ctx context.Context, companyID, id uuid.UUID) (w *models.ATSWrite, prior string, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var row models.ATSWrite
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&row, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
			return notFound(err, "ATS write "+id.String())
		}
		prior = row.Status
		if row.Status == models.ATSWriteDone || row.Status == models.ATSWriteFailed {
			w = &row
			return nil
		}
		row.Status, row.Attempts, row.UpdatedAt = models.ATSWriteSending, row.Attempts+1, time.Now()
		if err := tx.Model(&row).Where("company_id = ?", companyID).Updates(map[string]any{
			"status": row.Status, "attempts": row.Attempts, "updated_at": row.UpdatedAt}).Error; err != nil {
			return fmt.Errorf("begin ATS write %s: %w", id, err)
		}
		w = &row
		return nil
	})
	return w, prior, err
}

// FinishATSWrite records an attempt's outcome: done, failed (final), or sending with the
// error of an attempt that will be retried.
func (s *Store) FinishATSWrite(ctx context.Context, companyID, id uuid.UUID, status, lastError string) error {
	if len(lastError) > 500 {
		lastError = lastError[:500]
	}
	set := map[string]any{"status": status, "last_error": lastError, "updated_at": time.Now()}
	if status == models.ATSWriteDone || status == models.ATSWriteFailed {
		set["done_at"] = time.Now()
	}
	q := s.db.WithContext(ctx).Model(&models.ATSWrite{}).Where("company_id = ? AND id = ? AND status <> ?", companyID, id, models.ATSWriteDone)
	if err := q.Updates(set).Error; err != nil {
		return fmt.Errorf("finish ATS write %s: %w", id, err)
	}
	return nil
}

// ATSWrites lists the company's writes, newest first, at most limit.
func (s *Store) ATSWrites(ctx context.Context, companyID uuid.UUID, limit int) ([]models.ATSWrite, error) {
	var out []models.ATSWrite
	if err := s.db.WithContext(ctx).Where("company_id = ?", companyID).Order("created_at DESC, id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list ATS writes: %w", err)
	}
	return out, nil
}

// LastATSWrites returns the company's last finished write and its last write that ended in an
// error or is being retried with one (nil when none).
func (s *Store) LastATSWrites(ctx context.Context, companyID uuid.UUID) (last, lastError *models.ATSWrite, err error) {
	db := s.db.WithContext(ctx)
	var a, b models.ATSWrite
	err = db.Where("company_id = ? AND status = ?", companyID, models.ATSWriteDone).Order("done_at DESC").First(&a).Error
	if err == nil {
		last = &a
	} else if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, fmt.Errorf("last ATS write: %w", err)
	}
	err = db.Where("company_id = ? AND last_error <> ''", companyID).Order("updated_at DESC").First(&b).Error
	if err == nil {
		lastError = &b
	} else if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, fmt.Errorf("last ATS write error: %w", err)
	}
	return last, lastError, nil
}
