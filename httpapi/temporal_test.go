package httpapi_test

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

// Marker values: personal data that must never reach Temporal. Each is distinctive enough that
// finding it in a history's bytes can only mean it leaked.
var personalMarkers = []string{
	"Zqxfirstmarker", "Zqxlastmarker", "zqx.marker@example.com", "4155550199", // the ATS applicant
	"Vwjfirstmarker", "Vwjlastmarker", "vwj.marker@example.com", "4155550188", // the invited candidate
	answerMarker, // the candidate's answers in the interview
}

// answerMarker is in every answer of the interview the test takes: answers stay in Postgres.
const answerMarker = "Qpzanswermarker"

// assessmentMarker is the candidate-specific part of an assessment link: it opens the
// candidate's assessment and must stay in Postgres.
const assessmentMarker = "Qkzassessmarker7731"

// TestNoPersonalDataInTemporal runs every workflow kind recruitd starts with marker values for
// names, e-mail addresses and phones, then reads every event of every history through the
// Temporal API and finds none of the markers and no interview-link token. It also lists the
// test's workflows by CompanySlug and finds each kind there. A new workflow kind joins the table.
func TestNoPersonalDataInTemporal(t *testing.T) {
	f := newPartnerFixture(t)
	f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 1099, JobID: 5001, CandidateID: 7099,
		FirstName: "Zqxfirstmarker", LastName: "Zqxlastmarker", Email: "zqx.marker@example.com", Phone: "+1 (415) 555-0199"})

	outer := t
	var generated string // the interviewer id of the generated job
	cases := []struct {
		kind string
		run  func(t *testing.T)
	}{
		{kinds.JobGeneration.Name, func(t *testing.T) {
			job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "pii-1", "jobDescription": "We are hiring a Registered Nurse. Requirements: RN license."})
			f.awaitGenerated(t, f.acmeKey, job.Payload)
			generated = job.Payload
		}},
		{kinds.Invite.Name, func(t *testing.T) {
			resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
				"interviewerId": "acme-" + simJob,
				"candidate":     map[string]any{"firstName": "Vwjfirstmarker", "lastName": "Vwjlastmarker", "email": "vwj.marker@example.com", "phone": "+14155550188"},
			})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("inviteCandidate = %d", resp.StatusCode)
			}
			awaitText(t, f.outbox, "vwj.marker@example.com")
		}},
		{kinds.Interview.Name, func(t *testing.T) {
			// The candidate, invited to the generated job, takes its interview with marker
			// answers; the session's run ends.
			resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
				"interviewerId": generated,
				"candidate":     map[string]any{"firstName": "Vwjfirstmarker", "lastName": "Vwjlastmarker", "email": "vwj.marker@example.com", "phone": "+14155550188"},
			})
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("inviteCandidate = %d %s", resp.StatusCode, b)
			}
			inv := decode[httpapi.InviteCandidateResponse](t, resp)
			sess, err := f.st.Session(t.Context(), f.acme.ID, uuid.MustParse(inv.SessionID))
			if err != nil {
				t.Fatal(err)
			}
			c := &candidate{f: f.fixture, path: "/interview/" + sess.LinkToken}
			page := c.post(t, "consent", nil)
			for i := 0; i < 40 && !strings.Contains(page.body, "Interview complete"); i++ {
				answer := "For example, I did this at " + answerMarker + " last year with twenty five people for three months."
				if m := choiceRE.FindStringSubmatch(page.body); m != nil {
					answer = html.UnescapeString(m[1])
				}
				page = c.post(t, "answer", url.Values{"turn": {turnOf(t, page)}, "answer": {answer}})
			}
			if !strings.Contains(page.body, "Interview complete") {
				t.Fatalf("interview not completed:\n%s", page.body)
			}
			id := kinds.Interview.ID(f.acme.Slug, sess.ID.String())
			if err := f.tc.GetWorkflow(t.Context(), id, "").Get(t.Context(), nil); err != nil {
				ws, _ := f.st.WorkflowStart(t.Context(), f.acme.ID, id)
				t.Fatalf("interview run %s: %v (start row %+v)", id, err, ws)
			}
		}},
		{kinds.PartnerApplication.Name, func(t *testing.T) {
			if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1099","atsJobId":"5001"}`); status != http.StatusAccepted {
				t.Fatalf("submit = %d %v", status, body)
			}
			if got := f.recv.await(t, 1); got[0].Status != "invited" || got[0].InterviewLink == "" {
				t.Fatalf("callback = %+v, want invited with a link", got[0])
			}
		}},
		{kinds.Callback.Name, func(t *testing.T) {
			// A repeat after settlement replays the terminal callback, link included.
			if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1099"}`); status != http.StatusAccepted {
				t.Fatalf("repeat = %d %v", status, body)
			}
			if got := f.recv.await(t, 2); got[1].Reason != "repeat_submission" || got[1].InterviewLink == "" {
				t.Fatalf("replay = %+v, want a replay with the link", got[1])
			}
		}},
		{kinds.ATSWrite.Name, func(t *testing.T) {
			// The marked partner applicant's session gets a decision: its stage goes to ATS-A.
			if err := f.st.DB().Model(f.acme).Update("decision_sync_fields", models.NewJSON([]models.SyncField{{Field: "status", Value: "Interview Passed"}})).Error; err != nil {
				t.Fatal(err)
			}
			var sess models.InterviewSession
			if err := f.st.DB().Joins("JOIN applications a ON a.company_id = interview_sessions.company_id AND a.id = interview_sessions.application_id").
				First(&sess, "interview_sessions.company_id = ? AND a.external_id = ?", f.acme.ID, "1099").Error; err != nil {
				t.Fatal(err)
			}
			// A decision is taken once the session has ended: this invitation expired.
			if err := f.st.DB().Model(&sess).Update("status", models.SessionStatusExpired).Error; err != nil {
				t.Fatal(err)
			}
			status, res := putDecision(t, f.fixture, f.acmeKey, sess.ID, "ACCEPTED")
			if status != http.StatusOK || res.ATSWrite == nil {
				t.Fatalf("decision = %d %+v", status, res)
			}
			if w := awaitWrite(t, f.fixture, f.acme.ID, res.ATSWrite.ID); w.Status != models.ATSWriteDone {
				t.Fatalf("write = %+v", w)
			}
			if v, _ := f.sim.Field(models.ATSTypeA, 1099, "status"); v != "Interview Passed" {
				t.Fatalf("ATS status = %q", v)
			}
		}},
		{kinds.AssessmentLink.Name, func(t *testing.T) {
			// The invited candidate's application gets an ATS id, then a link for it.
			var app models.Application
			if err := f.st.DB().Joins("JOIN candidates c ON c.id = applications.candidate_id").
				First(&app, "applications.company_id = ? AND c.email = ?", f.acme.ID, "vwj.marker@example.com").Error; err != nil {
				t.Fatal(err)
			}
			if err := f.st.SetApplicationExternalID(t.Context(), f.acme.ID, app.ID, "AD-4411"); err != nil {
				t.Fatal(err)
			}
			resp := f.send(t, http.MethodPost, "/v2/api/assessment-links", f.acmeKey, map[string]any{
				"applicationId": "AD-4411", "assessmentUrl": "https://assess.example.com/t/" + assessmentMarker, "orderId": "ORD-1",
			})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("assessment link = %d", resp.StatusCode)
			}
			awaitText(t, f.outbox, assessmentMarker)
		}},
		{kinds.AssessmentLinkHold.Name, func(t *testing.T) {
			// A link for an application not there yet is held; the application appears.
			held := "https://assess.example.com/t/" + assessmentMarker + "-held"
			resp := f.send(t, http.MethodPost, "/v2/api/assessment-links", f.acmeKey, map[string]any{"applicationId": "AD-4412", "assessmentUrl": held})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("assessment link = %d", resp.StatusCode)
			}
			job, err := f.st.JobByExternalID(t.Context(), f.acme.ID, simJob)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := f.st.CreateApplication(t.Context(), f.acme.ID, job.ID, store.CandidateInput{
				FirstName: "Vwjfirstmarker", LastName: "Vwjlastmarker", Email: "vwj.marker@example.com", ExternalID: "C-4412",
			}, models.ApplicationSourceATS, "AD-4412"); err != nil {
				t.Fatal(err)
			}
			awaitText(t, f.outbox, held)
		}},
	}
	// The HR suite's job carries the markers in its description: ATS payloads stay in Postgres.
	var agg *aggFixture
	var hrsuiteDelivery uuid.UUID
	cases = append(cases, []struct {
		kind string
		run  func(t *testing.T)
	}{
		{kinds.JobImport.Name, func(t *testing.T) {
			// The simulator outlives this row: the ats-application row uses it too.
			agg = newAggFixture(cleanupOn{t, outer}, f.fixture, aggsim.Job{RemoteID: "PII-1", Name: "Registered Nurse",
				Description: "Questions to Zqxfirstmarker Zqxlastmarker, zqx.marker@example.com, +1 (415) 555-0199."})
			id := agg.connect(t)
			if err := agg.sim.FinishSync(id); err != nil {
				t.Fatal(err)
			}
			agg.awaitImported(t, 1, 30*time.Second)
		}},
		{kinds.NewJob.Name, func(t *testing.T) {
			if agg == nil {
				t.Fatal("the job-import row did not run")
			}
			if n := agg.newJobRuns(t); n != 1 {
				t.Fatalf("new-job runs = %d, want 1", n)
			}
		}},
		// An HR-suite delivery carries names, e-mails and phones in its rows.
		{kinds.HRSuiteDelivery.Name, func(t *testing.T) {
			f.fixture.hrsuiteAccount(t, f.acme, true)
			f.fixture.job(t, f.acme, "REQ-PII")
			marked := func(app, job, contact, kind string) map[string]any {
				return row(app, "C-PII", job, contact, kind, "Candidate First Name=Zqxfirstmarker", "Candidate Last Name=Zqxlastmarker")
			}
			began := time.Now()
			status, d, raw := f.deliver(t, f.acmeKey, []map[string]any{
				marked("APP-PII-1", "REQ-PII", "+1 (415) 555-0199", "Mobile"),
				marked("APP-PII-1", "REQ-PII", "zqx.marker@example.com", "Personal Email"),
				marked("APP-PII-2", "REQ-PII-LATER", "zqx.marker@example.com", "Personal Email"),
			})
			if status != http.StatusOK {
				t.Fatalf("delivery = %d %s", status, raw)
			}
			hrsuiteDelivery = d.DeliveryID
			if got := f.awaitProcessed(t, d.DeliveryID, began.Add(-time.Second)); got[0] != "accepted" || got[2] != "unknown_job" {
				t.Fatalf("outcomes = %v", got)
			}
		}},
		{kinds.NewApplication.Name, func(t *testing.T) {
			f.awaitInvited(t, f.acme, "APP-PII-1")
		}},
		{kinds.HRSuiteReplay.Name, func(t *testing.T) {
			f.fixture.job(t, f.acme, "REQ-PII-LATER")
			token := f.supportToken(t)
			out := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"deliveryId": hrsuiteDelivery.String()}, http.StatusAccepted)
			f.awaitReplay(t, token, out["replay"].(map[string]any)["id"].(string))
			f.awaitInvited(t, f.acme, "APP-PII-1", "APP-PII-2")
		}},
		// Acme now connects an ATS (not an HR suite) through the same integration: an
		// application synced with a marked candidate fires 'New Application from ATS', which
		// invites them.
		{kinds.ATSApplication.Name, func(t *testing.T) {
			if agg == nil {
				t.Fatal("the job-import row did not run")
			}
			atsD := models.ATSTypeD
			if err := f.st.DB().Model(f.acme).Updates(map[string]any{"hr_suite_account": false, "ats_type": atsD}).Error; err != nil {
				t.Fatal(err)
			}
			f.fixture.saveFlow(t, f.acme, flow.Defaults()[models.TriggerNewApplicationATS])
			id := agg.sim.IntegrationOf(f.acme.ID.String())
			if err := agg.sim.PutCandidates(id, aggsim.Candidate{RemoteID: "C-PII-ATS", FirstName: "Zqxfirstmarker", LastName: "Zqxlastmarker",
				Email: "zqx.marker@example.com", Phone: "+1 (415) 555-0199"}); err != nil {
				t.Fatal(err)
			}
			if err := agg.sim.PutApplications(id, aggsim.Application{RemoteID: "APP-PII-ATS", CandidateRemoteID: "C-PII-ATS", JobRemoteID: "PII-1"}); err != nil {
				t.Fatal(err)
			}
			line := "── outbox · email → zqx.marker@example.com"
			before := strings.Count(f.outbox.String(), line)
			if err := agg.sim.DataChangedFor(id, 1, "ats_applications"); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for strings.Count(f.outbox.String(), line) == before {
				if time.Now().After(deadline) {
					t.Fatal("the synced candidate was not invited within 30s")
				}
				time.Sleep(20 * time.Millisecond)
			}
		}},
	}...)
	for _, k := range kinds.Names() {
		if !slices.ContainsFunc(cases, func(c struct {
			kind string
			run  func(t *testing.T)
		}) bool {
			return c.kind == k
		}) {
			t.Errorf("workflow kind %q has no row in this test's table: add one that runs it with marker values", k)
		}
	}
	for _, k := range cases {
		t.Run(k.kind, k.run)
	}
	if t.Failed() {
		return
	}

	var tokens []string
	if err := f.st.DB().Model(&models.InterviewSession{}).Where("company_id = ?", f.acme.ID).Pluck("link_token", &tokens).Error; err != nil || len(tokens) < 2 {
		t.Fatalf("link tokens = %d, %v; want the invitations' sessions", len(tokens), err)
	}
	needles := append(slices.Clone(personalMarkers), tokens...)
	needles = append(needles, assessmentMarker)

	execs := listWorkflows(t, f.tc, everyQueue(f.queue), len(cases))
	bySlug := listWorkflows(t, f.tc, fmt.Sprintf("CompanySlug = %q", f.acme.Slug), len(cases))
	seen := map[string]bool{}
	for _, e := range bySlug {
		seen[strings.SplitN(e.GetExecution().GetWorkflowId(), "/", 2)[0]] = true
	}
	for _, k := range cases {
		if !seen[k.kind] {
			t.Errorf("no %s workflow listed by CompanySlug = %q (listed %d)", k.kind, f.acme.Slug, len(bySlug))
		}
	}
	events := 0
	for _, e := range execs {
		id, run := e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId()
		if !slices.ContainsFunc(bySlug, func(b *workflowpb.WorkflowExecutionInfo) bool { return b.GetExecution().GetRunId() == run }) {
			t.Errorf("workflow %s on the test's queue is not listed by CompanySlug", id)
		}
		events += scanHistory(t, f.tc, id, run, needles)
	}
	t.Logf("scanned %d events of %d workflows for %d needles", events, len(execs), len(needles))
}

// scanHistory reads every event of one run's history through the Temporal API and reports each
// needle (case ignored) an event holds; it returns the number of events read.
func scanHistory(t *testing.T, tc client.Client, id, run string, needles []string) int {
	t.Helper()
	events := 0
	it := tc.GetWorkflowHistory(t.Context(), id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		events++
		raw, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.ToLower(raw)
		for _, n := range needles {
			if bytes.Contains(raw, []byte(strings.ToLower(n))) {
				t.Errorf("history of %s, event %d (%s), holds %q", id, ev.GetEventId(), ev.GetEventType(), n)
			}
		}
	}
	return events
}

// scanThreadHistories is the history scan of a test that took an interview in phone's text
// thread: every history of the fixture's queue (at least min runs) holds neither the number (in
// any format) nor any message of the thread, either way, nor the session's link token.
func (f *fixture) scanThreadHistories(t *testing.T, sim *twiliosim.Server, phone string, session uuid.UUID, min int) {
	t.Helper()
	sess, err := f.st.Session(t.Context(), f.acme.ID, session)
	if err != nil {
		t.Fatal(err)
	}
	needles := []string{phone, strings.TrimPrefix(phone, "+1"), sess.LinkToken}
	bodies := 0
	for _, m := range sim.Messages(phone) {
		// Shorter texts ("YES", "1") are words any history may hold; the answers and the
		// questions are longer.
		if b := strings.TrimSpace(m.Body); len(b) >= 12 {
			needles = append(needles, b)
			bodies++
		}
	}
	if bodies < 3 {
		t.Fatalf("%d messages in the thread of %s to look for, want the interview's", bodies, phone)
	}
	events := 0
	execs := listWorkflows(t, f.tc, everyQueue(f.queue), min)
	for _, e := range execs {
		events += scanHistory(t, f.tc, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId(), needles)
	}
	interview := kinds.Interview.ID(f.acme.Slug, session.String())
	if !slices.ContainsFunc(execs, func(e *workflowpb.WorkflowExecutionInfo) bool { return e.GetExecution().GetWorkflowId() == interview }) {
		t.Errorf("the session's run %s is not among the %d workflows scanned", interview, len(execs))
	}
	t.Logf("scanned %d events of %d workflows for %d needles (%d texts)", events, len(execs), len(needles), bodies)
}

// cleanupOn is a subtest whose cleanups run when outer ends.
type cleanupOn struct {
	*testing.T
	outer *testing.T
}

func (c cleanupOn) Cleanup(f func()) { c.outer.Cleanup(f) }

// listWorkflows lists open and closed workflows matching query, waiting (visibility is
// eventually consistent) until at least min are listed.
// everyQueue is the visibility query of the runs on every task queue of the test's prefix.
func everyQueue(prefix string) string {
	names := make([]string, len(kinds.Queues))
	for i, q := range kinds.Queues {
		names[i] = strconv.Quote(q.TaskQueue(prefix))
	}
	return "TaskQueue IN (" + strings.Join(names, ", ") + ")"
}

func listWorkflows(t *testing.T, tc client.Client, query string, min int) []*workflowpb.WorkflowExecutionInfo {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var out []*workflowpb.WorkflowExecutionInfo
		var token []byte
		for {
			resp, err := tc.ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
			if err != nil {
				t.Fatalf("list workflows %s: %v", query, err)
			}
			out = append(out, resp.GetExecutions()...)
			if token = resp.GetNextPageToken(); len(token) == 0 {
				break
			}
		}
		if len(out) >= min || time.Now().After(deadline) {
			return out
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// awaitText waits until the outbox holds s.
func awaitText(t *testing.T, b *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("outbox lacks %q after 30s", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
