package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

const (
	fleetEncryptionKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	fleetCallbackSec   = "cbs_fleet_callback_secret"
	fleetSigningSec    = "whsec_fleet_signing_secret"
	fleetAggKey        = "fleet-agg-key"
	fleetImportJobs    = 10_000
	fleetPartnerJob    = "5001"
	fleetHRSuiteJob    = "6001"
)

// TestFleet runs recruitd as a fleet of the real binary against one Postgres and one Temporal:
// three api, three worker and two mcp processes. The workers split the task queues (one serves
// only ingest, two serve interview and default). Requests go round-robin over the replicas,
// as a front would send them (a replica that refuses the connection is skipped), under a steady
// mix of partner submissions (a signed callback receiver), HR-suite deliveries (some sent twice),
// interviews taken over HTTP and in the SMS thread (the Twilio simulator's signed webhooks
// through the front), assessment links pushed for the partner's applications (three each),
// decisions on an ATS company's interviews written back to its ATS (the ATS simulator, which
// records every request), and MCP calls with an API key and with an OAuth token (issued through
// one mcp replica, used on both); in the middle one worker and one api are killed with SIGKILL
// and started again. Afterwards every 202 has exactly one terminal callback (one webhook id,
// however often it was delivered), every application one invitation, every acknowledged
// HR-suite delivery is ingested, every completed interview has its transcript final once and
// its report (an SMS one with its answers by SMS), every applicant's last assessment link went
// out once, and the ATS got each decision's stage once, in order, ending on the last, and each
// interview's report note once. Then, on the settled fleet, interview turns are timed idle and
// again while the ingest worker imports 10,000 jobs from the aggregator simulator: the p50
// during the import stays within 3x idle + 50 ms.
func TestFleet(t *testing.T) {
	began := time.Now()
	t.Cleanup(func() { fmt.Printf("TestFleet: runtime %s\n", time.Since(began).Round(100*time.Millisecond)) })
	db := pgtest.NewEmpty(t)
	tmp := temporaltest.New(t)
	prefix := temporaltest.TaskQueue(t)

	const partnerTotal = 400
	records := make([]atssim.Record, partnerTotal)
	for i := range records {
		records[i] = atssim.Record{ATSType: models.ATSTypeA, ApplicantID: int64(300000 + i), JobID: 5001, CandidateID: int64(400000 + i),
			FirstName: "Fleet", LastName: fmt.Sprint(i), Email: fmt.Sprintf("fleet%d@example.com", i)}
	}
	for i := range fleetATSRecords {
		records = append(records, atssim.Record{ATSType: models.ATSTypeA, ApplicantID: int64(fleetATSApplicant + i), JobID: 7001, CandidateID: int64(600000 + i),
			FirstName: "Ada", LastName: fmt.Sprint(i), Email: fmt.Sprintf("ats-%d@example.com", fleetATSApplicant+i)})
	}
	atsCreds := atssim.Credentials{RestToken: "fleet-ats-token"}
	atsSim := atssim.New(records, atsCreds)
	// Every write request is recorded, a repeated Idempotency-Key too, as the real ATS APIs do:
	// a write repeated after a crash shows.
	atsSim.SetWriteFaults(atssim.WriteFaults{IgnoreIdempotencyKey: true})
	ats := httptest.NewServer(atsSim.Handler())
	t.Cleanup(ats.Close)
	// The front of the api replicas, where the Twilio simulator posts the candidates' texts
	// (PUBLIC_BASE_URL, whose URL the signatures cover).
	f := &fleet{t: t}
	front := httptest.NewServer(f.front())
	t.Cleanup(front.Close)
	sim := twiliosim.New(twiliosim.Options{AccountSID: twiliosimAccountSID, AuthToken: twiliosimAuthToken, InboundURL: front.URL + twilioInboundPath,
		Client: &http.Client{Timeout: 2 * time.Minute}})
	t.Cleanup(sim.Close)
	// The tool server's replicas share one public URL (replica 0 answers there) and sign users in
	// with one identity provider.
	f.mcpPorts = []string{freePort(t), freePort(t)}
	f.mcpBase = "http://127.0.0.1:" + f.mcpPorts[0]
	issuer := fleetIDP(t, f.mcpBase)
	receiver := &callbackReceiver{byApp: map[string]map[string]int{}}
	recv := httptest.NewServer(receiver)
	t.Cleanup(recv.Close)
	agg := aggsim.New(aggsim.Options{APIKey: fleetAggKey})
	t.Cleanup(agg.Close)
	aggLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	aggSrv := &http.Server{Handler: agg.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = aggSrv.Serve(aggLn) }()
	t.Cleanup(func() { aggSrv.Close() })

	env := []string{
		"DATABASE_URL=" + db.URL, "TEMPORAL_ADDRESS=" + tmp.Address, "TEMPORAL_NAMESPACE=" + tmp.Namespace,
		"TEMPORAL_TASK_QUEUE=" + prefix, "LOG_FORMAT=json", "LOG_LEVEL=info", "MESSAGING_MODE=outbox",
		"RECRUITD_ENCRYPTION_KEY=" + fleetEncryptionKey, "CALLBACK_ALLOW_PRIVATE=true", "RECRUITD_DEMO_API_KEY=",
		// The load comes from one machine and a few keys: the service is measured, not its limits.
		"API_RATE_LIMIT=0", "PARTNER_RATE_LIMIT=100000", "PARTNER_RATE_BURST=100000", "INTERVIEW_RATE_LIMIT=0",
		"INTERVIEW_ADDR_RATE_LIMIT=0", "AUTH_FAILURE_LIMIT=0",
		"API_METRICS_ADDR=127.0.0.1:0", "MCP_METRICS_ADDR=127.0.0.1:0", "WORKER_METRICS_ADDR=127.0.0.1:0",
		// Texts: the webhooks come signed through the front; the invitations are the outbox's.
		"PUBLIC_BASE_URL=" + front.URL, "TWILIO_ACCOUNT_SID=" + twiliosimAccountSID, "TWILIO_AUTH_TOKEN=" + twiliosimAuthToken, "TWILIO_FROM=" + twiliosimFrom,
		"OIDC_ISSUER=" + issuer, "OIDC_CLIENT_ID=recruitd-mcp", "OIDC_CLIENT_SECRET=" + fleetOIDCSecret,
	}
	runCmd(t, env, "migrate")
	fx := setUpFleetCompanies(t, db.URL, ats.URL, atsCreds.RestToken, recv.URL, "http://"+aggLn.Addr().String())
	setUpATSCompany(t, fx, ats.URL, atsCreds.RestToken)
	mix := newFleetMix(f, fx, sim, atsSim)

	f.env, f.tc = env, tmp.Client(t)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, r := range f.all {
			name := filepath.Join(os.TempDir(), fmt.Sprintf("fleet-%d-%s.log", i, r.args[0]))
			if err := os.WriteFile(name, []byte(r.p.output()), 0o600); err == nil {
				t.Logf("recruitd %v output: %s", r.args, name)
			}
		}
	})
	for range 3 {
		f.apis = append(f.apis, f.startAPI(freePort(t)))
	}
	f.workers = append(f.workers, f.startWorker("ingest"), f.startWorker("interview,default"), f.startWorker("interview,default"))
	for _, port := range f.mcpPorts {
		f.mcps = append(f.mcps, f.startMCP(port))
	}
	for _, w := range f.workers {
		w.p.await(t, `"msg":"worker started"`, 2*time.Minute)
	}
	if q := f.workers[0].p.output(); !strings.Contains(q, `"task_queues":["`+prefix+`-ingest"]`) {
		t.Errorf("the ingest worker's start line does not name only the ingest queue:\n%s", lastLines(q, 5))
	}
	fmt.Printf("TestFleet: 3 api, 3 worker, 2 mcp up after %s\n", time.Since(began).Round(100*time.Millisecond))

	// The partner's job and the HR suite's, their interviews generated on the ingest queue; the
	// HR suite's is known as imported from the suite (an aggregator record). The ATS company's job.
	for _, ext := range []string{fleetPartnerJob, fleetHRSuiteJob} {
		if r := f.api("POST", "/v1/api/createJob", fx.key, fmt.Sprintf(`{"externalJobId":%q,"jobDescription":%q}`, ext, fleetJobDescription)); r.status != 200 {
			t.Fatalf("createJob = %d %s", r.status, r.body)
		}
	}
	if r := f.api("POST", "/v1/api/createJob", fx.atsKey, fmt.Sprintf(`{"externalJobId":%q,"jobDescription":%q}`, fleetATSJob, fleetJobDescription)); r.status != 200 {
		t.Fatalf("createJob of the ATS company = %d %s", r.status, r.body)
	}
	// Texts go at once, whatever the hour.
	if _, err := fx.st.SQL().Exec(`UPDATE companies SET quiet_hours_start = '00:00', quiet_hours_end = '00:00' WHERE id = $1`, fx.co.ID); err != nil {
		t.Fatal(err)
	}
	oauthToken := f.oauthToken(fx)
	waitFor(t, 2*time.Minute, "the jobs generated", func() bool {
		var active int
		fx.st.SQL().QueryRow(`SELECT count(*) FROM jobs WHERE company_id IN ($1, $2) AND status = 'ACTIVE'`, fx.co.ID, fx.atsCo.ID).Scan(&active)
		return active == 3
	})
	if _, err := fx.st.SQL().Exec(`INSERT INTO aggregator_jobs (company_id, remote_id, ats_job_id, job_id, name, remote_status)
		SELECT company_id, 'kmb_' || external_id, external_id, id, 'Nurse', 'OPEN' FROM jobs WHERE company_id = $1 AND external_id = $2`, fx.co.ID, fleetHRSuiteJob); err != nil {
		t.Fatal(err)
	}

	// The mix, for about 30 seconds; a worker and an api die a third of the way in.
	mixBegin := time.Now()
	ctx, stop := context.WithTimeout(t.Context(), 30*time.Second)
	var wg sync.WaitGroup
	var accepted sync.Map // applicationId -> atsApplicantId
	var nextApplicant, deliveries, hrAcked, interviews, mcpCalls atomic.Int64
	var hrAckedIDs sync.Map
	var failures sync.Map // what -> count of unexpected answers
	fail := func(what string, r response) {
		n, _ := failures.LoadOrStore(what, new(atomic.Int64))
		if n.(*atomic.Int64).Add(1) <= 3 {
			t.Logf("%s: %d %.300s", what, r.status, r.body)
		}
	}
	loop := func(every time.Duration, fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					fn()
				}
			}
		}()
	}
	for range 4 { // partner submissions, about 10/s in all (four senders, so one slow answer does not slow the rate)
		loop(400*time.Millisecond, func() {
			n := nextApplicant.Add(1) - 1
			if n >= partnerTotal {
				return
			}
			applicant := fmt.Sprint(300000 + n)
			r := f.api("POST", "/v2/api/partner-applications", fx.partnerKey, fmt.Sprintf(`{"atsApplicantId":%q,"atsJobId":%q}`, applicant, fleetPartnerJob))
			var resp struct{ ApplicationID string }
			if r.status != http.StatusAccepted || json.Unmarshal([]byte(r.body), &resp) != nil || resp.ApplicationID == "" {
				fail("partner submission", r)
				return
			}
			accepted.Store(resp.ApplicationID, applicant)
			mix.accepted(applicant)
		})
	}
	var hrRedelivered atomic.Int64
	loop(time.Second, func() { // HR-suite deliveries of two applications each
		n := deliveries.Add(1)
		var first string
		// Every fifth is sent again once acknowledged, as a suite that lost the answer does (the
		// front retries one whose replica died on it the same way): the repeat is acknowledged
		// as a duplicate of the first, whose processing ingests it.
		for try := range 1 + btoi(n%5 == 0) {
			r := f.api("POST", "/webhook/hrsuite", fx.key, hrSuiteDelivery(n))
			var resp struct{ DeliveryID, DuplicateOf string }
			if r.status != 200 || json.Unmarshal([]byte(r.body), &resp) != nil || resp.DeliveryID == "" {
				fail("HR-suite delivery", r)
				return
			}
			if try == 1 {
				if resp.DuplicateOf != first {
					fail("HR-suite redelivery (want duplicateOf the first)", r)
					return
				}
				hrRedelivered.Add(1)
			}
			if first = resp.DeliveryID; resp.DuplicateOf != "" {
				first = resp.DuplicateOf // the front retried a request whose replica died after storing it
			}
			hrAcked.Add(1)
			hrAckedIDs.Store(resp.DeliveryID, true)
		}
	})
	for range 3 { // candidates taking their interviews over HTTP, one after another
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				link, err := f.invite(fx.key, "fleet-"+fleetPartnerJob)
				if err != nil {
					if ctx.Err() == nil {
						t.Logf("invite: %v", err)
					}
					continue
				}
				if err := f.takeInterview(context.WithoutCancel(ctx), link, nil); err != nil {
					t.Errorf("interview at %s: %v", link, err)
					return
				}
				interviews.Add(1)
			}
		}()
	}
	var mcpOAuthCalls atomic.Int64
	for _, bearer := range []struct{ what, token string }{{"MCP call with an API key", fx.key}, {"MCP call with an OAuth token", oauthToken}} {
		loop(300*time.Millisecond, func() { // the tool server, round-robin
			r := f.mcpCall(bearer.token, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getInterviewStats","arguments":{"metric":"completedInterviews"}}}`)
			if r.status != 200 || strings.Contains(r.body, `"isError":true`) || !strings.Contains(r.body, "completedInterviews") {
				fail(bearer.what, r)
				return
			}
			if bearer.token == oauthToken {
				mcpOAuthCalls.Add(1)
			} else {
				mcpCalls.Add(1)
			}
		})
	}
	for range 2 { // candidates taking their interviews in the SMS thread, through the front
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				id, err := mix.smsInterview()
				if err != nil {
					t.Errorf("SMS interview %s: %v", id, err)
					return
				}
				mix.mu.Lock()
				mix.smsSessions = append(mix.smsSessions, id)
				mix.mu.Unlock()
				mix.smsTaken.Add(1)
			}
		}()
	}
	loop(400*time.Millisecond, func() { // assessment links for the partner's applications, three each
		if r, ok := mix.pushNext(); !ok {
			fail("assessment-link push", r)
		}
	})
	for range 2 { // interviews of the ATS company, then decisions written back to its ATS
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := mix.atsInterview(ctx); err != nil {
					t.Errorf("ATS company: %v", err)
					return
				}
			}
		}()
	}
	time.Sleep(10 * time.Second)
	smsAtKill, atsAtKill, pushesAtKill := mix.smsActive.Load(), mix.atsActive.Load(), mix.pushesAcked.Load()
	f.kill(f.workers[1])
	f.kill(f.apis[1])
	fmt.Printf("TestFleet: killed worker 1 and api 1 (SIGKILL) %s into the mix, with %d SMS and %d ATS interviews under way, %d assessment links pushed so far\n",
		time.Since(mixBegin).Round(100*time.Millisecond), smsAtKill, atsAtKill, pushesAtKill)
	if smsAtKill == 0 || atsAtKill == 0 || pushesAtKill == 0 {
		t.Errorf("the kill came with %d SMS interviews, %d ATS interviews under way and %d links pushed: want each in flight", smsAtKill, atsAtKill, pushesAtKill)
	}
	time.Sleep(3 * time.Second)
	f.workers[1] = f.startWorker("interview,default")
	f.apis[1] = f.startAPI(f.apis[1].port)
	<-ctx.Done()
	stop()
	wg.Wait()
	failures.Range(func(k, v any) bool {
		t.Errorf("%s: %d unexpected answers", k, v.(*atomic.Int64).Load())
		return true
	})
	var nAccepted int
	accepted.Range(func(any, any) bool { nAccepted++; return true })
	fmt.Printf("TestFleet: mix of %s: %d partner 202s, %d HR-suite deliveries acknowledged, %d interviews taken over HTTP, %d by SMS (%d texts resent unanswered), "+
		"%d assessment links pushed, %d ATS interviews with %d decisions, %d MCP calls with an API key and %d with an OAuth token (%d requests retried after a 503)\n",
		time.Since(mixBegin).Round(100*time.Millisecond), nAccepted, hrAcked.Load(), interviews.Load(), mix.smsTaken.Load(), mix.lostReplies.Load(),
		mix.pushesAcked.Load(), mix.atsTaken.Load(), mix.decisions(), mcpCalls.Load(), mcpOAuthCalls.Load(), f.retried.Load())
	if nAccepted < 100 || hrAcked.Load() < 10 || interviews.Load() < 3 || mcpCalls.Load() < 30 || mcpOAuthCalls.Load() < 30 ||
		mix.smsTaken.Load() < 2 || mix.pushesAcked.Load() < 20 || mix.atsTaken.Load() < 2 {
		t.Errorf("the mix was too thin to prove anything: %d 202s, %d deliveries, %d interviews, %d MCP calls (%d OAuth), %d SMS interviews, %d pushes, %d ATS interviews",
			nAccepted, hrAcked.Load(), interviews.Load(), mcpCalls.Load(), mcpOAuthCalls.Load(), mix.smsTaken.Load(), mix.pushesAcked.Load(), mix.atsTaken.Load())
	}

	// Exactly one terminal callback per 202.
	f.waitFor(fx, 3*time.Minute, "a callback for every 202", func() bool { return receiver.apps() >= nAccepted }, func() string {
		return fmt.Sprintf("%d of %d applications called back, %d bad signatures", receiver.apps(), nAccepted, receiver.badSignatures.Load())
	})
	time.Sleep(time.Second) // a late duplicate would arrive now
	accepted.Range(func(k, _ any) bool {
		ids := receiver.ids(k.(string))
		if len(ids) != 1 {
			t.Errorf("application %s: %d distinct callbacks %v, want exactly one", k, len(ids), ids)
		}
		return true
	})
	if extra := receiver.apps() - nAccepted; extra != 0 {
		t.Errorf("%d callbacks for applications no 202 acknowledged", extra)
	}
	if bad := receiver.badSignatures.Load(); bad != 0 {
		t.Errorf("%d callbacks failed the signature check", bad)
	}
	// A crashed worker or api is no processing failure: its runs go on elsewhere.
	var failed int
	fx.st.SQL().QueryRow(`SELECT count(*) FROM partner_applications WHERE company_id = $1 AND status = 'error'`, fx.co.ID).Scan(&failed)
	if failed != 0 {
		t.Errorf("%d partner applications settled error (processing_failed) in a fleet that lost one worker and one api", failed)
	}
	// One invitation per application: the partner's and the HR suite's. A delivery repeating an
	// earlier body (a redelivery, or the front's retry of one whose replica died after storing
	// it) is stored as a duplicate of the first and never processed itself (docs/decisions.md,
	// "Identical bodies"): the first's processing ingests it.
	f.waitFor(fx, 2*time.Minute, "every acknowledged HR-suite delivery ingested", func() bool {
		var pending int
		fx.st.SQL().QueryRow(`SELECT count(*) FROM hrsuite_deliveries WHERE company_id = $1 AND processed_at IS NULL AND duplicate_of IS NULL`, fx.co.ID).Scan(&pending)
		return pending == 0
	}, func() string {
		var pending string
		fx.st.SQL().QueryRow(`SELECT string_agg(format('%s (stored %s; start %s, attempts %s)', d.id, d.created_at, coalesce(ws.started_at::text, 'not made'), ws.attempts), '; ')
			FROM hrsuite_deliveries d LEFT JOIN workflow_starts ws ON ws.workflow_id LIKE '%' || d.id::text
			WHERE d.company_id = $1 AND d.processed_at IS NULL AND d.duplicate_of IS NULL`, fx.co.ID).Scan(&pending)
		return "not ingested: " + pending
	})
	var stored, duplicates int
	fx.st.SQL().QueryRow(`SELECT count(*), count(duplicate_of) FROM hrsuite_deliveries WHERE company_id = $1`, fx.co.ID).Scan(&stored, &duplicates)
	hrAckedIDs.Range(func(k, _ any) bool {
		var first string
		var rows, accepted int
		fx.st.SQL().QueryRow(`SELECT coalesce(duplicate_of, id) FROM hrsuite_deliveries WHERE company_id = $1 AND id = $2`, fx.co.ID, k).Scan(&first)
		fx.st.SQL().QueryRow(`SELECT count(*), count(*) FILTER (WHERE r.application_id IS NOT NULL) FROM hrsuite_rows r JOIN hrsuite_deliveries d ON d.id = r.delivery_id
			WHERE r.company_id = $1 AND r.delivery_id = $2 AND d.processed_at IS NOT NULL`, fx.co.ID, first).Scan(&rows, &accepted)
		if rows != 4 || accepted != 4 {
			t.Errorf("HR-suite delivery %s (its body first stored as %q): %d rows ingested, %d with an application; want 4 and 4", k, first, rows, accepted)
		}
		return true
	})
	if int64(duplicates) < hrRedelivered.Load() || hrRedelivered.Load() == 0 {
		t.Errorf("%d HR-suite deliveries stored as duplicates, %d redelivered on purpose (want at least one, each a duplicate)", duplicates, hrRedelivered.Load())
	}
	fmt.Printf("TestFleet: %d HR-suite deliveries stored, %d of them duplicates (%d redelivered on purpose)\n", stored, duplicates, hrRedelivered.Load())
	if int64(stored) < hrAcked.Load() {
		t.Errorf("%d HR-suite deliveries stored, %d acknowledged", stored, hrAcked.Load())
	}
	// A partner application settled not_eligible or error (its callback said so) invites nobody.
	withoutSession := `SELECT a.source || ' ' || a.status, count(*) FROM applications a WHERE a.company_id = $1 AND NOT EXISTS
		(SELECT 1 FROM interview_sessions s WHERE s.company_id = a.company_id AND s.application_id = a.id) AND NOT EXISTS
		(SELECT 1 FROM partner_applications p WHERE p.company_id = a.company_id AND p.application_id = a.id AND p.status <> 'invited') GROUP BY 1`
	f.waitFor(fx, 3*time.Minute, "an invitation for every application", func() bool {
		rows, err := fx.st.SQL().Query(withoutSession, fx.co.ID)
		if err != nil {
			return false
		}
		defer rows.Close()
		return !rows.Next()
	}, func() string {
		var b strings.Builder
		rows, err := fx.st.SQL().Query(withoutSession, fx.co.ID)
		if err != nil {
			return err.Error()
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int
			rows.Scan(&k, &n)
			fmt.Fprintf(&b, "%s without a session: %d; ", k, n)
		}
		return b.String()
	})
	var apps, twice int
	fx.st.SQL().QueryRow(`SELECT count(*) FROM applications WHERE company_id = $1`, fx.co.ID).Scan(&apps)
	fx.st.SQL().QueryRow(`SELECT count(*) FROM (SELECT application_id FROM interview_sessions WHERE company_id = $1 AND application_id IS NOT NULL
		GROUP BY application_id HAVING count(*) > 1) x`, fx.co.ID).Scan(&twice)
	if twice != 0 {
		t.Errorf("%d applications have more than one interview session", twice)
	}
	var invitations, sessionsInvited int
	fx.st.SQL().QueryRow(`SELECT count(DISTINCT session_id), count(*) FROM messages WHERE company_id = $1 AND direction = 'outbound' AND session_id IS NOT NULL
		AND status IN ('sent', 'delivered') AND channel = 'email'`, fx.co.ID).Scan(&sessionsInvited, &invitations)
	if invitations != sessionsInvited {
		t.Errorf("%d e-mail invitations sent for %d sessions, want one each", invitations, sessionsInvited)
	}
	if apps < nAccepted {
		t.Errorf("%d applications, fewer than the %d partner 202s", apps, nAccepted)
	}
	// Every interview taken: its transcript final once and its report.
	waitFor(t, 2*time.Minute, "every completed interview's report", func() bool {
		var missing int
		fx.st.SQL().QueryRow(`SELECT count(*) FROM interview_sessions s WHERE s.company_id = $1 AND s.status = 'COMPLETED' AND NOT EXISTS
			(SELECT 1 FROM interview_reports r WHERE r.company_id = s.company_id AND r.session_id = s.id)`, fx.co.ID).Scan(&missing)
		return missing == 0
	})
	var completed, finals, doubled int
	fx.st.SQL().QueryRow(`SELECT count(*) FROM interview_sessions WHERE company_id = $1 AND status = 'COMPLETED'`, fx.co.ID).Scan(&completed)
	fx.st.SQL().QueryRow(`SELECT count(*), count(*) - count(DISTINCT session_id) FROM interview_events WHERE company_id = $1 AND kind = $2`,
		fx.co.ID, models.EventTranscriptFinal).Scan(&finals, &doubled)
	if int64(completed) < interviews.Load()+mix.smsTaken.Load() || finals != completed || doubled != 0 {
		t.Errorf("%d interviews taken (%d by SMS), %d sessions COMPLETED, %d transcripts final (%d twice); want each once",
			interviews.Load()+mix.smsTaken.Load(), mix.smsTaken.Load(), completed, finals, doubled)
	}
	mix.checkSMS(t)
	mix.checkAssessments(t)
	mix.checkATS(t)
	var settled string
	fx.st.SQL().QueryRow(`SELECT string_agg(status || ' ' || n, ', ') FROM (SELECT status, count(*) n FROM partner_applications WHERE company_id = $1 GROUP BY status) x`, fx.co.ID).Scan(&settled)
	fmt.Printf("TestFleet: settled after %s: %d callbacks (partner applications %s), %d applications, %d completed interviews with their reports\n",
		time.Since(mixBegin).Round(100*time.Millisecond), receiver.apps(), settled, apps, completed)

	f.importLeavesTurnsAlone(fx, agg)
}

// fleetFixture is the fleet's tenant: a company with an ATS (the partner's applicants), an HR
// suite and a partner, and a second company that imports from the aggregator.
type fleetFixture struct {
	st                            *store.Store
	box                           *secretbox.Box
	co, importer, atsCo           *models.Company
	key, partnerKey, iKey, atsKey string
}

func setUpFleetCompanies(t *testing.T, dbURL, atsURL, atsToken, callbackURL, aggURL string) *fleetFixture {
	t.Helper()
	ctx := t.Context()
	st, err := store.Open(ctx, dbURL, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	raw, _ := base64.StdEncoding.DecodeString(fleetEncryptionKey)
	box, err := secretbox.New(raw)
	if err != nil {
		t.Fatal(err)
	}
	atsA := models.ATSTypeA
	fx := &fleetFixture{st: st, box: box, co: &models.Company{Slug: "fleet", Name: "Fleet Co", ATSType: &atsA, DefaultJobStatus: models.JobStatusActive, HRSuiteAccount: true}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.CreateCompany(ctx, fx.co))
	must(st.DB().Model(fx.co).Update("hr_suite_account", true).Error)
	must(st.SetATSCredentials(ctx, fx.co.ID, box, map[string]string{"baseUrl": atsURL, "restToken": atsToken}))
	fx.key, _ = apikey.Generate()
	_, err = st.CreateAPIKey(ctx, fx.co.ID, "fleet", fx.key)
	must(err)
	fx.partnerKey, _ = apikey.Generate()
	pk, err := st.CreateAPIKey(ctx, fx.co.ID, "fleet-partner", fx.partnerKey)
	must(err)
	p := &models.Partner{CompanyID: fx.co.ID, Name: "fleet-board", CallbackURL: callbackURL}
	must(st.CreatePartner(ctx, box, p, store.PartnerSecrets{CallbackSecret: fleetCallbackSec, SigningSecret: fleetSigningSec}))
	must(st.BindAPIKey(ctx, fx.co.ID, pk.ID, p.ID))
	for _, trigger := range []models.FlowTrigger{models.TriggerPartnerApplication, models.TriggerNewApplicationWebhook} {
		def := flow.Defaults()[trigger]
		raw, _ := json.Marshal(def)
		_, err := st.SaveFlowDefinition(ctx, fx.co.ID, trigger, raw, true, flow.Hash(def))
		must(err)
	}

	fx.importer = &models.Company{Slug: "fleet-import", Name: "Fleet Import", DefaultJobStatus: models.JobStatusActive, HRSuiteAccount: true}
	must(st.CreateCompany(ctx, fx.importer))
	must(st.DB().Model(fx.importer).Update("hr_suite_account", true).Error)
	must(st.SetAggregatorCredentials(ctx, fx.importer.ID, box, map[string]string{aggregator.FieldBaseURL: aggURL, aggregator.FieldAPIKey: fleetAggKey}))
	fx.iKey, _ = apikey.Generate()
	_, err = st.CreateAPIKey(ctx, fx.importer.ID, "fleet-import", fx.iKey)
	must(err)
	return fx
}

// fleet is the running processes and the front: requests go round-robin over the replicas.
type fleet struct {
	t                   *testing.T
	env                 []string
	apis, workers, mcps []*replica
	mcpPorts            []string
	mcpBase             string     // the tool server's public URL: replica 0's
	all                 []*replica // every process started, killed ones too
	retried             atomic.Int64
	tc                  client.Client
	next                atomic.Uint64
}

type replica struct {
	p    *proc
	port string
	args []string
}

func (f *fleet) startAPI(port string) *replica {
	r := &replica{port: port, args: []string{"api"}}
	r.p = start(f.t, append(slices.Clone(f.env), "API_ADDR=127.0.0.1:"+port), "api")
	f.all = append(f.all, r)
	r.p.await(f.t, `"listener":"api","addr"`, 2*time.Minute)
	return r
}

func (f *fleet) startWorker(queues string) *replica {
	r := &replica{args: []string{"worker", "--queues", queues}}
	r.p = start(f.t, f.env, r.args...)
	f.all = append(f.all, r)
	return r
}

func (f *fleet) startMCP(port string) *replica {
	r := &replica{port: port, args: []string{"mcp"}}
	r.p = start(f.t, append(slices.Clone(f.env), "MCP_ADDR=127.0.0.1:"+port, "MCP_BASE_URL="+f.mcpBase), "mcp")
	f.all = append(f.all, r)
	r.p.await(f.t, `"listener":"mcp","addr"`, 2*time.Minute)
	return r
}

// kill ends r's process with SIGKILL, as a crashed machine would.
func (f *fleet) kill(r *replica) {
	f.t.Helper()
	if err := r.p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		f.t.Fatal(err)
	}
	err := <-r.p.done
	r.p.done <- err
}

// pick returns the base URLs in the order the front tries them: the next replica first.
func (f *fleet) pick(rs []*replica) []string {
	n := int(f.next.Add(1))
	var out []string
	for i := range rs {
		out = append(out, "http://127.0.0.1:"+rs[(n+i)%len(rs)].port)
	}
	return out
}

// api sends a request to the next api replica with an API key; a replica that refuses the
// connection (killed) is skipped, as a front's health check would.
func (f *fleet) api(method, path, key, body string) response {
	return f.send(f.pick(f.apis), method, path, map[string]string{"X-API-Key": key, "Content-Type": "application/json"}, body)
}

func (f *fleet) mcpCall(bearer, body string) response {
	return f.send(f.pick(f.mcps), "POST", "/mcp", map[string]string{"Authorization": "Bearer " + bearer,
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, body)
}

var fleetHTTP = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// send tries the replicas in turn: a refused connection (a killed replica) goes to the next at
// once; a 503, which the spec answers with Retry-After and "retry the same request", is retried
// on the next replica after the delay (capped at a second), five times at most, as a client
// following the spec does.
func (f *fleet) send(bases []string, method, path string, header map[string]string, body string) response {
	var last response
	for try := range 5 * len(bases) {
		r, err := sendOnce(method, bases[try%len(bases)]+path, header, body)
		switch {
		case err != nil:
			last = response{status: 0, body: err.Error()}
			continue
		case r.status == http.StatusServiceUnavailable && try < 5*len(bases)-1:
			f.retried.Add(1)
			wait := time.Second
			if s, err := time.ParseDuration(r.header.Get("Retry-After") + "s"); err == nil && s < wait {
				wait = s
			}
			time.Sleep(wait)
			last = r
			continue
		}
		return r
	}
	return last
}

func sendOnce(method, u string, header map[string]string, body string) (response, error) {
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := fleetHTTP.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{resp.StatusCode, resp.Header, string(b)}, nil
}

var fleetInvites atomic.Int64

// invite invites a new candidate to interviewerID and returns the path of the interview link.
func (f *fleet) invite(key, interviewerID string) (string, error) {
	n := fleetInvites.Add(1)
	r := f.api("POST", "/v1/api/inviteCandidate", key, fmt.Sprintf(`{"interviewerId":%q,"candidate":{"firstName":"Fleet","email":"iv-%d@example.com"}}`, interviewerID, n))
	var resp struct{ InterviewLink string }
	if r.status != 200 || json.Unmarshal([]byte(r.body), &resp) != nil {
		return "", fmt.Errorf("inviteCandidate: %d %.200s", r.status, r.body)
	}
	u, err := url.Parse(resp.InterviewLink)
	if err != nil {
		return "", err
	}
	return u.Path, nil
}

var (
	fleetTurnRE   = regexp.MustCompile(`name="turn" value="(\d+)"`)
	fleetChoiceRE = regexp.MustCompile(`type="radio" name="answer" id="choice-\d+" value="([^"]*)"`)
)

const fleetAnswer = "For example, last year I led the migration of our billing service to Go and PostgreSQL; " +
	"I designed the schema, wrote the backfill and cut the p99 latency by forty percent for our customers."

// takeInterview answers every question at the link's path, each request on the next api replica;
// turn, when not nil, receives each answer's latency (its POST and the GET of the next screen).
func (f *fleet) takeInterview(ctx context.Context, path string, turn func(time.Duration)) error {
	page := func(method, p, form string) (string, error) {
		want, header := http.StatusOK, map[string]string{}
		if method == http.MethodPost {
			want, header["Content-Type"] = http.StatusSeeOther, "application/x-www-form-urlencoded"
		}
		r := f.send(f.pick(f.apis), method, p, header, form)
		if r.status != want {
			return "", fmt.Errorf("%s %s: %d %.200s", method, p[strings.LastIndex(p, "/"):], r.status, r.body)
		}
		return r.body, nil
	}
	if _, err := page("GET", path, ""); err != nil {
		return err
	}
	if _, err := page("POST", path+"/consent", ""); err != nil {
		return err
	}
	body, err := page("GET", path, "")
	if err != nil {
		return err
	}
	for range 60 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if strings.Contains(body, "Interview complete") {
			return nil
		}
		m := fleetTurnRE.FindStringSubmatch(body)
		if m == nil {
			return errors.New("no question on the page")
		}
		a := fleetAnswer
		if ch := fleetChoiceRE.FindStringSubmatch(body); ch != nil {
			a = html.UnescapeString(ch[1])
		}
		begin := time.Now()
		if _, err := page("POST", path+"/answer", url.Values{"turn": {m[1]}, "answer": {a}}.Encode()); err != nil {
			return err
		}
		if body, err = page("GET", path, ""); err != nil {
			return err
		}
		if turn != nil {
			turn(time.Since(begin))
		}
	}
	return errors.New("interview not complete after 60 answers")
}

// callbackReceiver is the partner's endpoint: it checks each callback's signature and records
// the webhook ids per application.
type callbackReceiver struct {
	mu            sync.Mutex
	byApp         map[string]map[string]int
	badSignatures atomic.Int64
}

func (c *callbackReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err := callbacks.Verify(req.Header, body, fleetCallbackSec, fleetSigningSec, time.Now()); err != nil {
		c.badSignatures.Add(1)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var p callbacks.Payload
	_ = json.Unmarshal(body, &p)
	c.mu.Lock()
	if c.byApp[p.ApplicationID] == nil {
		c.byApp[p.ApplicationID] = map[string]int{}
	}
	c.byApp[p.ApplicationID][req.Header.Get("Webhook-Id")]++
	c.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (c *callbackReceiver) apps() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byApp)
}

func (c *callbackReceiver) ids(app string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for id := range c.byApp[app] {
		out = append(out, id)
	}
	return out
}

// hrSuiteDelivery is delivery n: two applicants to the partner's job, each by phone and e-mail.
func hrSuiteDelivery(n int64) string {
	var rows []string
	for i := range 2 {
		id := fmt.Sprintf("%d-%d", n, i)
		for _, contact := range [][2]string{{fmt.Sprintf("(415) 555-%04d", (n*2+int64(i))%10000), "Mobile"}, {"hr" + id + "@example.com", "Personal Email"}} {
			rows = append(rows, fmt.Sprintf(`{"Candidate Id":"HC-%s","Candidate First Name":"Hana","Candidate Last Name":"Fleet %s","Contact Method":%q,
"Contact Type Description":%q,"Job Req Id":%q,"Job Req Location":"Austin, TX","Job Req Title":"Nurse","Application Date/Time":"2026-11-21 14:05",
"Job Posting Application Id":"HAPP-%s","Do Not Hire Status":"False"}`, id, id, contact[0], contact[1], fleetHRSuiteJob, id))
		}
	}
	return "[" + strings.Join(rows, ",") + "]"
}

// waitFor is waitFor with what the fleet shows when ok never holds: diag's line, the rows of
// each state and the workers' last log lines.
func (f *fleet) waitFor(fx *fleetFixture, timeout time.Duration, what string, ok func() bool, diag func() string) {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			var b strings.Builder
			fmt.Fprintf(&b, "not within %s: %s (%s)\n", timeout, what, diag())
			for _, q := range []string{
				`SELECT 'partner ' || status, count(*) FROM partner_applications GROUP BY status`,
				`SELECT 'callback ' || state, count(*) FROM callbacks GROUP BY state`,
				`SELECT 'start ' || kind || CASE WHEN started_at IS NULL THEN ' pending' ELSE ' started' END, count(*) FROM workflow_starts GROUP BY 1`,
				`SELECT 'session ' || status, count(*) FROM interview_sessions GROUP BY status`,
			} {
				rows, err := fx.st.SQL().Query(q)
				if err != nil {
					fmt.Fprintf(&b, "%s: %v\n", q, err)
					continue
				}
				for rows.Next() {
					var k string
					var n int
					rows.Scan(&k, &n)
					fmt.Fprintf(&b, "  %s: %d\n", k, n)
				}
				rows.Close()
			}
			for i, w := range f.workers {
				fmt.Fprintf(&b, "worker %d (%v):\n%s\n", i, w.args, lastLines(w.p.output(), 15))
			}
			f.t.Fatal(b.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func waitFor(t *testing.T, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func p50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// importLeavesTurnsAlone times interview turns on the settled fleet, then again while the ingest
// worker imports fleetImportJobs jobs: the import's runs are on the ingest queue, which the
// interview workers do not serve.
func (f *fleet) importLeavesTurnsAlone(fx *fleetFixture, agg *aggsim.Server) {
	t := f.t
	measure := func(n int, during func() bool) ([]time.Duration, int) {
		var mu sync.Mutex
		var turns []time.Duration
		var wg sync.WaitGroup
		taken := 0
		for range n {
			link, err := f.invite(fx.key, "fleet-"+fleetPartnerJob)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := f.takeInterview(t.Context(), link, func(d time.Duration) {
					if during == nil || during() {
						mu.Lock()
						turns = append(turns, d)
						mu.Unlock()
					}
				})
				if err != nil {
					t.Errorf("interview: %v", err)
				}
				mu.Lock()
				taken++
				mu.Unlock()
			}()
		}
		wg.Wait()
		return turns, taken
	}
	idle, _ := measure(6, nil)

	r := f.api("POST", "/v1/api/integrations/hrsuite/connect", fx.iKey, "")
	var link struct{ ConnectURL string }
	if r.status != 200 || json.Unmarshal([]byte(r.body), &link) != nil {
		t.Fatalf("connect = %d %s", r.status, r.body)
	}
	agg.SetWebhookURL("http://127.0.0.1:" + f.apis[0].port + "/webhook/aggregator")
	id, err := agg.Authorize(link.ConnectURL[strings.LastIndex(link.ConnectURL, "/")+1:])
	if err != nil {
		t.Fatal(err)
	}
	if err := agg.AddJobs(id, "J", fleetImportJobs); err != nil {
		t.Fatal(err)
	}
	importBegin := time.Now()
	if err := agg.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	// The import is under way once its first jobs are in; turns count while its runs are still
	// being started or run.
	waitFor(t, time.Minute, "the import's first jobs", func() bool {
		var n int
		fx.st.SQL().QueryRow(`SELECT count(*) FROM aggregator_jobs WHERE company_id = $1`, fx.importer.ID).Scan(&n)
		return n > 0
	})
	var importing atomic.Bool
	importing.Store(true)
	stopWatch := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(200 * time.Millisecond):
			}
			var pending int
			fx.st.SQL().QueryRow(`SELECT count(*) FROM workflow_starts WHERE company_id = $1 AND started_at IS NULL`, fx.importer.ID).Scan(&pending)
			var jobs int
			fx.st.SQL().QueryRow(`SELECT count(*) FROM aggregator_jobs WHERE company_id = $1`, fx.importer.ID).Scan(&jobs)
			if jobs >= fleetImportJobs && pending == 0 {
				importing.Store(false)
				return
			}
		}
	}()
	busy, _ := measure(6, importing.Load)
	close(stopWatch)
	var jobs, started int
	fx.st.SQL().QueryRow(`SELECT count(*) FROM aggregator_jobs WHERE company_id = $1`, fx.importer.ID).Scan(&jobs)
	fx.st.SQL().QueryRow(`SELECT count(*) FROM workflow_starts WHERE company_id = $1 AND started_at IS NOT NULL`, fx.importer.ID).Scan(&started)
	fmt.Printf("TestFleet: interview turns idle p50 %s (%d turns); during the import p50 %s (%d turns); after %s the import had %d of %d jobs in and %d of their runs started\n",
		p50(idle).Round(100*time.Microsecond), len(idle), p50(busy).Round(100*time.Microsecond), len(busy), time.Since(importBegin).Round(100*time.Millisecond), jobs, fleetImportJobs, started)
	if len(idle) < 20 || len(busy) < 20 {
		t.Fatalf("too few turns measured: %d idle, %d during the import (the import ended first?)", len(idle), len(busy))
	}
	if !importing.Load() {
		t.Errorf("the import ended before the turns were measured: nothing ran beside them")
	}
	if limit := 3*p50(idle) + 50*time.Millisecond; p50(busy) > limit {
		t.Errorf("turn p50 during the import %s > 3x idle + 50ms (%s)", p50(busy), limit)
	}
	// The import goes on after the test (10,000 jobs take minutes on this machine): its runs are
	// on this test's own queues, which no worker serves once the processes stop.
	if err := f.terminateImport(fx); err != nil {
		t.Logf("the import's run not terminated: %v", err)
	}
}

// terminateImport ends the importer's job-import run.
func (f *fleet) terminateImport(fx *fleetFixture) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.tc.TerminateWorkflow(ctx, kinds.JobImport.ID(fx.importer.Slug, ""), "", "TestFleet done")
}

const fleetJobDescription = `We are hiring a Senior Backend Engineer to build APIs in Go on PostgreSQL.
Responsibilities:
- Design and build services used by thousands of customers
- Own the reliability of what you ship and improve our CI pipelines
Requirements:
- 5+ years of backend development
- Strong SQL and distributed systems knowledge`
