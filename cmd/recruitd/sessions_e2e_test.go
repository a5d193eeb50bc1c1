package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/temporaltest"
)

// TestSessionLifecycleEndToEnd runs the api and the worker processes on real Postgres and
// Temporal with a company whose interview settings are seconds long (reminder 4 s after the
// invitation and 2 s before the deadline, expiry 14 s, incomplete window 6 s, no quiet hours):
// an invited session gets its first reminder by e-mail, like its invitation, and EXPIRES; a
// started one (the page's transition, made here in SQL) becomes INCOMPLETE; one cancelled with
// `recruitd sessions cancel` gets no reminder and its run ends. Then the operator commands:
// show (no message contents, no addresses), another company's --company finds nothing, extend
// reopens the expired session (its new run waits), cancel ends it.
func TestSessionLifecycleEndToEnd(t *testing.T) {
	db := pgtest.NewEmpty(t)
	tmp := temporaltest.New(t)
	queue := temporaltest.TaskQueue(t)
	env := []string{
		"DATABASE_URL=" + db.URL, "TEMPORAL_ADDRESS=" + tmp.Address, "TEMPORAL_NAMESPACE=" + tmp.Namespace,
		"TEMPORAL_TASK_QUEUE=" + queue, "LOG_FORMAT=json", "MESSAGING_MODE=outbox", "APP_URL=https://app.example.com", "INTERVIEW_BASE_URL=https://interview.example.com",
		"RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
		"API_ADDR=127.0.0.1:0", "API_METRICS_ADDR=127.0.0.1:0", "WORKER_METRICS_ADDR=127.0.0.1:0",
	}
	runCmd(t, env, "migrate")
	runCmd(t, env, "company", "create", "--slug", "acme", "--name", "Acme Corp")
	runCmd(t, env, "company", "create", "--slug", "globex", "--name", "Globex")
	key := strings.TrimSpace(runCmd(t, env, "apikey", "create", "--company", "acme", "--name", "e2e"))
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.SQL.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustExec(`UPDATE companies SET interview_expiry_seconds = 14, interview_incomplete_seconds = 6,
		interview_first_reminder_seconds = 4, interview_last_reminder_seconds = 2,
		quiet_hours_start = '00:00', quiet_hours_end = '00:00' WHERE slug = 'acme'`)
	mustExec(`INSERT INTO jobs (company_id, external_id, interviewer_id, title, external_title, description, status, is_open)
		SELECT id, 'E2E-1', 'acme-E2E-1', 'Registered Nurse', 'Registered Nurse', 'Care for patients.', 'ACTIVE', true FROM companies WHERE slug = 'acme'`)

	api := start(t, env, "api")
	base := "http://" + api.await(t, `"listener":"api","addr":"([^"]+)"`, time.Minute)
	worker := start(t, env, "worker")
	worker.await(t, `"msg":"worker started"`, time.Minute)

	invite := func(name string) string {
		t.Helper()
		r := call(t, "POST", base+"/v1/api/inviteCandidate", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
			fmt.Sprintf(`{"interviewerId":"acme-E2E-1","candidate":{"firstName":%q,"lastName":"Marker","email":"%s.marker@example.com"}}`, name, strings.ToLower(name)))
		var body struct {
			SessionID string `json:"sessionId"`
		}
		if r.status != 200 || json.Unmarshal([]byte(r.body), &body) != nil || body.SessionID == "" {
			t.Fatalf("inviteCandidate = %d %s", r.status, r.body)
		}
		return body.SessionID
	}
	invited, started, cancelled := invite("Invited"), invite("Started"), invite("Cancelled")
	if out := runCmd(t, env, "sessions", "cancel", "--session", cancelled, "--reason", "position filled"); !strings.Contains(out, "session "+cancelled+" cancelled") ||
		!strings.Contains(out, "workflow interview/acme/"+cancelled+" told") {
		t.Errorf("sessions cancel printed %q", out)
	}
	// The candidate starts (what the page commits), then the page's launch wakes the run.
	mustExec(`UPDATE interview_sessions SET status = 'STARTED', started_at = now(), consented_at = now(), expires_at = now() + interval '6 seconds' WHERE id = $1`, started)
	tc := tmp.Client(t)
	if err := tc.SignalWorkflow(t.Context(), kinds.Interview.ID("acme", started), "", kinds.Interview.Signal, nil); err != nil {
		t.Fatal(err)
	}

	status := func(id string) string {
		t.Helper()
		var s string
		if err := db.SQL.QueryRow(`SELECT status FROM interview_sessions WHERE id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	events := func(id string) []string {
		t.Helper()
		rows, err := db.SQL.Query(`SELECT kind || coalesce(' ' || (detail->>'reminder'), '') FROM interview_events WHERE session_id = $1 ORDER BY id`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			_ = rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	reminders := func(id string) []string {
		t.Helper()
		rows, err := db.SQL.Query(`SELECT channel || ' ' || status FROM messages WHERE session_id = $1 AND send_key LIKE 'interview/%/reminder/%' ORDER BY created_at`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			_ = rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	deadline := time.Now().Add(45 * time.Second)
	for (status(invited) != "EXPIRED" || status(started) != "INCOMPLETE") && time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
	}
	if s := status(invited); s != "EXPIRED" {
		t.Fatalf("invited session is %s 45 s later, want EXPIRED; events %q\nworker:\n%s", s, events(invited), worker.output())
	}
	if got, want := events(invited), []string{"invited", "reminder_sent first", "reminder_sent last", "expired"}; !slices.Equal(got, want) {
		t.Errorf("invited session's events = %q, want %q", got, want)
	}
	if got := reminders(invited); len(got) != 2 || got[0] != "email sent" {
		t.Errorf("invited session's reminders = %q, want two e-mails sent, the invitation's channel", got)
	}
	if s := status(started); s != "INCOMPLETE" {
		t.Errorf("started session is %s, want INCOMPLETE; events %q", s, events(started))
	}
	if got := events(started); len(got) == 0 || got[len(got)-1] != "incomplete" || slices.Contains(got, "reminder_sent first") {
		t.Errorf("started session's events = %q, want no first reminder and incomplete last", got)
	}
	if s := status(cancelled); s != "CANCELLED" {
		t.Errorf("cancelled session is %s", s)
	}
	if got := reminders(cancelled); len(got) != 0 {
		t.Errorf("cancelled session's reminders = %q, want none", got)
	}
	if got := events(cancelled); !slices.Equal(got, []string{"invited", "cancelled"}) {
		t.Errorf("cancelled session's events = %q", got)
	}
	closed := func(id string) bool {
		d, err := tc.DescribeWorkflowExecution(t.Context(), kinds.Interview.ID("acme", id), "")
		return err == nil && d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}
	for _, id := range []string{invited, started, cancelled} {
		if !closed(id) {
			t.Errorf("the run of session %s is not completed", id)
		}
	}
	// The Web UI's list of a company's sessions by status.
	listed := func(query string) []string {
		var ids []string
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			resp, err := tc.ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{Query: query})
			if err != nil {
				t.Fatalf("list %s: %v", query, err)
			}
			ids = ids[:0]
			for _, e := range resp.GetExecutions() {
				ids = append(ids, e.GetExecution().GetWorkflowId())
			}
			if len(ids) > 0 {
				break
			}
		}
		// A session's workflow may have run twice (a change signalled with start just after its
		// run closed): the list is of sessions, one each.
		slices.Sort(ids)
		return slices.Compact(ids)
	}
	if ids := listed(fmt.Sprintf(`TaskQueue = %q AND CompanySlug = "acme" AND SessionStatus = "CANCELLED"`, kinds.Interview.TaskQueue(queue))); !slices.Equal(ids, []string{kinds.Interview.ID("acme", cancelled)}) {
		t.Errorf("workflows listed with SessionStatus CANCELLED = %q", ids)
	}
	if ids := listed(fmt.Sprintf(`TaskQueue = %q AND SessionStatus = "INCOMPLETE"`, kinds.Interview.TaskQueue(queue))); !slices.Equal(ids, []string{kinds.Interview.ID("acme", started)}) {
		t.Errorf("workflows listed with SessionStatus INCOMPLETE = %q", ids)
	}

	out := runCmd(t, env, "sessions", "show", "--session", invited)
	for _, want := range []string{`status\s+EXPIRED\n`, `workflow\s+interview/acme/` + invited + `\n`, `reminder_sent\s+.*reminder=first`,
		`\sexpired\s+expiresAt=`, `reminder\s+outbound\s+email\s+sent`, `message\s+outbound\s+email\s+sent`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("sessions show lacks %q:\n%s", want, out)
		}
	}
	for _, leak := range []string{"marker@example.com", "Reminder:", "https://interview.example.com/interview/", "transcript:"} {
		if strings.Contains(out, leak) {
			t.Errorf("sessions show prints %q:\n%s", leak, out)
		}
	}
	if out := runCmd(t, env, "sessions", "cancel", "--session", cancelled, "--reason", "again"); !strings.Contains(out, "session "+cancelled+" was cancelled already") {
		t.Errorf("a repeated sessions cancel printed %q", out)
	}
	if out := runCmd(t, env, "sessions", "show", "--session", cancelled); !regexp.MustCompile(`cancel reason\s+position filled\n`).MatchString(out) {
		t.Errorf("sessions show of the cancelled session lacks its first reason:\n%s", out)
	}
	if out := runCmd(t, env, "sessions", "show", "--session", started, "--company", "acme", "--transcript"); !strings.Contains(out, "(no questions asked)") {
		t.Errorf("sessions show --transcript printed %q", out)
	}
	fails := func(want string, args ...string) {
		t.Helper()
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), want) {
			t.Errorf("recruitd %s = %v %s, want a failure saying %q", strings.Join(args, " "), err, b, want)
		}
	}
	// Tenancy: another company's slug finds nothing of acme's.
	fails("not found", "sessions", "show", "--session", invited, "--company", "globex")
	fails("not found", "sessions", "cancel", "--session", invited, "--company", "globex", "--reason", "x")
	fails("not found", "sessions", "extend", "--session", invited, "--company", "globex", "--by", "1h")
	fails("does not allow", "sessions", "extend", "--session", cancelled, "--by", "1h")
	fails("at most 90 days", "sessions", "extend", "--session", invited, "--by", "100d")
	fails(`required flag(s) "reason" not set`, "sessions", "cancel", "--session", started)
	fails("reason is required", "sessions", "cancel", "--session", started, "--reason", " ")

	// Extend reopens the expired session: INVITED, a new run waiting for the new deadline.
	out = runCmd(t, env, "sessions", "extend", "--session", invited, "--company", "acme", "--by", "72h")
	if !regexp.MustCompile(`session ` + invited + ` INVITED until \S+\nworkflow interview/acme/` + invited + ` told`).MatchString(out) {
		t.Errorf("sessions extend printed %q", out)
	}
	if s := status(invited); s != "INVITED" {
		t.Errorf("after extend: %s, want INVITED", s)
	}
	var left float64
	if err := db.SQL.QueryRow(`SELECT extract(epoch FROM expires_at - now()) FROM interview_sessions WHERE id = $1`, invited).Scan(&left); err != nil || left < 71*3600 || left > 72*3600 {
		t.Errorf("after extend the deadline is %.0f s away, want 72 hours", left)
	}
	running := func(id string) bool {
		d, err := tc.DescribeWorkflowExecution(t.Context(), kinds.Interview.ID("acme", id), "")
		return err == nil && d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}
	if !running(invited) {
		t.Error("the extended session has no running workflow")
	}
	runCmd(t, env, "sessions", "cancel", "--session", invited, "--reason", "position filled")
	for end := time.Now().Add(10 * time.Second); !closed(invited) && time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
	}
	if !closed(invited) || status(invited) != "CANCELLED" {
		t.Errorf("after cancel: %s, run closed %v; want CANCELLED and the run ended", status(invited), closed(invited))
	}
	if got := events(invited); got[len(got)-2] != "extended" || got[len(got)-1] != "cancelled" {
		t.Errorf("events = %q, want extended then cancelled last", got)
	}
	api.interrupt(t)
	worker.interrupt(t)
	// The outbox prints the messages (what a developer follows in `recruitd dev`), among log
	// lines that never hold an address.
	for _, p := range []*proc{api, worker} {
		for _, line := range strings.Split(p.output(), "\n") {
			if strings.HasPrefix(line, "{") && strings.Contains(line, "marker@example.com") {
				t.Errorf("recruitd %s logged a candidate's address: %s", p.cmd.Args[1], line)
			}
		}
	}
	printed := worker.output()
	if n := strings.Count(printed, "email → invited.marker@example.com ─"); n != 3 {
		t.Errorf("the invited candidate got %d messages, want the invitation and two reminders", n)
	}
	if !regexp.MustCompile(`Subject: Reminder: your interview for Registered Nurse at Acme Corp\n(?:.*\n){1,6}https://interview\.example\.com/interview/[0-9a-f]{32}\n`).MatchString(printed) {
		t.Errorf("no reminder with the interview link in the outbox:\n%s", printed)
	}
	if strings.Count(printed, "email → cancelled.marker@example.com ─") > 1 {
		t.Error("the cancelled candidate got more than the invitation")
	}
}
