package httpapi_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestInvitationsWaitForTheJobsInterview follows ATS applications to a job imported through the
// aggregator without a description (nothing to generate an interview from): the job is FAILED
// with the reason, each application's 'New Application from ATS' run waits, and nothing is sent
// (no session, no invitation, no reminder). When the ATS gives the job a description, the import
// generates its interview and the waiting invitations go out, once each; a second job closed at
// the ATS while its invitation waited sends nothing and the application says why.
func TestInvitationsWaitForTheJobsInterview(t *testing.T) {
	f := newATSSyncFixture(t, newFixture(t),
		aggsim.Job{RemoteID: "J1", Name: "Night nurse"}, aggsim.Job{RemoteID: "J2", Name: "Porter"})
	acme := f.acme
	for _, trig := range []models.FlowTrigger{models.TriggerNewApplicationATS, models.TriggerNewJobFromATS} {
		f.saveFlow(t, acme, flow.Defaults()[trig])
	}
	id := f.connect(t, f.acmeKey, acme)
	if err := f.sim.AddApplications(id, "A", 4, "J1", "J1", "J1", "J2"); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	f.synced(t, acme, 4, time.Minute)
	var j1 models.Job
	if err := f.st.DB().First(&j1, "company_id = ? AND external_id = 'J1'", acme.ID).Error; err != nil {
		t.Fatal(err)
	}
	if j1.Status != models.JobStatusFailed || j1.FailureReason == nil || *j1.FailureReason != store.NoDescriptionReason {
		t.Fatalf("job without a description: %s %v, want FAILED with %q", j1.Status, j1.FailureReason, store.NoDescriptionReason)
	}
	// The interviewer listing says why.
	resp := f.send(t, "GET", "/v1/api/interviewers/"+j1.InterviewerID, f.acmeKey, nil)
	got := decode[httpapi.InterviewerResponse](t, resp).Interviewer
	if got.Status != models.JobStatusFailed || got.Generation.State != "FAILED" || got.Generation.FailureReason == nil ||
		*got.Generation.FailureReason != store.NoDescriptionReason {
		t.Errorf("listing: %+v, want FAILED with the reason", got)
	}
	await(t, time.Minute, "four invitations waiting for their job", func() bool {
		return f.count(t, `SELECT count(*) FROM job_ready_waits WHERE company_id = ?`, acme.ID) == 4
	})
	nothingSent := func(when string) {
		t.Helper()
		if n := f.count(t, `SELECT count(*) FROM interview_sessions WHERE company_id = ?`, acme.ID); n != 0 {
			t.Errorf("%s: %d sessions, want none", when, n)
		}
		if n := f.count(t, `SELECT count(*) FROM messages WHERE company_id = ?`, acme.ID); n != 0 {
			t.Errorf("%s: %d messages, want none", when, n)
		}
	}
	nothingSent("while the job has no interview")

	// J2 closes at the ATS; J1 gets its description: one import pass does both.
	if err := f.sim.CloseJob(id, "J2"); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.PutJobs(id, aggsim.Job{RemoteID: "J1", Name: "Night nurse",
		Description: "Care for patients on a busy surgical ward at night. You assess patients, give medication and keep records. Registered nurse licence required."}); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.DataChanged(id, 1); err != nil {
		t.Fatal(err)
	}
	took := await(t, time.Minute, "the three J1 applicants invited", func() bool {
		return f.count(t, `SELECT count(*) FROM messages m JOIN interview_sessions s ON s.company_id = m.company_id AND s.id = m.session_id
			WHERE m.company_id = ? AND m.status = 'sent'`, acme.ID) == 3
	})
	t.Logf("invitations released %s after the description came", took.Round(time.Millisecond))
	if err := f.st.DB().First(&j1, "company_id = ? AND id = ?", acme.ID, j1.ID).Error; err != nil || j1.Status != models.JobStatusActive || j1.GuideVersion != 2 {
		t.Fatalf("J1 after its description: %s v%d (%v), want ACTIVE, guide version 2", j1.Status, j1.GuideVersion, err)
	}
	// J2's invitation looks again on its own timer (the first look is 30 s after it began waiting).
	await(t, 90*time.Second, "the J2 applicant's run stopped", func() bool {
		return f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND external_id = 'A000004' AND status = 'job_closed'`, acme.ID) == 1
	})
	time.Sleep(2 * time.Second) // room for a second invitation, if a bug sent one
	if n := f.count(t, `SELECT count(*) FROM interview_sessions WHERE company_id = ?`, acme.ID); n != 3 {
		t.Errorf("%d sessions, want 3 (one per J1 application)", n)
	}
	if n := f.count(t, `SELECT count(DISTINCT application_id) FROM messages WHERE company_id = ?`, acme.ID); n != 3 {
		t.Errorf("messages reached %d applications, want 3", n)
	}
	if n := f.count(t, `SELECT count(*) FROM messages WHERE company_id = ?`, acme.ID); n != 3 {
		t.Errorf("%d messages, want 3 (one invitation each)", n)
	}
	if n := f.count(t, `SELECT count(*) FROM job_ready_waits WHERE company_id = ?`, acme.ID); n != 0 {
		t.Errorf("%d waits left, want none", n)
	}
	// Each invitation's link opens the interview's start, not "not ready".
	var token string
	if err := f.st.DB().Raw(`SELECT link_token FROM interview_sessions WHERE company_id = ? LIMIT 1`, acme.ID).Row().Scan(&token); err != nil {
		t.Fatal(err)
	}
	page := f.get(t, "/interview/"+token, nil)
	raw, err := io.ReadAll(page.Body)
	page.Body.Close()
	body := string(raw)
	if err != nil || page.StatusCode != 200 || !strings.Contains(body, "Night nurse") || strings.Contains(body, "not ready") {
		t.Errorf("the invitation's page = %d, want the start screen of Night nurse:\n%s", page.StatusCode, body)
	}
}
