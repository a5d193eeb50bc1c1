package interview

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Bounds on a cancellation's reason: MaxReasonLen characters once cleaned, MaxReasonBytes raw.
const (
	MaxReasonLen   = 500
	MaxReasonBytes = 4 << 10
)

// Errors of Cancel. Their messages are written for the caller and never quote the reason.
var (
	ErrReasonMissing = errors.New("reason is required: say why the session is cancelled (it is kept for your team, never shown to the candidate)")
	ErrReasonTooLong = fmt.Errorf("reason is longer than %d characters", MaxReasonLen)
	ErrReasonNotText = errors.New("reason holds characters that are not text: control characters other than tab and line breaks, or bytes that are not UTF-8")
	// ErrSessionEnded: a cancellation asked of a session that ended otherwise (COMPLETED,
	// DECLINED, EXPIRED, INCOMPLETE); the error is an *EndedError naming the status.
	ErrSessionEnded = errors.New("the session has ended")
)

// EndedError is a cancellation refused because the session ended otherwise. It is
// ErrSessionEnded and store.ErrSessionNotOpen.
type EndedError struct {
	SessionID uuid.UUID
	Status    models.SessionStatus
}

func (e *EndedError) Error() string {
	return fmt.Sprintf("cancel session %s: it is %s", e.SessionID, e.Status)
}

// Unwrap makes the error both ErrSessionEnded and store.ErrSessionNotOpen.
func (e *EndedError) Unwrap() []error { return []error{ErrSessionEnded, store.ErrSessionNotOpen} }

// Detail is the message for the caller: the status, and which sessions can be cancelled.
func (e *EndedError) Detail() string {
	return fmt.Sprintf("the session is %s: only an INVITED or STARTED session can be cancelled", e.Status)
}

// Cancellation says who cancels a session (store.CancelledBy...) and why.
type Cancellation struct {
	By     string
	Reason string
}

// CleanReason checks a cancellation's reason with the rule of answers (cleanText) and returns it
// cleaned: ErrReasonMissing when empty, ErrReasonTooLong over MaxReasonBytes or MaxReasonLen,
// ErrReasonNotText for control characters and invalid UTF-8.
func CleanReason(s string) (string, error) {
	return cleanText(s, textRule{maxBytes: MaxReasonBytes, maxLen: MaxReasonLen, empty: ErrReasonMissing, tooLong: ErrReasonTooLong, invalid: ErrReasonNotText})
}

// Cancel withdraws co's session sessionID: an INVITED or STARTED session becomes CANCELLED with
// its reason, its cancelled event (by c.By) and the renewed start of its run, which is told and
// ends (no more reminders); the page shows the withdrawn screen and the ATS is not written. A
// session cancelled already is returned as it is (Change.Unchanged; its first reason kept); one
// that ended otherwise is an *EndedError; another company's or an unknown one is
// store.ErrNotFound. The API, the flows' cancel_session step and `recruitd sessions cancel` call
// it.
func (l *Lifecycle) Cancel(ctx context.Context, co *models.Company, sessionID uuid.UUID, c Cancellation) (*Change, error) {
	reason, err := CleanReason(c.Reason)
	if err != nil {
		return nil, err
	}
	sess, err := l.Store.Session(ctx, co.ID, sessionID)
	if err != nil {
		return nil, err
	}
	if !sess.Status.Open() {
		return l.cancelled(co, sess)
	}
	start := kinds.InterviewStart(co.Slug, co.ID, sess.ID, sess.JobID, models.SessionStatusCancelled)
	got, ws, err := l.Store.CancelSession(ctx, store.CancelSessionInput{CompanyID: co.ID, SessionID: sess.ID, By: c.By, Reason: reason, Start: start})
	if errors.Is(err, store.ErrSessionNotOpen) {
		// The status changed since it was read: the candidate finished, the deadline passed,
		// or another cancel came first.
		if sess, err = l.Store.Session(ctx, co.ID, sessionID); err != nil {
			return nil, err
		}
		return l.cancelled(co, sess)
	}
	if err != nil {
		return nil, err
	}
	return l.launch(ctx, got, ws), nil
}

// cancelled answers a cancel of a session that is not open: unchanged when it is CANCELLED, an
// *EndedError otherwise.
func (l *Lifecycle) cancelled(co *models.Company, sess *models.InterviewSession) (*Change, error) {
	if sess.Status != models.SessionStatusCancelled {
		return nil, &EndedError{SessionID: sess.ID, Status: sess.Status}
	}
	return &Change{Session: sess, WorkflowID: kinds.Interview.ID(co.Slug, sess.ID.String()), Unchanged: true}, nil
}
