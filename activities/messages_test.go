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

// applicant is a candidate of acme's job J-1 with the activities that invite them: messages go
// to out (the outbox channel), and workflow starts to a Temporal nobody listens on, so they stay
// in the start outbox.
type applicant struct {
	st  *store.Store
	co  *models.Company
	job *models.Job
	app *models.Application
	a   *Activities
	out *lockedBuffer
}

func newApplicant(t *testing.T, firstName, email string) *applicant {
	t.Helper()
	st, co, job := acmeNurse(t)
	_, app, err := st.CreateApplication(t.Context(), co.ID, job.ID, store.CandidateInput{FirstName: firstName, Email: email}, models.ApplicationSourceManual, "A-1")
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
	t.Cleanup(away.Close)
	launcher := &outbox.Launcher{Store: st, Starter: starter.Starter{Client: away, QueuePrefix: "nowhere"}, Log: slog.New(slog.DiscardHandler), Timeout: 100 * time.Millisecond}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Channels: router, Links: links.New("https://app.example.com", ""), Launcher: launcher}
	return &applicant{st: st, co: co, job: job, app: app, a: a, out: out}
}

// runActivity runs fn(in) as activity id of a test workflow and returns its result: run twice
// with one id, it is what a retry of one activity looks like (same run, same activity id).
func runActivity[T any](t *testing.T, a *Activities, id string, fn, in any) T {
	t.Helper()
	return runIn[T](t, a, func(ctx workflow.Context) workflow.Future {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, ActivityID: id})
		return workflow.ExecuteActivity(ctx, fn, in)
	})
}

// runLocalActivity runs fn(in) as a local activity of a test workflow and returns its result.
func runLocalActivity[T any](t *testing.T, a *Activities, fn, in any) T {
	t.Helper()
	return runIn[T](t, a, func(ctx workflow.Context) workflow.Future {
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
		return workflow.ExecuteLocalActivity(ctx, fn, in)
	})
}

func runIn[T any](t *testing.T, a *Activities, run func(workflow.Context) workflow.Future) T {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterActivity(a)
	var res T
	env.ExecuteWorkflow(func(ctx workflow.Context) error { return run(ctx).Get(ctx, &res) })
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSendInviteRetryDoesNotResend: a retry of the same activity (its worker stopped after the
// provider took the message, before Temporal heard of it) returns the sent message instead of
// inviting the candidate again. Another activity of the same session sends its own message.
func TestSendInviteRetryDoesNotResend(t *testing.T) {
	ap := newApplicant(t, "Ada", "ada@example.com")
	co, a, out := ap.co, ap.a, ap.out
	// OpenSession launches the session's interview start, which stays in the outbox.
	session, err := a.OpenSession(t.Context(), OpenSessionInput{CompanyID: co.ID, ApplicationID: ap.app.ID, MediumType: models.MediumTypeVideo})
	if err != nil {
		t.Fatal(err)
	}
	send := func(activityID string) SendInviteResult {
		return runActivity[SendInviteResult](t, a, activityID, a.SendInvite, SendInviteInput{CompanyID: co.ID, SessionID: session, Channel: models.MessageChannelEmail})
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
	ap := newApplicant(t, "Dana", "dana@example.com")
	st, co, app, a, out, ctx := ap.st, ap.co, ap.app, ap.a, ap.out, t.Context()
	push := func(url string, at time.Time) uuid.UUID {
		res, err := st.PushAssessmentLink(ctx, store.AssessmentPush{CompanyID: co.ID, ApplicationID: app.ID, URL: url, ReceivedAt: at,
			Start: kinds.AssessmentLinkStart(co.Slug, co.ID, app.ID)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Link.ID
	}
	send := func(link uuid.UUID) SendAssessmentLinkResult {
		return runLocalActivity[SendAssessmentLinkResult](t, a, a.SendAssessmentLink, SendAssessmentLinkInput{CompanyID: co.ID, LinkID: link, Channel: models.MessageChannelEmail})
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
