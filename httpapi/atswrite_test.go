package httpapi_test

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/atswrite"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// writeSim is an ATS simulator speaking the three shapes with every credential.
func writeSim(t *testing.T, recs ...atssim.Record) (*atssim.Server, string) {
	t.Helper()
	sim := atssim.New(recs, atssim.Credentials{RestToken: "wtok", APIKey: "wkey", Username: "wuser", Password: "wpass"})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	return sim, srv.URL
}

// useATS makes co an ATS company (not an HR suite) of type typ on the simulator at base, with
// pairs as its decision-stage settings.
func useATS(t *testing.T, f *fixture, co *models.Company, typ models.ATSType, base string, pairs []models.SyncField) {
	t.Helper()
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", co.ID).Updates(map[string]any{
		"ats_type": typ, "hr_suite_account": false, "decision_sync_fields": models.NewJSON(pairs)}).Error; err != nil {
		t.Fatal(err)
	}
	co.ATSType, co.HRSuiteAccount = &typ, false
	if err := f.st.SetATSCredentials(t.Context(), co.ID, f.box, map[string]string{"baseUrl": base, "restToken": "wtok", "apiKey": "wkey",
		"username": "wuser", "password": "wpass"}); err != nil {
		t.Fatal(err)
	}
}

// sessionFor creates an application of co with ATS id ext on the job with ATS id jobExt, and
// a completed session of it.
func sessionFor(t *testing.T, f *fixture, co *models.Company, jobExt, ext string) *models.InterviewSession {
	t.Helper()
	job, err := f.st.JobByExternalID(t.Context(), co.ID, jobExt)
	if err != nil {
		job = f.job(t, co, jobExt)
	}
	cand, app, err := f.st.CreateApplication(t.Context(), co.ID, job.ID, store.CandidateInput{FirstName: "Ada", LastName: "Quinn",
		Email: fmt.Sprintf("ada-%s@example.com", ext), ExternalID: "C-" + ext}, models.ApplicationSourceATS, ext)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s := &models.InterviewSession{CompanyID: co.ID, ApplicationID: &app.ID, CandidateID: cand.ID, JobID: job.ID, MediumType: models.MediumTypeVideo,
		Status: models.SessionStatusCompleted, StartedAt: &now, CompletedAt: &now}
	if err := f.st.DB().Create(s).Error; err != nil {
		t.Fatal(err)
	}
	return s
}

func putDecision(t *testing.T, f *fixture, key string, sessionID uuid.UUID, decision string) (int, httpapi.DecisionResponse) {
	t.Helper()
	resp := f.send(t, http.MethodPut, "/v1/api/sessions/"+sessionID.String()+"/decision", key, map[string]any{"decision": decision, "note": "spoke on the phone"})
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return resp.StatusCode, httpapi.DecisionResponse{}
	}
	return resp.StatusCode, decode[httpapi.DecisionResponse](t, resp)
}

// awaitWrite waits until the company's write id is done or failed and returns it.
func awaitWrite(t *testing.T, f *fixture, companyID, id uuid.UUID) *models.ATSWrite {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		w, err := f.st.ATSWrite(t.Context(), companyID, id)
		if err != nil {
			t.Fatal(err)
		}
		if w.Status == models.ATSWriteDone || w.Status == models.ATSWriteFailed {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("write %s still %s after 60s (attempts %d, last error %q)", id, w.Status, w.Attempts, w.LastError)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDecisionMovesATSStage records decisions over HTTP for an ATS-A, ATS-B and ATS-C company:
// the configured pair reaches the simulator's record through each ATS's update shape, once; a
// pair the ATS refuses (an unknown stage) is recorded failed after one attempt, not retried;
// another company's key reaches neither the session nor the ATS.
func TestDecisionMovesATSStage(t *testing.T) {
	f := newFixture(t)
	f.acme.Slug = fmt.Sprintf("acme-%d", time.Now().UnixNano())
	if err := f.st.DB().Model(f.acme).Update("slug", f.acme.Slug).Error; err != nil {
		t.Fatal(err)
	}
	pairs := []models.SyncField{{Field: "status", Value: "Interview Passed", Decision: models.DecisionAccepted},
		{Field: "status", Value: "No Such Stage", Decision: models.DecisionRejected}}
	for i, typ := range []models.ATSType{models.ATSTypeA, models.ATSTypeB, models.ATSTypeC} {
		t.Run(string(typ), func(t *testing.T) {
			applicant, job := int64(3001+i), int64(6001+i)
			sim, base := writeSim(t, atssim.Record{ATSType: typ, ApplicantID: applicant, JobID: job, CandidateID: 9000 + applicant})
			sim.AllowFields(typ, map[string][]string{"status": {"Applied", "Interview Passed"}})
			useATS(t, f, f.acme, typ, base, pairs)
			sess := sessionFor(t, f, f.acme, fmt.Sprint(job), fmt.Sprint(applicant))

			if status, _ := putDecision(t, f, f.otherKy, sess.ID, "ACCEPTED"); status != http.StatusNotFound {
				t.Fatalf("another company's decision = %d, want 404", status)
			}
			if n := sim.WriteAttempts(); n != 0 {
				t.Fatalf("another company's decision reached the ATS: %d writes", n)
			}
			status, res := putDecision(t, f, f.acmeKey, sess.ID, "ACCEPTED")
			if status != http.StatusOK || res.ATSWrite == nil || res.Decision != models.DecisionAccepted {
				t.Fatalf("decide = %d %+v", status, res)
			}
			w := awaitWrite(t, f, f.acme.ID, res.ATSWrite.ID)
			if w.Status != models.ATSWriteDone || w.Attempts != 1 || w.Target != string(typ) {
				t.Fatalf("write = %+v, want done after one attempt to %s", w, typ)
			}
			if v, ok := sim.Field(typ, applicant, "status"); !ok || v != "Interview Passed" {
				t.Fatalf("ATS status = %q %v, want Interview Passed", v, ok)
			}
			got, err := f.st.Session(t.Context(), f.acme.ID, sess.ID)
			if err != nil || got.Decision != models.DecisionAccepted {
				t.Fatalf("session decision = %v %v", got, err)
			}

			status, res = putDecision(t, f, f.acmeKey, sess.ID, "REJECTED")
			if status != http.StatusOK || res.ATSWrite == nil {
				t.Fatalf("decide REJECTED = %d %+v", status, res)
			}
			w = awaitWrite(t, f, f.acme.ID, res.ATSWrite.ID)
			if w.Status != models.ATSWriteFailed || w.Attempts != 1 || !strings.Contains(w.LastError, "refused") {
				t.Fatalf("refused write = status %s attempts %d error %q, want failed after one attempt", w.Status, w.Attempts, w.LastError)
			}
			if v, _ := sim.Field(typ, applicant, "status"); v != "Interview Passed" {
				t.Fatalf("ATS status = %q after a refused write", v)
			}
		})
	}
	if status, res := putDecision(t, f, f.acmeKey, uuid.New(), "ACCEPTED"); status != http.StatusNotFound {
		t.Fatalf("unknown session = %d %+v", status, res)
	}
	resp := f.send(t, http.MethodPut, "/v1/api/sessions/"+uuid.NewString()+"/decision", f.acmeKey, map[string]any{"decision": "MAYBE"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown decision = %d, want 400", resp.StatusCode)
	}
}

// TestDecisionMovesAggregatorStage: for an ATS connected through the aggregator, a decision
// moves the synced application to the configured stage through the aggregator's stage
// endpoint, once even when the ATS ignores Idempotency-Key and an answer is lost; an unknown
// stage is refused once and recorded.
func TestDecisionMovesAggregatorStage(t *testing.T) {
	f := newFixture(t)
	agg := newAggFixture(t, f, aggsim.Job{RemoteID: "J-1", Name: "Nurse"})
	id := agg.connect(t)
	if err := agg.sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	agg.awaitState(t, models.IntegrationConnected)
	agg.awaitImported(t, 1, 30*time.Second) // the import creates job J-1 the session is for
	// The application exists before the aggregator has it, so the sync (which may run any time
	// from now) finds it rather than creating it.
	sess := sessionFor(t, f, f.acme, "J-1", "APP-1")
	if err := agg.sim.PutApplications(id, aggsim.Application{RemoteID: "APP-1", CandidateRemoteID: "C-1", JobRemoteID: "J-1"}); err != nil {
		t.Fatal(err)
	}
	agg.sim.SetStages(id, "Applied", "Interview Passed")
	useATS(t, f, f.acme, models.ATSTypeD, "https://ats-d.invalid", []models.SyncField{
		{Field: "stage", Value: "kmb_stage_Interview Passed", Decision: models.DecisionAccepted},
		{Field: "stage", Value: "kmb_stage_Nope", Decision: models.DecisionRejected}})
	// The application sync's record of it (the aggregator's id), unless the sync wrote it first.
	if err := f.st.DB().Exec(`INSERT INTO aggregator_applications (company_id, remote_id, ats_application_id, application_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		f.acme.ID, "kmb_app_APP-1", "APP-1", *sess.ApplicationID).Error; err != nil {
		t.Fatal(err)
	}
	// The ATS behind the aggregator ignores Idempotency-Key and the first move's answer is lost:
	// the retry reads the application's stage first and does not move it again.
	agg.sim.SetWriteFaults(aggsim.WriteFaults{IgnoreIdempotencyKey: true, LoseFirst: 1})
	status, res := putDecision(t, f, f.acmeKey, sess.ID, "ACCEPTED")
	if status != http.StatusOK || res.ATSWrite == nil {
		t.Fatalf("decide = %d %+v", status, res)
	}
	if w := awaitWrite(t, f, f.acme.ID, res.ATSWrite.ID); w.Status != models.ATSWriteDone || w.Target != models.ATSTargetAggregator || w.Attempts != 2 {
		t.Fatalf("write = %+v, want done after a retry", w)
	}
	if got := agg.sim.Stage(id, "APP-1"); got != "Interview Passed" {
		t.Fatalf("stage = %q, want Interview Passed", got)
	}
	if n := len(agg.sim.Writes()); n != 1 {
		t.Fatalf("stage moves = %d, want 1 (the retry moved it again)", n)
	}
	agg.sim.SetWriteFaults(aggsim.WriteFaults{})
	status, res = putDecision(t, f, f.acmeKey, sess.ID, "REJECTED")
	if status != http.StatusOK || res.ATSWrite == nil {
		t.Fatalf("decide = %d %+v", status, res)
	}
	if w := awaitWrite(t, f, f.acme.ID, res.ATSWrite.ID); w.Status != models.ATSWriteFailed || w.Attempts != 1 {
		t.Fatalf("refused write = %+v, want failed after one attempt", w)
	}
	if got := agg.sim.Stage(id, "APP-1"); got != "Interview Passed" {
		t.Fatalf("stage = %q after a refused move", got)
	}
}

// TestHRSuiteCompanyNeverWritten: an HR-suite company whose applications carry ATS ids and whose
// ATS credentials point at a simulator gets no write of any kind: a decision queues none, a
// report note is not queued, and a write row forced into the table is refused before any
// request. The simulator counts every write request that reaches it.
func TestHRSuiteCompanyNeverWritten(t *testing.T) {
	f := newFixture(t)
	sim, base := writeSim(t, atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 4001, JobID: 7001, CandidateID: 8001})
	useATS(t, f, f.acme, models.ATSTypeA, base, []models.SyncField{{Field: "status", Value: "Interview Passed"}})
	f.hrsuiteAccount(t, f.acme, false)
	sess := sessionFor(t, f, f.acme, "7001", "4001")

	status, res := putDecision(t, f, f.acmeKey, sess.ID, "ACCEPTED")
	if status != http.StatusOK || res.ATSWrite != nil || res.ATSWriteSkipped != "no ATS record" {
		t.Fatalf("decide = %d %+v, want the decision without a write", status, res)
	}
	w := &atswrite.Writes{Store: f.st, Launcher: f.launcher, Box: f.box, Links: links.New("https://recruitd.example.com", "https://app.example.com")}
	if queued, err := w.QueueNote(t.Context(), f.acme.ID, sess.ID); err != nil || queued {
		t.Fatalf("QueueNote = %v %v, want nothing queued", queued, err)
	}
	accepted := models.DecisionAccepted // the session's decision: the forced write is current
	forced := &models.ATSWrite{CompanyID: f.acme.ID, SessionID: sess.ID, ApplicationID: *sess.ApplicationID, Key: "forced",
		Op: models.ATSWriteStage, Target: string(models.ATSTypeA), Ref: "4001", Decision: &accepted, Field: "status", Value: "Interview Passed"}
	if err := f.st.DB().Create(forced).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := w.Perform(t.Context(), f.acme.ID, forced.ID); err == nil {
		t.Fatal("a write for an HR-suite company was performed")
	}
	var rows int64
	f.st.DB().Model(&models.ATSWrite{}).Where("company_id = ? AND key <> 'forced'", f.acme.ID).Count(&rows)
	if n := sim.WriteAttempts(); n != 0 || rows != 0 {
		t.Fatalf("HR-suite company: %d write requests reached the ATS, %d writes recorded; want none", n, rows)
	}
}

// takePartnerInterview submits a partner application for the ATS-A applicant on the generated job
// with ATS id jobExt, takes the interview behind the invitation to completion, and returns the
// session.
func takePartnerInterview(t *testing.T, f *partnerFixture, applicant int64, jobExt string) *models.InterviewSession {
	t.Helper()
	if status, body, _ := f.submit(t, f.key, fmt.Sprintf(`{"atsApplicantId":"%d","atsJobId":"%s"}`, applicant, jobExt)); status != http.StatusAccepted {
		t.Fatalf("submit = %d %v", status, body)
	}
	var sess models.InterviewSession
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := f.st.DB().Joins("JOIN applications a ON a.company_id = interview_sessions.company_id AND a.id = interview_sessions.application_id").
			First(&sess, "interview_sessions.company_id = ? AND a.external_id = ?", f.acme.ID, fmt.Sprint(applicant)).Error
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session for applicant %d: %v", applicant, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := &candidate{f: f.fixture, path: "/interview/" + sess.LinkToken}
	page := c.post(t, "consent", nil)
	for i := 0; i < 40 && !strings.Contains(page.body, "Interview complete"); i++ {
		answer := "For example, I led a ward of twenty five people for three months and we cut waiting times by a third."
		if m := choiceRE.FindStringSubmatch(page.body); m != nil {
			answer = html.UnescapeString(m[1])
		}
		page = c.post(t, "answer", url.Values{"turn": {turnOf(t, page)}, "answer": {answer}})
	}
	if !strings.Contains(page.body, "Interview complete") {
		t.Fatalf("interview not completed:\n%s", page.body)
	}
	return &sess
}

// awaitNote waits for the session's note write to finish.
func awaitNote(t *testing.T, f *fixture, companyID, sessionID uuid.UUID) *models.ATSWrite {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var w models.ATSWrite
		err := f.st.DB().First(&w, "company_id = ? AND key = ?", companyID, sessionID.String()+"/note").Error
		if err == nil && (w.Status == models.ATSWriteDone || w.Status == models.ATSWriteFailed) {
			return &w
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished note write for session %s: %+v %v", sessionID, w, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCompletedInterviewLeavesOneATSNote: a partner applicant (an ATS-A job submission) takes
// the interview; its run's completion step leaves exactly one note with the result summary and
// the report's link on the job submission. For a second applicant the worker is stopped after
// the note reached the ATS and before its activity completed; another worker retries it, reads
// the submission's notes first, finds the note's marker and sends nothing: the ATS holds one note.
func TestCompletedInterviewLeavesOneATSNote(t *testing.T) {
	f := newPartnerFixture(t)
	job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "5077", "jobDescription": "We are hiring a Registered Nurse. Requirements: RN license."})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 2101, JobID: 5077, CandidateID: 8101, FirstName: "Nia", Email: "nia@example.com"})
	f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 2102, JobID: 5077, CandidateID: 8102, FirstName: "Oz", Email: "oz@example.com"})

	sess := takePartnerInterview(t, f, 2101, "5077")
	w := awaitNote(t, f.fixture, f.acme.ID, sess.ID)
	if w.Status != models.ATSWriteDone {
		t.Fatalf("note write = %+v", w)
	}
	notes := f.sim.Notes(models.ATSTypeA, 2101)
	link := links.New(f.srv.URL, "").Session(sess.ID) // the fixture's configuration: no web app
	if len(notes) != 1 || !strings.Contains(notes[0], link) || !strings.Contains(notes[0], "Status: ") {
		t.Fatalf("notes on job submission 2101 = %q, want one with %s", notes, link)
	}
	if strings.Contains(notes[0], "twenty five people") {
		t.Fatalf("the note quotes an answer: %q", notes[0])
	}

	// The worker stops while the ATS holds the note and its answer has not come back.
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.sim.AfterWrite(func(wr atssim.Write) {
		if wr.ApplicantID != 2102 {
			return
		}
		once.Do(func() {
			close(reached)
			<-release
		})
	})
	sess2 := takePartnerInterview(t, f, 2102, "5077")
	select {
	case <-reached:
	case <-time.After(90 * time.Second):
		t.Fatal("the note never reached the ATS")
	}
	old := f.worker
	stopped := make(chan struct{})
	go func() { old.Stop(); close(stopped) }()
	time.Sleep(1500 * time.Millisecond) // the worker's stop timeout cancels the attempt
	close(release)
	<-stopped
	f.worker = f.startWorker()
	w2 := awaitNote(t, f.fixture, f.acme.ID, sess2.ID)
	if w2.Status != models.ATSWriteDone || w2.Attempts < 2 {
		t.Fatalf("note write = status %s after %d attempts, want done after a retry", w2.Status, w2.Attempts)
	}
	if n := len(f.sim.Notes(models.ATSTypeA, 2102)); n != 1 {
		t.Fatalf("notes on job submission 2102 = %d, want 1 (the retry repeated the write)", n)
	}
	if n := f.sim.WriteAttempts(); n != 2 {
		t.Fatalf("write requests = %d, want 2: the retry finds its note in the ATS's notes and does not send it again", n)
	}
	var notesOther int64
	f.st.DB().Model(&models.ATSWrite{}).Where("company_id = ?", f.other.ID).Count(&notesOther)
	if notesOther != 0 {
		t.Fatalf("the other company has %d writes", notesOther)
	}
}
