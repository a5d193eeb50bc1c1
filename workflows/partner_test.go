package workflows

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

var paID = uuid.MustParse("00000000-0000-0000-0000-0000000000b1")

func partnerEnv(t *testing.T, def string) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	e := env(t)
	partnerMocks(t, e, def)
	return e
}

// partnerMocks prepares e for a partner run of def whose callback attempts are delivered.
func partnerMocks(t *testing.T, e *testsuite.TestWorkflowEnvironment, def string) {
	t.Helper()
	e.RegisterWorkflow(DeliverCallback)
	var a *activities.Activities
	e.OnActivity(a.PreparePartner, mock.Anything, mock.Anything).Return(activities.PartnerRun{
		CompanySlug: "acme", JobID: uuid.New(), CandidateID: uuid.New(), ApplicationID: uuid.New(),
		Flow: activities.FlowContext{Definition: json.RawMessage(def), Verdicts: verdicts(t, def, map[string]any{"candidate.email": "a@example.com", "job.isOpen": true, "job.status": "ACTIVE"})},
	}, nil)
	e.OnActivity(a.AttemptCallback, mock.Anything, mock.Anything).Return(activities.AttemptResult{State: models.CallbackStateDelivered, Final: true}, nil)
}

// settledWith records the run's settlements; each makes its first attempt, delivered.
func settledWith(e *testsuite.TestWorkflowEnvironment, got *[]activities.SettleInput) {
	var a *activities.Activities
	e.OnActivity(a.SettleAndCallBack, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SettleInput) (activities.SettleCallBackResult, error) {
		*got = append(*got, in)
		return activities.SettleCallBackResult{SettleResult: activities.SettleResult{CallbackID: uuid.New()}, Attempted: true,
			Attempt: activities.AttemptResult{State: models.CallbackStateDelivered, Final: true}}, nil
	})
}

func TestFallbackTimeout(t *testing.T) {
	e := partnerEnv(t, `{"trigger":"partner_application","enabled":true,"steps":[
	 {"type":"wait","wait":{"duration":"1h"}},
	 {"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}},
	 {"type":"partner_callback","partner_callback":{"status":"invited"}}]}`)
	var a *activities.Activities
	e.OnActivity(a.OpenSession, mock.Anything, mock.Anything).Return(uuid.New(), nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
	var settled []activities.SettleInput
	settledWith(e, &settled)
	e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID, Deadline: 10 * time.Minute})
	var res PartnerResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(settled) != 1 || settled[0].Status != models.PartnerStatusNotEligible || settled[0].Reason != ReasonFallbackTimeout {
		t.Fatalf("settled %+v, want one not_eligible/fallback_timeout", settled)
	}
	// The customer workflow was stopped at the deadline: no session, no invitation, no second callback.
	e.AssertActivityNumberOfCalls(t, "OpenSession", 0)
	e.AssertActivityNumberOfCalls(t, "SendInvite", 0)
	// The decision and its first attempt in one step (mergedSteps).
	e.AssertActivityNumberOfCalls(t, "SettleAndCallBack", 1)
	e.AssertActivityNumberOfCalls(t, "SettlePartner", 0)
	e.AssertActivityNumberOfCalls(t, "AttemptCallback", 0)
	if res.Status != "not_eligible" || res.Reason != ReasonFallbackTimeout || res.Flow.Result != flow.ResultStopped || res.Flow.Reason != ReasonFallbackTimeout {
		t.Errorf("result = %+v, want not_eligible with the flow stopped for fallback_timeout", res)
	}
}

func TestDefinitionEndsWithoutCallback(t *testing.T) {
	e := partnerEnv(t, `{"trigger":"partner_application","enabled":true,"steps":[{"type":"set_status","set_status":{"target":"application","status":"screened"}}]}`)
	var a *activities.Activities
	e.OnActivity(a.SetStatus, mock.Anything, mock.Anything).Return(nil)
	var settled []activities.SettleInput
	settledWith(e, &settled)
	e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID, Deadline: 10 * time.Minute})
	if err := e.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(settled) != 1 || settled[0].Status != models.PartnerStatusNotEligible || settled[0].Reason != ReasonWithoutCallback {
		t.Fatalf("settled %+v, want one not_eligible/workflow_completed_without_callback", settled)
	}
}

func TestProcessingFailureSendsErrorAndAlerts(t *testing.T) {
	e := env(t)
	e.RegisterWorkflow(DeliverCallback)
	var a *activities.Activities
	e.OnActivity(a.PreparePartner, mock.Anything, mock.Anything).Return(activities.PartnerRun{},
		temporal.NewNonRetryableApplicationError("job vanished", activities.ErrTypePermanent, nil))
	e.OnActivity(a.AlertOperations, mock.Anything, mock.Anything).Return(nil).Once()
	var settled []activities.SettleInput
	settledWith(e, &settled)
	e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID})
	if err := e.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(settled) != 1 || settled[0].Status != models.PartnerStatusError {
		t.Fatalf("settled %+v, want one error callback", settled)
	}
	e.AssertExpectations(t)
}

// TestReceiverFailingThreeTimes delivers a real callback with the real activity to a receiver
// that fails three times: the fourth attempt succeeds, after the schedule's 5 s, 5 min and 30 min
// (skipped), and four attempts are recorded.
func TestReceiverFailingThreeTimes(t *testing.T) {
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	box, _ := secretbox.New(make([]byte, 32))
	var calls atomic.Int32
	sec := store.PartnerSecrets{CallbackSecret: "cbs", SigningSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer recv.Close()

	co := &models.Company{Slug: "acme", Name: "Acme", DefaultJobStatus: models.JobStatusActive}
	must(t, st.CreateCompany(ctx, co))
	p := &models.Partner{CompanyID: co.ID, Name: "board", CallbackURL: recv.URL}
	must(t, st.CreatePartner(ctx, box, p, sec))
	job := &models.Job{CompanyID: co.ID, ExternalID: "1", InterviewerID: "acme-1", Description: "d", Status: models.JobStatusActive, IsOpen: true}
	must(t, st.DB().Create(job).Error)
	pa := &models.PartnerApplication{CompanyID: co.ID, PartnerID: p.ID, ATSApplicantID: "9", ATSJobID: "1", JobID: job.ID}
	must(t, st.DB().Create(pa).Error)
	cb, err := st.SettlePartnerApplication(ctx, co.ID, pa.ID, models.PartnerStatusNotEligible, "x", "")
	must(t, err)

	e := env(t)
	e.RegisterActivity(&activities.Activities{Store: st, Log: slog.New(slog.DiscardHandler), Box: box,
		Sender: callbacks.NewSender(callbacks.Options{AllowedNets: callbacks.PrivateNets(), AllowHTTP: true})})
	start := e.Now()
	e.ExecuteWorkflow(DeliverCallback, kinds.CallbackInput{CompanyID: co.ID, CallbackID: cb.ID})
	var state string
	if err := e.GetWorkflowResult(&state); err != nil || state != string(models.CallbackStateDelivered) {
		t.Fatalf("DeliverCallback = %q, %v", state, err)
	}
	if elapsed := e.Now().Sub(start); elapsed < 30*time.Minute {
		t.Errorf("delivered %s after the first attempt; the schedule waits 5s + 5min + 30min", elapsed)
	}
	atts, err := st.CallbackAttempts(ctx, co.ID, cb.ID)
	must(t, err)
	if calls.Load() != 4 || len(atts) != 4 || *atts[0].StatusCode != 503 || *atts[3].StatusCode != 200 {
		t.Fatalf("%d calls, attempts %+v; want 4 with the last one 200", calls.Load(), atts)
	}
	got, _ := st.Callback(ctx, co.ID, cb.ID)
	if got.State != models.CallbackStateDelivered || got.Attempts != 4 {
		t.Errorf("callback = %+v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSettledBeforeACrashStillCallsBack: a run whose decision was stored by a worker that died
// before the callback went out finds its application settled already; it still makes the
// callback attempt (the callback's own state keeps it to one), here in a step of its own since
// the settling step could not make it.
func TestSettledBeforeACrashStillCallsBack(t *testing.T) {
	e := partnerEnv(t, `{"trigger":"partner_application","enabled":true,"steps":[
	 {"type":"partner_callback","partner_callback":{"status":"not_eligible","reason":"screened out"}}]}`)
	var a *activities.Activities
	cb := uuid.New()
	e.OnActivity(a.SettleAndCallBack, mock.Anything, mock.Anything).Return(activities.SettleCallBackResult{SettleResult: activities.SettleResult{CallbackID: cb, AlreadySettled: true}}, nil)
	e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID, Deadline: 10 * time.Minute})
	if err := e.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	e.AssertActivityNumberOfCalls(t, "AttemptCallback", 1)
}

// TestFirstAttemptFailingHandsOver: a first callback attempt that fails for good (not the
// partner's answer: the attempt itself) leaves the delivery to DeliverCallback from attempt 1,
// and the run does not fail.
func TestFirstAttemptFailingHandsOver(t *testing.T) {
	e := env(t)
	e.RegisterWorkflow(DeliverCallback)
	var a *activities.Activities
	def := `{"trigger":"partner_application","enabled":true,"steps":[
	 {"type":"partner_callback","partner_callback":{"status":"not_eligible","reason":"screened out"}}]}`
	e.OnActivity(a.PreparePartner, mock.Anything, mock.Anything).Return(activities.PartnerRun{
		CompanySlug: "acme", JobID: uuid.New(), CandidateID: uuid.New(), ApplicationID: uuid.New(),
		Flow: activities.FlowContext{Definition: json.RawMessage(def), Verdicts: verdicts(t, def, map[string]any{})},
	}, nil)
	var settled []activities.SettleInput
	e.OnActivity(a.SettleAndCallBack, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SettleInput) (activities.SettleCallBackResult, error) {
		settled = append(settled, in)
		return activities.SettleCallBackResult{SettleResult: activities.SettleResult{CallbackID: uuid.New()}}, nil // the attempt not made
	})
	var numbers []int
	e.OnActivity(a.AttemptCallback, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.AttemptInput) (activities.AttemptResult, error) {
		numbers = append(numbers, in.Number)
		return activities.AttemptResult{}, temporal.NewNonRetryableApplicationError("callbacks table unreadable", activities.ErrTypePermanent, nil)
	})
	var delivery []kinds.CallbackInput
	e.OnWorkflow(DeliverCallback, mock.Anything, mock.Anything).Return(func(_ workflow.Context, in kinds.CallbackInput) (string, error) {
		delivery = append(delivery, in)
		return string(models.CallbackStateDelivered), nil
	})
	e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID, Deadline: 10 * time.Minute})
	var res PartnerResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(settled) != 1 || res.Status != "not_eligible" {
		t.Fatalf("settled %+v, result %+v; want one not_eligible", settled, res)
	}
	if len(numbers) != 1 || len(delivery) != 1 || delivery[0].FirstAttempt != 1 || delivery[0].FirstDelay != 0 {
		t.Errorf("attempts %v, delivery runs %+v; want the failed first attempt, then a delivery run from attempt 1 at once", numbers, delivery)
	}
}

// TestFallbackDuringQuietHoursSendsNothing: an invitation held by the candidate's quiet hours
// (its first step opened the session and was told to wait) when the fallback deadline passes is
// not sent, on that channel or the next: the partner is told not_eligible and the candidate is
// never contacted.
func TestFallbackDuringQuietHoursSendsNothing(t *testing.T) {
	e := partnerEnv(t, `{"trigger":"partner_application","enabled":true,"steps":[
	 {"type":"invite","invite":{"channels":["sms","email"],"mediumType":"VIDEO"}},
	 {"type":"partner_callback","partner_callback":{"status":"invited"}}]}`)
	var a *activities.Activities
	e.OnActivity(a.OpenAndSendInvite, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.OpenAndSendInput) (activities.OpenAndSendResult, error) {
		return activities.OpenAndSendResult{OpenSessionResult: activities.OpenSessionResult{SessionID: uuid.New()}, HeldUntil: in.Now.Add(8 * time.Hour)}, nil
	})
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
	var settled []activities.SettleInput
	settledWith(e, &settled)
	e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID, Deadline: 10 * time.Minute})
	var res PartnerResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(settled) != 1 || settled[0].Reason != ReasonFallbackTimeout {
		t.Fatalf("settled %+v, want one not_eligible/fallback_timeout", settled)
	}
	e.AssertActivityNumberOfCalls(t, "SendInvite", 0)
}
