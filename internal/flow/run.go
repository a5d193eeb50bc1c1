package flow

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/recruitd/recruitd/models"
)

// Results of a run (Outcome.Result).
const (
	ResultCompleted   = "completed"    // every step ran
	ResultNotEligible = "not_eligible" // a step ended the run with outcome not_eligible
	ResultStopped     = "stopped"      // a step ended the run with outcome stop, or the definition is disabled
	ResultFailed      = "failed"       // an executor call failed or a step could not run; Run returns the error
)

// CallbackRecord is a partner callback the executor sent for the run; SessionID names the
// session whose interview link an "invited" callback carries (the link itself never enters the
// run: it opens the interview).
type CallbackRecord struct {
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// Outcome is how a run ended. Callback is set only when the executor confirmed the callback, so
// a partner_application run whose Outcome has no Callback needs the platform's fallback
// callback: "not_eligible" with reason workflow_completed_without_callback after a completed,
// stopped or disabled run, "error" after a failed one. StepsRun counts the steps started,
// including the one that ended the run.
type Outcome struct {
	Result   string          `json:"result"`
	Reason   string          `json:"reason,omitempty"`
	Callback *CallbackRecord `json:"callback,omitempty"`
	StepsRun int             `json:"stepsRun"`
}

// InviteResult is the interview session an invite created and the channel that delivered it,
// or, with NotSent set (a short code such as job_not_ready), why no invitation was sent: the run
// then ends as not_eligible in partner_application runs (the partner callback carries the code)
// and stopped in others, with NotSent as its reason.
type InviteResult struct {
	SessionID string `json:"sessionId"`
	Channel   string `json:"channel"`
	NotSent   string `json:"notSent,omitempty"`
}

// Executor performs the side effects of a run; the caller implements it over workflow.Context
// (activities, timers, signals). Every method is called from the workflow goroutine, in step
// order. A returned error ends the run as failed.
type Executor interface {
	// Invite invites the run's candidate, trying step.Channels in order until one delivers.
	Invite(step InviteStep) (InviteResult, error)
	// Sleep waits d (a durable timer).
	Sleep(d time.Duration) error
	// WaitForSession waits until the session is completed or timeout passes.
	WaitForSession(sessionID string, timeout time.Duration) (completed bool, err error)
	// PartnerCallback sends the run's partner callback; an "invited" one carries the interview
	// link of sessionID ("" otherwise). Run calls it at most once per run; the executor still
	// guarantees at most one per application (repeats, fallback).
	PartnerCallback(status, reason, sessionID string) error
	// SetStatus sets the status of the run's application, candidate or job (target).
	SetStatus(target, status string) error
	// CancelSession cancels the session with reason and returns its status afterwards:
	// CANCELLED, or the status of a session that had ended otherwise (left as it is).
	CancelSession(sessionID, reason string) (models.SessionStatus, error)
	// Log records a step's progress for the run's history. Messages carry no contact details
	// and no interview links.
	Log(stepIndex int, stepID, message string)
}

// Run executes d's steps in order with ex and reports how the run ended.
//
// A disabled definition returns Result "stopped", Reason "definition disabled" without calling
// ex. A false condition and a session not completed in time end the run as their action says;
// in partner_application runs "not_eligible" also sends the partner callback unless one was
// sent already. After a callback the run goes on, but later partner_callback steps are only
// logged. An executor error ends the run with Result "failed" and is returned, wrapped with
// the step.
//
// Conditions read verdicts (see Evaluate) for every fact but the session facts Run makes
// itself: each invite sets session.id, session.channel and session.interviewLink (true: the
// link exists; the link itself stays out of the run), each wait_for_session session.completed.
//
// Run does not call Validate, so that a rule added later never changes the replay of a
// workflow already running; validate definitions when storing and loading them. A step Run
// cannot execute (its object missing, an unreadable duration, an invited callback without an
// invite) fails the run.
func Run(d *Definition, verdicts Verdicts, ex Executor) (Outcome, error) {
	if d == nil || ex == nil {
		err := errors.New("run workflow: definition and executor are required")
		return Outcome{Result: ResultFailed, Reason: err.Error()}, err
	}
	if !d.Enabled {
		return Outcome{Result: ResultStopped, Reason: "definition disabled"}, nil
	}
	r := &runner{d: d, ex: ex, verdicts: verdicts, facts: Facts{}}
	for i, s := range d.Steps {
		r.out.StepsRun = i + 1
		r.index, r.stepID = i, s.ID
		done, err := r.step(s)
		if err != nil {
			err = fmt.Errorf("%s %s: %w", stepLabel(i, s.ID), s.Type, err)
			r.out.Result, r.out.Reason = ResultFailed, err.Error()
			return r.out, err
		}
		if done {
			return r.out, nil
		}
	}
	r.out.Result = ResultCompleted
	return r.out, nil
}

// stepLabel names a step in errors: `steps[2] (id "invite")`.
func stepLabel(i int, id string) string {
	if id == "" {
		return fmt.Sprintf("steps[%d]", i)
	}
	return fmt.Sprintf("steps[%d] (id %q)", i, id)
}

type runner struct {
	d        *Definition
	ex       Executor
	verdicts Verdicts
	facts    Facts // the session facts the run set
	out      Outcome
	session  *InviteResult // of the latest invite

	index  int
	stepID string
}

func (r *runner) log(format string, args ...any) {
	r.ex.Log(r.index, r.stepID, fmt.Sprintf(format, args...))
}

var errNoObject = errors.New("the step's object is missing")

// step runs s and reports whether it ended the run.
func (r *runner) step(s Step) (done bool, err error) {
	switch s.Type {
	case StepCondition:
		if s.Condition == nil {
			return false, errNoObject
		}
		ok, why, err := s.Condition.evalWith(func(group string, j int, p Predicate) (bool, error) {
			if isRunFact(p.Field) {
				return p.eval(r.facts)
			}
			v, found := r.verdicts[verdictKey(r.index, group, j)]
			switch {
			case !found:
				return false, fmt.Errorf("predicate %s was not evaluated", p)
			case v.Err != "":
				return false, errors.New(v.Err)
			}
			return v.OK, nil
		})
		if err != nil {
			return false, err
		}
		if ok {
			r.log("condition true")
			return false, nil
		}
		r.log("condition false: %s", why)
		return r.end(s.Condition.OnFalse, false, "condition false: "+why)

	case StepInvite:
		if s.Invite == nil {
			return false, errNoObject
		}
		step := *s.Invite
		step.Channels = slices.Clone(step.Channels)
		res, err := r.ex.Invite(step)
		if err != nil {
			return false, err
		}
		if res.NotSent != "" {
			r.log("invitation not sent: %s", res.NotSent)
			end := &EndAction{Outcome: OutcomeStop, Reason: res.NotSent}
			if r.d.Trigger == models.TriggerPartnerApplication {
				end.Outcome = OutcomeNotEligible
			}
			return r.end(end, false, res.NotSent)
		}
		if res.SessionID == "" {
			return false, errors.New("the executor returned no session id")
		}
		r.session = &res
		r.facts[FactSessionID] = res.SessionID
		r.facts[FactSessionInterviewLink] = true
		r.facts[FactSessionChannel] = res.Channel
		delete(r.facts, FactSessionCompleted)
		r.log("invited by %s to session %s", res.Channel, res.SessionID)
		return false, nil

	case StepWait:
		if s.Wait == nil {
			return false, errNoObject
		}
		d, err := positive(s.Wait.Duration)
		if err != nil {
			return false, err
		}
		r.log("waiting %s", s.Wait.Duration)
		return false, r.ex.Sleep(d)

	case StepWaitForSession:
		w := s.WaitForSession
		if w == nil {
			return false, errNoObject
		}
		if r.session == nil {
			return false, errors.New("no invite step ran before it")
		}
		timeout, err := positive(w.Timeout)
		if err != nil {
			return false, err
		}
		r.log("waiting up to %s for session %s", w.Timeout, r.session.SessionID)
		completed, err := r.ex.WaitForSession(r.session.SessionID, timeout)
		if err != nil {
			return false, err
		}
		r.facts[FactSessionCompleted] = completed
		if completed {
			r.log("session %s completed", r.session.SessionID)
			return false, nil
		}
		r.log("session %s not completed within %s", r.session.SessionID, w.Timeout)
		return r.end(w.OnTimeout, true, fmt.Sprintf("session not completed within %s", w.Timeout))

	case StepPartnerCallback:
		pc := s.PartnerCallback
		if pc == nil {
			return false, errNoObject
		}
		if r.d.Trigger != models.TriggerPartnerApplication {
			return false, fmt.Errorf("partner callbacks belong to %s runs, not %s", models.TriggerPartnerApplication, r.d.Trigger)
		}
		if r.out.Callback != nil {
			r.log("partner callback %q not sent: %q was sent already", pc.Status, r.out.Callback.Status)
			return false, nil
		}
		switch pc.Status {
		case CallbackInvited:
			if r.session == nil {
				return false, errors.New(`callback "invited" needs the interview link of an invite step before it`)
			}
			return false, r.callback(pc.Status, pc.Reason, r.session.SessionID)
		case CallbackNotEligible:
			return false, r.callback(pc.Status, pc.Reason, "")
		}
		return false, fmt.Errorf("unknown callback status %q", pc.Status)

	case StepSetStatus:
		ss := s.SetStatus
		if ss == nil {
			return false, errNoObject
		}
		if err := r.ex.SetStatus(ss.Target, ss.Status); err != nil {
			return false, err
		}
		r.log("%s status set to %q", ss.Target, ss.Status)
		return false, nil

	case StepCancelSession:
		cs := s.CancelSession
		if cs == nil {
			return false, errNoObject
		}
		if r.session == nil {
			return false, errors.New("no invite step ran before it")
		}
		status, err := r.ex.CancelSession(r.session.SessionID, cs.Reason)
		if err != nil {
			return false, err
		}
		if status == models.SessionStatusCancelled {
			r.log("session %s cancelled", r.session.SessionID)
		} else {
			r.log("session %s not cancelled: it is %s", r.session.SessionID, status)
		}
		return false, nil
	}
	return false, fmt.Errorf("unknown step type %q", s.Type)
}

// end applies an onFalse (allowContinue false) or onTimeout action; why is the reason when the
// action has none.
func (r *runner) end(a *EndAction, allowContinue bool, why string) (done bool, err error) {
	if a == nil {
		return false, errors.New("the step has no outcome action")
	}
	reason := a.Reason
	if reason == "" {
		reason = why
	}
	switch {
	case a.Outcome == OutcomeContinue && allowContinue:
		return false, nil
	case a.Outcome == OutcomeStop:
		r.out.Result, r.out.Reason = ResultStopped, reason
		return true, nil
	case a.Outcome == OutcomeNotEligible:
		r.out.Result, r.out.Reason = ResultNotEligible, reason
		if r.d.Trigger != models.TriggerPartnerApplication {
			return true, nil
		}
		if r.out.Callback != nil {
			r.log("not_eligible not reported to the partner: %q was sent already", r.out.Callback.Status)
			return true, nil
		}
		return true, r.callback(CallbackNotEligible, a.Reason, "")
	}
	return false, fmt.Errorf("unknown outcome %q", a.Outcome)
}

func (r *runner) callback(status, reason, sessionID string) error {
	if err := r.ex.PartnerCallback(status, reason, sessionID); err != nil {
		return err
	}
	r.out.Callback = &CallbackRecord{Status: status, Reason: reason, SessionID: sessionID}
	r.log("partner callback %q sent", status)
	return nil
}

// positive parses a step's duration, which must be above zero.
func positive(d Duration) (time.Duration, error) {
	std, err := d.Std()
	if err != nil {
		return 0, err
	}
	if std <= 0 {
		return 0, fmt.Errorf("duration %q is not positive", d)
	}
	return std, nil
}
