package activities

import (
	"time"

	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// FlowContext is what a run needs: its definition (as stored) and the verdicts of its
// conditions over the facts in Postgres. The facts themselves (a candidate's name, e-mail,
// phone) never leave the activity, so no workflow history holds them.
type FlowContext struct {
	Definition json.RawMessage
	Version    int // 0 for the platform default
	Verdicts   flow.Verdicts
	// CandidateID and ApplicationID are the run's subjects: the input's, or its session's.
	CandidateID   uuid.UUID
	ApplicationID uuid.UUID
}

// LoadFlow reads the company's definition in force for the trigger, or the platform default when
// the company has none, and evaluates its conditions over the facts about the run's company,
// job, candidate and application.
func (a *Activities) LoadFlow(ctx context.Context, in kinds.FlowInput) (FlowContext, error) {
	fc, _, err := a.loadFlow(ctx, in)
	return fc, err
}

// loadFlow is LoadFlow, with the company's slug when the definition decodes ("" otherwise).
func (a *Activities) loadFlow(ctx context.Context, in kinds.FlowInput) (FlowContext, string, error) {
	var fc FlowContext
	if in.SessionID != uuid.Nil && (in.CandidateID == uuid.Nil || in.ApplicationID == uuid.Nil) {
		sess, err := a.Store.Session(ctx, in.CompanyID, in.SessionID)
		if err != nil {
			return fc, "", permanentIfMissing(err)
		}
		in.CandidateID = sess.CandidateID
		if sess.ApplicationID != nil {
			in.ApplicationID = *sess.ApplicationID
		}
	}
	fc.CandidateID, fc.ApplicationID = in.CandidateID, in.ApplicationID
	d, err := a.Store.FlowDefinition(ctx, in.CompanyID, in.Trigger)
	switch {
	case errors.Is(err, store.ErrNotFound):
		def, ok := flow.Defaults()[in.Trigger]
		if !ok {
			return fc, "", temporal.NewNonRetryableApplicationError("no default workflow for "+string(in.Trigger), ErrTypePermanent, nil)
		}
		if fc.Definition, err = json.Marshal(def); err != nil {
			return fc, "", err
		}
	case err != nil:
		return fc, "", err
	default:
		fc.Definition, fc.Version = d.Definition, d.Version
	}
	def, err := flow.Decode(fc.Definition)
	if err != nil {
		// The workflow reports the stored definition as invalid when it decodes it.
		return fc, "", nil
	}
	facts, slug, err := a.facts(ctx, in)
	if err != nil {
		return fc, "", err
	}
	fc.Verdicts = flow.Evaluate(def, facts)
	return fc, slug, nil
}

// facts reads the facts about the run's company, job, candidate and application, in one
// statement (store.FlowSubjects), and returns the company's slug with them.
func (a *Activities) facts(ctx context.Context, in kinds.FlowInput) (flow.Facts, string, error) {
	sub, err := a.Store.FlowSubjects(ctx, in.CompanyID, in.JobID, in.CandidateID, in.ApplicationID)
	if err != nil {
		return nil, "", err
	}
	f := flow.Facts{"company.slug": sub.CompanySlug, "company.name": sub.CompanyName, "trigger": string(in.Trigger)}
	if j := sub.Job; j != nil {
		f["job.id"], f["job.externalId"], f["job.interviewerId"] = j.ID.String(), j.ExternalID, j.InterviewerID
		f["job.title"], f["job.status"], f["job.isOpen"], f["job.isDeleted"] = j.Title, string(j.Status), j.IsOpen, j.IsDeleted
	}
	if c := sub.Candidate; c != nil {
		f["candidate.id"], f["candidate.firstName"], f["candidate.lastName"], f["candidate.status"] = c.ID.String(), c.FirstName, c.LastName, c.Status
		if c.Email != nil {
			f["candidate.email"] = *c.Email
		}
		if c.Phone != nil {
			f["candidate.phone"] = *c.Phone
		}
	}
	if app := sub.Application; app != nil {
		f["application.id"], f["application.source"], f["application.status"] = app.ID.String(), string(app.Source), app.Status
		f["application.doNotHire"] = false
	}
	if in.SessionID != uuid.Nil {
		f["session.id"] = in.SessionID.String()
	}
	return f, sub.CompanySlug, nil
}

// OpenSessionInput asks for an interview session of an application. FlowWorkflowID is the
// asking run's workflow id, which the session's completion signals (wait_for_session).
type OpenSessionInput struct {
	CompanyID      uuid.UUID
	ApplicationID  uuid.UUID
	MediumType     models.MediumType
	FlowWorkflowID string
}

// OpenSession creates the INVITED session an invite step delivers, for runs that start without
// one, with the start of its interview run; it returns the application's open session when one
// exists, so a retried activity does not create two.
func (a *Activities) OpenSession(ctx context.Context, in OpenSessionInput) (uuid.UUID, error) {
	if in.ApplicationID == uuid.Nil {
		return uuid.Nil, temporal.NewNonRetryableApplicationError("invite step without an application", ErrTypePermanent, nil)
	}
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return uuid.Nil, permanentIfMissing(err)
	}
	app, err := a.Store.Application(ctx, in.CompanyID, in.ApplicationID)
	if err != nil {
		return uuid.Nil, permanentIfMissing(err)
	}
	return a.openSession(ctx, co.Slug, co.InterviewExpirySeconds, app.JobID, in)
}

// openSession is OpenSession for the application of jobID, with the company's slug and
// interview expiry read by the caller.
func (a *Activities) openSession(ctx context.Context, slug string, expirySeconds int, jobID uuid.UUID, in OpenSessionInput) (uuid.UUID, error) {
	id := uuid.New()
	start := kinds.OpenedInterviewStart(slug, in.CompanyID, id, jobID)
	s, created, err := a.Store.OpenSession(ctx, store.OpenSessionInput{
		CompanyID: in.CompanyID, ApplicationID: in.ApplicationID, Medium: in.MediumType, SessionID: id,
		ExpiresAt: time.Now().UTC().Add(time.Duration(expirySeconds) * time.Second), FlowWorkflowID: in.FlowWorkflowID,
		Start: start,
	})
	if err != nil {
		return uuid.Nil, err
	}
	if created {
		a.atInvitation(ctx, &start, s)
		// A refused start is resumed by the reconciler (kinds.Interview.ResumeRefused).
		if err := a.Launcher.Launch(ctx, &start); err != nil {
			a.Log.WarnContext(ctx, "interview start deferred to the reconciler", "company", slug, "session_id", s.ID, "err", err)
		}
	}
	return s.ID, nil
}

// atInvitation does for a session just opened what its run's first round would: the
// invitation's integrity check (the start's input says it is made; a failure is logged, and
// the check at completion makes it again), and the look at its reminders and deadline, whose
// earliest holds the run's first task (start.NotBefore). A run started at invitation would
// only wake to wait; held, it wakes when the first reminder or the deadline is due, or when a
// change of the session signals it with a start (the candidate opens the link), which ends the
// hold. A look that fails leaves the start unheld: the run then looks itself.
func (a *Activities) atInvitation(ctx context.Context, start *models.WorkflowStart, s *models.InterviewSession) {
	svc := &integrity.Service{Store: a.Store}
	mobile := integrity.MobileExpected(s.MediumType)
	if _, err := svc.VerifyCandidate(ctx, s.CompanyID, s.CandidateID, integrity.VerifyInput{SessionID: &s.ID, MobileExpected: &mobile}); err != nil {
		a.Log.WarnContext(ctx, "integrity check at invitation failed; the check at completion makes it", "session_id", s.ID, "err", err)
	}
	now := time.Now().UTC()
	st, err := a.LoadInterview(ctx, InterviewAt{CompanyID: s.CompanyID, SessionID: s.ID, Now: now})
	if err != nil {
		a.Log.WarnContext(ctx, "session not read at invitation; its run looks itself", "session_id", s.ID, "err", err)
		return
	}
	if at, ok := st.NextWake(); ok && at.After(now) {
		start.NotBefore = &at
	}
}

// OpenSessionWhenReadyInput is OpenSessionInput for a job whose interview may not be ready:
// Waited says the run has waited for it already, GiveUp that its wait is over (a job still not
// ready then stops the invitation).
type OpenSessionWhenReadyInput struct {
	OpenSessionInput
	JobID          uuid.UUID
	Waited, GiveUp bool
}

// OpenSessionResult is the session an invitation goes out for, or why none was opened: Wait
// (the job's interview is not ready: wait up to WaitSeconds, the company's setting, for the
// job-ready signal) or NotSent (nothing will be sent: a code of interview.JobReady, also stored as
// the application's status).
type OpenSessionResult struct {
	SessionID   uuid.UUID
	Wait        bool
	WaitSeconds int
	NotSent     string
	Detail      string
}

// OpenSessionWhenReady opens the session as OpenSession does once the job's interview is ready
// (interview.JobReady). While it is not, it records the run among the job's waiters (the job's
// generation signals them) and answers Wait; past the wait, or for a job closed, deleted or
// paused meanwhile, it sets the application's status to the reason and answers NotSent.
func (a *Activities) OpenSessionWhenReady(ctx context.Context, in OpenSessionWhenReadyInput) (OpenSessionResult, error) {
	r, err := a.Store.InvitationReadiness(ctx, in.CompanyID, in.JobID)
	if err != nil {
		return OpenSessionResult{}, permanentIfMissing(err)
	}
	state, code, detail := interview.JobReady(&r.JobReadiness, in.Waited)
	if state == interview.ReadyLater && !in.GiveUp {
		if err := a.Store.WaitForJob(ctx, in.CompanyID, in.JobID, in.FlowWorkflowID); err != nil {
			return OpenSessionResult{}, err
		}
		return OpenSessionResult{Wait: true, WaitSeconds: r.InvitationWaitSeconds, Detail: detail}, nil
	}
	if in.Waited {
		if err := a.Store.StopWaitingForJob(ctx, in.CompanyID, in.FlowWorkflowID); err != nil {
			return OpenSessionResult{}, err
		}
	}
	if state != interview.ReadyNow {
		if in.ApplicationID != uuid.Nil {
			if err := a.Store.SetApplicationStatus(ctx, in.CompanyID, in.ApplicationID, code); err != nil {
				return OpenSessionResult{}, permanentIfMissing(err)
			}
		}
		a.Log.InfoContext(ctx, "invitation not sent", "job_id", in.JobID, "application_id", in.ApplicationID, "reason", code, "detail", detail)
		return OpenSessionResult{NotSent: code, Detail: detail}, nil
	}
	if in.ApplicationID == uuid.Nil {
		return OpenSessionResult{}, temporal.NewNonRetryableApplicationError("invite step without an application", ErrTypePermanent, nil)
	}
	// The run's job is its application's (the submission, delivery or sync that created the
	// application named it), so the application is not read again for it.
	id, err := a.openSession(ctx, r.CompanySlug, r.InterviewExpirySeconds, in.JobID, in.OpenSessionInput)
	return OpenSessionResult{SessionID: id}, err
}

// SessionStatus reads a session's status.
func (a *Activities) SessionStatus(ctx context.Context, companyID, sessionID uuid.UUID) (models.SessionStatus, error) {
	s, err := a.Store.Session(ctx, companyID, sessionID)
	if err != nil {
		return "", err
	}
	return s.Status, nil
}

// SetStatusInput is a set_status step with the run's subjects.
type SetStatusInput struct {
	CompanyID     uuid.UUID
	Target        string
	Status        string
	JobID         uuid.UUID
	CandidateID   uuid.UUID
	ApplicationID uuid.UUID
}

// SetStatus sets the status of the run's application, candidate or job.
func (a *Activities) SetStatus(ctx context.Context, in SetStatusInput) error {
	var err error
	switch in.Target {
	case flow.TargetApplication:
		err = a.Store.SetApplicationStatus(ctx, in.CompanyID, in.ApplicationID, in.Status)
	case flow.TargetCandidate:
		err = a.Store.SetCandidateStatus(ctx, in.CompanyID, in.CandidateID, in.Status)
	case flow.TargetJob:
		err = a.Store.SetJobStatus(ctx, in.CompanyID, in.JobID, models.JobStatus(in.Status))
	default:
		return temporal.NewNonRetryableApplicationError("unknown set_status target "+in.Target, ErrTypePermanent, nil)
	}
	if errors.Is(err, store.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("set %s status: %v", in.Target, err), ErrTypePermanent, err)
	}
	return err
}

// CancelSessionInput is a cancel_session step: the session of the run's latest invite and the
// step's reason (from the company's definition).
type CancelSessionInput struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Reason    string
}

// CancelSession cancels the session as a flow (interview.Lifecycle.Cancel, by "flow") and
// returns its status afterwards: CANCELLED (now or before), or the status of a session that
// ended otherwise, which stays as it is. An unknown session or a reason the rule refuses is
// permanent.
func (a *Activities) CancelSession(ctx context.Context, in CancelSessionInput) (models.SessionStatus, error) {
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return "", permanentIfMissing(err)
	}
	l := &interview.Lifecycle{Store: a.Store, Launcher: a.Launcher}
	ch, err := l.Cancel(ctx, co, in.SessionID, interview.Cancellation{By: store.CancelledByFlow, Reason: in.Reason})
	var ended *interview.EndedError
	switch {
	case errors.As(err, &ended):
		return ended.Status, nil
	case errors.Is(err, interview.ErrReasonMissing), errors.Is(err, interview.ErrReasonTooLong), errors.Is(err, interview.ErrReasonNotText):
		return "", temporal.NewNonRetryableApplicationError("cancel_session: "+err.Error(), ErrTypePermanent, err)
	case err != nil:
		return "", permanentIfMissing(err)
	}
	if ch.LaunchErr != nil {
		a.Log.WarnContext(ctx, "cancelled session's run not told yet; the reconciler will", "company", co.Slug, "session_id", in.SessionID, "err", ch.LaunchErr)
	}
	return ch.Session.Status, nil
}
