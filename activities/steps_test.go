package activities

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/starter"
)

// TestOpenAndSendInviteOnce: the invitation's first step opens the session and sends on its
// channel; a retry of the step (same activity id) finds both done and sends nothing again, and
// a retry of the attempt in a step of its own (SendInvite under the first step's send key) finds
// the message sent.
func TestOpenAndSendInviteOnce(t *testing.T) {
	st, co, job := acmeNurse(t)
	ctx := t.Context()
	g := store.GuideContent{Title: job.Title, ExternalTitle: job.ExternalTitle, Guide: models.InterviewGuide{Intro: "Welcome.", Outro: "Thank you."},
		Questions: []models.InterviewQuestion{{Text: "Tell us about your experience.", Source: models.QuestionSourceGenerated}}}
	if _, err := st.SaveGuide(ctx, co.ID, job.ID, g, 1, models.JobStatusActive); err != nil {
		t.Fatal(err)
	}
	_, app, err := st.CreateApplication(ctx, co.ID, job.ID, store.CandidateInput{FirstName: "Ada", Email: "ada@example.com"}, models.ApplicationSourceManual, "A-1")
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	router, err := channels.NewRouter(channels.Config{Mode: channels.ModeOutbox}, out)
	if err != nil {
		t.Fatal(err)
	}
	away, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer away.Close()
	launcher := &outbox.Launcher{Store: st, Starter: starter.Starter{Client: away, QueuePrefix: "nowhere"}, Log: slog.New(slog.DiscardHandler), Timeout: 100 * time.Millisecond}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Channels: router, Links: links.New("https://app.example.com", ""), Launcher: launcher}
	var suite testsuite.WorkflowTestSuite
	in := OpenAndSendInput{
		OpenSessionWhenReadyInput: OpenSessionWhenReadyInput{OpenSessionInput: OpenSessionInput{CompanyID: co.ID, ApplicationID: app.ID, MediumType: models.MediumTypeVideo, FlowWorkflowID: "invite/acme/1"}, JobID: job.ID},
		Channel:                   models.MessageChannelEmail, Now: time.Now(),
	}
	first := func() OpenAndSendResult {
		env := suite.NewTestWorkflowEnvironment()
		env.RegisterActivity(a)
		var res OpenAndSendResult
		env.ExecuteWorkflow(func(ctx workflow.Context) error {
			ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, ActivityID: "7"})
			return workflow.ExecuteActivity(ctx, a.OpenAndSendInvite, in).Get(ctx, &res)
		})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		return res
	}
	r := first()
	if !r.Sent || r.SessionID.String() == "00000000-0000-0000-0000-000000000000" || r.SendKey == "" {
		t.Fatalf("first step = %+v, want a session opened and the invitation sent under a key", r)
	}
	again := first()
	if again.SessionID != r.SessionID || again.Send.MessageID != r.Send.MessageID || !again.Sent {
		t.Errorf("retried step = %+v, want session %s and message %s again", again, r.SessionID, r.Send.MessageID)
	}
	sent, err := a.SendInvite(ctx, SendInviteInput{CompanyID: co.ID, SessionID: r.SessionID, Channel: models.MessageChannelEmail, SendKey: r.SendKey})
	if err != nil || sent.MessageID != r.Send.MessageID {
		t.Errorf("SendInvite under the step's key = %+v, %v; want message %s", sent, err, r.Send.MessageID)
	}
	if n := strings.Count(out.String(), "ada@example.com"); n != 1 {
		t.Errorf("the invitation went out %d times, want once", n)
	}
}

// TestSettleAndCallBackOnce: the decision and its first attempt in one step; the step retried
// (its worker died before Temporal heard of it) finds the application settled and the callback
// delivered, and calls the partner back no second time.
func TestSettleAndCallBackOnce(t *testing.T) {
	st, co, job := acmeNurse(t)
	ctx := t.Context()
	box, _ := secretbox.New(make([]byte, 32))
	var calls atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	p := &models.Partner{CompanyID: co.ID, Name: "board", CallbackURL: recv.URL}
	if err := st.CreatePartner(ctx, box, p, store.PartnerSecrets{CallbackSecret: "cbs", SigningSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}); err != nil {
		t.Fatal(err)
	}
	pa := &models.PartnerApplication{CompanyID: co.ID, PartnerID: p.ID, ATSApplicantID: "9", ATSJobID: "J-1", JobID: job.ID}
	if err := st.DB().Create(pa).Error; err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Box: box,
		Sender: callbacks.NewSender(callbacks.Options{AllowedNets: callbacks.PrivateNets(), AllowHTTP: true})}
	in := SettleInput{CompanyID: co.ID, PartnerApplicationID: pa.ID, Status: models.PartnerStatusNotEligible, Reason: "screened out"}
	r, err := a.SettleAndCallBack(ctx, in)
	if err != nil || !r.Attempted || !r.Attempt.Final || r.Attempt.State != models.CallbackStateDelivered || r.AlreadySettled {
		t.Fatalf("SettleAndCallBack = %+v, %v; want settled and delivered at the first attempt", r, err)
	}
	again, err := a.SettleAndCallBack(ctx, in)
	if err != nil || !again.AlreadySettled || again.CallbackID != r.CallbackID || !again.Attempt.Final {
		t.Fatalf("retried SettleAndCallBack = %+v, %v; want the same callback, settled and final", again, err)
	}
	if calls.Load() != 1 {
		t.Errorf("the partner was called %d times, want once", calls.Load())
	}
	atts, err := st.CallbackAttempts(ctx, co.ID, r.CallbackID)
	if err != nil || len(atts) != 1 {
		t.Errorf("attempts %+v, %v; want one recorded", atts, err)
	}
}
