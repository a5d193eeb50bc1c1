package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// SessionCompletedSignal tells a run waiting in wait_for_session that its session is completed.
const SessionCompletedSignal = "session-completed"

// CustomerFlow runs the company's definition for the trigger (the platform default when the
// company has none) with flow.Run; every side effect is an activity.
func CustomerFlow(ctx workflow.Context, in kinds.FlowInput) (flow.Outcome, error) {
	defer dropLateSignals(ctx)
	var a *activities.Activities
	var fc activities.FlowContext
	v := localVersion(ctx)
	local := v >= 1
	var err error
	if local {
		err = workflow.ExecuteLocalActivity(shortLocal(ctx), a.LoadFlow, in).Get(ctx, &fc)
	} else {
		err = workflow.ExecuteActivity(shortActivity(ctx), a.LoadFlow, in).Get(ctx, &fc)
	}
	if err != nil {
		upsertOutcome(ctx, flow.ResultFailed)
		return flow.Outcome{Result: flow.ResultFailed, Reason: "load workflow definition"}, err
	}
	// Decode, not Parse: validation rules may tighten in later releases, and a running workflow's
	// replay must not depend on them. Definitions are validated when they are saved.
	def, err := flow.Decode(fc.Definition)
	if err != nil {
		upsertOutcome(ctx, flow.ResultFailed)
		return flow.Outcome{Result: flow.ResultFailed, Reason: "stored definition is invalid"}, temporal.NewNonRetryableApplicationError(err.Error(), activities.ErrTypePermanent, err)
	}
	if fc.CandidateID != uuid.Nil {
		in.CandidateID, in.ApplicationID = fc.CandidateID, fc.ApplicationID
	}
	ex := &executor{ctx: ctx, in: in, session: in.SessionID, local: local, merged: v >= mergedSteps}
	out, err := flow.Run(def, fc.Verdicts, ex)
	upsertOutcome(ctx, out.Result)
	return out, err
}

// dropLateSignals consumes the signals a run may still hold when it ends: a session's
// completion, which the session's run sends to the flow that invited it whether or not the flow
// waits for it (a manual invitation's run may still be sending when a fast candidate finishes),
// and a job's readiness, sent to every run that waited for the job, also one that has stopped
// waiting. An ending run has no use for either. It consumes them to say so; otherwise the SDK
// warns of unhandled signals. It records nothing in the history, so histories replay as they ran.
func dropLateSignals(ctx workflow.Context) {
	for _, name := range []string{SessionCompletedSignal, kinds.JobReadySignal} {
		ch := workflow.GetSignalChannel(ctx, name)
		for ch.ReceiveAsync(nil) {
		}
	}
}

// localActivitiesChange is the workflow version of runs whose quick steps (loading the
// definition, sending an invitation, setting a status, cancelling or reading a session,
// generating a job's interview) are local activities: no task-queue round trip each. Runs
// recorded before it replay with the activities they scheduled.
const localActivitiesChange = "local-activities"

// mergedSteps is version 2 of localActivitiesChange: consecutive quick steps are one local
// activity each, an invitation's opening, quiet hours and first send (OpenAndSendInvite) and a
// partner run's settlement and first callback attempt (SettleAndCallBack); and the versions of
// invite-waits-for-job (1), invite-quiet-hours (quietHoursOnlyTexts) and
// settled-attempts-callback (1) are implied, so those runs record no marker for them. Runs
// recorded before it replay with the steps they took.
const mergedSteps workflow.Version = 2

// localVersion is the run's version of localActivitiesChange in the workflows that merge steps
// (a customer flow's, a partner application's). The first call records it; later ones return it.
func localVersion(ctx workflow.Context) workflow.Version {
	return workflow.GetVersion(ctx, localActivitiesChange, workflow.DefaultVersion, mergedSteps)
}

// localActivities reports whether this run takes its steps as local activities
// (localActivitiesChange) in workflows without merged steps (an interview's, a job's
// generation). The first call records the run's version; later ones return it.
func localActivities(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, localActivitiesChange, workflow.DefaultVersion, 1) == 1
}

// shortLocal runs quick Postgres work as a local activity: no task-queue round trip per call,
// which is most of a short workflow's latency.
func shortLocal(ctx workflow.Context) workflow.Context {
	return localOptions(ctx, 30*time.Second, &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, NonRetryableErrorTypes: []string{activities.ErrTypePermanent}})
}

// shortActivity is for quick Postgres activities.
func shortActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute, NonRetryableErrorTypes: []string{activities.ErrTypePermanent}},
	})
}

// executor performs a run's side effects as activities, timers and signals. partner is set in
// partner-application runs, whose callbacks go through its one guarded terminal path; local in
// runs of localActivitiesChange, merged in its version mergedSteps.
type executor struct {
	ctx     workflow.Context
	in      kinds.FlowInput
	session uuid.UUID
	partner *terminal
	local   bool
	merged  bool
}

// quick runs a quick Postgres step: a local activity in runs of localActivitiesChange.
func (e *executor) quick(fn any, args ...any) workflow.Future {
	if e.local {
		return workflow.ExecuteLocalActivity(shortLocal(e.ctx), fn, args...)
	}
	return workflow.ExecuteActivity(shortActivity(e.ctx), fn, args...)
}

var _ flow.Executor = (*executor)(nil)

func (e *executor) Invite(step flow.InviteStep) (flow.InviteResult, error) {
	var a *activities.Activities
	chans, medium := step.Channels, step.MediumType
	if len(e.in.Channels) > 0 {
		chans = e.in.Channels
	}
	if e.in.MediumType != "" {
		medium = e.in.MediumType
	}
	retry := &temporal.RetryPolicy{
		InitialInterval: 2 * time.Second, MaximumAttempts: 3,
		NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
	}
	var first *activities.OpenAndSendResult
	if e.session == uuid.Nil {
		open := activities.OpenSessionInput{
			CompanyID: e.in.CompanyID, ApplicationID: e.in.ApplicationID, MediumType: medium,
			FlowWorkflowID: workflow.GetInfo(e.ctx).WorkflowExecution.ID,
		}
		openAtOnce := e.in.JobID == uuid.Nil
		if !e.merged {
			// Runs recorded before invitations waited for their job's interview replay as they ran.
			openAtOnce = workflow.GetVersion(e.ctx, inviteWaitsForJobChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion || openAtOnce
		}
		switch {
		case openAtOnce:
			if err := workflow.ExecuteLocalActivity(shortLocal(e.ctx), a.OpenSession, open).Get(e.ctx, &e.session); err != nil {
				return flow.InviteResult{}, err
			}
		case e.merged && len(chans) > 0:
			// The session, the quiet hours and the first channel's attempt in one step.
			r, err := e.openAndSend(open, chans[0], retry)
			if err != nil {
				return flow.InviteResult{}, err
			}
			notSent, err := e.openWhenReady(open, &r.OpenSessionResult)
			if err != nil || notSent != "" {
				return flow.InviteResult{NotSent: notSent}, err
			}
			if !r.Wait {
				first = &r
			}
		default:
			notSent, err := e.openWhenReady(open, nil)
			if err != nil || notSent != "" {
				return flow.InviteResult{NotSent: notSent}, err
			}
		}
	}
	// WaitForCancellation: a run cancelled while an invitation is being sent learns whether it
	// went out before it goes on (a partner run's fallback callback follows the invitation). A
	// local send runs in a context the cancellation does not reach, to the same effect.
	send := func(in activities.SendInviteInput, retry *temporal.RetryPolicy) workflow.Future {
		if e.local {
			ctx, _ := workflow.NewDisconnectedContext(e.ctx)
			ctx = localOptions(ctx, time.Minute, retry)
			return workflow.ExecuteLocalActivity(ctx, a.SendInvite, in)
		}
		ctx := workflow.WithActivityOptions(e.ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, WaitForCancellation: true, RetryPolicy: retry})
		return workflow.ExecuteActivity(ctx, a.SendInvite, in)
	}
	var tried []string
	for i, ch := range chans {
		in := activities.SendInviteInput{CompanyID: e.in.CompanyID, SessionID: e.session, Channel: ch}
		var err error
		if i == 0 && first != nil {
			var holdErr error
			if holdErr, err = e.afterFirst(first, in, retry, send); holdErr != nil {
				return flow.InviteResult{}, holdErr
			}
		} else {
			if err := e.holdForQuietHours(ch); err != nil {
				return flow.InviteResult{}, err
			}
			err = send(in, retry).Get(e.ctx, nil)
		}
		if err == nil {
			return flow.InviteResult{SessionID: e.session.String(), Channel: string(ch)}, nil
		}
		tried = append(tried, string(ch))
		workflow.GetLogger(e.ctx).Warn("invitation channel failed; falling back", "channel", ch, "err", err)
	}
	return flow.InviteResult{}, temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("no channel delivered the invitation (tried %s)", strings.Join(tried, ", ")), activities.ErrTypePermanent, nil)
}

// inviteQuietHoursChange is the workflow version of invitations by text or call that wait for
// the end of the candidate's quiet hours: version 1 asks QuietUntil for every channel, version
// quietHoursOnlyTexts only for the channels quiet hours hold (activities.QuietHoursHold), so an
// e-mail invitation runs no local activity for it.
const inviteQuietHoursChange = "invite-quiet-hours"

// quietHoursOnlyTexts is the version of inviteQuietHoursChange that skips the channels quiet
// hours never hold.
const quietHoursOnlyTexts = 2

// holdForQuietHours waits (a durable timer) until an invitation on ch may go: texts and calls
// wait for the end of the candidate's quiet hours, as reminders do (activities.QuietUntil).
func (e *executor) holdForQuietHours(ch models.MessageChannel) error {
	v := workflow.Version(quietHoursOnlyTexts)
	if !e.merged {
		v = workflow.GetVersion(e.ctx, inviteQuietHoursChange, workflow.DefaultVersion, quietHoursOnlyTexts)
	}
	if v == workflow.DefaultVersion || (v == quietHoursOnlyTexts && !activities.QuietHoursHold(ch)) {
		return nil
	}
	var a *activities.Activities
	now := workflow.Now(e.ctx)
	var until time.Time
	if err := workflow.ExecuteLocalActivity(shortLocal(e.ctx), a.QuietUntil, activities.QuietUntilInput{
		CompanyID: e.in.CompanyID, SessionID: e.session, Channel: ch, Now: now,
	}).Get(e.ctx, &until); err != nil {
		return err
	}
	if d := until.Sub(now); d > 0 {
		workflow.GetLogger(e.ctx).Info("invitation waits for the candidate's quiet hours to end", "channel", ch, "until", until)
		return workflow.Sleep(e.ctx, d)
	}
	return nil
}

// inviteWaitsForJobChange is the workflow version of invitations that wait for their job's
// interview (OpenSessionWhenReady) instead of opening a session at once.
const inviteWaitsForJobChange = "invite-waits-for-job"

// Bounds of the looks an invitation takes at a job that is not ready between job-ready signals
// (a lost signal, a job closed or paused meanwhile): doubling from the first to the last.
const (
	jobLookFirst = 30 * time.Second
	jobLookLast  = 30 * time.Minute
)

// openAndSend runs OpenAndSendInvite for the run's first channel ch. It runs in a context the
// run's cancellation does not reach, as a send does (a partner run's fallback callback follows
// the invitation).
func (e *executor) openAndSend(open activities.OpenSessionInput, ch models.MessageChannel, retry *temporal.RetryPolicy) (activities.OpenAndSendResult, error) {
	var a *activities.Activities
	ctx, _ := workflow.NewDisconnectedContext(e.ctx)
	ctx = localOptions(ctx, time.Minute, &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, NonRetryableErrorTypes: retry.NonRetryableErrorTypes})
	var r activities.OpenAndSendResult
	err := workflow.ExecuteLocalActivity(ctx, a.OpenAndSendInvite, activities.OpenAndSendInput{
		OpenSessionWhenReadyInput: activities.OpenSessionWhenReadyInput{OpenSessionInput: open, JobID: e.in.JobID},
		Channel:                   ch, Now: workflow.Now(e.ctx),
	}).Get(e.ctx, &r)
	return r, err
}

// errFirstAttempt is a first channel's attempt in OpenAndSendInvite that failed for good.
var errFirstAttempt = errors.New("the first attempt failed for good")

// afterFirst goes on from where OpenAndSendInvite stopped on the first channel: the attempt's
// retries under its send key (the rest of retry's attempts), the quiet hours asked again, or the
// send after them. holdErr is the quiet hours' (the run's invitation ends, as in
// holdForQuietHours: a run cancelled while held sends nothing), sendErr the channel's.
func (e *executor) afterFirst(r *activities.OpenAndSendResult, in activities.SendInviteInput, retry *temporal.RetryPolicy,
	send func(activities.SendInviteInput, *temporal.RetryPolicy) workflow.Future) (holdErr, sendErr error) {
	switch {
	case r.Sent:
		return nil, nil
	case r.SendFailed && r.Permanent:
		return nil, errFirstAttempt
	case r.SendFailed:
		rest := *retry
		if rest.MaximumAttempts > 1 {
			rest.MaximumAttempts--
		}
		in.SendKey = r.SendKey
		return nil, send(in, &rest).Get(e.ctx, nil)
	case r.QuietUnknown:
		if err := e.holdForQuietHours(in.Channel); err != nil {
			return err, nil
		}
	default:
		if d := r.HeldUntil.Sub(workflow.Now(e.ctx)); d > 0 {
			workflow.GetLogger(e.ctx).Info("invitation waits for the candidate's quiet hours to end", "channel", in.Channel, "until", r.HeldUntil)
			if err := workflow.Sleep(e.ctx, d); err != nil {
				return err, nil
			}
		}
	}
	return nil, send(in, retry).Get(e.ctx, nil)
}

// openWhenReady opens the run's session once its job's interview is ready: while it is not, the
// run waits (durably) for the job-ready signal that the job's generation sends, looking again
// now and then, up to the company's invitation wait. It returns why nothing is sent when the
// job was closed, deleted or paused meanwhile, or is still not ready at the end of the wait.
// first is the first look's answer when the run has it already (OpenAndSendInvite's).
func (e *executor) openWhenReady(open activities.OpenSessionInput, first *activities.OpenSessionResult) (notSent string, err error) {
	var a *activities.Activities
	in := activities.OpenSessionWhenReadyInput{OpenSessionInput: open, JobID: e.in.JobID}
	var res activities.OpenSessionResult
	if first != nil {
		res = *first
	} else if err := workflow.ExecuteLocalActivity(shortLocal(e.ctx), a.OpenSessionWhenReady, in).Get(e.ctx, &res); err != nil {
		return "", err
	}
	if res.Wait {
		deadline := workflow.Now(e.ctx).Add(time.Duration(res.WaitSeconds) * time.Second)
		ready := workflow.GetSignalChannel(e.ctx, kinds.JobReadySignal)
		look := jobLookFirst
		workflow.GetLogger(e.ctx).Info("invitation waits for the job's interview", "job_id", e.in.JobID, "until", deadline)
		for res.Wait {
			if !workflow.Now(e.ctx).Before(deadline) {
				in.GiveUp = true
			} else {
				timerCtx, cancel := workflow.WithCancel(e.ctx)
				sel := workflow.NewSelector(e.ctx)
				sel.AddReceive(ready, func(c workflow.ReceiveChannel, _ bool) {
					for c.ReceiveAsync(nil) {
					}
				})
				sel.AddFuture(workflow.NewTimer(timerCtx, min(look, deadline.Sub(workflow.Now(e.ctx)))), func(workflow.Future) {})
				sel.Select(e.ctx)
				cancel()
				look = min(2*look, jobLookLast)
			}
			in.Waited = true
			if err := workflow.ExecuteLocalActivity(shortLocal(e.ctx), a.OpenSessionWhenReady, in).Get(e.ctx, &res); err != nil {
				return "", err
			}
		}
	}
	if res.NotSent != "" {
		return res.NotSent, nil
	}
	e.session = res.SessionID
	return "", nil
}

func (e *executor) Sleep(d time.Duration) error { return workflow.Sleep(e.ctx, d) }

func (e *executor) WaitForSession(sessionID string, timeout time.Duration) (bool, error) {
	done := false
	sel := workflow.NewSelector(e.ctx)
	sel.AddReceive(workflow.GetSignalChannel(e.ctx, SessionCompletedSignal), func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(e.ctx, nil)
		done = true
	})
	timerCtx, cancel := workflow.WithCancel(e.ctx)
	defer cancel()
	sel.AddFuture(workflow.NewTimer(timerCtx, timeout), func(workflow.Future) {})
	sel.Select(e.ctx)
	if done {
		return true, nil
	}
	// A completion that was not signalled still counts.
	id, err := uuid.Parse(sessionID)
	if err != nil {
		return false, err
	}
	var a *activities.Activities
	var status models.SessionStatus
	if err := e.quick(a.SessionStatus, e.in.CompanyID, id).Get(e.ctx, &status); err != nil {
		return false, err
	}
	return status == models.SessionStatusCompleted, nil
}

// errNoPartnerCallback: only partner_application definitions may send callbacks, and those run in
// the partner-application workflow.
var errNoPartnerCallback = errors.New("partner callbacks are sent only by partner-application runs")

func (e *executor) PartnerCallback(status, reason, sessionID string) error {
	if e.partner == nil {
		return errNoPartnerCallback
	}
	var session uuid.UUID
	if sessionID != "" {
		id, err := uuid.Parse(sessionID)
		if err != nil {
			return err
		}
		session = id
	}
	return e.partner.decide(e.ctx, status, reason, session)
}

func (e *executor) SetStatus(target, status string) error {
	var a *activities.Activities
	return e.quick(a.SetStatus, activities.SetStatusInput{
		CompanyID: e.in.CompanyID, Target: target, Status: status,
		JobID: e.in.JobID, CandidateID: e.in.CandidateID, ApplicationID: e.in.ApplicationID,
	}).Get(e.ctx, nil)
}

func (e *executor) Log(stepIndex int, stepID, message string) {
	workflow.GetLogger(e.ctx).Info("workflow step", "trigger", e.in.Trigger, "step", stepIndex, "id", stepID, "message", message)
}

// CancelSession withdraws the session of the latest invite (a cancel_session step) through the
// CancelSession activity, which tells the session's run: its reminders stop.
func (e *executor) CancelSession(sessionID, reason string) (models.SessionStatus, error) {
	id, err := uuid.Parse(sessionID)
	if err != nil {
		return "", err
	}
	var a *activities.Activities
	var status models.SessionStatus
	err = e.quick(a.CancelSession, activities.CancelSessionInput{
		CompanyID: e.in.CompanyID, SessionID: id, Reason: reason,
	}).Get(e.ctx, &status)
	return status, err
}
