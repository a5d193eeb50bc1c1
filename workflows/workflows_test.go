package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

func env(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	return envLogging(t, slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// envLogging is env with the SDK's and the workflows' log records sent to h.
func envLogging(t *testing.T, h slog.Handler) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(h)))
	e := s.NewTestWorkflowEnvironment()
	e.RegisterActivity(&activities.Activities{})
	return e
}

func loaded(t *testing.T, e *testsuite.TestWorkflowEnvironment, def string, facts map[string]any) {
	t.Helper()
	var a *activities.Activities
	e.OnActivity(a.LoadFlow, mock.Anything, mock.Anything).Return(activities.FlowContext{Definition: json.RawMessage(def), Version: 1, Verdicts: verdicts(t, def, facts)}, nil)
}

// verdicts is what LoadFlow computes for def over facts.
func verdicts(t *testing.T, def string, facts map[string]any) flow.Verdicts {
	t.Helper()
	d, err := flow.Decode(json.RawMessage(def))
	if err != nil {
		t.Fatalf("Decode(%s): %v", def, err)
	}
	return flow.Evaluate(d, facts)
}

var (
	company = uuid.MustParse("00000000-0000-0000-0000-0000000000c1")
	session = uuid.MustParse("00000000-0000-0000-0000-0000000000a1")
)

func manual() kinds.FlowInput {
	return kinds.FlowInput{CompanyID: company, Trigger: models.TriggerManualInvite, SessionID: session, CandidateID: uuid.New(), ApplicationID: uuid.New(), JobID: uuid.New()}
}

func outcome(t *testing.T, e *testsuite.TestWorkflowEnvironment) flow.Outcome {
	t.Helper()
	if !e.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	var out flow.Outcome
	_ = e.GetWorkflowResult(&out)
	return out
}

func TestInviteFallsBackToTheNextChannel(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["sms","email"],"mediumType":"VIDEO"}}]}`, nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.MatchedBy(func(in activities.SendInviteInput) bool { return in.Channel == models.MessageChannelSMS })).
		Return(activities.SendInviteResult{}, temporal.NewNonRetryableApplicationError("unsubscribed", activities.ErrTypePermanent, nil))
	e.OnActivity(a.SendInvite, mock.Anything, mock.MatchedBy(func(in activities.SendInviteInput) bool { return in.Channel == models.MessageChannelEmail })).
		Return(activities.SendInviteResult{}, nil)
	e.ExecuteWorkflow(CustomerFlow, manual())
	if out := outcome(t, e); out.Result != flow.ResultCompleted {
		t.Fatalf("outcome = %+v, want completed", out)
	}
	e.AssertActivityNumberOfCalls(t, "SendInvite", 2)
}

func TestInviteFailsWhenNoChannelDelivers(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["email","sms"],"mediumType":"VIDEO"}}]}`, nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, errors.New("provider down"))
	e.ExecuteWorkflow(CustomerFlow, manual())
	if err := e.GetWorkflowError(); err == nil {
		t.Fatal("workflow succeeded with every channel failing")
	}
	// Transient failures are retried (3 attempts each) before falling back.
	e.AssertActivityNumberOfCalls(t, "SendInvite", 6)
}

func TestManualChannelsOverrideTheDefinition(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}]}`, nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.MatchedBy(func(in activities.SendInviteInput) bool { return in.Channel == models.MessageChannelWhatsApp })).
		Return(activities.SendInviteResult{}, nil).Once()
	in := manual()
	in.Channels = []models.MessageChannel{models.MessageChannelWhatsApp}
	e.ExecuteWorkflow(CustomerFlow, in)
	if out := outcome(t, e); out.Result != flow.ResultCompleted {
		t.Fatalf("outcome = %+v", out)
	}
	e.AssertActivityNumberOfCalls(t, "SendInvite", 1)
}

func TestWaitUsesADurableTimer(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"wait","wait":{"duration":"48h"}},{"type":"set_status","set_status":{"target":"candidate","status":"nudged"}}]}`, nil)
	start := e.Now()
	var setAt time.Time
	e.OnActivity(a.SetStatus, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SetStatusInput) error {
		setAt = e.Now()
		if in.Target != "candidate" || in.Status != "nudged" {
			t.Errorf("SetStatus(%+v)", in)
		}
		return nil
	})
	e.ExecuteWorkflow(CustomerFlow, manual())
	if out := outcome(t, e); out.Result != flow.ResultCompleted {
		t.Fatalf("outcome = %+v", out)
	}
	if setAt.Sub(start) < 48*time.Hour {
		t.Errorf("set_status ran %s after start, want after the 48h wait", setAt.Sub(start))
	}
}

const waitDef = `{"trigger":"manual_invite","enabled":true,"steps":[
 {"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}},
 {"type":"wait_for_session","wait_for_session":{"timeout":"72h","onTimeout":{"outcome":"stop"}}},
 {"type":"set_status","set_status":{"target":"application","status":"interviewed"}}]}`

func TestWaitForSessionSignalled(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, waitDef, nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
	e.OnActivity(a.SetStatus, mock.Anything, mock.Anything).Return(nil).Once()
	e.RegisterDelayedCallback(func() { e.SignalWorkflow(SessionCompletedSignal, nil) }, 5*time.Hour)
	e.ExecuteWorkflow(CustomerFlow, manual())
	if out := outcome(t, e); out.Result != flow.ResultCompleted {
		t.Fatalf("outcome = %+v, want completed after the session", out)
	}
	e.AssertActivityNumberOfCalls(t, "SetStatus", 1)
	e.AssertActivityNumberOfCalls(t, "SessionStatus", 0)
}

func TestWaitForSessionTimesOut(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, waitDef, nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
	e.OnActivity(a.SessionStatus, mock.Anything, company, session).Return(models.SessionStatusInvited, nil)
	e.ExecuteWorkflow(CustomerFlow, manual())
	if out := outcome(t, e); out.Result != flow.ResultStopped {
		t.Fatalf("outcome = %+v, want stopped on timeout", out)
	}
	e.AssertActivityNumberOfCalls(t, "SetStatus", 0)
}

// TestCancelSessionStep: a session not completed within the wait is cancelled with the step's
// reason (the invite's session), and the run goes on to the next step.
func TestCancelSessionStep(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[
	 {"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}},
	 {"type":"wait_for_session","wait_for_session":{"timeout":"72h","onTimeout":{"outcome":"continue"}}},
	 {"type":"condition","condition":{"all":[{"field":"session.completed","op":"eq","value":false}],"onFalse":{"outcome":"stop"}}},
	 {"type":"cancel_session","cancel_session":{"reason":"not taken within 3 days"}},
	 {"type":"set_status","set_status":{"target":"application","status":"withdrawn"}}]}`, nil)
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
	e.OnActivity(a.SessionStatus, mock.Anything, company, session).Return(models.SessionStatusInvited, nil)
	var cancelledAt time.Time
	start := e.Now()
	e.OnActivity(a.CancelSession, mock.Anything, activities.CancelSessionInput{CompanyID: company, SessionID: session, Reason: "not taken within 3 days"}).
		Return(func(context.Context, activities.CancelSessionInput) (models.SessionStatus, error) {
			cancelledAt = e.Now()
			return models.SessionStatusCancelled, nil
		}).Once()
	e.OnActivity(a.SetStatus, mock.Anything, mock.Anything).Return(nil).Once()
	e.ExecuteWorkflow(CustomerFlow, manual())
	if out := outcome(t, e); out.Result != flow.ResultCompleted || out.StepsRun != 5 {
		t.Fatalf("outcome = %+v, want completed after 5 steps", out)
	}
	if d := cancelledAt.Sub(start); d < 72*time.Hour {
		t.Errorf("cancelled %s after the start, want after the 72h wait", d)
	}
	e.AssertActivityNumberOfCalls(t, "CancelSession", 1)
	e.AssertActivityNumberOfCalls(t, "SetStatus", 1)
}

func TestFalseConditionSendsNothing(t *testing.T) {
	e := env(t)
	loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[
	 {"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"eq","value":true}],"onFalse":{"outcome":"not_eligible","reason":"job closed"}}},
	 {"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}]}`, map[string]any{"job.isOpen": false})
	e.ExecuteWorkflow(CustomerFlow, manual())
	if out := outcome(t, e); out.Result != flow.ResultNotEligible {
		t.Fatalf("outcome = %+v, want not_eligible", out)
	}
	e.AssertActivityNumberOfCalls(t, "SendInvite", 0)
}

func TestJobGeneration(t *testing.T) {
	in := JobGenerationInput{CompanyID: company, JobID: uuid.New()}
	t.Run("success", func(t *testing.T) {
		e := env(t)
		var a *activities.Activities
		e.OnActivity(a.GenerateGuide, mock.Anything, company, in.JobID).Return(activities.GenerateResult{Status: "ACTIVE"}, nil)
		e.ExecuteWorkflow(JobGeneration, in)
		var status string
		if err := e.GetWorkflowResult(&status); err != nil || status != "ACTIVE" {
			t.Fatalf("JobGeneration = %q, %v", status, err)
		}
		e.AssertActivityNumberOfCalls(t, "FailJob", 0)
	})
	t.Run("permanent failure", func(t *testing.T) {
		e := env(t)
		var a *activities.Activities
		e.OnActivity(a.GenerateGuide, mock.Anything, company, in.JobID).
			Return(activities.GenerateResult{}, temporal.NewNonRetryableApplicationError("job description is empty", activities.ErrTypePermanent, nil))
		e.OnActivity(a.FailJob, mock.Anything, company, in.JobID, "job description is empty").Return(nil).Once()
		e.ExecuteWorkflow(JobGeneration, in)
		var status string
		if err := e.GetWorkflowResult(&status); err != nil || status != "FAILED" {
			t.Fatalf("JobGeneration = %q, %v", status, err)
		}
		e.AssertActivityNumberOfCalls(t, "GenerateGuide", 1)
		e.AssertExpectations(t)
	})
	t.Run("transient failures are retried", func(t *testing.T) {
		e := env(t)
		var a *activities.Activities
		e.OnActivity(a.GenerateGuide, mock.Anything, company, in.JobID).Return(activities.GenerateResult{}, errors.New("llm timeout")).Times(2)
		e.OnActivity(a.GenerateGuide, mock.Anything, company, in.JobID).Return(activities.GenerateResult{Status: "PAUSED"}, nil).Once()
		e.ExecuteWorkflow(JobGeneration, in)
		var status string
		if err := e.GetWorkflowResult(&status); err != nil || status != "PAUSED" {
			t.Fatalf("JobGeneration = %q, %v", status, err)
		}
		e.AssertActivityNumberOfCalls(t, "GenerateGuide", 3)
	})
}

// TestQuietHoursAskedOnlyForTexts: an invitation asks QuietUntil (a local activity) only for the
// channels quiet hours hold, not for e-mail (version 2 of invite-quiet-hours).
func TestQuietHoursAskedOnlyForTexts(t *testing.T) {
	for _, tc := range []struct {
		channel models.MessageChannel
		asks    int
	}{{models.MessageChannelEmail, 0}, {models.MessageChannelSMS, 1}} {
		t.Run(string(tc.channel), func(t *testing.T) {
			e := env(t)
			var a *activities.Activities
			loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["`+string(tc.channel)+`"],"mediumType":"VIDEO"}}]}`, nil)
			e.OnActivity(a.QuietUntil, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.QuietUntilInput) (time.Time, error) { return in.Now, nil })
			e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
			e.ExecuteWorkflow(CustomerFlow, manual())
			if out := outcome(t, e); out.Result != flow.ResultCompleted {
				t.Fatalf("outcome = %+v", out)
			}
			e.AssertActivityNumberOfCalls(t, "QuietUntil", tc.asks)
		})
	}
}

// TestInviteGoesOnFromItsFirstStep: an invitation opens its session, asks quiet hours and makes
// its first attempt in one step (OpenAndSendInvite); the run goes on from where that step
// stopped: nothing more when it sent, the send after the quiet hours it was told, quiet hours
// asked again when they could not be read, the first attempt's remaining retries under its send
// key, or the next channel when the attempt failed for good.
func TestInviteGoesOnFromItsFirstStep(t *testing.T) {
	const def = `{"trigger":"new_application_webhook","enabled":true,"steps":[{"type":"invite","invite":{"channels":["sms","email"],"mediumType":"VIDEO"}}]}`
	opened := activities.OpenSessionResult{SessionID: session}
	for _, tc := range []struct {
		name    string
		first   func(now time.Time) activities.OpenAndSendResult
		smsFail bool // every SendInvite on sms fails, retryably
		sends   []string
		quiet   int
		after   time.Duration // the first send's earliest time after the start
		channel string
	}{
		{name: "sent", first: func(time.Time) activities.OpenAndSendResult {
			return activities.OpenAndSendResult{OpenSessionResult: opened, Sent: true}
		}, channel: "sms"},
		{name: "held", first: func(now time.Time) activities.OpenAndSendResult {
			return activities.OpenAndSendResult{OpenSessionResult: opened, HeldUntil: now.Add(8 * time.Hour)}
		}, sends: []string{"sms/"}, after: 8 * time.Hour, channel: "sms"},
		{name: "quiet hours unread", first: func(time.Time) activities.OpenAndSendResult {
			return activities.OpenAndSendResult{OpenSessionResult: opened, QuietUnknown: true}
		}, sends: []string{"sms/"}, quiet: 1, channel: "sms"},
		{name: "retried under its key", first: func(time.Time) activities.OpenAndSendResult {
			return activities.OpenAndSendResult{OpenSessionResult: opened, SendFailed: true, SendKey: "run/1"}
		}, sends: []string{"sms/run/1"}, channel: "sms"},
		{name: "retries spent", first: func(time.Time) activities.OpenAndSendResult {
			return activities.OpenAndSendResult{OpenSessionResult: opened, SendFailed: true, SendKey: "run/1"}
		}, smsFail: true, sends: []string{"sms/run/1", "sms/run/1", "email/"}, channel: "email"},
		{name: "failed for good", first: func(time.Time) activities.OpenAndSendResult {
			return activities.OpenAndSendResult{OpenSessionResult: opened, SendFailed: true, Permanent: true, SendKey: "run/1"}
		}, sends: []string{"email/"}, channel: "email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := env(t)
			var a *activities.Activities
			loaded(t, e, def, nil)
			start := e.Now()
			var firstIn []activities.OpenAndSendInput
			e.OnActivity(a.OpenAndSendInvite, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.OpenAndSendInput) (activities.OpenAndSendResult, error) {
				firstIn = append(firstIn, in)
				return tc.first(in.Now), nil
			})
			e.OnActivity(a.QuietUntil, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.QuietUntilInput) (time.Time, error) { return in.Now, nil })
			var sends []string
			var firstSend time.Time
			e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SendInviteInput) (activities.SendInviteResult, error) {
				if firstSend.IsZero() {
					firstSend = e.Now()
				}
				sends = append(sends, string(in.Channel)+"/"+in.SendKey)
				if tc.smsFail && in.Channel == models.MessageChannelSMS {
					return activities.SendInviteResult{}, temporal.NewApplicationError("provider unavailable", "SendFailed")
				}
				return activities.SendInviteResult{}, nil
			})
			e.ExecuteWorkflow(CustomerFlow, kinds.FlowInput{CompanyID: company, Trigger: models.TriggerNewApplicationWebhook,
				CandidateID: uuid.New(), ApplicationID: uuid.New(), JobID: uuid.New()})
			out := outcome(t, e)
			if out.Result != flow.ResultCompleted {
				t.Fatalf("outcome = %+v, want completed", out)
			}
			if len(firstIn) != 1 || firstIn[0].Channel != models.MessageChannelSMS {
				t.Errorf("first steps %+v, want one on sms", firstIn)
			}
			if fmt.Sprint(sends) != fmt.Sprint(tc.sends) {
				t.Errorf("sends %q, want %q", sends, tc.sends)
			}
			if tc.after > 0 && firstSend.Sub(start) < tc.after {
				t.Errorf("sent %s after the start, want after the quiet hours (%s)", firstSend.Sub(start), tc.after)
			}
			e.AssertActivityNumberOfCalls(t, "QuietUntil", tc.quiet)
			e.AssertActivityNumberOfCalls(t, "OpenSessionWhenReady", 0)
			e.AssertActivityNumberOfCalls(t, "OpenSession", 0)
		})
	}
}

// warnings is a slog handler that keeps the messages of the records it is given.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *warnings) WithGroup(string) slog.Handler            { return w }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		w.mu.Lock()
		w.msgs = append(w.msgs, r.Message)
		w.mu.Unlock()
	}
	return nil
}

// TestLateSignalsAreDropped: a run that does not wait for its session may still be running
// when the session's run signals its completion, and one that waited for its job may be told
// the job is ready after it stopped waiting. The run ends as it would have, and consumes both
// signals instead of leaving them to the SDK's "unhandled signals" warning: a customer flow's
// and a partner application's run.
func TestLateSignalsAreDropped(t *testing.T) {
	const steps = `[{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}},
	 {"type":"wait","wait":{"duration":"1h"}}]`
	var a *activities.Activities
	for _, tc := range []struct {
		name string
		run  func(e *testsuite.TestWorkflowEnvironment)
	}{
		{"customer flow", func(e *testsuite.TestWorkflowEnvironment) {
			loaded(t, e, `{"trigger":"manual_invite","enabled":true,"steps":`+steps+`}`, nil)
			e.ExecuteWorkflow(CustomerFlow, manual())
		}},
		{"partner application", func(e *testsuite.TestWorkflowEnvironment) {
			partnerMocks(t, e, `{"trigger":"partner_application","enabled":true,"steps":`+steps+`}`)
			var settled []activities.SettleInput
			settledWith(e, &settled)
			e.ExecuteWorkflow(PartnerApplication, kinds.PartnerInput{CompanyID: company, PartnerApplicationID: paID, Deadline: 10 * time.Hour})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := &warnings{}
			e := envLogging(t, got)
			e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil)
			e.OnActivity(a.OpenAndSendInvite, mock.Anything, mock.Anything).Return(activities.OpenAndSendResult{OpenSessionResult: activities.OpenSessionResult{SessionID: session}, Sent: true}, nil)
			e.RegisterDelayedCallback(func() {
				e.SignalWorkflow(SessionCompletedSignal, nil)
				e.SignalWorkflow(kinds.JobReadySignal, nil)
			}, 30*time.Minute)
			tc.run(e)
			if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil {
				t.Fatalf("run did not complete: %v", e.GetWorkflowError())
			}
			if len(got.msgs) > 0 {
				t.Errorf("warnings logged: %q", got.msgs)
			}
		})
	}
}
