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

// ApplicationATSRefs are the ids an application has in the company's systems, as stored:
// whether the company's connection is an HR suite's, the company's ATS type ("" when none), the
// aggregator's id of the application (the latest it synced; "" when none), the application's
// ATS id and its job's ("" when none). internal/atswrite decides from them where a result is
// written.
type ApplicationATSRefs struct {
	HRSuite                   bool
	ATSType                   string
	AggregatorRef             string
	ExternalID, JobExternalID string
}

// ApplicationATSRefs loads the company's application's ids in its ATS (all empty for an
// application the company does not have).
func (s *Store) ApplicationATSRefs(ctx context.Context, companyID, applicationID uuid.UUID) (ApplicationATSRefs, error) {
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
		return ApplicationATSRefs{}, fmt.Errorf("ATS ids of application %s: %w", applicationID, err)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return ApplicationATSRefs{HRSuite: row.HRSuite, ATSType: str(row.ATSType), AggregatorRef: str(row.AggRef),
		ExternalID: str(row.External), JobExternalID: str(row.JobExt)}, nil
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

// LockSession loads the company's session and locks its row until the transaction ends: the
// decisions on one session are recorded one after the other.
func (t *Tx) LockSession(companyID, sessionID uuid.UUID) (*models.InterviewSession, error) {
	var sess models.InterviewSession
	if err := t.db.Clauses(clause.Locking{Strength: "UPDATE"}).First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "session "+sessionID.String())
	}
	return &sess, nil
}

// SetSessionDecision records the recruiter's decision on the session (locked by LockSession),
// and marks the session's stage writes that were not sent yet (pending, or sending with no
// answer recorded) superseded: they are never sent (WithCurrentStageWrite).
func (t *Tx) SetSessionDecision(sess *models.InterviewSession, d models.Decision) error {
	if err := t.db.Model(&models.InterviewSession{}).Where("company_id = ? AND id = ?", sess.CompanyID, sess.ID).
		Updates(map[string]any{"decision": d, "updated_at": time.Now()}).Error; err != nil {
		return fmt.Errorf("set decision of session %s: %w", sess.ID, err)
	}
	sess.Decision = d
	if err := t.db.Model(&models.ATSWrite{}).
		Where("company_id = ? AND session_id = ? AND op = ? AND status IN ?", sess.CompanyID, sess.ID, models.ATSWriteStage,
			[]string{models.ATSWritePending, models.ATSWriteSending}).
		Updates(map[string]any{"status": models.ATSWriteSuperseded, "updated_at": time.Now(), "done_at": time.Now()}).Error; err != nil {
		return fmt.Errorf("supersede stage writes of session %s: %w", sess.ID, err)
	}
	return nil
}

// AddSessionNote records note as a recruiter note of the session by author (uuid.Nil: none),
// unless it repeats the session's latest note word for word (a repeated request records it
// once). added says which.
func (t *Tx) AddSessionNote(sess *models.InterviewSession, note string, author uuid.UUID) (added bool, err error) {
	var by any
	if author != uuid.Nil {
		by = author
	}
	res := t.db.Exec(`INSERT INTO recruiter_notes (company_id, candidate_id, session_id, author_user_id, body)
SELECT ?, ?, ?, ?, ?
WHERE NOT EXISTS (SELECT 1 FROM (SELECT body FROM recruiter_notes WHERE company_id = ? AND session_id = ?
                                 ORDER BY created_at DESC, id DESC LIMIT 1) last WHERE last.body = ?)`,
		sess.CompanyID, sess.CandidateID, sess.ID, by, note, sess.CompanyID, sess.ID, note)
	if res.Error != nil {
		return false, fmt.Errorf("record note of session %s: %w", sess.ID, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// LatestStageWrite returns the session's newest stage write of decision d (nil when it has none).
func (t *Tx) LatestStageWrite(companyID, sessionID uuid.UUID, d models.Decision) (*models.ATSWrite, error) {
	var w models.ATSWrite
	err := t.db.Where("company_id = ? AND session_id = ? AND op = ? AND decision = ?", companyID, sessionID, models.ATSWriteStage, d).
		Order("created_at DESC, id").First(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("latest stage write of session %s: %w", sessionID, err)
	}
	return &w, nil
}

// StageLockTimeout bounds the wait for a session's stage-write lock (WithCurrentStageWrite):
// another worker holds it for at most one ATS request.
const StageLockTimeout = 8 * time.Second

// WithCurrentStageWrite runs send while holding the stage-write lock of the write's session (a
// transaction-scoped advisory lock: one stage write of a session talks to the ATS at a time),
// after checking, under that lock, that the write is still current: not superseded, and its
// decision the session's. A write that is not is recorded superseded, send is not called and
// stale is true. Since a newer decision supersedes the older writes in the transaction that
// records it, and the newer write cannot send before the lock is free, an older write never
// reaches the ATS after a newer one. send's error is returned as it is.
func (s *Store) WithCurrentStageWrite(ctx context.Context, companyID, writeID uuid.UUID, send func() error) (stale bool, err error) {
	var sendErr error
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(fmt.Sprintf("SET LOCAL lock_timeout = '%dms'", StageLockTimeout.Milliseconds())).Error; err != nil {
			return fmt.Errorf("stage write %s: %w", writeID, err)
		}
		var row struct {
			SessionID uuid.UUID
			Status    string
			Decision  *string
			Current   string
		}
		if err := tx.Raw(`SELECT w.session_id, w.status, w.decision, s.decision AS current
FROM ats_writes w JOIN interview_sessions s ON s.company_id = w.company_id AND s.id = w.session_id
WHERE w.company_id = ? AND w.id = ? AND w.op = ?`, companyID, writeID, models.ATSWriteStage).Scan(&row).Error; err != nil {
			return fmt.Errorf("stage write %s: %w", writeID, err)
		}
		if row.SessionID == uuid.Nil {
			return fmt.Errorf("stage write %s: %w", writeID, ErrNotFound)
		}
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended('ats-stage:' || ?::text, 0))`, row.SessionID).Error; err != nil {
			return fmt.Errorf("lock stage writes of session %s: %w", row.SessionID, err)
		}
		// Read again under the lock: a decision recorded while this write waited shows here.
		if err := tx.Raw(`SELECT w.session_id, w.status, w.decision, s.decision AS current
FROM ats_writes w JOIN interview_sessions s ON s.company_id = w.company_id AND s.id = w.session_id
WHERE w.company_id = ? AND w.id = ?`, companyID, writeID).Scan(&row).Error; err != nil {
			return fmt.Errorf("stage write %s: %w", writeID, err)
		}
		if row.Status == models.ATSWriteSuperseded || row.Decision == nil || *row.Decision != row.Current {
			stale = true
			if err := tx.Model(&models.ATSWrite{}).Where("company_id = ? AND id = ? AND status IN ?", companyID, writeID,
				[]string{models.ATSWritePending, models.ATSWriteSending}).
				Updates(map[string]any{"status": models.ATSWriteSuperseded, "updated_at": time.Now(), "done_at": time.Now()}).Error; err != nil {
				return fmt.Errorf("supersede stage write %s: %w", writeID, err)
			}
			return nil
		}
		sendErr = send()
		return nil
	})
	if err != nil {
		return false, err
	}
	return stale, sendErr
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
// a write that is done, failed or superseded is returned as it is (the caller does not write
// again).
// prior is the status before this attempt: sending means an earlier attempt may have reached
// the ATS.
func (s *Store) BeginATSWrite(ctx context.Context, companyID, id uuid.UUID) (w *models.ATSWrite, prior string, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var row models.ATSWrite
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&row, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
			return notFound(err, "ATS write "+id.String())
		}
		prior = row.Status
		if row.Final() {
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
// error of an attempt that will be retried. A write that is done stays done; one superseded
// while its attempt was in flight stays superseded unless the attempt reached the ATS (done).
func (s *Store) FinishATSWrite(ctx context.Context, companyID, id uuid.UUID, status, lastError string) error {
	if len(lastError) > 500 {
		lastError = lastError[:500]
	}
	set := map[string]any{"status": status, "last_error": lastError, "updated_at": time.Now()}
	if status == models.ATSWriteDone || status == models.ATSWriteFailed {
		set["done_at"] = time.Now()
	}
	keep := []string{models.ATSWriteDone, models.ATSWriteSuperseded}
	if status == models.ATSWriteDone {
		keep = keep[:1]
	}
	q := s.db.WithContext(ctx).Model(&models.ATSWrite{}).Where("company_id = ? AND id = ? AND status NOT IN ?", companyID, id, keep)
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
