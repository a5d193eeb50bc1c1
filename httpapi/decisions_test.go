package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/atswrite"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// decisionPairs are three decisions, each with its own stage.
var decisionPairs = []models.SyncField{
	{Field: "status", Value: "Interview Passed", Decision: models.DecisionAccepted},
	{Field: "status", Value: "Rejected", Decision: models.DecisionRejected},
	{Field: "status", Value: "Hired", Decision: models.DecisionHired},
}

func pairValue(d models.Decision) string {
	p, _ := models.SyncFieldFor(decisionPairs, d)
	return p.Value
}

// rawDecision puts a decision over HTTP from any goroutine (no t.Fatal) and returns the status
// and the body; the response is checked against api/openapi.yaml.
func rawDecision(t *testing.T, f *fixture, key string, sessionID uuid.UUID, body any) (int, []byte, error) {
	j, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, f.srv.URL+"/v1/api/sessions/"+sessionID.String()+"/decision", bytes.NewReader(j))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	f.api.Check(t, req, resp)
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// awaitSettled waits until none of the session's writes is pending or sending.
func awaitSettled(t *testing.T, f *fixture, companyID uuid.UUID, sessions ...uuid.UUID) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		var open int64
		if err := f.st.DB().Model(&models.ATSWrite{}).Where("company_id = ? AND session_id IN ? AND status IN ?", companyID, sessions,
			[]string{models.ATSWritePending, models.ATSWriteSending}).Count(&open).Error; err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes still pending or sending after 120s", open)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDecisionRaceATSEndsOnLastDecision: three decisions on one session at once, against an ATS
// that fails the first two requests of each stage value (503); the ATS ends on the session's
// decision in 20 of 20 runs.
func TestDecisionRaceATSEndsOnLastDecision(t *testing.T) {
	f := newFixture(t)
	const runs = 20
	recs := make([]atssim.Record, runs)
	for i := range recs {
		recs[i] = atssim.Record{ATSType: models.ATSTypeB, ApplicantID: int64(7001 + i), JobID: 8801, CandidateID: int64(9701 + i)}
	}
	sim, base := writeSim(t, recs...)
	sim.SetWriteFaults(atssim.WriteFaults{FailFirst: 2})
	useATS(t, f, f.acme, models.ATSTypeB, base, decisionPairs)
	decisions := []string{"ACCEPTED", "REJECTED", "HIRED"}
	sessions := make([]*models.InterviewSession, runs)
	for i := range sessions {
		sessions[i] = sessionFor(t, f, f.acme, "8801", fmt.Sprint(recs[i].ApplicantID))
	}
	// The runs overlap: each puts its three decisions at once, then the next run starts while
	// the earlier ones' writes are retried.
	for i, sess := range sessions {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, d := range decisions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				status, body, err := rawDecision(t, f, f.acmeKey, sess.ID, map[string]any{"decision": d})
				if err != nil || status != http.StatusOK {
					t.Errorf("run %d: decide %s = %d %s %v", i, d, status, body, err)
				}
			}()
		}
		close(start)
		wg.Wait()
	}
	ids := make([]uuid.UUID, runs)
	for i, s := range sessions {
		ids[i] = s.ID
	}
	awaitSettled(t, f, f.acme.ID, ids...)
	agree := 0
	for i, sess := range sessions {
		got, err := f.st.Session(t.Context(), f.acme.ID, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		atATS, _ := sim.Field(models.ATSTypeB, recs[i].ApplicantID, "status")
		if atATS == pairValue(got.Decision) {
			agree++
		} else {
			t.Errorf("run %d: recruitd says %s, the ATS holds %q", i, got.Decision, atATS)
		}
	}
	if agree != runs {
		t.Fatalf("the ATS ended on the last decision in %d of %d runs", agree, runs)
	}
}

// TestDecisionPutIsIdempotent: 20 identical decisions, at once, record one decision, one note and
// one stage write; every answer names that write, and the ATS gets one stage request.
func TestDecisionPutIsIdempotent(t *testing.T) {
	f := newFixture(t)
	sim, base := writeSim(t, atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 4101, JobID: 8101, CandidateID: 9101})
	useATS(t, f, f.acme, models.ATSTypeA, base, decisionPairs)
	sess := sessionFor(t, f, f.acme, "8101", "4101")
	var mu sync.Mutex
	var answers []httpapi.DecisionResponse
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, body, err := rawDecision(t, f, f.acmeKey, sess.ID, map[string]any{"decision": "ACCEPTED", "note": "strong on triage"})
			var res httpapi.DecisionResponse
			if err != nil || status != http.StatusOK || json.Unmarshal(body, &res) != nil {
				t.Errorf("decide = %d %s %v", status, body, err)
				return
			}
			mu.Lock()
			answers = append(answers, res)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(answers) != 20 {
		t.Fatalf("%d answers", len(answers))
	}
	changed := 0
	for _, a := range answers {
		if a.Changed {
			changed++
		}
		if a.ATSWrite == nil || a.ATSWrite.ID != answers[0].ATSWrite.ID || a.Decision != models.DecisionAccepted {
			t.Fatalf("answers name different writes: %+v and %+v", a, answers[0])
		}
	}
	if changed != 1 {
		t.Fatalf("%d answers changed the decision, want 1", changed)
	}
	awaitWrite(t, f, f.acme.ID, answers[0].ATSWrite.ID)
	// A 21st, after the write is done, changes nothing either.
	status, res := putDecision(t, f, f.acmeKey, sess.ID, "ACCEPTED")
	if status != http.StatusOK || res.Changed || res.ATSWrite == nil || res.ATSWrite.ID != answers[0].ATSWrite.ID || res.ATSWrite.Status != models.ATSWriteDone {
		t.Fatalf("repeat after the write = %d %+v", status, res)
	}
	var rows, notes int64
	f.st.DB().Model(&models.ATSWrite{}).Where("company_id = ? AND session_id = ?", f.acme.ID, sess.ID).Count(&rows)
	f.st.DB().Table("recruiter_notes").Where("company_id = ? AND session_id = ? AND body = ?", f.acme.ID, sess.ID, "strong on triage").Count(&notes)
	if rows != 1 || notes != 1 {
		t.Fatalf("20 identical decisions: %d writes, %d notes; want 1 and 1", rows, notes)
	}
	if n := len(sim.Writes()); n != 1 || sim.WriteAttempts() != 1 {
		t.Fatalf("the ATS got %d stage writes (%d requests), want 1", n, sim.WriteAttempts())
	}
}

// TestRetriedWriteReadsATSFirst: for each of ATS-A, ATS-B and ATS-C, an ATS that ignores
// Idempotency-Key takes a write and loses its answer (502). The retry reads the record first: the
// stage is there, the note with the write's marker is there, and neither is sent again.
func TestRetriedWriteReadsATSFirst(t *testing.T) {
	f := newFixture(t)
	for i, typ := range []models.ATSType{models.ATSTypeA, models.ATSTypeB, models.ATSTypeC} {
		t.Run(string(typ), func(t *testing.T) {
			applicant, job := int64(5101+i), int64(6101+i)
			sim, base := writeSim(t, atssim.Record{ATSType: typ, ApplicantID: applicant, JobID: job, CandidateID: 9200 + applicant})
			sim.SetWriteFaults(atssim.WriteFaults{IgnoreIdempotencyKey: true, LoseFirst: 1})
			useATS(t, f, f.acme, typ, base, decisionPairs)
			sess := sessionFor(t, f, f.acme, fmt.Sprint(job), fmt.Sprint(applicant))

			status, res := putDecision(t, f, f.acmeKey, sess.ID, "REJECTED")
			if status != http.StatusOK || res.ATSWrite == nil {
				t.Fatalf("decide = %d %+v", status, res)
			}
			w := awaitWrite(t, f, f.acme.ID, res.ATSWrite.ID)
			if w.Status != models.ATSWriteDone || w.Attempts != 2 {
				t.Fatalf("stage write = %s after %d attempts, want done after 2", w.Status, w.Attempts)
			}
			stages := 0
			for _, wr := range sim.Writes() {
				if wr.Field != "" {
					stages++
				}
			}
			if v, _ := sim.Field(typ, applicant, "status"); stages != 1 || v != "Rejected" {
				t.Fatalf("the ATS got %d stage writes (now %q), want 1", stages, v)
			}

			rating := 4.2
			if _, _, err := f.st.SaveReport(t.Context(), store.SessionReport{SessionID: sess.ID, CompanyID: f.acme.ID, Status: "ready", Rating: &rating,
				Summary: "Rated 4.20.", RubricVersion: "sha256:0000000000000000", Engine: "local",
				Criteria: models.NewJSON(json.RawMessage("[]")), Tags: models.NewJSON(json.RawMessage("[]"))}); err != nil {
				t.Fatal(err)
			}
			wr := &atswrite.Writes{Store: f.st, Launcher: f.launcher, Box: f.box, Links: links.New("https://recruitd.example.com", "https://app.example.com")}
			if queued, err := wr.QueueNote(t.Context(), f.acme.ID, sess.ID); err != nil || !queued {
				t.Fatalf("QueueNote = %v %v", queued, err)
			}
			note := awaitNote(t, f, f.acme.ID, sess.ID)
			if note.Status != models.ATSWriteDone || note.Attempts != 2 {
				t.Fatalf("note write = %s after %d attempts, want done after 2", note.Status, note.Attempts)
			}
			if notes := sim.Notes(typ, applicant); len(notes) != 1 {
				t.Fatalf("notes = %q, want 1 (the retry repeated the write)", notes)
			}
		})
	}
}

// TestDecisionRules: the decisions scope (not reports) moves a stage; a note with a control
// character is refused as an answer would be; an unknown session is SESSION_NOT_FOUND; a session
// still open is SESSION_NOT_ENDED with its status, one that ended without completing takes a
// decision; the report of a session that will never have one is REPORT_NOT_AVAILABLE with its
// status, of one that may still get one REPORT_NOT_READY.
func TestDecisionRules(t *testing.T) {
	f := newFixture(t)
	sim, base := writeSim(t, atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 4201, JobID: 8201, CandidateID: 9201})
	useATS(t, f, f.acme, models.ATSTypeA, base, decisionPairs)
	sess := sessionFor(t, f, f.acme, "8201", "4201")
	keyWith := func(scopes ...models.Scope) string {
		key, _ := apikey.Generate()
		if _, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "scoped", key, scopes...); err != nil {
			t.Fatal(err)
		}
		return key
	}
	errorOf := func(status int, body []byte) string {
		var e struct {
			Code          string `json:"code"`
			SessionStatus string `json:"sessionStatus"`
		}
		_ = json.Unmarshal(body, &e)
		return fmt.Sprintf("%d %s %s", status, e.Code, e.SessionStatus)
	}
	decide := func(key string, id uuid.UUID, body any) string {
		status, b, err := rawDecision(t, f, key, id, body)
		if err != nil {
			t.Fatal(err)
		}
		return errorOf(status, b)
	}

	if got := decide(keyWith(models.ScopeReports), sess.ID, map[string]any{"decision": "ACCEPTED"}); got != "403 INSUFFICIENT_SCOPE " {
		t.Fatalf("reports key = %q, want 403 INSUFFICIENT_SCOPE", got)
	}
	for _, note := range []string{"fine\x07", "a\x1b[31mred", "nul\x00", "del\x7f", "c1\u0085"} {
		if got := decide(f.acmeKey, sess.ID, map[string]any{"decision": "ACCEPTED", "note": note}); got != "400 INVALID_FIELD " {
			t.Fatalf("note %q = %q, want 400 INVALID_FIELD", note, got)
		}
	}
	// The enum parses as the OpenAPI spells it: upper case, nothing around it.
	for _, d := range []string{"accepted", "Accepted", " ACCEPTED", "ACCEPTED "} {
		if got := decide(f.acmeKey, sess.ID, map[string]any{"decision": d}); !strings.HasPrefix(got, "400 ") {
			t.Fatalf("decision %q = %q, want 400", d, got)
		}
	}
	if got := decide(f.acmeKey, uuid.New(), map[string]any{"decision": "ACCEPTED"}); got != "404 SESSION_NOT_FOUND " {
		t.Fatalf("unknown session = %q", got)
	}
	if got := decide(f.otherKy, sess.ID, map[string]any{"decision": "ACCEPTED"}); got != "404 SESSION_NOT_FOUND " {
		t.Fatalf("another company's session = %q", got)
	}
	if n := sim.WriteAttempts(); n != 0 {
		t.Fatalf("refused decisions reached the ATS: %d writes", n)
	}
	decisionsOnly := keyWith(models.ScopeDecisions)
	if got := decide(decisionsOnly, sess.ID, map[string]any{"decision": "ACCEPTED", "note": "line one\r\n\tline two"}); got != "200  " {
		t.Fatalf("decisions key = %q, want 200", got)
	}
	var body string
	f.st.DB().Raw(`SELECT body FROM recruiter_notes WHERE company_id = ? AND session_id = ?`, f.acme.ID, sess.ID).Scan(&body)
	if body != "line one\n\tline two" {
		t.Fatalf("note stored as %q", body)
	}

	setStatus := func(id uuid.UUID, st models.SessionStatus) {
		if err := f.st.DB().Model(&models.InterviewSession{}).Where("id = ?", id).Update("status", st).Error; err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range []models.SessionStatus{models.SessionStatusInvited, models.SessionStatusStarted} {
		s := sessionFor(t, f, f.acme, "8201", fmt.Sprint(4301+i))
		setStatus(s.ID, st)
		if got := decide(f.acmeKey, s.ID, map[string]any{"decision": "REJECTED"}); got != "409 SESSION_NOT_ENDED "+string(st) {
			t.Fatalf("decision on a %s session = %q", st, got)
		}
		if got, _ := f.st.Session(t.Context(), f.acme.ID, s.ID); got.Decision != models.DecisionNone {
			t.Fatalf("a refused decision was recorded: %s", got.Decision)
		}
	}

	report := func(key string, id uuid.UUID) string {
		resp := f.send(t, http.MethodGet, "/v1/api/sessions/"+id.String()+"/report", key, nil)
		b, _ := io.ReadAll(resp.Body)
		return errorOf(resp.StatusCode, b)
	}
	if got := report(f.acmeKey, sess.ID); got != "404 REPORT_NOT_READY " {
		t.Fatalf("report of a completed session without one yet = %q", got)
	}
	for i, st := range []models.SessionStatus{models.SessionStatusCancelled, models.SessionStatusDeclined, models.SessionStatusExpired, models.SessionStatusIncomplete} {
		s := sessionFor(t, f, f.acme, "8201", fmt.Sprint(4311+i))
		setStatus(s.ID, st)
		if got := report(f.acmeKey, s.ID); got != "409 REPORT_NOT_AVAILABLE "+string(st) {
			t.Fatalf("report of a %s session = %q", st, got)
		}
		if got := report(f.otherKy, s.ID); got != "404 SESSION_NOT_FOUND " {
			t.Fatalf("another company's %s session = %q", st, got)
		}
		if got := decide(f.acmeKey, s.ID, map[string]any{"decision": "REJECTED"}); got != "200  " {
			t.Fatalf("decision on a %s session = %q, want 200", st, got)
		}
	}
	if got := report(f.acmeKey, uuid.New()); got != "404 SESSION_NOT_FOUND " {
		t.Fatalf("report of an unknown session = %q", got)
	}
}
