package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

func atsApplication() kinds.FlowInput {
	return kinds.FlowInput{CompanyID: company, Trigger: models.TriggerNewApplicationATS, CandidateID: uuid.New(), ApplicationID: uuid.New(), JobID: uuid.New()}
}

const inviteDef = `{"trigger":"new_application_ats","enabled":true,"steps":[{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}]}`

// firstLook mocks OpenAndSendInvite, an invitation's first step, with look for a job that is not
// ready (it sends nothing then).
func firstLook(e *testsuite.TestWorkflowEnvironment, look func(context.Context, activities.OpenSessionWhenReadyInput) (activities.OpenSessionResult, error)) {
	var a *activities.Activities
	e.OnActivity(a.OpenAndSendInvite, mock.Anything, mock.Anything).Return(func(ctx context.Context, in activities.OpenAndSendInput) (activities.OpenAndSendResult, error) {
		r, err := look(ctx, in.OpenSessionWhenReadyInput)
		if err == nil && !r.Wait && r.NotSent == "" {
			panic("firstLook: a job ready at the first look")
		}
		return activities.OpenAndSendResult{OpenSessionResult: r}, err
	})
}

// TestInvitationWaitsUntilItsDeadline: a job that stays not ready sends nothing; the run looks
// again on its timers (doubling) and, at the company's wait, gives up with job_not_ready.
func TestInvitationWaitsUntilItsDeadline(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, inviteDef, nil)
	var looks []time.Time
	look := func(_ context.Context, in activities.OpenSessionWhenReadyInput) (activities.OpenSessionResult, error) {
		looks = append(looks, e.Now())
		if in.GiveUp {
			return activities.OpenSessionResult{NotSent: interview.NotSentJobNotReady}, nil
		}
		return activities.OpenSessionResult{Wait: true, WaitSeconds: 3 * 3600}, nil
	}
	e.OnActivity(a.OpenSessionWhenReady, mock.Anything, mock.Anything).Return(look)
	firstLook(e, look)
	e.ExecuteWorkflow(CustomerFlow, atsApplication())
	out := outcome(t, e)
	if out.Result != flow.ResultStopped || out.Reason != interview.NotSentJobNotReady {
		t.Fatalf("outcome = %+v, want stopped with %s", out, interview.NotSentJobNotReady)
	}
	e.AssertActivityNumberOfCalls(t, "SendInvite", 0)
	e.AssertActivityNumberOfCalls(t, "OpenSession", 0)
	if waited := looks[len(looks)-1].Sub(looks[0]); waited < 3*time.Hour || waited > 3*time.Hour+time.Minute {
		t.Errorf("gave up after %s, want the company's 3h", waited)
	}
	// 30s, 1m, 2m, ... 30m, then every 30m: about a dozen looks in 3 hours, not hundreds.
	if len(looks) < 5 || len(looks) > 15 {
		t.Errorf("%d looks in 3 hours, want a doubling schedule", len(looks))
	}
}

// TestInvitationReleasedByTheJobReadySignal: the job-ready signal wakes the waiting run at once
// and the invitation goes out once; a partner run whose job closes gets not_eligible with the
// reason as its callback.
func TestInvitationReleasedByTheJobReadySignal(t *testing.T) {
	e := env(t)
	var a *activities.Activities
	loaded(t, e, inviteDef, nil)
	ready := false
	look := func(_ context.Context, in activities.OpenSessionWhenReadyInput) (activities.OpenSessionResult, error) {
		if ready {
			return activities.OpenSessionResult{SessionID: session}, nil
		}
		return activities.OpenSessionResult{Wait: true, WaitSeconds: 72 * 3600}, nil
	}
	e.OnActivity(a.OpenSessionWhenReady, mock.Anything, mock.Anything).Return(look)
	firstLook(e, look)
	e.OnActivity(a.SendInvite, mock.Anything, mock.Anything).Return(activities.SendInviteResult{}, nil).Once()
	e.RegisterDelayedCallback(func() {
		ready = true
		e.SignalWorkflow(kinds.JobReadySignal, nil)
	}, 10*time.Second)
	start := e.Now()
	e.ExecuteWorkflow(CustomerFlow, atsApplication())
	if out := outcome(t, e); out.Result != flow.ResultCompleted {
		t.Fatalf("outcome = %+v, want completed", out)
	}
	if took := e.Now().Sub(start); took > 15*time.Second {
		t.Errorf("released %s after the start, want at the signal (10s), not at a timer", took)
	}
	e.AssertActivityNumberOfCalls(t, "SendInvite", 1)
}
