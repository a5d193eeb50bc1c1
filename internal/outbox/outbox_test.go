package outbox_test

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

type fixture struct {
	st       *store.Store
	co       *models.Company
	launcher *outbox.Launcher
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	co := &models.Company{Slug: "acme-" + uuid.NewString()[:8], Name: "Acme", DefaultJobStatus: models.JobStatusActive}
	if err := st.CreateCompany(t.Context(), co); err != nil {
		t.Fatal(err)
	}
	tc := temporaltest.New(t).Client(t)
	queue := temporaltest.TaskQueue(t)
	log := slog.New(slog.DiscardHandler)
	w := rtemporal.NewWorker(tc, queue, &activities.Activities{Store: st, Log: log, Generator: generate.NewLocal()}, time.Second)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return &fixture{st: st, co: co, launcher: &outbox.Launcher{
		Store: st, Starter: starter.Starter{Client: tc, QueuePrefix: queue}, Log: log, Grace: time.Millisecond,
	}}
}

// commitJob does what createJob does up to the commit: the job and its start, in one
// transaction.
func (f *fixture) commitJob(t *testing.T, ext string) (*models.Job, *models.WorkflowStart) {
	t.Helper()
	j := &models.Job{ID: uuid.New(), CompanyID: f.co.ID, ExternalID: ext, InterviewerID: f.co.Slug + "-" + ext,
		Description: "We are hiring a Registered Nurse. Requirements: RN license.", Status: models.JobStatusGenerating, IsOpen: true}
	ws := kinds.JobGenerationStart(f.co.Slug, ext, j.InterviewerID, kinds.JobGenerationInput{CompanyID: f.co.ID, JobID: j.ID})
	if err := f.st.CreateJob(t.Context(), j, &ws); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * f.launcher.Grace) // older than the reconciler's grace period
	return j, &ws
}

func (f *fixture) awaitStatus(t *testing.T, jobID uuid.UUID, want models.JobStatus) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := f.st.Job(t.Context(), f.co.ID, jobID)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job status = %s after 30s, want %s", j.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCrashBetweenCommitAndStart: the process dies after the commit and before the start. The
// reconciler starts what it left, once; the job is generated.
func TestCrashBetweenCommitAndStart(t *testing.T) {
	f := newFixture(t)
	job, ws := f.commitJob(t, "crash-1")
	// The process died here: Launch never ran.

	n, err := f.launcher.Reconcile(t.Context(), 100)
	if err != nil || n != 1 {
		t.Fatalf("Reconcile() = %d, %v; want 1 start", n, err)
	}
	f.awaitStatus(t, job.ID, models.JobStatusActive)
	got, err := f.st.WorkflowStart(t.Context(), f.co.ID, ws.WorkflowID)
	if err != nil || got.StartedAt == nil || got.RefusedAt != nil {
		t.Fatalf("start after Reconcile = %+v, %v; want started", got, err)
	}
	if n, err := f.launcher.Reconcile(t.Context(), 100); err != nil || n != 0 {
		t.Errorf("second Reconcile() = %d, %v; want nothing left to start", n, err)
	}
	// A repeated start (a request's retry racing the reconciler) does not run the work again.
	if err := f.launcher.Starter.Start(t.Context(), ws); err != nil {
		t.Errorf("Start(already started) = %v, want nil", err)
	}
}

// TestStartRefusedWhileTemporalIsDown: Launch gives up within its timeout, marks the start
// refused, and the reconciler leaves it to the caller's retry.
func TestStartRefusedWhileTemporalIsDown(t *testing.T) {
	f := newFixture(t)
	dead, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	down := &outbox.Launcher{Store: f.launcher.Store, Starter: f.launcher.Starter, Log: f.launcher.Log, Grace: f.launcher.Grace}
	down.Starter.Client, down.Timeout = dead, 300*time.Millisecond
	job, ws := f.commitJob(t, "down-1")

	begin := time.Now()
	err = down.Launch(t.Context(), ws)
	if !errors.Is(err, outbox.ErrUnavailable) {
		t.Fatalf("Launch(Temporal down) = %v, want ErrUnavailable", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("Launch(Temporal down) took %s, want about its 300ms timeout", d)
	}
	got, err := f.st.WorkflowStart(t.Context(), f.co.ID, ws.WorkflowID)
	if err != nil || got.RefusedAt == nil || got.StartedAt != nil {
		t.Fatalf("start after a refused Launch = %+v, %v; want refused", got, err)
	}
	if !f.launcher.Resumable(got) {
		t.Error("Resumable(refused) = false, want true: the caller's retry takes it")
	}

	// A refused partner application is left to the partner's retry: no callback may follow a 503.
	pa := kinds.PartnerApplicationStart(f.co.Slug, "4242", kinds.PartnerInput{CompanyID: f.co.ID, PartnerApplicationID: uuid.New()})
	if err := f.st.DB().Create(&pa).Error; err != nil {
		t.Fatal(err)
	}
	if err := f.st.RefuseStart(t.Context(), pa.ID, "test"); err != nil {
		t.Fatal(err)
	}
	// A refused job generation reaches nobody outside: the reconciler starts it, so a job whose
	// caller never retried does not stay GENERATING.
	if n, err := f.launcher.Reconcile(t.Context(), 100); err != nil || n != 1 {
		t.Errorf("Reconcile() = %d, %v; want the job generation started and the partner application left alone", n, err)
	}
	f.awaitStatus(t, job.ID, models.JobStatusActive)
	if left, err := f.st.WorkflowStart(t.Context(), f.co.ID, pa.WorkflowID); err != nil || left.StartedAt != nil {
		t.Errorf("refused partner application after Reconcile = %+v, %v; want not started", left, err)
	}

	// The caller's retry, with Temporal back: answered as the first request would have been.
	again, err := f.st.WorkflowStart(t.Context(), f.co.ID, ws.WorkflowID)
	if err != nil || !f.launcher.Resumable(again) {
		t.Fatalf("Resumable(refused, then started) = false, %v; want the retry answered as the request", err)
	}
	if err := f.launcher.Launch(t.Context(), again); err != nil {
		t.Fatalf("Launch(retry) = %v", err)
	}
}

func TestResumable(t *testing.T) {
	l := &outbox.Launcher{Grace: time.Minute}
	now := time.Now()
	old := now.Add(-2 * time.Minute)
	tests := []struct {
		name string
		ws   models.WorkflowStart
		want bool
	}{
		{"request still running", models.WorkflowStart{CreatedAt: now}, false},
		{"left by a crash", models.WorkflowStart{CreatedAt: old}, true},
		{"refused", models.WorkflowStart{CreatedAt: now, RefusedAt: &now}, true},
		{"refused, then started by the reconciler", models.WorkflowStart{CreatedAt: now, RefusedAt: &now, StartedAt: &now}, true},
		{"refused long ago", models.WorkflowStart{CreatedAt: old.Add(-2 * time.Hour), RefusedAt: &[]time.Time{old.Add(-2 * time.Hour)}[0]}, false},
		{"started", models.WorkflowStart{CreatedAt: old, StartedAt: &now}, false},
	}
	for _, tt := range tests {
		if got := l.Resumable(&tt.ws); got != tt.want {
			t.Errorf("Resumable(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPrune: rows started more than StartRetention ago go, except new-job ones; younger started
// rows and rows never started stay.
func TestPrune(t *testing.T) {
	f := newFixture(t)
	now := time.Now()
	old, young := now.Add(-outbox.StartRetention-time.Hour), now.Add(-time.Hour)
	rows := map[string]*time.Time{"old-started": &old, "young-started": &young, "pending": nil}
	ids := map[string]uuid.UUID{}
	for name, started := range rows {
		_, ws := f.commitJob(t, name)
		ids[name] = ws.ID
		if started != nil {
			if err := f.st.DB().Model(&models.WorkflowStart{}).Where("id = ?", ws.ID).Update("started_at", *started).Error; err != nil {
				t.Fatal(err)
			}
		}
	}
	keep := kinds.NewJobStart(f.co.Slug, f.co.ID, uuid.New(), "ATS-1", f.co.Slug+"-ATS-1")
	keep.StartedAt = &old
	if err := f.st.DB().Create(&keep).Error; err != nil {
		t.Fatal(err)
	}
	n, err := f.launcher.Prune(t.Context(), now)
	if err != nil || n != 1 {
		t.Fatalf("Prune() = %d, %v; want the one old started job-generation row", n, err)
	}
	for name, id := range map[string]uuid.UUID{"young-started": ids["young-started"], "pending": ids["pending"], kinds.NewJob.Name: keep.ID} {
		var c int64
		f.st.DB().Model(&models.WorkflowStart{}).Where("id = ?", id).Count(&c)
		if c != 1 {
			t.Errorf("%s row pruned; want it kept", name)
		}
	}
}

// TestLaunchDoesNotWaitForItsRecord: the record that a start was taken is written after Launch
// returns, so a request answers once Temporal took its start. Here the row is locked, as a
// busy database would keep the update waiting: Launch returns regardless, and the record is
// written once the lock is gone. Before, Launch waited for the update.
func TestLaunchDoesNotWaitForItsRecord(t *testing.T) {
	f := newFixture(t)
	job, ws := f.commitJob(t, "record-1")
	tx, err := f.st.SQL().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT 1 FROM workflow_starts WHERE id = $1 FOR UPDATE`, ws.ID); err != nil {
		t.Fatal(err)
	}
	launched := make(chan error, 1)
	go func() { launched <- f.launcher.Launch(t.Context(), ws) }()
	select {
	case err := <-launched:
		if err != nil || ws.StartedAt == nil {
			t.Fatalf("Launch() = %v (started at %v), want the start taken", err, ws.StartedAt)
		}
	case <-time.After(20 * time.Second):
		tx.Rollback()
		<-launched
		t.Fatal("Launch waited for the record of its start (the row was locked)")
	}
	if got, err := f.st.WorkflowStart(t.Context(), f.co.ID, ws.WorkflowID); err != nil || got.StartedAt != nil {
		t.Fatalf("start while its row is locked = %+v, %v; want not recorded yet", got, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := f.st.WorkflowStart(t.Context(), f.co.ID, ws.WorkflowID)
		if err != nil {
			t.Fatal(err)
		}
		if got.StartedAt != nil && got.Attempts == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("start after the lock = %+v, want recorded started once", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, err := f.launcher.Reconcile(t.Context(), 100); err != nil || n != 0 {
		t.Errorf("Reconcile() = %d, %v; want nothing left to start", n, err)
	}
	f.awaitStatus(t, job.ID, models.JobStatusActive)
}
