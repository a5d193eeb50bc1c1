package httpapi_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/store"
)

// statements counts the SQL statements a store runs, by who ran them: the workflow type of the
// activity (local or not) whose context ran it, launchRecords, or "api" outside activities. Transactions'
// BEGIN and COMMIT are not counted.
type statements struct {
	mu  sync.Mutex
	on  bool
	sql map[string][]string
}

// launchRecords is where countStatements files the launcher's records of starts taken.
const launchRecords = "launcher (after the answer)"

// countStatements registers the counter on st (off until start).
func countStatements(t *testing.T, st *store.Store) *statements {
	t.Helper()
	s := &statements{sql: map[string][]string{}}
	record := func(db *gorm.DB) {
		who := "api"
		if ctx := db.Statement.Context; ctx != nil && activity.IsActivity(ctx) {
			who = activity.GetInfo(ctx).WorkflowType.Name
		} else if strings.HasPrefix(db.Statement.SQL.String(), `UPDATE "workflow_starts" SET "attempts"=attempts + 1,"started_at"`) {
			// The launcher records the starts it took after the requests that launched them
			// answered, several in one statement (outbox.Launcher.markLoop): on no one's path.
			who = launchRecords
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.on {
			s.sql[who] = append(s.sql[who], db.Statement.SQL.String())
		}
	}
	cb := st.DB().Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("test:count", record),
		cb.Query().After("gorm:query").Register("test:count", record),
		cb.Update().After("gorm:update").Register("test:count", record),
		cb.Delete().After("gorm:delete").Register("test:count", record),
		cb.Row().After("gorm:row").Register("test:count", record),
		cb.Raw().After("gorm:raw").Register("test:count", record),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// start forgets what was counted and counts from now.
func (s *statements) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on, s.sql = true, map[string][]string{}
}

// take stops counting and returns what was counted.
func (s *statements) take() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.sql
}

// describe lists the statements of who, one a line, for a failure message.
func describe(got map[string][]string, who string) string {
	var b strings.Builder
	list := append([]string(nil), got[who]...)
	sort.Strings(list)
	for _, q := range list {
		fmt.Fprintf(&b, "\n  %.160s", q)
	}
	return b.String()
}

// awaitAttemptRecorded waits until the first callback attempt of the ATS applicant's partner
// application is recorded (the run goes on: it waits for the interview). It reads through the
// database/sql pool, which the statement counter does not see.
func (f *partnerFixture) awaitAttemptRecorded(t *testing.T, applicant string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := f.st.SQL().QueryRowContext(t.Context(), `SELECT count(*) FROM callback_attempts ca
			JOIN callbacks c ON c.company_id = ca.company_id AND c.id = ca.callback_id
			JOIN partner_applications pa ON pa.company_id = c.company_id AND pa.id = c.partner_application_id
			WHERE pa.company_id = $1 AND pa.ats_applicant_id = $2`, f.acme.ID, applicant).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no callback attempt of applicant %s recorded", applicant)
}

// Upper bounds of the statements one partner application costs (issue 32: "every scenario at
// the floor"). Before the cuts: 8 statements to accept (6 before the key and its company were
// read in one), 42 for its run. The runs' bound counts the partner run and its session's run
// together: the session's first look (its fraud check, its reminders) moved from the session's
// run into the invitation's step, when its run began to sleep until the first reminder (28 and
// 6 before, 30 and none after).
const (
	acceptStatements     = 5
	partnerRunStatements = 30
)

// runsOf counts the statements of the workflow types named.
func runsOf(got map[string][]string, types ...string) (n int, described string) {
	for _, ty := range types {
		n += len(got[ty])
		described += describe(got, ty)
	}
	return n, described
}

// TestPartnerApplicationStatements counts the SQL statements of one partner application: the 202
// (API key, repeat check, job, workflow start) and the run from its start to the callback
// (applicant stored, definition and facts, session opened, invitation sent, settled, callback
// delivered). The counts do not depend on the machine's load, so they hold the pipeline's cost
// where a benchmark on a shared machine cannot.
func TestPartnerApplicationStatements(t *testing.T) {
	f := newPartnerFixture(t)
	count := countStatements(t, f.st)
	// A first submission warms what a process reads once (the definition's validation, caches).
	if status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1002","atsJobId":"5001"}`); status != 202 {
		t.Fatalf("warm-up submit = %d %v", status, body)
	}
	f.recv.await(t, 1)
	f.awaitAttemptRecorded(t, "1002")

	count.start()
	status, body, _ := f.submit(t, f.key, `{"atsApplicantId":"1001","atsJobId":"5001","atsCandidateId":"7001"}`)
	if status != 202 {
		t.Fatalf("submit = %d %v", status, body)
	}
	got := f.recv.await(t, 2)
	f.awaitAttemptRecorded(t, "1001")
	run := count.take()
	accept := run
	if got[1].Status != "invited" {
		t.Fatalf("callback = %+v, want invited", got[1])
	}
	for who, list := range run {
		t.Logf("%s: %d statements", who, len(list))
	}
	t.Logf("accept: %d statements%s", len(accept["api"]), describe(accept, "api"))
	n, described := runsOf(run, "PartnerApplication", "InterviewSession")
	t.Logf("partner and session runs: %d statements%s", n, described)
	if n := len(accept["api"]); n > acceptStatements {
		t.Errorf("accept ran %d statements, want at most %d:%s", n, acceptStatements, describe(accept, "api"))
	}
	if n > partnerRunStatements {
		t.Errorf("the partner run and its session's ran %d statements, want at most %d:%s", n, partnerRunStatements, described)
	}
}

// Upper bound of the statements of one HR-suite application's invitation run (the flow from its
// start to the invitation sent) and its session's run. Before the cuts:
// hrsuiteInviteStatementsBefore; 13 and 3 before the session's first look moved into the
// invitation's step (as for partner applications), 15 and none after.
const (
	hrsuiteInviteStatementsBefore = 24
	hrsuiteInviteStatements       = 15
)

// TestHRSuiteInvitationStatements counts the SQL statements of the run that invites one
// HR-suite application: definition and facts, session opened, invitation sent by SMS.
func TestHRSuiteInvitationStatements(t *testing.T) {
	f := hrsuiteFixture(t)
	count := countStatements(t, f.st)
	count.start()
	status, _, raw := f.deliver(t, f.acmeKey, []map[string]any{row("APP-1", "C-1", "REQ-1", "(201) 555-0123", "Mobile")})
	if status != 200 {
		t.Fatalf("deliver = %d %.200s", status, raw)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		if err := f.st.SQL().QueryRowContext(t.Context(), `SELECT count(*) FROM messages WHERE company_id = $1 AND sent_at IS NOT NULL`, f.acme.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no invitation sent after 60s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := count.take()
	for who, list := range got {
		t.Logf("%s: %d statements", who, len(list))
	}
	n, described := runsOf(got, "CustomerFlow", "InterviewSession")
	t.Logf("invitation and session runs: %d statements%s", n, described)
	if n > hrsuiteInviteStatements || len(got["CustomerFlow"]) == 0 {
		t.Errorf("the invitation run and its session's ran %d statements, want 1 to %d:%s", n, hrsuiteInviteStatements, described)
	}
}
