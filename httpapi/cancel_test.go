package httpapi_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// cancel posts a cancellation of sessionID with key and returns the status and the body.
func (f *fixture) cancel(t *testing.T, key, sessionID string, body any) (int, []byte) {
	t.Helper()
	resp := f.send(t, http.MethodPost, "/v1/api/sessions/"+sessionID+"/cancel", key, body)
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// sessionEvents is a session's timeline as "kind" or "kind by", oldest first.
func (f *fixture) sessionEvents(t *testing.T, sessionID uuid.UUID) []string {
	t.Helper()
	var out []string
	if err := f.st.DB().Raw(`SELECT kind || coalesce(' ' || (detail->>'by'), '') FROM interview_events WHERE session_id = ? ORDER BY at, id`, sessionID).
		Scan(&out).Error; err != nil {
		t.Fatal(err)
	}
	return out
}

// reminderCount counts a session's reminder messages.
func (f *fixture) reminderCount(t *testing.T, sessionID uuid.UUID) int64 {
	t.Helper()
	var n int64
	if err := f.st.DB().Raw(`SELECT count(*) FROM messages WHERE session_id = ? AND send_key LIKE 'interview/%/reminder/%'`, sessionID).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// awaitRunClosed waits until the session's interview run has completed.
func (f *fixture) awaitRunClosed(t *testing.T, co *models.Company, sessionID uuid.UUID) {
	t.Helper()
	id := kinds.Interview.ID(co.Slug, sessionID.String())
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		d, err := f.tc.DescribeWorkflowExecution(t.Context(), id, "")
		if err == nil && d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the run %s did not complete (%v)", id, err)
		}
	}
}

func errorCode(t *testing.T, b []byte) (code, message string) {
	t.Helper()
	var e httpapi.ErrorBody
	if err := json.Unmarshal(b, &e); err != nil || e.Success {
		t.Fatalf("not the error body: %s", b)
	}
	return e.Code, e.Message
}

// TestCancelSession: POST /v1/api/sessions/{sessionId}/cancel withdraws an invited session
// before its first reminder (due 3 s after the invitation): no reminder is sent while another
// session's is, the run ends, the page says the interview was withdrawn, and a repeat answers the
// same. The reason is required and checked like an answer; another company's key, an unknown
// id and a key without the invitations scope reach nothing; an ended session is a 409.
func TestCancelSession(t *testing.T) {
	f := newFixture(t)
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).Updates(map[string]any{
		"interview_expiry_seconds": 600, "interview_first_reminder_seconds": 3, "interview_last_reminder_seconds": 1,
		"quiet_hours_start": "00:00", "quiet_hours_end": "00:00"}).Error; err != nil {
		t.Fatal(err)
	}
	kept, keptID := f.invite(t, f.acmeKey, "cancel-kept")
	c, id := f.invite(t, f.acmeKey, "cancel-1")
	path := id.String()

	status, body := f.cancel(t, f.acmeKey, path, map[string]any{"reason": "  Position filled internally\r\n(req 42)  "})
	if status != http.StatusOK {
		t.Fatalf("cancel = %d %s", status, body)
	}
	var first httpapi.CancelSessionResponse
	if err := json.Unmarshal(body, &first); err != nil {
		t.Fatal(err)
	}
	if !first.Success || first.SessionID != id || first.Status != models.SessionStatusCancelled || first.CancelledAt == nil ||
		first.Reason == nil || *first.Reason != "Position filled internally\n(req 42)" {
		t.Fatalf("cancel = %s, want CANCELLED with the cleaned reason and a time", body)
	}
	// Idempotent: the same answer, the first reason kept.
	status, again := f.cancel(t, f.acmeKey, path, map[string]any{"reason": "another reason"})
	var second httpapi.CancelSessionResponse
	_ = json.Unmarshal(again, &second)
	if status != http.StatusOK || !reflect.DeepEqual(first, second) {
		t.Errorf("cancel again = %d %s, want 200 %s", status, again, body)
	}

	// The other session gets its first reminder; the cancelled one none, and its run ended.
	for end := time.Now().Add(30 * time.Second); f.reminderCount(t, keptID) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the kept session got no reminder in 30 s; events %q", f.sessionEvents(t, keptID))
		}
	}
	if n := f.reminderCount(t, id); n != 0 {
		t.Errorf("the cancelled session got %d reminders", n)
	}
	f.awaitRunClosed(t, f.acme, id)
	if got := f.sessionEvents(t, id); !slices.Equal(got, []string{"invited", "cancelled api"}) {
		t.Errorf("events = %q, want invited, cancelled by api", got)
	}
	if n := f.reminderCount(t, id); n != 0 {
		t.Errorf("the cancelled session got %d reminders", n)
	}

	// The candidate's page: withdrawn, whom to contact, not the reason; no consent taken.
	r := c.get(t)
	if r.status != http.StatusOK || !strings.Contains(r.body, "This interview was withdrawn") ||
		!strings.Contains(r.body, "contact the hiring team at Acme Corp") || !strings.Contains(r.body, "<title>Withdrawn | Acme Corp interview</title>") {
		t.Errorf("cancelled session's page = %d:\n%s", r.status, r.body)
	}
	if strings.Contains(r.body, "Position filled") {
		t.Error("the page shows the cancellation's reason")
	}
	if r := c.post(t, "consent", nil); !strings.Contains(r.body, "was withdrawn") {
		t.Error("a cancelled session took a consent")
	}

	// Refusals: nothing changes on the kept session.
	other := keptID.String()
	noInvitations, _ := apikey.Generate()
	if _, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "reports-only", noInvitations, models.ScopeReports); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, key, session string
		body               any
		status             int
		code, message      string
	}{
		{"another company's key", f.otherKy, other, map[string]any{"reason": "x"}, 404, "SESSION_NOT_FOUND", ""},
		{"unknown session", f.acmeKey, uuid.NewString(), map[string]any{"reason": "x"}, 404, "SESSION_NOT_FOUND", ""},
		{"malformed id", f.acmeKey, "not-a-session", map[string]any{"reason": "x"}, 404, "SESSION_NOT_FOUND", ""},
		{"no invitations scope", noInvitations, other, map[string]any{"reason": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
		{"no reason", f.acmeKey, other, map[string]any{}, 400, "MISSING_REQUIRED_FIELDS", "reason is required"},
		{"blank reason", f.acmeKey, other, map[string]any{"reason": " \n\t"}, 400, "MISSING_REQUIRED_FIELDS", "reason is required"},
		{"control character", f.acmeKey, other, map[string]any{"reason": "late\u0007"}, 400, "INVALID_FIELD", "not text"},
		{"escape sequence", f.acmeKey, other, map[string]any{"reason": "\u001b[31mred"}, 400, "INVALID_FIELD", "not text"},
		{"too long", f.acmeKey, other, map[string]any{"reason": strings.Repeat("é", 501)}, 400, "INVALID_FIELD", "longer than 500 characters"},
		{"reason not a string", f.acmeKey, other, map[string]any{"reason": 7}, 400, "INVALID_JSON", ""},
	} {
		status, b := f.cancel(t, tt.key, tt.session, tt.body)
		code, msg := errorCode(t, b)
		if status != tt.status || code != tt.code || !strings.Contains(msg, tt.message) {
			t.Errorf("%s: %d %s, want %d %s saying %q", tt.name, status, b, tt.status, tt.code, tt.message)
		}
	}
	s, err := f.st.Session(t.Context(), f.acme.ID, keptID)
	if err != nil || s.Status != models.SessionStatusInvited || s.CancelReason != nil {
		t.Fatalf("kept session = %+v %v, want INVITED", s, err)
	}

	// An ended session is a 409 naming its status.
	if r := kept.post(t, "decline", nil); !strings.Contains(r.body, "You declined") {
		t.Fatalf("decline:\n%s", r.body)
	}
	status, b := f.cancel(t, f.acmeKey, other, map[string]any{"reason": "x"})
	if code, msg := errorCode(t, b); status != http.StatusConflict || code != "SESSION_ENDED" || !strings.Contains(msg, "the session is DECLINED") {
		t.Errorf("cancel a declined session = %d %s, want 409 SESSION_ENDED", status, b)
	}
	if s, _ := f.st.Session(t.Context(), f.acme.ID, keptID); s.Status != models.SessionStatusDeclined {
		t.Errorf("declined session is %s after the refused cancel", s.Status)
	}
}

// TestCancelSessionWritesNothingToTheATS: a STARTED session of an application that lives in the
// company's ATS (with a decision-stage pair configured) is cancelled: no note, no stage write is
// queued, the simulator receives nothing, and answers are refused.
func TestCancelSessionWritesNothingToTheATS(t *testing.T) {
	f := newFixture(t)
	sim, base := writeSim(t, atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 3101, JobID: 6101, CandidateID: 9101})
	sim.AllowFields(models.ATSTypeA, map[string][]string{"status": {"Applied", "Withdrawn"}})
	useATS(t, f, f.acme, models.ATSTypeA, base, []models.SyncField{{Field: "status", Value: "Withdrawn", Decision: models.DecisionRejected}})
	sess := sessionFor(t, f, f.acme, "6101", "3101")
	expires := time.Now().Add(time.Hour)
	if err := f.st.DB().Model(sess).Updates(map[string]any{"status": models.SessionStatusStarted, "completed_at": nil, "expires_at": expires}).Error; err != nil {
		t.Fatal(err)
	}
	status, b := f.cancel(t, f.acmeKey, sess.ID.String(), map[string]any{"reason": "candidate withdrew by phone"})
	if status != http.StatusOK {
		t.Fatalf("cancel = %d %s", status, b)
	}
	f.awaitRunClosed(t, f.acme, sess.ID)
	writes, err := f.st.ATSWrites(t.Context(), f.acme.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(writes) != 0 || sim.WriteAttempts() != 0 {
		t.Errorf("cancelling queued %d ATS writes, the ATS got %d", len(writes), sim.WriteAttempts())
	}
	var reports int64
	if err := f.st.DB().Raw(`SELECT count(*) FROM interview_reports WHERE session_id = ?`, sess.ID).Scan(&reports).Error; err != nil || reports != 0 {
		t.Errorf("a cancelled session has %d reports (%v)", reports, err)
	}
}

// TestCancelSessionStep: a manual_invite flow that invites, then withdraws the session with a
// cancel_session step: the session is CANCELLED by the flow with the step's reason, its run
// ends without a reminder, its page says withdrawn, and another company's flow cannot reach it.
func TestCancelSessionStep(t *testing.T) {
	f := newFixture(t)
	d, err := flow.Parse([]byte(`{"trigger":"manual_invite","enabled":true,"steps":[
		{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}},
		{"type":"cancel_session","cancel_session":{"reason":"opening closed"}},
		{"type":"set_status","set_status":{"target":"candidate","status":"withdrawn"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f.saveFlow(t, f.acme, d)
	c, id := f.invite(t, f.acmeKey, "cancel-step")
	var s *models.InterviewSession
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if s, err = f.st.Session(t.Context(), f.acme.ID, id); err != nil {
			t.Fatal(err)
		}
		if s.Status == models.SessionStatusCancelled {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("session is %s 30 s after the invitation, want CANCELLED by the flow", s.Status)
		}
	}
	if s.CancelReason == nil || *s.CancelReason != "opening closed" {
		t.Errorf("reason = %v, want the step's", s.CancelReason)
	}
	f.awaitRunClosed(t, f.acme, id)
	if got := f.sessionEvents(t, id); !slices.Equal(got, []string{"invited", "cancelled flow"}) {
		t.Errorf("events = %q, want invited, cancelled by flow", got)
	}
	if r := c.get(t); !strings.Contains(r.body, "This interview was withdrawn") {
		t.Errorf("page:\n%s", r.body)
	}
	// The step after it ran.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		cand, err := f.st.Candidate(t.Context(), f.acme.ID, s.CandidateID)
		if err != nil {
			t.Fatal(err)
		}
		if cand.Status == "withdrawn" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("candidate status %q, want withdrawn after the step", cand.Status)
		}
	}
	// Tenancy: the step's activity run for globex finds nothing of acme's.
	a := &activities.Activities{Store: f.st, Launcher: f.launcher, Log: slog.New(slog.DiscardHandler)}
	_, err = a.CancelSession(t.Context(), activities.CancelSessionInput{CompanyID: f.other.ID, SessionID: id, Reason: "x"})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("globex's CancelSession of acme's session = %v, want a permanent not found", err)
	}
}
