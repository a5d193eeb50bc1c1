package interviewtools_test

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// now is the tools' clock: the default 30-day window of the time-of-day breakdown is
// [2026-03-16T12:00Z, 2026-04-15T12:00Z).
var now = time.Date(2026, 4, 15, 12, 0, 0, 0, time.UTC)

// fixture is a small dataset in four companies. Every expected figure in the tests is counted
// by hand from the tables below.
//
// acme (fraud_detection_enabled, model_cheat_detection_enabled, cheat_threshold 70):
//
//	jobs: J1 "Backend Engineer" (ID verification on), J2 "Sales Associate", J3 "Data Analyst" (no sessions)
//	candidates: C1 John Smith, C2 Jane Smithers, C3 Bob Jones, C4 Alice Johnson, C5 Carl Mendez,
//	            11 × "Clone PersonNN" (no sessions)
//
//	sess cand job status     medium   invited (UTC)     completed (UTC)   New York local      dur  decision  rec  svc
//	S1   C1   J1  COMPLETED  VIDEO    03-01 10:00       03-02 14:30       09:30 EST (h 9)     1800 ACCEPTED  9    8.5
//	S2   C2   J1  COMPLETED  PHONE    03-05 10:00       03-06 13:30       08:30 EST (h 8)     1200 REJECTED  -    9.5
//	S3   C3   J2  COMPLETED  VIDEO    03-08 10:00       03-09 13:30       09:30 EDT (h 9)      600 HIRED     7    6
//	S4   C1   J2  COMPLETED  VIDEO    04-09 10:00       04-10 22:15       18:15 EDT (h 18)    2400 NONE      8    -
//	S5   C4   J1  INVITED    SMS      04-01 10:00
//	S6   C3   J1  EXPIRED    VIDEO    02-01 10:00
//	S7   C4   J2  STARTED    PHONE    04-12 10:00
//	S8   C2   J2  CANCELLED  WHATSAPP 03-20 10:00
//	S9   C4   J1  COMPLETED  PHONE    03-31 10:00       04-14 03:00       23:00 EDT (h 23)     900 SUBMITTED 6.5  7.5
//	S10  C5   J2  COMPLETED  VIDEO    04-12 10:00       04-13 14:00       10:00 EDT (h 10)    1500 NONE      -    -
//	S11  C5   J1  COMPLETED  BOTH     04-12 11:00       04-13 21:59       17:59 EDT (h 17)     300 NONE      -    -
//
//	cheating evaluations (flag = score >= 70): S1 85 (eye 90, head 80, voice 10, transcript 70, multi 0) 03-02 15:00,
//	  S2 40 03-06 14:00, S3 70 (eye 50) 03-09 14:00, S4 88 (multi 95) 04-10 23:00, S9 95 (voice 99) 04-14 04:00,
//	  S11 75 04-13 22:30
//	fraud verifications: F1 C1/S1 30 disposable+vpn 03-01 11:00; F2 C2/S2 80 thin 03-05 11:00;
//	  F3 C3/no session 49.5 voip+footprint 03-08 11:00; F4 C4/S9 50 none 03-31 11:00; F5 C1/S4 20 disposable+voip+vpn 04-09 11:00
//	identity verifications (all J1): I1 C1/S1 VERIFIED 03-01; I2 C2/S2 FAILED "document expired" 03-05;
//	  I3 C4/S5 PENDING 04-01; I4 C3/S6 EXPIRED 02-01; I5 C4/S9 FAILED "face mismatch" 03-31;
//	  I6 C5/S11 FAILED "face mismatch" 04-12; I7 C3/no session FAILED (no reason) 02-15
//	notes: S1 has 12 ("S1 note 01".."12", hourly from 03-03 00:00); S4 has "S4 note";
//	  C1 general "General note A" 03-01 09:00 and "General note B" 04-01 09:00; C3 general "Bob general 01".."11"
//
// globex (the other tenant; same flags): job "Globex Secret Job" (ID verification on), candidate Zelda Smith
// <zelda@globex.test>, one completed VIDEO session 04-13 15:00 rated 10/10 with cheating 99, fraud 5 (every
// signal) and a FAILED identity check "globex secret reason", and a note.
//
// initech (no flags): job K1 "Support Agent" with ID verification on, candidate Peter Gibbons
// <peter@initech.test>, session P1 COMPLETED, a cheating evaluation 90 and a fraud verification 10 (collected
// while the flags were on), no identity verification.
//
// plain (no flags, no job with ID verification, no data).
type fixture struct {
	h                            *tooltest.Harness
	acme, globex, initech, plain *models.Company
	job, cand, sess              map[string]uuid.UUID
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func setup(t *testing.T) *fixture {
	t.Helper()
	h := tooltest.New(t, now, interviewtools.Register)
	f := &fixture{h: h, job: map[string]uuid.UUID{}, cand: map[string]uuid.UUID{}, sess: map[string]uuid.UUID{}}
	flags := func(c *models.Company) { c.FraudDetectionEnabled, c.ModelCheatDetectionEnabled = true, true }
	f.acme = h.Company(t, "acme", "Acme Corp", flags)
	f.globex = h.Company(t, "globex", "Globex Inc", flags)
	f.initech = h.Company(t, "initech", "Initech", nil)
	f.plain = h.Company(t, "plain", "Plain Co", nil)

	a := f.acme.ID
	f.addJob(t, a, "J1", "Backend Engineer", true)
	f.addJob(t, a, "J2", "Sales Associate", false)
	f.addJob(t, a, "J3", "Data Analyst", false)
	f.addCand(t, a, "C1", "John", "Smith", "john.smith@example.com", "2026-04-10T00:00:00Z")
	f.addCand(t, a, "C2", "Jane", "Smithers", "jane@example.com", "2026-04-09T00:00:00Z")
	f.addCand(t, a, "C3", "Bob", "Jones", "bob@example.com", "2026-04-08T00:00:00Z")
	f.addCand(t, a, "C4", "Alice", "Johnson", "alice@example.com", "2026-04-07T00:00:00Z")
	f.addCand(t, a, "C5", "Carl", "Mendez", "carl@example.com", "2026-04-06T00:00:00Z")
	for i := 1; i <= 11; i++ {
		f.addCand(t, a, fmt.Sprintf("Clone%02d", i), "Clone", fmt.Sprintf("Person%02d", i), fmt.Sprintf("clone%02d@example.com", i),
			fmt.Sprintf("2026-01-%02dT00:00:00Z", i))
	}
	r := func(v float64) *float64 { return &v }
	type ss struct {
		key, cand, job, status, medium, invited, completed string
		dur                                                int
		decision                                           string
		rec, svc                                           *float64
	}
	for _, s := range []ss{
		{"S1", "C1", "J1", "COMPLETED", "VIDEO", "2026-03-01T10:00:00Z", "2026-03-02T14:30:00Z", 1800, "ACCEPTED", r(9), r(8.5)},
		{"S2", "C2", "J1", "COMPLETED", "PHONE", "2026-03-05T10:00:00Z", "2026-03-06T13:30:00Z", 1200, "REJECTED", nil, r(9.5)},
		{"S3", "C3", "J2", "COMPLETED", "VIDEO", "2026-03-08T10:00:00Z", "2026-03-09T13:30:00Z", 600, "HIRED", r(7), r(6)},
		{"S4", "C1", "J2", "COMPLETED", "VIDEO", "2026-04-09T10:00:00Z", "2026-04-10T22:15:00Z", 2400, "NONE", r(8), nil},
		{"S5", "C4", "J1", "INVITED", "SMS", "2026-04-01T10:00:00Z", "", 0, "NONE", nil, nil},
		{"S6", "C3", "J1", "EXPIRED", "VIDEO", "2026-02-01T10:00:00Z", "", 0, "NONE", nil, nil},
		{"S7", "C4", "J2", "STARTED", "PHONE", "2026-04-12T10:00:00Z", "", 0, "NONE", nil, nil},
		{"S8", "C2", "J2", "CANCELLED", "WHATSAPP", "2026-03-20T10:00:00Z", "", 0, "NONE", nil, nil},
		{"S9", "C4", "J1", "COMPLETED", "PHONE", "2026-03-31T10:00:00Z", "2026-04-14T03:00:00Z", 900, "SUBMITTED", r(6.5), r(7.5)},
		{"S10", "C5", "J2", "COMPLETED", "VIDEO", "2026-04-12T10:00:00Z", "2026-04-13T14:00:00Z", 1500, "NONE", nil, nil},
		{"S11", "C5", "J1", "COMPLETED", "BOTH", "2026-04-12T11:00:00Z", "2026-04-13T21:59:00Z", 300, "NONE", nil, nil},
	} {
		var completed *time.Time
		var dur *int
		var rrev, srev *string
		if s.completed != "" {
			c := ts(s.completed)
			completed, dur = &c, &s.dur
			rrev, srev = ptr("recruiter review of "+s.key), ptr("service review of "+s.key)
		}
		f.sess[s.key] = f.insertID(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at,
			completed_at, duration_seconds, decision, recruiter_rating, service_rating, recruiter_review, service_review, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $6) RETURNING id`,
			a, f.cand[s.cand], f.job[s.job], s.status, s.medium, ts(s.invited), completed, dur, s.decision, s.rec, s.svc, rrev, srev)
	}
	type ev struct {
		sess                        string
		score                       float64
		eye, head, voice, tr, multi *float64
		at                          string
	}
	for _, e := range []ev{
		{"S1", 85, r(90), r(80), r(10), r(70), r(0), "2026-03-02T15:00:00Z"},
		{"S2", 40, nil, nil, nil, nil, nil, "2026-03-06T14:00:00Z"},
		{"S3", 70, r(50), nil, nil, nil, nil, "2026-03-09T14:00:00Z"},
		{"S4", 88, nil, nil, nil, nil, r(95), "2026-04-10T23:00:00Z"},
		{"S9", 95, nil, nil, r(99), nil, nil, "2026-04-14T04:00:00Z"},
		{"S11", 75, nil, nil, nil, nil, nil, "2026-04-13T22:30:00Z"},
	} {
		f.exec(t, `INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, eye_tracking_score, head_tracking_score,
			voice_score, transcript_score, multi_person_score, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			a, f.sess[e.sess], e.score, e.eye, e.head, e.voice, e.tr, e.multi, ts(e.at))
	}
	type fr struct {
		cand, sess                           string
		score                                float64
		disposable, voip, vpn, thin, anomaly bool
		at                                   string
	}
	for _, v := range []fr{
		{"C1", "S1", 30, true, false, true, false, false, "2026-03-01T11:00:00Z"},
		{"C2", "S2", 80, false, false, false, true, false, "2026-03-05T11:00:00Z"},
		{"C3", "", 49.5, false, true, false, false, true, "2026-03-08T11:00:00Z"},
		{"C4", "S9", 50, false, false, false, false, false, "2026-03-31T11:00:00Z"},
		{"C1", "S4", 20, true, true, true, false, false, "2026-04-09T11:00:00Z"},
	} {
		f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, session_id, overall_verification_score, disposable_email,
			voip_phone, vpn_proxy_ip, thin_profile, footprint_anomaly, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			a, f.cand[v.cand], f.optSess(v.sess), v.score, v.disposable, v.voip, v.vpn, v.thin, v.anomaly, ts(v.at))
	}
	type id struct {
		cand, sess, status, reason, at, done string
	}
	for _, v := range []id{
		{"C1", "S1", "VERIFIED", "", "2026-03-01T10:05:00Z", "2026-03-01T10:10:00Z"},
		{"C2", "S2", "FAILED", "document expired", "2026-03-05T10:05:00Z", "2026-03-05T10:20:00Z"},
		{"C4", "S5", "PENDING", "", "2026-04-01T10:05:00Z", ""},
		{"C3", "S6", "EXPIRED", "", "2026-02-01T10:05:00Z", ""},
		{"C4", "S9", "FAILED", "face mismatch", "2026-03-31T10:05:00Z", "2026-03-31T10:30:00Z"},
		{"C5", "S11", "FAILED", "face mismatch", "2026-04-12T11:05:00Z", "2026-04-12T11:30:00Z"},
		{"C3", "", "FAILED", "", "2026-02-15T10:00:00Z", "2026-02-15T10:10:00Z"},
	} {
		var reason *string
		var done *time.Time
		if v.reason != "" {
			reason = &v.reason
		}
		if v.done != "" {
			d := ts(v.done)
			done = &d
		}
		f.exec(t, `INSERT INTO identity_verifications (company_id, candidate_id, session_id, job_id, status, failure_reason, created_at, completed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a, f.cand[v.cand], f.optSess(v.sess), f.job["J1"], v.status, reason, ts(v.at), done)
	}
	for i := 1; i <= 12; i++ {
		f.note(t, a, "C1", "S1", fmt.Sprintf("S1 note %02d", i), ts("2026-03-03T00:00:00Z").Add(time.Duration(i)*time.Hour))
	}
	f.note(t, a, "C1", "S4", "S4 note", ts("2026-04-11T00:00:00Z"))
	f.note(t, a, "C1", "", "General note A", ts("2026-03-01T09:00:00Z"))
	f.note(t, a, "C1", "", "General note B", ts("2026-04-01T09:00:00Z"))
	for i := 1; i <= 11; i++ {
		f.note(t, a, "C3", "", fmt.Sprintf("Bob general %02d", i), ts("2026-03-10T00:00:00Z").Add(time.Duration(i)*time.Hour))
	}

	// globex: data that would change every figure above if it leaked.
	g := f.globex.ID
	f.addJob(t, g, "G1", "Globex Secret Job", true)
	f.addCand(t, g, "Z", "Zelda", "Smith", "zelda@globex.test", "2026-04-14T00:00:00Z")
	f.sess["GS1"] = f.insertID(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at,
		completed_at, duration_seconds, decision, recruiter_rating, service_rating, created_at)
		VALUES ($1, $2, $3, 'COMPLETED', 'VIDEO', $4, $5, 999, 'ACCEPTED', 10, 10, $4) RETURNING id`,
		g, f.cand["Z"], f.job["G1"], ts("2026-04-12T10:00:00Z"), ts("2026-04-13T15:00:00Z"))
	f.exec(t, `INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, eye_tracking_score, created_at) VALUES ($1, $2, 99, 99, $3)`,
		g, f.sess["GS1"], ts("2026-04-13T16:00:00Z"))
	f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, session_id, overall_verification_score, disposable_email, voip_phone,
		vpn_proxy_ip, thin_profile, footprint_anomaly, created_at) VALUES ($1, $2, $3, 5, true, true, true, true, true, $4)`,
		g, f.cand["Z"], f.sess["GS1"], ts("2026-04-12T11:00:00Z"))
	f.exec(t, `INSERT INTO identity_verifications (company_id, candidate_id, session_id, job_id, status, failure_reason, created_at)
		VALUES ($1, $2, $3, $4, 'FAILED', 'globex secret reason', $5)`, g, f.cand["Z"], f.sess["GS1"], f.job["G1"], ts("2026-04-12T10:05:00Z"))
	f.note(t, g, "Z", "GS1", "globex secret note", ts("2026-04-13T17:00:00Z"))

	// initech: integrity rows exist, but every flag is off.
	i := f.initech.ID
	f.addJob(t, i, "K1", "Support Agent", true)
	f.addCand(t, i, "P", "Peter", "Gibbons", "peter@initech.test", "2026-04-01T00:00:00Z")
	f.sess["P1"] = f.insertID(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at,
		completed_at, duration_seconds, created_at) VALUES ($1, $2, $3, 'COMPLETED', 'VIDEO', $4, $5, 100, $4) RETURNING id`,
		i, f.cand["P"], f.job["K1"], ts("2026-04-01T10:00:00Z"), ts("2026-04-01T11:00:00Z"))
	f.exec(t, `INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at) VALUES ($1, $2, 90, $3)`,
		i, f.sess["P1"], ts("2026-04-01T12:00:00Z"))
	f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, session_id, overall_verification_score, created_at)
		VALUES ($1, $2, $3, 10, $4)`, i, f.cand["P"], f.sess["P1"], ts("2026-04-01T09:00:00Z"))
	return f
}

func (f *fixture) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := f.h.Store.SQL().ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (f *fixture) insertID(t *testing.T, q string, args ...any) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := f.h.Store.SQL().QueryRowContext(t.Context(), q, args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return id
}

func (f *fixture) addJob(t *testing.T, company uuid.UUID, key, title string, idv bool) {
	t.Helper()
	f.job[key] = f.insertID(t, `INSERT INTO jobs (company_id, external_id, interviewer_id, title, status, enable_identity_verification)
		VALUES ($1, $2, $3, $4, 'ACTIVE', $5) RETURNING id`, company, key, company.String()+"-"+key, title, idv)
}

func (f *fixture) addCand(t *testing.T, company uuid.UUID, key, first, last, email, updated string) {
	t.Helper()
	f.cand[key] = f.insertID(t, `INSERT INTO candidates (company_id, first_name, last_name, email, phone, title, location, created_at, updated_at)
		VALUES ($1, $2, $3, $4, '+15555550100', 'Engineer', 'New York, NY', $5, $5) RETURNING id`, company, first, last, email, ts(updated))
}

func (f *fixture) optSess(key string) any {
	if key == "" {
		return nil
	}
	return f.sess[key]
}

func (f *fixture) note(t *testing.T, company uuid.UUID, cand, sess, body string, at time.Time) {
	t.Helper()
	f.exec(t, `INSERT INTO recruiter_notes (company_id, candidate_id, session_id, body, created_at) VALUES ($1, $2, $3, $4, $5)`,
		company, f.cand[cand], f.optSess(sess), body, at)
}

func (f *fixture) setFlags(t *testing.T, c *models.Company, fraud, cheat bool) {
	t.Helper()
	f.exec(t, `UPDATE companies SET fraud_detection_enabled = $2, model_cheat_detection_enabled = $3 WHERE id = $1`, c.ID, fraud, cheat)
}

// foreignMarkers are globex's names, e-mails, ids and titles that acme's outputs must not mention.
func (f *fixture) foreignMarkers() []string {
	return []string{"Zelda", "zelda@globex.test", f.cand["Z"].String(), f.sess["GS1"].String(), f.job["G1"].String(),
		"Globex Secret Job", "globex secret reason", "globex secret note"}
}

func ptr[T any](v T) *T { return &v }

// call runs a tool as acme's key (or the given company's) and decodes the structured output.
func call[Out any](t *testing.T, f *fixture, c *models.Company, tool string, args map[string]any, meta map[string]any) (Out, *tooltest.Result) {
	t.Helper()
	if c == nil {
		c = f.acme
	}
	r := f.h.Call(t, tooltest.KeyCaller(c), tool, args, meta)
	var out Out
	if r.IsError {
		t.Fatalf("%s(%v) is a tool error: %s", tool, args, r.Text)
	}
	r.Decode(t, &out)
	return out, r
}

// toolErr asserts a tool error containing every want.
func toolErr(t *testing.T, f *fixture, c *models.Company, tool string, args map[string]any, want ...string) string {
	t.Helper()
	if c == nil {
		c = f.acme
	}
	r := f.h.Call(t, tooltest.KeyCaller(c), tool, args, nil)
	if !r.IsError {
		t.Errorf("%s(%v) succeeded; want a tool error containing %q:\n%s", tool, args, want, r.Text)
		return r.Text
	}
	for _, w := range want {
		if !strings.Contains(r.Text, w) {
			t.Errorf("%s(%v) error %q does not contain %q", tool, args, r.Text, w)
		}
	}
	return r.Text
}

func contains(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: text does not contain %q:\n%s", what, w, text)
		}
	}
}

func notContains(t *testing.T, what, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("%s: text contains %q:\n%s", what, w, text)
		}
	}
}

// hasNotice asserts that the notice is in structuredContent.notices and in the text.
func hasNotice(t *testing.T, what string, n toolkit.Notices, r *tooltest.Result, want string) {
	t.Helper()
	found := false
	for _, s := range n.Messages {
		if strings.Contains(s, want) {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: notices %q do not contain %q", what, n.Messages, want)
	}
	if !strings.Contains(r.Text, "Note: ") || !strings.Contains(r.Text, want) {
		t.Errorf("%s: text does not carry the notice %q:\n%s", what, want, r.Text)
	}
}

func f64(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func i64(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// metricCall calls tool for acme with args plus metric (args itself is left as it is).
func metricCall[Out any](t *testing.T, f *fixture, tool, metric string, args map[string]any) Out {
	t.Helper()
	a := maps.Clone(args)
	if a == nil {
		a = map[string]any{}
	}
	a["metric"] = metric
	o, _ := call[Out](t, f, nil, tool, a, nil)
	return o
}
