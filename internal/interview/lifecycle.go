package interview

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Lifecycle is what operators do to a session (`recruitd sessions`): show it, cancel it, give it
// more time. A change is committed with the renewed start of the session's interview run, then
// launched: the running workflow is signalled, or a new one starts after a closed run.
type Lifecycle struct {
	Store *store.Store
	// Launcher may be nil (Temporal unreachable): the change is committed and the worker's
	// reconciler starts its pending start later.
	Launcher *outbox.Launcher
}

// MaxExtension bounds one extension.
const MaxExtension = 90 * 24 * time.Hour

// ErrBadExtension is an extension that is not positive or longer than MaxExtension.
var ErrBadExtension = fmt.Errorf("an extension must be positive and at most %d days", int(MaxExtension.Hours()/24))

// Find returns a session and its company. With companySlug, the session must be that company's
// (another company's is not found); without, the session's own company is looked up.
func (l *Lifecycle) Find(ctx context.Context, companySlug string, sessionID uuid.UUID) (*models.Company, *models.InterviewSession, error) {
	var co *models.Company
	var err error
	if companySlug != "" {
		co, err = l.Store.CompanyBySlug(ctx, companySlug)
	} else {
		var id uuid.UUID
		if id, err = l.Store.SessionCompany(ctx, sessionID); err == nil {
			co, err = l.Store.Company(ctx, id)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	sess, err := l.Store.Session(ctx, co.ID, sessionID)
	if err != nil {
		return nil, nil, err
	}
	return co, sess, nil
}

// SessionView is a session as an operator sees it: its status and times, its timeline, its
// messages without their contents, its workflow; the transcript only when asked for.
type SessionView struct {
	Company    *models.Company
	Session    *models.InterviewSession
	Job        *models.Job
	WorkflowID string
	Events     []models.InterviewEvent
	Messages   []store.SessionMessage
	Turns      []models.InterviewTurn
}

// Show loads a session's view; transcript adds its questions and answers.
func (l *Lifecycle) Show(ctx context.Context, companySlug string, sessionID uuid.UUID, transcript bool) (*SessionView, error) {
	co, sess, err := l.Find(ctx, companySlug, sessionID)
	if err != nil {
		return nil, err
	}
	v := &SessionView{Company: co, Session: sess, WorkflowID: kinds.Interview.ID(co.Slug, sess.ID.String())}
	if v.Job, err = l.Store.Job(ctx, co.ID, sess.JobID); err != nil {
		return nil, err
	}
	if v.Events, err = l.Store.InterviewEvents(ctx, co.ID, sess.ID); err != nil {
		return nil, err
	}
	if v.Messages, err = l.Store.SessionMessages(ctx, co.ID, sess.ID); err != nil {
		return nil, err
	}
	if transcript {
		if v.Turns, err = l.Store.SessionTurns(ctx, co.ID, sess.ID); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Change is an operator's change of a session, committed.
type Change struct {
	Session    *models.InterviewSession
	WorkflowID string
	// Launched is true when Temporal took the start (the run was signalled or started); else
	// LaunchErr says why not, and the worker's reconciler starts it later.
	Launched  bool
	LaunchErr error
	// Unchanged is true when the session already was as asked (a repeated cancel): nothing was
	// committed or launched.
	Unchanged bool
}

// Extend moves a session's deadline by by, from the later of the deadline and now: an INVITED or
// STARTED session keeps its status, an EXPIRED one reopens as INVITED, an INCOMPLETE one as
// STARTED. COMPLETED, CANCELLED and DECLINED sessions are final (store.ErrSessionNotOpen).
func (l *Lifecycle) Extend(ctx context.Context, companySlug string, sessionID uuid.UUID, by time.Duration, now time.Time) (*Change, error) {
	if by <= 0 || by > MaxExtension {
		return nil, ErrBadExtension
	}
	co, sess, err := l.Find(ctx, companySlug, sessionID)
	if err != nil {
		return nil, err
	}
	to, ok := map[models.SessionStatus]models.SessionStatus{
		models.SessionStatusInvited: models.SessionStatusInvited, models.SessionStatusStarted: models.SessionStatusStarted,
		models.SessionStatusExpired: models.SessionStatusInvited, models.SessionStatusIncomplete: models.SessionStatusStarted,
	}[sess.Status]
	if !ok {
		return nil, fmt.Errorf("extend session %s (%s): %w", sess.ID, sess.Status, store.ErrSessionNotOpen)
	}
	start := kinds.InterviewStart(co.Slug, co.ID, sess.ID, sess.JobID, to)
	got, ws, err := l.Store.ExtendSession(ctx, store.ExtendSessionInput{
		CompanyID: co.ID, SessionID: sess.ID, From: sess.Status, To: to, By: by, Now: now, Start: start,
	})
	if err != nil {
		return nil, err
	}
	return l.launch(ctx, got, ws), nil
}

func (l *Lifecycle) launch(ctx context.Context, sess *models.InterviewSession, ws *models.WorkflowStart) *Change {
	c := &Change{Session: sess, WorkflowID: ws.WorkflowID}
	if l.Launcher == nil {
		c.LaunchErr = errors.New("no connection to Temporal")
		return c
	}
	if err := l.Launcher.Launch(ctx, ws); err != nil {
		c.LaunchErr = err
		return c
	}
	c.Launched = true
	return c
}
