package workflows

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/starter"
)

// awayLauncher is a launcher whose Temporal is away (nothing listens on its port): the delivery
// start a hold's release commits stays pending in the outbox, where the tests read it.
func awayLauncher(t *testing.T, st *store.Store) *outbox.Launcher {
	t.Helper()
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &outbox.Launcher{Store: st, Starter: starter.Starter{Client: c, QueuePrefix: "nowhere"}, Log: slog.New(slog.DiscardHandler), Timeout: 100 * time.Millisecond}
}

// holdFixture is a company with a job on real Postgres and a time-skipping test environment
// whose activities are the real ones on that database.
type holdFixture struct {
	st       *store.Store
	co       *models.Company
	job      *models.Job
	launcher *outbox.Launcher
}

func newHoldFixture(t *testing.T) *holdFixture {
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
	return &holdFixture{st: st, co: co, job: job, launcher: awayLauncher(t, st)}
}

// env is a time-skipping environment running the real activities on the fixture's database.
func (f *holdFixture) env(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	e := s.NewTestWorkflowEnvironment()
	e.RegisterWorkflow(AssessmentLinkHold)
	e.RegisterActivity(&activities.Activities{Store: f.st, Log: slog.New(slog.DiscardHandler), Launcher: f.launcher})
	return e
}

// deliveryStarts lists the workflow IDs of the company's assessment-link delivery starts.
func (f *holdFixture) deliveryStarts(t *testing.T) []string {
	t.Helper()
	var ids []string
	if err := f.st.DB().Model(&models.WorkflowStart{}).Where("company_id = ? AND kind = ?", f.co.ID, kinds.AssessmentLink.Name).
		Order("created_at").Pluck("workflow_id", &ids).Error; err != nil {
		t.Fatal(err)
	}
	return ids
}

// hold does what the push of a link for an unmanaged application id does: the hold, its start.
func (f *holdFixture) hold(t *testing.T, ref, url string, received time.Time) *store.AssessmentHold {
	t.Helper()
	h := &store.AssessmentHold{CompanyID: f.co.ID, ApplicationRef: ref, URL: url, ReceivedAt: received}
	f.holdThis(t, h)
	return h
}

// holdThis holds h and writes its workflow's start in one transaction, as the push does.
func (f *holdFixture) holdThis(t *testing.T, h *store.AssessmentHold) {
	t.Helper()
	tx, err := f.st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := tx.HoldAssessmentLink(h); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.RenewStart(kinds.AssessmentLinkHoldStart(f.co.Slug, AssessmentLinkHoldInput{CompanyID: f.co.ID, HoldID: h.ID})); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func (f *holdFixture) holds(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := f.st.DB().Model(&store.AssessmentHold{}).Where("company_id = ?", f.co.ID).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func holdResult(t *testing.T, e *testsuite.TestWorkflowEnvironment) AssessmentLinkHoldResult {
	t.Helper()
	if !e.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := e.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var res AssessmentLinkHoldResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAssessmentLinkHoldExpires: a link for an application that never appears is held for 15
// minutes by the run's durable timers, then discarded: no hold, no link, nothing launched. A
// push that renews the hold at minute 10 holds it until minute 25.
func TestAssessmentLinkHoldExpires(t *testing.T) {
	f := newHoldFixture(t)
	e := f.env(t)
	began := e.Now().Truncate(time.Microsecond) // as Postgres keeps it
	h := f.hold(t, "AD-1", "https://assess.example.com/t/never", began)
	e.ExecuteWorkflow(AssessmentLinkHold, AssessmentLinkHoldInput{CompanyID: f.co.ID, HoldID: h.ID})
	ended := e.Now()
	res := holdResult(t, e)
	if res.Outcome != activities.HoldExpired {
		t.Fatalf("outcome = %+v, want expired", res)
	}
	if held := ended.Sub(began); held < store.AssessmentHoldWindow || held > store.AssessmentHoldWindow+holdMaxDelay {
		t.Errorf("held for %s of workflow time, want 15 minutes", held)
	}
	if res.Checks < 80 || res.Checks > 100 {
		t.Errorf("looked %d times in 15 minutes, want about 90 (every 10 s)", res.Checks)
	}
	if n := f.holds(t); n != 0 {
		t.Errorf("%d holds left after the window, want 0", n)
	}

	// Renewed at minute 10 by a later push (which signals the run): held until minute 25.
	e = f.env(t)
	began = e.Now().Truncate(time.Microsecond)
	h = f.hold(t, "AD-2", "https://assess.example.com/t/first", began)
	e.RegisterDelayedCallback(func() {
		f.hold(t, "AD-2", "https://assess.example.com/t/second", e.Now().Truncate(time.Microsecond))
		e.SignalWorkflow(kinds.AssessmentLinkHold.Signal, nil)
	}, 10*time.Minute)
	e.ExecuteWorkflow(AssessmentLinkHold, AssessmentLinkHoldInput{CompanyID: f.co.ID, HoldID: h.ID})
	if res := holdResult(t, e); res.Outcome != activities.HoldExpired {
		t.Fatalf("renewed hold: outcome = %+v, want expired", res)
	}
	if held := e.Now().Sub(began); held < 25*time.Minute || held > 25*time.Minute+holdMaxDelay {
		t.Errorf("renewed hold held for %s, want 25 minutes", held)
	}
	if ids := f.deliveryStarts(t); len(ids) != 0 {
		t.Errorf("delivery starts %v for applications that never appeared", ids)
	}
}

// TestAssessmentLinkHoldDeliversWhenTheApplicationAppears: the application is ingested at minute
// 5 of the hold; within a look the hold becomes its assessment link (received when the push
// was) and its delivery run is launched. A hold whose cross-check id disagrees is discarded.
func TestAssessmentLinkHoldDeliversWhenTheApplicationAppears(t *testing.T) {
	f := newHoldFixture(t)
	e := f.env(t)
	began := e.Now()
	received := began.UTC().Truncate(time.Microsecond)
	h := f.hold(t, "AD-7", "https://assess.example.com/t/late", received)
	var app *models.Application
	e.RegisterDelayedCallback(func() {
		var err error
		_, app, err = f.st.CreateApplication(context.Background(), f.co.ID, f.job.ID,
			store.CandidateInput{FirstName: "Dana", Email: "dana@example.com", ExternalID: "C-7"}, models.ApplicationSourceATS, "AD-7")
		if err != nil {
			t.Error(err)
		}
	}, 5*time.Minute)
	e.ExecuteWorkflow(AssessmentLinkHold, AssessmentLinkHoldInput{CompanyID: f.co.ID, HoldID: h.ID})
	if res := holdResult(t, e); res.Outcome != activities.HoldDelivered {
		t.Fatalf("outcome = %+v, want delivered", res)
	}
	if took := e.Now().Sub(began); took < 5*time.Minute || took > 5*time.Minute+holdMaxDelay {
		t.Errorf("delivered after %s, want within a look of minute 5", took)
	}
	links, err := f.st.AssessmentLinks(t.Context(), f.co.ID, app.ID)
	if err != nil || len(links) != 1 || links[0].URL != "https://assess.example.com/t/late" || !links[0].ReceivedAt.Equal(received) || !links[0].Pending() {
		t.Fatalf("links = %+v, %v; want the held link, received when pushed, waiting to be sent", links, err)
	}
	if ids, want := f.deliveryStarts(t), kinds.AssessmentLink.ID(f.co.Slug, app.ID.String()); len(ids) != 1 || ids[0] != want {
		t.Errorf("delivery starts %v, want the application's delivery run %s", ids, want)
	}
	if n := f.holds(t); n != 0 {
		t.Errorf("%d holds left, want 0", n)
	}

	// The push named another candidate: the application that appears is not its, discarded.
	e = f.env(t)
	h = &store.AssessmentHold{CompanyID: f.co.ID, ApplicationRef: "AD-8", URL: "https://assess.example.com/t/other", CandidateRef: "C-other", ReceivedAt: e.Now()}
	f.holdThis(t, h)
	if _, _, err := f.st.CreateApplication(t.Context(), f.co.ID, f.job.ID, store.CandidateInput{FirstName: "Eli", ExternalID: "C-8"}, models.ApplicationSourceATS, "AD-8"); err != nil {
		t.Fatal(err)
	}
	e.ExecuteWorkflow(AssessmentLinkHold, AssessmentLinkHoldInput{CompanyID: f.co.ID, HoldID: h.ID})
	if res := holdResult(t, e); res.Outcome != activities.HoldMismatch || res.Checks != 1 {
		t.Errorf("mismatched hold: %+v, want discarded at the first look", res)
	}
	if n := f.holds(t); n != 0 {
		t.Errorf("%d holds left, want 0", n)
	}
}
