package workflows

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
)

// AssessmentLinkResult counts what a run did: links sent, links replaced before they went out,
// links no channel delivered.
type AssessmentLinkResult struct {
	Sent, Skipped, Failed int
}

// assessmentRounds bounds the rounds of one run before it continues as new, so a run that keeps
// receiving pushes keeps a short history.
const assessmentRounds = 100

// AssessmentLinkDelivery sends the application's current assessment link to the candidate if it
// has not been sent, then ends, unless a push signalled meanwhile: then it looks again. Every
// round reads Postgres, so a signal is only a nudge; a push whose signal was lost is picked up by
// the next run (the outbox reconciler or a later push starts one).
func AssessmentLinkDelivery(ctx workflow.Context, in kinds.AssessmentLinkInput) (AssessmentLinkResult, error) {
	var res AssessmentLinkResult
	pushed := workflow.GetSignalChannel(ctx, kinds.AssessmentLink.Signal)
	for round := 0; ; round++ {
		for pushed.ReceiveAsync(nil) {
		}
		again, err := deliverAssessmentLink(ctx, in, &res)
		if err != nil {
			upsertOutcome(ctx, "failed")
			return res, err
		}
		if !again && !pushed.ReceiveAsync(nil) {
			upsertOutcome(ctx, "done")
			return res, nil
		}
		if round+1 >= assessmentRounds {
			return res, workflow.NewContinueAsNewError(ctx, AssessmentLinkDelivery, in)
		}
	}
}

// deliverAssessmentLink sends the current link through the channels the plan gives, in order;
// again is true when the link was replaced before it went out (the newer one is due).
func deliverAssessmentLink(ctx workflow.Context, in kinds.AssessmentLinkInput, res *AssessmentLinkResult) (again bool, err error) {
	var a *activities.Activities
	var plan activities.AssessmentPlan
	if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.PlanAssessmentLink, activities.PlanAssessmentLinkInput{
		CompanyID: in.CompanyID, ApplicationID: in.ApplicationID,
	}).Get(ctx, &plan); err != nil {
		return false, err
	}
	if plan.LinkID == uuid.Nil {
		return false, nil
	}
	// A local activity: one send (bounded by the providers' 15 s timeouts) is short enough, and
	// it saves the run an activity task and a workflow task, most of its latency.
	send := localOptions(ctx, time.Minute, &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 5,
		NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
	})
	for _, ch := range plan.Channels {
		var sent activities.SendAssessmentLinkResult
		err := workflow.ExecuteLocalActivity(send, a.SendAssessmentLink, activities.SendAssessmentLinkInput{
			CompanyID: in.CompanyID, LinkID: plan.LinkID, Channel: ch,
		}).Get(ctx, &sent)
		if err == nil {
			if sent.Replaced {
				res.Skipped++
				return true, nil
			}
			res.Sent++
			return false, nil
		}
		var canceled *temporal.CanceledError
		if errors.As(err, &canceled) {
			return false, err
		}
		workflow.GetLogger(ctx).Warn("assessment link channel failed; falling back", "channel", ch, "err", err)
	}
	res.Failed++
	return false, workflow.ExecuteLocalActivity(shortLocal(ctx), a.FailAssessmentLink, activities.FailAssessmentLinkInput{
		CompanyID: in.CompanyID, LinkID: plan.LinkID, Tried: plan.Channels,
	}).Get(ctx, nil)
}

// AssessmentLinkHoldInput names a held link (its start: kinds.AssessmentLinkHoldStart).
type AssessmentLinkHoldInput = kinds.AssessmentLinkHoldInput

// AssessmentLinkHoldResult says how a hold ended (activities.Hold* outcomes) after how many
// looks.
type AssessmentLinkHoldResult struct {
	Outcome string
	Checks  int
}

// Bounds of a hold's run: the first look again after holdFirstDelay, doubling up to
// holdMaxDelay, so a link reaches an application ingested during the window within about ten
// seconds (some 90 looks in 15 minutes); holdChecks per run before it continues as new (pushes
// that renew the hold can extend it).
const (
	holdFirstDelay = time.Second
	holdMaxDelay   = 10 * time.Second
	holdChecks     = 200
)

// AssessmentLinkHold holds a link pushed for an application recruitd does not manage (yet): it
// looks for the application on a durable timer (and at once when a renewing push signals),
// turns the hold into the application's assessment link when it appears (whose delivery run
// then sends it), and discards it once the hold expires, 15 minutes after the latest push
// (activities.CheckAssessmentHold decides, by the run's clock). The history holds ids only.
func AssessmentLinkHold(ctx workflow.Context, in AssessmentLinkHoldInput) (AssessmentLinkHoldResult, error) {
	var a *activities.Activities
	renewed := workflow.GetSignalChannel(ctx, kinds.AssessmentLinkHold.Signal)
	delay := holdFirstDelay
	for checks := 1; ; checks++ {
		for renewed.ReceiveAsync(nil) {
		}
		var r activities.CheckAssessmentHoldResult
		if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.CheckAssessmentHold, activities.CheckAssessmentHoldInput{
			CompanyID: in.CompanyID, HoldID: in.HoldID, Now: workflow.Now(ctx),
		}).Get(ctx, &r); err != nil {
			return AssessmentLinkHoldResult{Checks: checks}, err
		}
		if r.Outcome != activities.HoldWaiting {
			return AssessmentLinkHoldResult{Outcome: r.Outcome, Checks: checks}, nil
		}
		if checks >= holdChecks {
			return AssessmentLinkHoldResult{Checks: checks}, workflow.NewContinueAsNewError(ctx, AssessmentLinkHold, in)
		}
		wait := min(delay, r.Remaining)
		if wait <= 0 {
			wait = holdFirstDelay // renewed while it expired: look again soon
		}
		tctx, cancel := workflow.WithCancel(ctx)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(workflow.NewTimer(tctx, wait), func(workflow.Future) {})
		sel.AddReceive(renewed, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
		sel.Select(ctx)
		cancel()
		delay = min(2*delay, holdMaxDelay)
	}
}
