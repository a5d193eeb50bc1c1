package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

func assessmentResult(t *testing.T, e interface {
	IsWorkflowCompleted() bool
	GetWorkflowError() error
	GetWorkflowResult(any) error
}) AssessmentLinkResult {
	t.Helper()
	if !e.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := e.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var res AssessmentLinkResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAssessmentLinkFallsBackAndFails: a permanent refusal on the conversation's channel falls
// back to the next; when every channel fails the link is marked failed.
func TestAssessmentLinkFallsBackAndFails(t *testing.T) {
	var a *activities.Activities
	in := kinds.AssessmentLinkInput{CompanyID: company, ApplicationID: uuid.New()}
	link := uuid.New()
	plan := activities.AssessmentPlan{LinkID: link, Channels: []models.MessageChannel{models.MessageChannelSMS, models.MessageChannelEmail}}

	e := env(t)
	e.OnActivity(a.PlanAssessmentLink, mock.Anything, mock.Anything).Return(plan, nil).Once()
	e.OnActivity(a.SendAssessmentLink, mock.Anything, mock.MatchedBy(func(in activities.SendAssessmentLinkInput) bool { return in.Channel == models.MessageChannelSMS })).
		Return(activities.SendAssessmentLinkResult{}, temporal.NewNonRetryableApplicationError("unsubscribed", activities.ErrTypePermanent, nil))
	e.OnActivity(a.SendAssessmentLink, mock.Anything, mock.MatchedBy(func(in activities.SendAssessmentLinkInput) bool { return in.Channel == models.MessageChannelEmail })).
		Return(activities.SendAssessmentLinkResult{MessageID: uuid.New()}, nil)
	e.ExecuteWorkflow(AssessmentLinkDelivery, in)
	if got := assessmentResult(t, e); got != (AssessmentLinkResult{Sent: 1}) {
		t.Errorf("AssessmentLinkDelivery(sms refused) = %+v, want one sent", got)
	}
	e.AssertActivityNumberOfCalls(t, "SendAssessmentLink", 2)

	e = env(t)
	e.OnActivity(a.PlanAssessmentLink, mock.Anything, mock.Anything).Return(plan, nil).Once()
	e.OnActivity(a.SendAssessmentLink, mock.Anything, mock.Anything).
		Return(activities.SendAssessmentLinkResult{}, temporal.NewNonRetryableApplicationError("no address", activities.ErrTypePermanent, nil))
	e.OnActivity(a.FailAssessmentLink, mock.Anything, activities.FailAssessmentLinkInput{CompanyID: company, LinkID: link, Tried: plan.Channels}).Return(nil).Once()
	e.ExecuteWorkflow(AssessmentLinkDelivery, in)
	if got := assessmentResult(t, e); got != (AssessmentLinkResult{Failed: 1}) {
		t.Errorf("AssessmentLinkDelivery(every channel refused) = %+v, want one failed", got)
	}
	e.AssertActivityNumberOfCalls(t, "FailAssessmentLink", 1)
}

// TestAssessmentLinkLoopsOnSignalAndReplacement: a push signalled while a link is being sent makes
// the run look again; a link replaced before it went out is skipped and the newer one planned.
func TestAssessmentLinkLoopsOnSignalAndReplacement(t *testing.T) {
	var a *activities.Activities
	in := kinds.AssessmentLinkInput{CompanyID: company, ApplicationID: uuid.New()}
	first, second, third := uuid.New(), uuid.New(), uuid.New()
	email := []models.MessageChannel{models.MessageChannelEmail}

	e := env(t)
	plans := []activities.AssessmentPlan{{LinkID: first, Channels: email}, {LinkID: second, Channels: email}, {LinkID: third, Channels: email}, {}}
	calls := 0
	e.OnActivity(a.PlanAssessmentLink, mock.Anything, mock.Anything).Return(func(_ context.Context, _ activities.PlanAssessmentLinkInput) (activities.AssessmentPlan, error) {
		calls++
		return plans[calls-1], nil
	})
	e.OnActivity(a.SendAssessmentLink, mock.Anything, mock.MatchedBy(func(in activities.SendAssessmentLinkInput) bool { return in.LinkID == first })).
		After(20*time.Second).Return(activities.SendAssessmentLinkResult{MessageID: uuid.New()}, nil)
	e.OnActivity(a.SendAssessmentLink, mock.Anything, mock.MatchedBy(func(in activities.SendAssessmentLinkInput) bool { return in.LinkID == second })).
		Return(activities.SendAssessmentLinkResult{Replaced: true}, nil)
	e.OnActivity(a.SendAssessmentLink, mock.Anything, mock.MatchedBy(func(in activities.SendAssessmentLinkInput) bool { return in.LinkID == third })).
		Return(activities.SendAssessmentLinkResult{MessageID: uuid.New()}, nil)
	// A push while the first link is being sent.
	e.RegisterDelayedCallback(func() { e.SignalWorkflow(kinds.AssessmentLink.Signal, nil) }, 10*time.Second)
	e.ExecuteWorkflow(AssessmentLinkDelivery, in)
	if got := assessmentResult(t, e); got != (AssessmentLinkResult{Sent: 2, Skipped: 1}) {
		t.Errorf("AssessmentLinkDelivery = %+v, want the first and third sent, the second skipped", got)
	}
	if calls != 3 {
		t.Errorf("PlanAssessmentLink called %d times, want 3 (after the signal, after the skip)", calls)
	}
}
