package store

// The queries of a session's lifecycle (workflows.InterviewSession and `recruitd sessions`):
// what its run reads, the transitions time makes (EXPIRED, INCOMPLETE), the reminders'
// records, and the operators' cancel and extend. Every transition is a conditional UPDATE on
// the status it leaves, so a late timer never overrides what the candidate did meanwhile.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// ErrSessionNotOpen means a change asked of a session its status does not allow (cancelling a
// completed session, extending a cancelled one), or a status that changed since it was read.
var ErrSessionNotOpen = errors.New("the session's status does not allow this")

// InterviewLifecycle is what a session's run decides from: the session's status and times, its
// company's interview settings, what places the candidate (the phone number and the job's
// titles), and the keys of the reminders done (sent or skipped).
type InterviewLifecycle struct {
	Status               models.SessionStatus `gorm:"column:status"`
	JobID                uuid.UUID            `gorm:"column:job_id"`
	InvitedAt            time.Time            `gorm:"column:invited_at"`
	StartedAt            *time.Time           `gorm:"column:started_at"`
	ExpiresAt            *time.Time           `gorm:"column:expires_at"`
	CompanySlug          string               `gorm:"column:slug"`
	RemindersEnabled     bool                 `gorm:"column:interview_reminders_enabled"`
	FirstReminderSeconds int                  `gorm:"column:interview_first_reminder_seconds"`
	LastReminderSeconds  int                  `gorm:"column:interview_last_reminder_seconds"`
	QuietHoursStart      string               `gorm:"column:quiet_hours_start"`
	QuietHoursEnd        string               `gorm:"column:quiet_hours_end"`
	TimeZone             string               `gorm:"column:time_zone"`
	Phone                *string              `gorm:"column:phone"`
	JobTitle             string               `gorm:"column:title"`
	JobExternalTitle     string               `gorm:"column:external_title"`
	RemindersDone        models.StringArray   `gorm:"column:reminders_done;type:text[]"`
	// IdentityRequired is the job's enable_identity_verification.
	IdentityRequired bool `gorm:"column:enable_identity_verification"`
}

// InterviewLifecycle loads what a session's run decides from.
func (s *Store) InterviewLifecycle(ctx context.Context, companyID, sessionID uuid.UUID) (*InterviewLifecycle, error) {
	var out []InterviewLifecycle
	err := s.db.WithContext(ctx).Raw(`
SELECT s.status, s.job_id, s.invited_at, s.started_at, s.expires_at,
       co.slug, co.interview_reminders_enabled, co.interview_first_reminder_seconds, co.interview_last_reminder_seconds,
       co.quiet_hours_start, co.quiet_hours_end, co.time_zone,
       c.phone, j.title, j.external_title, j.enable_identity_verification,
       ARRAY(SELECT e.once_key FROM interview_events e
             WHERE e.company_id = s.company_id AND e.session_id = s.id AND e.once_key LIKE 'reminder/%'
               AND e.kind IN (?, ?)) AS reminders_done
FROM interview_sessions s
JOIN companies co ON co.id = s.company_id
JOIN candidates c ON c.company_id = s.company_id AND c.id = s.candidate_id
JOIN jobs j ON j.company_id = s.company_id AND j.id = s.job_id
WHERE s.company_id = ? AND s.id = ?`, models.EventReminderSent, models.EventReminderSkipped, companyID, sessionID).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("load lifecycle of session %s: %w", sessionID, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	return &out[0], nil
}

// DeliveredInvitation returns the session's first outbound message that was sent or delivered:
// its invitation, whose channel its reminders take. ErrNotFound when no invitation went out.
func (s *Store) DeliveredInvitation(ctx context.Context, companyID, sessionID uuid.UUID) (*models.Message, error) {
	var m models.Message
	err := s.db.WithContext(ctx).Where("company_id = ? AND session_id = ? AND direction = ? AND status IN ?", companyID, sessionID,
		models.MessageDirectionOutbound, []models.MessageStatus{models.MessageStatusSent, models.MessageStatusDelivered}).
		Order("created_at, id").First(&m).Error
	if err != nil {
		return nil, notFound(err, "delivered invitation of session "+sessionID.String())
	}
	return &m, nil
}

// CloseOverdueSession ends a session whose deadline has passed at now (expires_at <= now, checked
// in the UPDATE): INVITED becomes EXPIRED, STARTED becomes INCOMPLETE, with ended_at and the
// event. It returns the new status, or "" when the session was not open and overdue (completed,
// cancelled, extended meanwhile).
func (s *Store) CloseOverdueSession(ctx context.Context, companyID, sessionID uuid.UUID, now time.Time) (models.SessionStatus, error) {
	var closed models.SessionStatus
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var rows []struct {
			Status    models.SessionStatus
			ExpiresAt time.Time
		}
		err := tx.Raw(`
UPDATE interview_sessions
SET status = CASE status WHEN ? THEN ? ELSE ? END, ended_at = ?
WHERE company_id = ? AND id = ? AND status IN (?, ?) AND expires_at <= ?
RETURNING status, expires_at`,
			models.SessionStatusInvited, models.SessionStatusExpired, models.SessionStatusIncomplete, now.UTC(),
			companyID, sessionID, models.SessionStatusInvited, models.SessionStatusStarted, now.UTC()).Scan(&rows).Error
		if err != nil {
			return fmt.Errorf("close overdue session %s: %w", sessionID, err)
		}
		if len(rows) == 0 {
			return nil
		}
		closed = rows[0].Status
		kind := models.EventExpired
		if closed == models.SessionStatusIncomplete {
			kind = models.EventIncomplete
			if err := recordSkippedIdentity(tx, companyID, sessionID); err != nil {
				return err
			}
		}
		return insertInterviewEvent(tx, companyID, sessionID, kind, map[string]any{"expiresAt": rows[0].ExpiresAt.UTC()}, "")
	})
	if err != nil {
		return "", err
	}
	return closed, nil
}

// FinalizeTranscript records, once, that a COMPLETED session's transcript is final (the
// transcript_final event, with the number of answered turns), and returns the customer-flow
// run that invited the session ("" when none did). ErrSessionNotOpen when the session is not
// COMPLETED.
func (s *Store) FinalizeTranscript(ctx context.Context, companyID, sessionID uuid.UUID) (flowWorkflowID string, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var sess models.InterviewSession
		if err := tx.Select("status", "flow_workflow_id").First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
			return notFound(err, "session "+sessionID.String())
		}
		if sess.Status != models.SessionStatusCompleted {
			return fmt.Errorf("finalize the transcript of session %s (%s): %w", sessionID, sess.Status, ErrSessionNotOpen)
		}
		if sess.FlowWorkflowID != nil {
			flowWorkflowID = *sess.FlowWorkflowID
		}
		var answered int64
		if err := tx.Model(&models.InterviewTurn{}).Where("company_id = ? AND session_id = ? AND answered_at IS NOT NULL", companyID, sessionID).
			Count(&answered).Error; err != nil {
			return fmt.Errorf("count answers of session %s: %w", sessionID, err)
		}
		return insertInterviewEvent(tx, companyID, sessionID, models.EventTranscriptFinal, map[string]any{"answers": answered}, models.EventTranscriptFinal)
	})
	return flowWorkflowID, err
}

// RecordInterviewEvent records an entry of a session's timeline; with a onceKey, at most once
// per session (a repeat is dropped). detail holds enumerations, counts, ids and times only.
func (s *Store) RecordInterviewEvent(ctx context.Context, companyID, sessionID uuid.UUID, kind string, detail map[string]any, onceKey string) error {
	return insertInterviewEvent(s.db.WithContext(ctx), companyID, sessionID, kind, detail, onceKey)
}

// Who cancels a session (the cancelled event's "by").
const (
	CancelledByOperator = "operator" // recruitd sessions cancel
	CancelledByAPI      = "api"      // POST /v1/api/sessions/{sessionId}/cancel
	CancelledByFlow     = "flow"     // a customer flow's cancel_session step
	// CancelledByRefusedInvitation: an invitation whose start Temporal refused; the caller
	// retries with a new one, so this one must never be sent.
	CancelledByRefusedInvitation = "invitation_refused"
)

// CancelSessionInput cancels an open session; By says who (CancelledBy...), Reason why ("" for
// none: kept NULL). Start is the renewed start of the session's interview run (SessionStatus
// CANCELLED), written in the same transaction, so the run hears of it and stops its reminders.
type CancelSessionInput struct {
	CompanyID, SessionID uuid.UUID
	By                   string
	Reason               string
	Start                models.WorkflowStart
}

// CancelSession cancels an INVITED or STARTED session: CANCELLED with ended_at, the event and
// the renewed start, in one transaction. It returns the session as cancelled and the start to
// launch. ErrSessionNotOpen when the session has another status (it is returned as it is).
func (s *Store) CancelSession(ctx context.Context, in CancelSessionInput) (*models.InterviewSession, *models.WorkflowStart, error) {
	var out []models.InterviewSession
	var start *models.WorkflowStart
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Raw(`
UPDATE interview_sessions SET status = ?, ended_at = now(), cancel_reason = nullif(?, '')
WHERE company_id = ? AND id = ? AND status IN (?, ?)
RETURNING *`, models.SessionStatusCancelled, in.Reason, in.CompanyID, in.SessionID, models.SessionStatusInvited, models.SessionStatusStarted).Scan(&out).Error
		if err != nil {
			return fmt.Errorf("cancel session %s: %w", in.SessionID, err)
		}
		if len(out) == 0 {
			return sessionNotOpen(tx, in.CompanyID, in.SessionID, "cancel")
		}
		if err := insertInterviewEvent(tx, in.CompanyID, in.SessionID, models.EventCancelled, map[string]any{"by": in.By}, ""); err != nil {
			return err
		}
		start, err = renewStart(tx, in.Start)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return &out[0], start, nil
}

// sessionNotOpen says why a conditional UPDATE of a session changed nothing: ErrNotFound, or
// ErrSessionNotOpen naming the status.
func sessionNotOpen(tx *gorm.DB, companyID, sessionID uuid.UUID, what string) error {
	var sess models.InterviewSession
	if err := tx.Select("status").First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return notFound(err, "session "+sessionID.String())
	}
	return fmt.Errorf("%s session %s (%s): %w", what, sessionID, sess.Status, ErrSessionNotOpen)
}

// ExtendSessionInput moves an open or timed-out session's deadline by By: From is the status it
// was read in (the change applies only if it still is), To the status it gets (INVITED for an
// EXPIRED session, STARTED for an INCOMPLETE one, From otherwise). Start is the renewed start of
// its interview run (SessionStatus To), written in the same transaction.
type ExtendSessionInput struct {
	CompanyID, SessionID uuid.UUID
	From, To             models.SessionStatus
	By                   time.Duration
	Now                  time.Time
	Start                models.WorkflowStart
}

// ExtendSession moves the deadline to By past the later of the deadline and Now, sets To (and
// clears ended_at when the session reopens), and records the event and the renewed start, in one
// transaction. It returns the session as extended and the start to launch; ErrSessionNotOpen
// when the session's status is no longer From.
func (s *Store) ExtendSession(ctx context.Context, in ExtendSessionInput) (*models.InterviewSession, *models.WorkflowStart, error) {
	var out []models.InterviewSession
	var start *models.WorkflowStart
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Raw(`
UPDATE interview_sessions
SET status = ?, expires_at = greatest(coalesce(expires_at, ?), ?) + make_interval(secs => ?),
    ended_at = CASE WHEN ?::boolean THEN NULL ELSE ended_at END
WHERE company_id = ? AND id = ? AND status = ?
RETURNING *`, in.To, in.Now.UTC(), in.Now.UTC(), in.By.Seconds(), in.To.Open(),
			in.CompanyID, in.SessionID, in.From).Scan(&out).Error
		if err != nil {
			return fmt.Errorf("extend session %s: %w", in.SessionID, err)
		}
		if len(out) == 0 {
			return sessionNotOpen(tx, in.CompanyID, in.SessionID, "extend")
		}
		detail := map[string]any{"bySeconds": int64(in.By.Seconds()), "from": in.From, "to": in.To, "expiresAt": out[0].ExpiresAt}
		if err := insertInterviewEvent(tx, in.CompanyID, in.SessionID, models.EventExtended, detail, ""); err != nil {
			return err
		}
		start, err = renewStart(tx, in.Start)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return &out[0], start, nil
}

// SessionCompany returns the company of a session: the lookup that establishes the tenant for
// an operator who names a session only (`recruitd sessions show --session`).
func (s *Store) SessionCompany(ctx context.Context, sessionID uuid.UUID) (uuid.UUID, error) {
	var ids []uuid.UUID
	if err := s.db.WithContext(ctx).Model(&models.InterviewSession{}).Where("id = ?", sessionID).Limit(1).Pluck("company_id", &ids).Error; err != nil {
		return uuid.Nil, fmt.Errorf("find session %s: %w", sessionID, err)
	}
	if len(ids) == 0 {
		return uuid.Nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	return ids[0], nil
}

// InterviewEvents returns a session's timeline, oldest first.
func (s *Store) InterviewEvents(ctx context.Context, companyID, sessionID uuid.UUID) ([]models.InterviewEvent, error) {
	var evs []models.InterviewEvent
	if err := s.db.WithContext(ctx).Where("company_id = ? AND session_id = ?", companyID, sessionID).Order("at, id").Find(&evs).Error; err != nil {
		return nil, fmt.Errorf("load events of session %s: %w", sessionID, err)
	}
	return evs, nil
}

// SessionMessage is a message of a session as operators see it: no address, no text, no
// provider error (which may quote either).
type SessionMessage struct {
	ID        uuid.UUID               `gorm:"column:id"`
	Direction models.MessageDirection `gorm:"column:direction"`
	Channel   models.MessageChannel   `gorm:"column:channel"`
	Status    models.MessageStatus    `gorm:"column:status"`
	Provider  *string                 `gorm:"column:provider"`
	CreatedAt time.Time               `gorm:"column:created_at"`
	SentAt    *time.Time              `gorm:"column:sent_at"`
	// Reminder is true for the session's reminders (their send key), false for its invitation
	// and any other message.
	Reminder bool `gorm:"column:reminder"`
}

// SessionMessages returns a session's messages, oldest first, without their contents.
func (s *Store) SessionMessages(ctx context.Context, companyID, sessionID uuid.UUID) ([]SessionMessage, error) {
	var out []SessionMessage
	err := s.db.WithContext(ctx).Model(&models.Message{}).
		Select("id, direction, channel, status, provider, created_at, sent_at, coalesce(send_key LIKE ?, false) AS reminder", ReminderSendKey(sessionID, "reminder/%")).
		Where("company_id = ? AND session_id = ?", companyID, sessionID).Order("created_at, id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	return out, nil
}

// ReminderSendKey is the send key (models.Message.SendKey) of a session's reminder whose key
// (interview.ReminderKey) is key: "interview/<session id>/reminder/...", the same for every
// attempt and every run of the session's workflow, so a reminder is sent once.
func ReminderSendKey(sessionID uuid.UUID, key string) string {
	return "interview/" + sessionID.String() + "/" + key
}

// SessionTurns returns a session's transcript, in order: the questions asked and the answers.
func (s *Store) SessionTurns(ctx context.Context, companyID, sessionID uuid.UUID) ([]models.InterviewTurn, error) {
	var turns []models.InterviewTurn
	if err := s.db.WithContext(ctx).Where("company_id = ? AND session_id = ?", companyID, sessionID).Order("seq").Find(&turns).Error; err != nil {
		return nil, fmt.Errorf("load transcript of session %s: %w", sessionID, err)
	}
	return turns, nil
}
