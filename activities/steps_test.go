package activities

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestOpenAndSendInviteOnce: the invitation's first step opens the session and sends on its
// channel; a retry of the step (same activity id) finds both done and sends nothing again, and
// a retry of the attempt in a step of its own (SendInvite under the first step's send key) finds
// the message sent.
func TestOpenAndSendInviteOnce(t *testing.T) {
	ap := newApplicant(t, "Ada", "ada@example.com")
	st, co, job, a, ctx := ap.st, ap.co, ap.job, ap.a, t.Context()
	g := store.GuideContent{Title: job.Title, ExternalTitle: job.ExternalTitle, Guide: models.InterviewGuide{Intro: "Welcome.", Outro: "Thank you."},
		Questions: []models.InterviewQuestion{{Text: "Tell us about your experience.", Source: models.QuestionSourceGenerated}}}
	if _, err := st.SaveGuide(ctx, co.ID, job.ID, g, 1, models.JobStatusActive); err != nil {
		t.Fatal(err)
	}
	in := OpenAndSendInput{
		OpenSessionWhenReadyInput: OpenSessionWhenReadyInput{OpenSessionInput: OpenSessionInput{CompanyID: co.ID, ApplicationID: ap.app.ID, MediumType: models.MediumTypeVideo, FlowWorkflowID: "invite/acme/1"}, JobID: job.ID},
		Channel:                   models.MessageChannelEmail, Now: time.Now(),
	}
	first := func() OpenAndSendResult { return runActivity[OpenAndSendResult](t, a, "7", a.OpenAndSendInvite, in) }
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
	if n := strings.Count(ap.out.String(), "ada@example.com"); n != 1 {
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
