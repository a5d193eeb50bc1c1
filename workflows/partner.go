package workflows

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// versionFallbackStopsFlow marks runs whose fallback timeout stops the customer workflow
// before its callback.
const versionFallbackStopsFlow = "fallback-stops-flow"

// Reasons of platform-sent callbacks.
const (
	ReasonWithoutCallback = "workflow_completed_without_callback"
	ReasonFallbackTimeout = "fallback_timeout"
	ReasonProcessing      = "processing_failed"
)

// PartnerResult is how a run ended.
type PartnerResult struct {
	Status string // the terminal callback's status
	Reason string
	Flow   flow.Outcome
}

// terminal is the one guarded path to an application's terminal callback: the first decision
// wins, later ones are logged and dropped, so each application gets exactly one.
type terminal struct {
	in      kinds.PartnerInput
	slug    string
	decided bool
	// closed is set when the deadline passed with nothing decided: the customer workflow is
	// being stopped and may decide nothing any more.
	closed bool
	// merged: the run is of mergedSteps, which settles and makes the first attempt in one step.
	merged bool
	result PartnerResult
	done   workflow.Channel
}

// decide settles the application; session names the session whose interview link an
// "invited" callback carries (uuid.Nil otherwise).
func (t *terminal) decide(ctx workflow.Context, status, reason string, session uuid.UUID) error {
	if t.decided || t.closed {
		workflow.GetLogger(ctx).Info("terminal callback already decided; dropping", "status", status, "reason", reason)
		return nil
	}
	return t.settle(ctx, status, reason, session)
}

// settle makes the decision: the one terminal callback, its first attempt here and the
// retries in a child workflow.
func (t *terminal) settle(ctx workflow.Context, status, reason string, session uuid.UUID) error {
	t.decided = true
	t.result.Status, t.result.Reason = status, reason
	defer t.done.Close()
	var a *activities.Activities
	in := activities.SettleInput{
		CompanyID: t.in.CompanyID, PartnerApplicationID: t.in.PartnerApplicationID,
		Status: models.PartnerStatus(status), Reason: reason, SessionID: session,
	}
	var settled activities.SettleResult
	var first activities.AttemptResult
	attempted := false
	if t.merged {
		// The decision and the first attempt in one step; an attempt it could not make is made
		// below. A run that finds its application settled (its worker died before the callback)
		// attempts too: the callback's own state keeps it to one.
		var r activities.SettleCallBackResult
		if err := workflow.ExecuteLocalActivity(attemptLocal(ctx), a.SettleAndCallBack, in).Get(ctx, &r); err != nil {
			return err
		}
		settled, first, attempted = r.SettleResult, r.Attempt, r.Attempted
		t.upsertStatus(ctx, status)
	} else {
		if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.SettlePartner, in).Get(ctx, &settled); err != nil {
			return err
		}
		t.upsertStatus(ctx, status)
		// Already settled: this run's own decision, stored by a worker that died before the callback
		// went out (only the application's run settles it). The attempt leaves a callback that is no
		// longer pending alone, and a delivery run already under way keeps its ID, so the callback
		// goes out at least once and under one id. Runs recorded before replay as they ran.
		if settled.AlreadySettled && workflow.GetVersion(ctx, settledAttemptsChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return nil
		}
	}
	// The first attempt runs here, so a partner that answers at once gets the callback without a
	// child workflow's start; only a failed first attempt hands the retries to DeliverCallback.
	// A first attempt that could not even run (its recording failed for an hour) leaves the
	// delivery to the child from attempt 1: the decision is stored, the callback still goes.
	next := 2
	if !attempted {
		if err := workflow.ExecuteLocalActivity(attemptLocal(ctx), a.AttemptCallback, activities.AttemptInput{
			CompanyID: t.in.CompanyID, CallbackID: settled.CallbackID, Number: 1,
		}).Get(ctx, &first); err != nil {
			workflow.GetLogger(ctx).Warn("first callback attempt not made; the delivery workflow makes it", "err", err)
			first, next = activities.AttemptResult{}, 1
		}
	}
	if first.Final {
		return nil
	}
	fut := workflow.ExecuteChildWorkflow(callbackChild(ctx, t.slug, settled.CallbackID), DeliverCallback, kinds.CallbackInput{
		CompanyID: t.in.CompanyID, CallbackID: settled.CallbackID, FirstAttempt: next, FirstDelay: first.NextDelay,
	})
	err := fut.GetChildWorkflowExecution().Get(ctx, nil)
	var started *temporal.ChildWorkflowExecutionAlreadyStartedError
	if settled.AlreadySettled && errors.As(err, &started) {
		return nil
	}
	return err
}

// upsertStatus records the terminal status as the run's search attribute.
func (t *terminal) upsertStatus(ctx workflow.Context, status string) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, kinds.ApplicationStatusKey.ValueSet(status)); err != nil {
		workflow.GetLogger(ctx).Warn("search attribute not recorded", "err", err)
	}
}

// settledAttemptsChange is the workflow version of runs that attempt their callback when they
// find their application settled already (a crash between the decision and its callback)
// instead of taking the callback as sent.
const settledAttemptsChange = "settled-attempts-callback"

// PartnerApplication runs the company's partner_application workflow for one applicant and sends
// exactly one terminal callback: the one the definition sends; not_eligible with reason
// workflow_completed_without_callback when it ends without one; not_eligible with reason
// fallback_timeout when nothing is decided within the company's deadline; error (and an alert to
// the company's operations contact) when processing fails. The customer workflow may go on after
// its own callback, but no second callback is ever sent.
//
// The fallback timeout's verdict is final for the candidate too: the customer workflow is
// cancelled first, and the callback is decided only once it has stopped (an invitation being
// sent at that moment is waited for), so the candidate is never contacted after the partner was
// told not_eligible. The run's result records the workflow as stopped with reason
// fallback_timeout.
func PartnerApplication(ctx workflow.Context, in kinds.PartnerInput) (PartnerResult, error) {
	defer dropLateSignals(ctx)
	var a *activities.Activities
	var run activities.PartnerRun
	v := localVersion(ctx)
	local := v >= 1
	err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.PreparePartner, activities.PrepareInput{
		CompanyID: in.CompanyID, PartnerApplicationID: in.PartnerApplicationID,
	}).Get(ctx, &run)
	t := &terminal{in: in, slug: run.CompanySlug, merged: v >= mergedSteps, done: workflow.NewChannel(ctx)}
	if err != nil {
		return t.fail(ctx, err)
	}

	flowCtx, cancelFlow := workflow.WithCancel(ctx)
	defer cancelFlow()
	flowDone, setFlow := workflow.NewFuture(ctx)
	workflow.Go(flowCtx, func(gctx workflow.Context) {
		def, derr := flow.Decode(run.Flow.Definition)
		if derr != nil {
			setFlow.Set(flow.Outcome{Result: flow.ResultFailed, Reason: "stored definition is invalid"}, derr)
			return
		}
		ex := &executor{ctx: gctx, partner: t, local: local, merged: t.merged, in: kinds.FlowInput{
			CompanyID: in.CompanyID, Trigger: models.TriggerPartnerApplication,
			JobID: run.JobID, CandidateID: run.CandidateID, ApplicationID: run.ApplicationID,
		}}
		setFlow.Set(flow.Run(def, run.Flow.Verdicts, ex))
	})

	deadline := in.Deadline
	if deadline <= 0 {
		deadline = 10 * time.Minute
	}
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	var out flow.Outcome
	var flowErr error
	flowFinished := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(flowDone, func(f workflow.Future) { flowFinished, flowErr = true, f.Get(ctx, &out) })
	sel.AddFuture(workflow.NewTimer(timerCtx, deadline), func(workflow.Future) {})
	sel.AddReceive(t.done, func(workflow.ReceiveChannel, bool) {})
	sel.Select(ctx)

	if !flowFinished && !t.decided {
		if workflow.GetVersion(ctx, versionFallbackStopsFlow, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			// Runs that passed their deadline before the flow was stopped replay as they ran.
			if err := t.decide(ctx, string(models.PartnerStatusNotEligible), ReasonFallbackTimeout, uuid.Nil); err != nil {
				return t.result, err
			}
		} else {
			t.closed = true
			cancelFlow()
			_ = flowDone.Get(ctx, nil)
			flowFinished, flowErr = true, nil
			out = flow.Outcome{Result: flow.ResultStopped, Reason: ReasonFallbackTimeout}
			workflow.GetLogger(ctx).Info("customer workflow stopped at the fallback deadline; the candidate is not contacted", "application_id", in.PartnerApplicationID)
			if err := t.settle(ctx, string(models.PartnerStatusNotEligible), ReasonFallbackTimeout, uuid.Nil); err != nil {
				return t.result, err
			}
		}
	}
	if !flowFinished {
		flowErr = flowDone.Get(ctx, &out)
	}
	t.result.Flow = out
	upsertOutcome(ctx, out.Result)
	switch {
	case flowErr != nil && !t.decided:
		return t.fail(ctx, flowErr)
	case !t.decided:
		if err := t.decide(ctx, string(models.PartnerStatusNotEligible), ReasonWithoutCallback, uuid.Nil); err != nil {
			return t.result, err
		}
	}
	return t.result, nil
}

// fail settles the application as error and alerts the company's operations contact.
func (t *terminal) fail(ctx workflow.Context, cause error) (PartnerResult, error) {
	workflow.GetLogger(ctx).Error("partner application could not be processed", "application_id", t.in.PartnerApplicationID, "err", cause)
	var a *activities.Activities
	alert := workflow.ExecuteActivity(shortActivity(ctx), a.AlertOperations, activities.AlertInput{
		CompanyID: t.in.CompanyID, PartnerApplicationID: t.in.PartnerApplicationID, Problem: cause.Error(),
	})
	if err := t.decide(ctx, string(models.PartnerStatusError), ReasonProcessing, uuid.Nil); err != nil {
		return t.result, err
	}
	if err := alert.Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("operations alert not sent", "err", err)
	}
	return t.result, nil
}

// attemptLocal runs a callback attempt as a local activity: one bounded HTTP request.
func attemptLocal(ctx workflow.Context) workflow.Context {
	return localOptions(ctx, time.Minute, &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, NonRetryableErrorTypes: []string{activities.ErrTypePermanent}})
}

// DeliverCallback delivers one callback at least once: an attempt now, then on the retry schedule
// (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, with jitter, longer when the receiver
// asks with Retry-After) until a 2xx, a 410, or the schedule's end. Every attempt is recorded.
func DeliverCallback(ctx workflow.Context, in kinds.CallbackInput) (string, error) {
	var a *activities.Activities
	attempt := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute, NonRetryableErrorTypes: []string{activities.ErrTypePermanent}},
	})
	if in.FirstDelay > 0 {
		if err := workflow.Sleep(ctx, in.FirstDelay); err != nil {
			return "", err
		}
	}
	for n := max(in.FirstAttempt, 1); ; n++ {
		var r activities.AttemptResult
		if err := workflow.ExecuteActivity(attempt, a.AttemptCallback, activities.AttemptInput{CompanyID: in.CompanyID, CallbackID: in.CallbackID, Number: n, Redeliver: in.Redeliver}).Get(ctx, &r); err != nil {
			return "", err
		}
		if r.Final {
			upsertOutcome(ctx, string(r.State))
			return string(r.State), nil
		}
		if err := workflow.Sleep(ctx, r.NextDelay); err != nil {
			return "", err
		}
	}
}
