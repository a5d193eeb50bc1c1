package activities

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// PrepareInput names a partner application.
type PrepareInput struct {
	CompanyID            uuid.UUID
	PartnerApplicationID uuid.UUID
}

// PartnerRun is what a partner application's run needs.
type PartnerRun struct {
	CompanySlug   string
	JobID         uuid.UUID
	CandidateID   uuid.UUID
	ApplicationID uuid.UUID
	Flow          FlowContext
}

// PreparePartner loads a partner application, stores its applicant (kept on it by the
// submission) as the candidate and application the run works on, and loads the company's
// partner_application workflow with its verdicts.
func (a *Activities) PreparePartner(ctx context.Context, in PrepareInput) (PartnerRun, error) {
	pa, err := a.Store.AttachPartnerApplicant(ctx, in.CompanyID, in.PartnerApplicationID)
	if err != nil {
		return PartnerRun{}, permanentIfMissing(err)
	}
	run := PartnerRun{JobID: pa.JobID, CandidateID: *pa.CandidateID, ApplicationID: *pa.ApplicationID}
	run.Flow, run.CompanySlug, err = a.loadFlow(ctx, kinds.FlowInput{
		CompanyID: in.CompanyID, Trigger: models.TriggerPartnerApplication,
		JobID: run.JobID, CandidateID: run.CandidateID, ApplicationID: run.ApplicationID,
	})
	if err == nil && run.CompanySlug == "" {
		// A stored definition that does not decode reads no facts; the run still needs the slug.
		co, cerr := a.Store.Company(ctx, in.CompanyID)
		if cerr != nil {
			return run, cerr
		}
		run.CompanySlug = co.Slug
	}
	return run, err
}

// SettleInput is an application's terminal decision. SessionID names the session whose
// interview link an "invited" callback carries; the link is read here, never passed in.
type SettleInput struct {
	CompanyID            uuid.UUID
	PartnerApplicationID uuid.UUID
	Status               models.PartnerStatus
	Reason               string
	SessionID            uuid.UUID
}

// SettleResult names the terminal callback to deliver.
type SettleResult struct {
	CallbackID     uuid.UUID
	AlreadySettled bool
}

// SettlePartner records the terminal decision and its callback, once.
func (a *Activities) SettlePartner(ctx context.Context, in SettleInput) (SettleResult, error) {
	link := ""
	if in.SessionID != uuid.Nil {
		sess, err := a.Store.Session(ctx, in.CompanyID, in.SessionID)
		if err != nil {
			return SettleResult{}, permanentIfMissing(err)
		}
		link = a.Links.Interview(sess.LinkToken)
	}
	cb, err := a.Store.SettlePartnerApplication(ctx, in.CompanyID, in.PartnerApplicationID, in.Status, in.Reason, link)
	if errors.Is(err, store.ErrAlreadySettled) {
		return SettleResult{CallbackID: cb.ID, AlreadySettled: true}, nil
	}
	if err != nil {
		return SettleResult{}, err
	}
	a.Metrics.settled(string(in.Status), in.Reason)
	a.Log.InfoContext(ctx, "partner application settled", "application_id", in.PartnerApplicationID, "status", in.Status, "reason", in.Reason)
	return SettleResult{CallbackID: cb.ID}, nil
}

// SettleCallBackResult is SettleAndCallBack's: the settlement, and the first attempt's outcome
// when Attempted.
type SettleCallBackResult struct {
	SettleResult
	Attempted bool
	Attempt   AttemptResult
}

// SettleAndCallBack is SettlePartner and the callback's first delivery attempt (AttemptCallback,
// number 1) in one step, so a partner that answers at once costs the run one local activity.
// Only the settlement fails the activity (a retry finds the application settled and attempts
// again, which a callback no longer pending leaves alone); an attempt that could not be made or
// recorded is not Attempted, and the run makes it in a step of its own, with its retries.
func (a *Activities) SettleAndCallBack(ctx context.Context, in SettleInput) (SettleCallBackResult, error) {
	s, err := a.SettlePartner(ctx, in)
	if err != nil {
		return SettleCallBackResult{}, err
	}
	res := SettleCallBackResult{SettleResult: s}
	r, err := a.AttemptCallback(ctx, AttemptInput{CompanyID: in.CompanyID, CallbackID: s.CallbackID, Number: 1})
	if err != nil {
		a.Log.WarnContext(ctx, "first callback attempt not made; the run makes it", "callback_id", s.CallbackID, "err", err)
		return res, nil
	}
	res.Attempted, res.Attempt = true, r
	return res, nil
}

// AttemptResult is one delivery attempt's outcome.
type AttemptResult struct {
	State     models.CallbackState
	Final     bool          // delivered or given up: no more attempts
	NextDelay time.Duration // before the next attempt when not Final
}

// AttemptInput names one delivery attempt. Numbers count per delivery run; a redelivery's
// attempts are recorded after the earlier ones.
type AttemptInput struct {
	CompanyID  uuid.UUID
	CallbackID uuid.UUID
	Number     int
	Redeliver  bool
}

// AttemptCallback makes one delivery attempt of a callback and records it. A callback already
// delivered or given up is left alone unless this is an operator's redelivery.
func (a *Activities) AttemptCallback(ctx context.Context, in AttemptInput) (AttemptResult, error) {
	companyID, number := in.CompanyID, in.Number
	d, err := a.Store.CallbackDelivery(ctx, companyID, in.CallbackID)
	if err != nil {
		return AttemptResult{}, err
	}
	cb, partner := &d.Callback, &d.Partner
	if cb.State != models.CallbackStatePending && !in.Redeliver {
		return AttemptResult{State: cb.State, Final: true}, nil
	}
	recorded := number
	if in.Redeliver {
		recorded = cb.Attempts + 1
	}
	secrets, err := store.OpenPartnerSecrets(a.Box, partner)
	if err != nil {
		return AttemptResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	p := callbacks.Payload{ApplicationID: cb.PartnerApplicationID.String(), Status: string(cb.Status), InterviewLink: deref(cb.InterviewLink), Reason: deref(cb.Reason)}
	at, outcome := a.Sender.Deliver(ctx, callbacks.Target{URL: partner.CallbackURL, CallbackSecret: secrets.CallbackSecret, SigningSecret: secrets.SigningSecret}, cb.ID.String(), p, number)

	res := AttemptResult{State: models.CallbackStatePending}
	switch outcome {
	case callbacks.Delivered:
		res.State, res.Final = models.CallbackStateDelivered, true
	case callbacks.GiveUp:
		res.State, res.Final = models.CallbackStateGaveUp, true
	default:
		delay, more := callbacks.NextDelay(at, jitter(cb.ID, number))
		if !more {
			res.State, res.Final = models.CallbackStateGaveUp, true
		}
		res.NextDelay = delay
	}
	row := &models.CallbackAttempt{CompanyID: companyID, CallbackID: cb.ID, Number: recorded, At: at.At, DurationMS: int(at.Duration.Milliseconds())}
	if at.StatusCode != 0 {
		row.StatusCode = &at.StatusCode
	}
	if at.ErrorClass != "" {
		row.ErrorClass = &at.ErrorClass
	}
	if at.ResponseBody != "" {
		row.ResponseBody = &at.ResponseBody
	}
	if err := a.Store.RecordAttempt(ctx, row, res.State); err != nil {
		return AttemptResult{}, err
	}
	a.Metrics.attempt(res.State, cb, at)
	a.Log.InfoContext(ctx, "callback attempt", "callback_id", cb.ID, "attempt", number, "status_code", at.StatusCode,
		"error_class", at.ErrorClass, "state", res.State, "next_delay", res.NextDelay)
	return res, nil
}

// jitter is a callback's deterministic jitter draw for an attempt, so a retried activity waits the
// same as the first try would have.
func jitter(id uuid.UUID, number int) float64 {
	h := fnv.New64a()
	h.Write(id[:])
	fmt.Fprint(h, number)
	return float64(h.Sum64()%1_000_000) / 1_000_000
}

// AlertInput is a processing failure to report.
type AlertInput struct {
	CompanyID            uuid.UUID
	PartnerApplicationID uuid.UUID
	Problem              string
}

// AlertOperations tells the company's operations contact that a partner application could not be
// processed (an e-mail through the channels), and logs it for the platform's own alerting.
func (a *Activities) AlertOperations(ctx context.Context, in AlertInput) error {
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return err
	}
	a.Metrics.alert()
	a.Log.ErrorContext(ctx, "partner application failed", "alert", true, "company", co.Slug, "application_id", in.PartnerApplicationID, "problem", in.Problem)
	if co.OperationsEmail == nil {
		return nil
	}
	_, _, err = a.Channels.Send(ctx, channels.Message{
		Channel: models.MessageChannelEmail, To: *co.OperationsEmail,
		Subject: "A partner application could not be processed",
		Text: fmt.Sprintf("Partner application %s could not be processed; the partner was sent an error callback.\n\nProblem: %s\n",
			in.PartnerApplicationID, in.Problem),
	})
	return err
}
