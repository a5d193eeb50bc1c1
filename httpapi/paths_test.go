package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/browsertest"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// The paths: one test per way a candidate arrives, from the entrance to a report, through the
// real API, worker, Postgres, Temporal and simulators, the candidate taking the interview in
// chromium at the link recruitd wrote. Each ends COMPLETED with one report.

// nurseDescription is an ATS job description the local generator makes an interview of.
const nurseDescription = "We are hiring a Registered Nurse for our surgical ward. You assess patients, give medication, " +
	"keep accurate records and work with doctors and families. Requirements: a nursing licence, two years of hospital " +
	"experience and clear communication. Night shifts rotate."

// linkIn finds the interview link in a message recruitd wrote.
var linkIn = regexp.MustCompile(`https?://[^\s"<>]+/interview/[A-Za-z0-9_-]+`)

// invitationLink waits for the invitation sent for co's session of the application (or, with
// uuid.Nil, co's only session) and returns the link its body carries and the session.
func (f *fixture) invitationLink(t *testing.T, co *models.Company, applicationID uuid.UUID) (string, uuid.UUID) {
	t.Helper()
	var body string
	var session uuid.UUID
	await(t, time.Minute, "the invitation sent", func() bool {
		q := f.st.DB().Raw(`SELECT m.body, m.session_id FROM messages m WHERE m.company_id = ? AND m.status = 'sent' AND m.session_id IS NOT NULL
			AND (?::uuid IS NULL OR m.application_id = ?) ORDER BY m.created_at LIMIT 1`, co.ID, nullUUID(applicationID), nullUUID(applicationID))
		return q.Row().Scan(&body, &session) == nil
	})
	link := linkIn.FindString(body)
	if link == "" {
		t.Fatalf("the invitation carries no interview link:\n%s", body)
	}
	return link, session
}

func nullUUID(id uuid.UUID) any {
	if id == uuid.Nil {
		return nil
	}
	return id
}

// takeInterviewAnywhere answers whatever the interview asks, in the browser, from the link to
// the completed page: consent, a choice for structured questions, an answer for the others.
func takeInterviewAnywhere(t *testing.T, link string) {
	t.Helper()
	ctx := browsertest.Start(t, browsertest.Options{Viewport: browsertest.Phone})
	if status := browsertest.Navigate(t, ctx, link, "#focus"); status != 200 {
		t.Fatalf("GET %s = %d", link, status)
	}
	browsertest.AssertAccessible(t, ctx, "start")
	browsertest.ClickNavigate(t, ctx, `form[action$="/consent"] button`, "#focus")
	for i := 0; ; i++ {
		if i == 40 {
			t.Fatal("no end after 40 screens")
		}
		if strings.HasPrefix(browsertest.Eval[string](t, ctx, "document.title"), "Complete") {
			break
		}
		if browsertest.Eval[bool](t, ctx, `!!document.querySelector('input[type=radio]')`) {
			browsertest.Click(t, ctx, "#choice-0")
		} else {
			browsertest.Type(t, ctx, "#answer", goodAnswer)
		}
		browsertest.ClickNavigate(t, ctx, `form.answer button[type=submit]`, "#focus")
	}
	if h := browsertest.Text(t, ctx, "h1"); h != "Interview complete" {
		t.Fatalf("last screen = %q, want the completed page", h)
	}
	browsertest.AssertNoConsoleErrors(t, ctx)
}

// completedWithOneReport checks the path's end: the session COMPLETED, one report, readable at
// the report endpoint with the company's key.
func (f *fixture) completedWithOneReport(t *testing.T, co *models.Company, key string, session uuid.UUID) {
	t.Helper()
	var status string
	if err := f.st.DB().Raw(`SELECT status FROM interview_sessions WHERE company_id = ? AND id = ?`, co.ID, session).Row().Scan(&status); err != nil || status != "COMPLETED" {
		t.Fatalf("session %s is %q (%v), want COMPLETED", session, status, err)
	}
	rep := f.awaitReport(t, key, session)
	if rep == nil {
		t.Fatal("no report")
	}
	var reports int64
	f.st.DB().Raw(`SELECT count(*) FROM interview_reports WHERE company_id = ? AND session_id = ?`, co.ID, session).Scan(&reports)
	if reports != 1 {
		t.Errorf("%d reports of session %s, want 1", reports, session)
	}
}

// heldUntilFirstReminder checks that the interview run of a session a customer flow invited
// exists and has taken no workflow task: Temporal holds its first until the session's first
// reminder (the company's interview_first_reminder_seconds after the invitation, a day by
// default, moved out of the candidate's quiet hours).
func (f *fixture) heldUntilFirstReminder(t *testing.T, co *models.Company, session uuid.UUID) {
	t.Helper()
	id := kinds.Interview.ID(co.Slug, session.String())
	var invited time.Time
	var first int
	if err := f.st.DB().Raw(`SELECT s.invited_at, c.interview_first_reminder_seconds FROM interview_sessions s JOIN companies c ON c.id = s.company_id
		WHERE s.company_id = ? AND s.id = ?`, co.ID, session).Row().Scan(&invited, &first); err != nil {
		t.Fatal(err)
	}
	var d *workflowservice.DescribeWorkflowExecutionResponse
	await(t, 30*time.Second, "the session's interview run", func() bool {
		var err error
		d, err = f.tc.DescribeWorkflowExecution(t.Context(), id, "")
		return err == nil
	})
	info := d.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || d.GetPendingWorkflowTask() != nil {
		t.Fatalf("run %s is %s with pending task %v, want running and no task", id, info.GetStatus(), d.GetPendingWorkflowTask())
	}
	reminder := invited.Add(time.Duration(first) * time.Second)
	if at := info.GetExecutionTime().AsTime(); at.Before(reminder.Add(-time.Second)) || at.After(reminder.Add(24*time.Hour)) {
		t.Errorf("run %s takes its first task at %s, want at the first reminder (%s, or after it out of the quiet hours)", id, at, reminder)
	}
	it := f.tc.GetWorkflowHistory(t.Context(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED {
			t.Fatalf("run %s scheduled a workflow task (event %d) before the first reminder", id, ev.GetEventId())
		}
	}
}

// follow GETs a link recruitd wrote and returns the status and body.
func follow(t *testing.T, link string) (int, string) {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// (a) createJob, then inviteCandidate: the link comes back in the response.
func TestPathCreateJobAndInvite(t *testing.T) {
	f := newFixture(t)
	job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "path-a", "jobDescription": description, "jobTitle": "Backend Engineer"})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": job.Payload, "candidate": map[string]any{"firstName": "Ada", "lastName": "Path", "email": "ada.path@example.com"},
	})
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("inviteCandidate = %d %s", resp.StatusCode, b)
	}
	inv := decode[httpapi.InviteCandidateResponse](t, resp)
	sent, _ := f.invitationLink(t, f.acme, uuid.Nil)
	if sent != inv.InterviewLink {
		t.Errorf("the e-mail's link %q differs from the response's %q", sent, inv.InterviewLink)
	}
	takeInterviewAnywhere(t, inv.InterviewLink)
	f.completedWithOneReport(t, f.acme, f.acmeKey, uuid.MustParse(inv.SessionID))
}

// (b) A partner application: the callback's link. The session's run sleeps from the
// invitation to its first reminder (its first workflow task held by Temporal's start delay),
// the invitation's fraud check made by the invitation itself; the candidate opening the link
// wakes it, so the interview's end reaches the report as on every other path.
func TestPathPartnerApplication(t *testing.T) {
	f := newPartnerFixture(t)
	if err := f.st.DB().Model(f.acme).Update("fraud_detection_enabled", true).Error; err != nil {
		t.Fatal(err)
	}
	job := f.createJob(t, f.plainKey, map[string]any{"externalJobId": "5002", "jobDescription": nurseDescription, "jobTitle": "Nurse"})
	f.awaitGenerated(t, f.plainKey, job.Payload)
	status, body, _ := f.submit(t, f.key, `{"atsApplicantId": "1003", "atsJobId": "5002"}`)
	if status != http.StatusAccepted {
		t.Fatalf("submit = %d %v", status, body)
	}
	cb := f.recv.await(t, 1)[0]
	if cb.Status != "invited" || cb.InterviewLink == "" {
		t.Fatalf("callback = %+v, want invited with a link", cb)
	}
	var session uuid.UUID
	if err := f.st.DB().Raw(`SELECT s.id FROM interview_sessions s JOIN partner_applications p ON p.company_id = s.company_id AND p.application_id = s.application_id
		WHERE p.company_id = ? AND p.id = ?`, f.acme.ID, cb.ApplicationID).Row().Scan(&session); err != nil {
		t.Fatalf("the partner application's session: %v", err)
	}
	f.heldUntilFirstReminder(t, f.acme, session)
	var checks int64
	f.st.DB().Table("fraud_verifications").Where("company_id = ? AND session_id = ?", f.acme.ID, session).Count(&checks)
	if checks != 1 {
		t.Errorf("%d fraud checks of the session at its invitation, want 1", checks)
	}
	takeInterviewAnywhere(t, cb.InterviewLink)
	f.completedWithOneReport(t, f.acme, f.plainKey, session)
	if n := len(f.recv.callbacks()); n != 1 {
		t.Errorf("%d callbacks, want 1", n)
	}
}

// (c) An HR-suite delivery for a job imported through the aggregator (the README's Ada).
func TestPathHRSuiteDeliveryForAnImportedJob(t *testing.T) {
	f := newAggFixture(t, newFixture(t), aggsim.Job{RemoteID: "kmb_6001", Name: "Registered Nurse", Description: nurseDescription, Location: "Austin, TX"})
	f.saveFlow(t, f.acme, flow.Defaults()[models.TriggerNewApplicationWebhook])
	id := f.connect(t)
	if err := f.sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	f.awaitState(t, models.IntegrationConnected)
	f.awaitImported(t, 1, time.Minute)
	var ext string
	await(t, time.Minute, "the imported job's interview generated", func() bool {
		return f.st.DB().Raw(`SELECT external_id FROM jobs WHERE company_id = ? AND status = 'ACTIVE'`, f.acme.ID).Row().Scan(&ext) == nil
	})
	code, res, _ := f.deliver(t, f.acmeKey, []map[string]any{
		row("APP-ADA", "C-ADA", ext, "ada.lovelace@example.com", "Personal Email", "Candidate First Name=Ada", "Candidate Last Name=Lovelace"),
		row("APP-ADA", "C-ADA", ext, "(512) 555-0142", "Mobile", "Candidate First Name=Ada", "Candidate Last Name=Lovelace"),
	})
	if code != http.StatusOK {
		t.Fatalf("delivery = %d %+v", code, res)
	}
	link, session := f.invitationLink(t, f.acme, uuid.Nil)
	f.heldUntilFirstReminder(t, f.acme, session)
	takeInterviewAnywhere(t, link)
	f.completedWithOneReport(t, f.acme, f.acmeKey, session)
	// The HR suite is read-only: nothing is written back.
	if n := len(f.sim.Writes()); n != 0 {
		t.Errorf("%d writes to the HR suite, want none", n)
	}
}

// (d) An ATS application synced through the aggregator: its 'New Application from ATS'
// invitation, an assessment link pushed for it, the interview, and the note written back with a
// link that resolves.
func TestPathATSApplicationSynced(t *testing.T) {
	f, app := syncedApplicant(t, flow.Defaults()[models.TriggerNewApplicationATS], "ADA", "Ada")
	acme := f.acme
	link, session := f.invitationLink(t, acme, app.ID)

	// The assessment provider pushes a link for the same application: delivered to Ada.
	resp := f.send(t, http.MethodPost, "/v2/api/assessment-links", f.acmeKey, map[string]any{
		"applicationId": "A-ADA", "assessmentUrl": "https://assess.example.com/t/ada-1",
	})
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("assessment link = %d %s", resp.StatusCode, b)
	}
	await(t, time.Minute, "the assessment link delivered", func() bool {
		return f.count(t, `SELECT count(*) FROM messages WHERE company_id = ? AND application_id = ? AND status = 'sent' AND body LIKE '%assess.example.com/t/ada-1%'`, acme.ID, app.ID) == 1
	})

	takeInterviewAnywhere(t, link)
	f.completedWithOneReport(t, acme, f.acmeKey, session)
	var note aggsim.Write
	await(t, time.Minute, "the report's note written back", func() bool {
		for _, w := range f.sim.Writes() {
			if w.Kind == "note" {
				note = w
				return true
			}
		}
		return false
	})
	if n := countWrites(f.sim.Writes(), "note"); n != 1 {
		t.Errorf("%d notes written, want 1", n)
	}
	noteLink := regexp.MustCompile(`https?://\S+/sessions/[0-9a-f-]{36}`).FindString(note.Text)
	if noteLink == "" {
		t.Fatalf("the note carries no session link:\n%s", note.Text)
	}
	if code, body := follow(t, noteLink); code != http.StatusOK || !strings.Contains(body, session.String()) {
		t.Errorf("the note's link %s = %d, want the session's page", noteLink, code)
	}
}

// syncedApplicant connects acme's ATS (one job, J1, with a description) through the aggregator
// with def as its 'New Application from ATS' flow, and syncs one application, A-<ref>, of a
// candidate first-named name; it returns the fixture and the application.
func syncedApplicant(t *testing.T, def *flow.Definition, ref, name string) (*atsSyncFixture, models.Application) {
	t.Helper()
	f := newATSSyncFixture(t, newFixture(t), aggsim.Job{RemoteID: "J1", Name: "Registered Nurse", Description: nurseDescription})
	f.saveFlow(t, f.acme, def)
	id := f.connect(t, f.acmeKey, f.acme)
	cand := aggsim.Candidate{RemoteID: "C-" + ref, FirstName: name, LastName: "Path", Email: strings.ToLower(name) + ".path@example.com"}
	if err := f.sim.PutCandidates(id, cand); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.PutApplications(id, aggsim.Application{RemoteID: "A-" + ref, CandidateRemoteID: cand.RemoteID, JobRemoteID: "J1"}); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	f.synced(t, f.acme, 1, time.Minute)
	app, _ := f.application(t, f.acme, "A-"+ref)
	return f, app
}

func countWrites(ws []aggsim.Write, kind string) int {
	n := 0
	for _, w := range ws {
		if w.Kind == kind {
			n++
		}
	}
	return n
}

// (e) A customer flow with wait_for_session and a step after it: the step runs once the
// candidate completes.
func TestPathCustomerFlowWaitsForTheSession(t *testing.T) {
	f, app := syncedApplicant(t, &flow.Definition{Trigger: models.TriggerNewApplicationATS, Enabled: true, Name: "invite, wait, mark", Steps: []flow.Step{
		{ID: "invite", Type: flow.StepInvite, Invite: &flow.InviteStep{Channels: []models.MessageChannel{models.MessageChannelEmail}, MediumType: models.MediumTypeVideo}},
		{ID: "interview", Type: flow.StepWaitForSession, WaitForSession: &flow.WaitForSessionStep{Timeout: "1h", OnTimeout: &flow.EndAction{Outcome: flow.OutcomeStop}}},
		{ID: "mark", Type: flow.StepSetStatus, SetStatus: &flow.SetStatusStep{Target: flow.TargetApplication, Status: "interviewed"}},
	}}, "EVE", "Eve")
	acme := f.acme
	link, session := f.invitationLink(t, acme, app.ID)
	if st := f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND id = ? AND status = 'interviewed'`, acme.ID, app.ID); st != 0 {
		t.Fatal("the step after wait_for_session ran before the interview")
	}
	takeInterviewAnywhere(t, link)
	f.completedWithOneReport(t, acme, f.acmeKey, session)
	await(t, 30*time.Second, "the step after wait_for_session", func() bool {
		return f.count(t, `SELECT count(*) FROM applications WHERE company_id = ? AND id = ? AND status = 'interviewed'`, acme.ID, app.ID) == 1
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	run := f.tc.GetWorkflow(ctx, fmt.Sprintf("ats-application/%s/A-EVE", acme.Slug), "")
	var out flow.Outcome
	if err := run.Get(ctx, &out); err != nil || out.Result != flow.ResultCompleted {
		t.Errorf("flow run = %+v (%v), want completed", out, err)
	}
}
