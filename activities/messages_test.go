package activities

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/google/uuid"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/starter"
)

// acmeNurse is a store on a fresh database with company acme and its active job J-1.
func acmeNurse(t *testing.T) (*store.Store, *models.Company, *models.Job) {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	co := &models.Company{Slug: "acme", Name: "Acme", DefaultJobStatus: models.JobStatusActive}
	if err := st.CreateCompany(t.Context(), co); err != nil {
		t.Fatal(err)
	}
	job := &models.Job{CompanyID: co.ID, ExternalID: "J-1", InterviewerID: "acme-J-1", Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
	if err := st.DB().Create(job).Error; err != nil {
		t.Fatal(err)
	}
	return st, co, job
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSendInviteRetryDoesNotResend: a retry of the same activity (its worker stopped after the
// provider took the message, before Temporal heard of it) returns the sent message instead of
// inviting the candidate again. Another activity of the same session sends its own message.
func TestSendInviteRetryDoesNotResend(t *testing.T) {
	st, co, job := acmeNurse(t)
	ctx := t.Context()
	_, app, err := st.CreateApplication(ctx, co.ID, job.ID, store.CandidateInput{FirstName: "Ada", Email: "ada@example.com"}, models.ApplicationSourceManual, "A-1")
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	router, err := channels.NewRouter(channels.Config{Mode: channels.ModeOutbox}, out)
	if err != nil {
		t.Fatal(err)
	}
	// OpenSession launches the session's interview start; Temporal is away here (nothing
	// listens), so the start stays in the outbox.
	away, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer away.Close()
	launcher := &outbox.Launcher{Store: st, Starter: starter.Starter{Client: away, QueuePrefix: "nowhere"}, Log: slog.New(slog.DiscardHandler), Timeout: 100 * time.Millisecond}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Channels: router, Links: links.New("https://app.example.com", ""), Launcher: launcher}
	session, err := a.OpenSession(ctx, OpenSessionInput{CompanyID: co.ID, ApplicationID: app.ID, MediumType: models.MediumTypeVideo})
	if err != nil {
		t.Fatal(err)
	}
	// Each send runs SendInvite from a workflow with a fixed activity id: what a retry of one
	// activity looks like (same run, same activity id).
	var suite testsuite.WorkflowTestSuite
	send := func(activityID string) SendInviteResult {
		env := suite.NewTestWorkflowEnvironment()
		env.RegisterActivity(a)
		var res SendInviteResult
		env.ExecuteWorkflow(func(ctx workflow.Context) error {
			ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, ActivityID: activityID})
			return workflow.ExecuteActivity(ctx, a.SendInvite, SendInviteInput{CompanyID: co.ID, SessionID: session, Channel: models.MessageChannelEmail}).Get(ctx, &res)
		})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := send("7")
	again := send("7")
	if again.MessageID != first.MessageID {
		t.Errorf("retry returned message %s, want the sent %s", again.MessageID, first.MessageID)
	}
	if n := strings.Count(out.String(), "ada@example.com"); n != 1 {
		t.Errorf("the invitation went out %d times, want once", n)
	}
	if other := send("12"); other.MessageID == first.MessageID {
		t.Error("a second invite step of the run reused the first step's message")
	}
	if n := strings.Count(out.String(), "ada@example.com"); n != 2 {
		t.Errorf("after a second step the invitation went out %d times, want twice", n)
	}
}

// TestAssessmentLinkSendKeyedByLink: a retried workflow task reruns its local activities under the
// same activity ids, and the retry may plan a newer link than the first attempt sent. The newer
// link goes out with its own message; only a repeat of the same link finds the message it sent.
func TestAssessmentLinkSendKeyedByLink(t *testing.T) {
	st, co, job := acmeNurse(t)
	ctx := t.Context()
	_, app, err := st.CreateApplication(ctx, co.ID, job.ID, store.CandidateInput{FirstName: "Dana", Email: "dana@example.com"}, models.ApplicationSourceManual, "A-1")
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	router, err := channels.NewRouter(channels.Config{Mode: channels.ModeOutbox}, out)
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Channels: router, Links: links.New("https://app.example.com", "")}
	push := func(url string, at time.Time) uuid.UUID {
		res, err := st.PushAssessmentLink(ctx, store.AssessmentPush{CompanyID: co.ID, ApplicationID: app.ID, URL: url, ReceivedAt: at,
			Start: kinds.AssessmentLinkStart(co.Slug, co.ID, app.ID)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Link.ID
	}
	var suite testsuite.WorkflowTestSuite
	send := func(link uuid.UUID) SendAssessmentLinkResult {
		env := suite.NewTestWorkflowEnvironment()
		env.RegisterActivity(a)
		var res SendAssessmentLinkResult
		env.ExecuteWorkflow(func(ctx workflow.Context) error {
			ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
			return workflow.ExecuteLocalActivity(ctx, a.SendAssessmentLink, SendAssessmentLinkInput{CompanyID: co.ID, LinkID: link, Channel: models.MessageChannelEmail}).Get(ctx, &res)
		})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		return res
	}
	now := time.Now().UTC()
	first := send(push("https://assess.example.com/t/one", now))
	newer := push("https://assess.example.com/t/two", now.Add(time.Second))
	second := send(newer)
	if second.MessageID == first.MessageID {
		t.Fatalf("the newer link was marked sent with the older link's message %s", first.MessageID)
	}
	if !strings.Contains(out.String(), "/t/two") {
		t.Errorf("the newer link's message did not go out: %q", out.String())
	}
	if again := send(newer); again.MessageID != second.MessageID || strings.Count(out.String(), "/t/two") != 1 {
		t.Errorf("a repeat of the newer link's send returned %s (want %s) or sent again", again.MessageID, second.MessageID)
	}
}
