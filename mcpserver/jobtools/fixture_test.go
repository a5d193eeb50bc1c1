package jobtools_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/mcpserver/jobtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// now is the tools' clock in every test.
var now = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

// Secret credential values stored (sealed) for the fixture companies; no tool output may
// contain them.
const (
	secretBaseURL   = "https://ats-a.example.com/rest/S3CRET-path"
	secretRestToken = "rt-S3CRET-acme-token"
	secretOtherURL  = "https://ats-b.example.com/S3CRET-globex"
)

// fixture is a small dataset in two companies. Acme (ATS-A) holds everything the expected
// figures of the tests are hand-counted from; Globex (ATS-B) holds look-alike rows that must
// never show up in Acme's answers; Initech has no ATS and no data.
//
// Acme jobs (created_at, status, open, creator, resume-fit template, identity verification):
//
//	J1 Senior Backend Engineer  A-100 2026-01-05 ACTIVE     open   Dana Scully  Engineering Fit  IV
//	J2 Backend Engineer         A-101 2026-02-10 ACTIVE     open   Dana Scully  Engineering Fit
//	J3 Sales Manager            A-102 2026-03-02 PAUSED     closed Dana Reyes   Sales Fit        IV
//	J4 Data Analyst             A-103 2026-04-06 GENERATING open   -
//	J5 Frontend Engineer        A-104 2026-05-04 FAILED     closed Dana Reyes
//	J6 Product Designer         A-105 2026-05-20 ACTIVE     closed Ann Lee                       IV
//	J7 Legacy Deleted Job       A-106 2026-03-15 ACTIVE     open   (deleted)    Engineering Fit  IV
//
// Guides: J1 (3 questions, the second copied from template "Behavioral Core"; 2 criteria),
// J2 (1 question; 1 criterion copied from "Assessment Basics"), J3 (1 question copied from
// "Behavioral Core"), J6 (1 question, no template), J7 (1 question copied from "Behavioral
// Core").
//
// Candidates: c1 Alice Anders (interviewing), c2 Bob Brown (hired), c3 Carol Chen (new),
// c4 Dave Diaz (rejected), c5 Eve Evans (new, created 2026-05-10, no applications).
//
// Applications: c1→J1 01-10, c2→J1 01-12, c3→J1 02-15, c1→J2 02-20, c4→J3 03-10, c2→J1 03-01.
//
// Sessions (invited, status, decision):
//
//	s1 c1 J1 01-11 COMPLETED ACCEPTED
//	s2 c2 J1 01-13 COMPLETED HIRED
//	s3 c3 J1 02-16 INVITED   NONE
//	s4 c2 J1 03-02 STARTED   NONE
//	s5 c1 J2 02-21 EXPIRED   NONE
//	s6 c4 J3 03-11 COMPLETED REJECTED
//
// ATS coverage weeks (ATS-A): 2026-01-05 {A-100, X-1}, 2026-02-09 {A-101, A-100, X-2},
// 2026-03-02 {A-102, A-106, X-3}, 2026-04-06 {A-103}.
type fixture struct {
	h                         *tooltest.Harness
	acme, globex, initech     *models.Company
	acmeKey, globexKey        *toolkit.Caller
	j                         [8]uuid.UUID // j[1]..j[7] are Acme's jobs
	s                         [7]uuid.UUID // s[1]..s[6] are Acme's sessions
	c                         [6]uuid.UUID // c[1]..c[5] are Acme's candidates
	scully, reyes, annLee     uuid.UUID
	rfEngineering, igBehavior uuid.UUID
	gJob                      uuid.UUID // Globex's job
	gTemplates                []uuid.UUID
	gCandidate                uuid.UUID
	ciphertexts               [][]byte
}

// globexMarkers are strings of Globex's data that Acme's answers must never contain.
func (f *fixture) globexMarkers() []string {
	m := []string{"Globex Secret Welder", "Globex RF Template", "Globex Guide Template", "Zed Zorro",
		"Gustavo Fring", "Globex secret weld question", "G-777", f.gJob.String(), f.gCandidate.String()}
	for _, id := range f.gTemplates {
		m = append(m, id.String())
	}
	return m
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t.Add(9 * time.Hour)
}

func ptr[T any](v T) *T { return &v }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	h := tooltest.New(t, now, jobtools.Register)
	f := &fixture{h: h}
	db := h.Store.DB()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	create := func(v any) {
		t.Helper()
		must(db.WithContext(ctx).Create(v).Error)
	}

	f.acme = h.Company(t, "acme", "Acme Corp", func(c *models.Company) {
		c.ATSType = ptr(models.ATSTypeA)
		c.FraudDetectionEnabled = true
		c.ModelCheatDetectionEnabled = true
		c.CheatThreshold = 65
		c.Features = models.NewJSON(map[string]bool{models.FeatureResumeFit: true, models.FeatureWhatsAppChannel: true, models.FeatureCustomLogo: false})
		c.KomboIntegrationID = ptr("kombo-int-42")
		c.KomboStatus = ptr("connected")
		c.DecisionSyncFields = models.NewJSON([]models.SyncField{{Field: "stage", Value: "Interviewed"}})
	})
	f.globex = h.Company(t, "globex", "Globex", func(c *models.Company) {
		c.ATSType = ptr(models.ATSTypeB)
		c.HRSuiteAccount = true
		c.AutoJobImportEnabled = true
		c.Features = models.NewJSON(map[string]bool{models.FeatureTalentMatch: true, models.FeatureCoordinator: true})
		c.DecisionSyncFields = models.NewJSON([]models.SyncField{{Field: "stage", Value: ""}, {Field: "", Value: "x"}})
	})
	f.initech = h.Company(t, "initech", "Initech", nil)
	f.acmeKey, f.globexKey = tooltest.KeyCaller(f.acme), tooltest.KeyCaller(f.globex)

	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i + 1)
	}
	box, err := secretbox.New(key)
	must(err)
	must(h.Store.SetATSCredentials(ctx, f.acme.ID, box, map[string]string{"baseUrl": secretBaseURL, "restToken": secretRestToken}))
	must(h.Store.SetATSCredentials(ctx, f.globex.ID, box, map[string]string{"baseUrl": secretOtherURL}))
	for _, c := range []*models.Company{f.acme, f.globex} {
		var sealed []byte
		must(h.DB.SQL.QueryRowContext(ctx, `SELECT ats_credentials FROM companies WHERE id = $1`, c.ID).Scan(&sealed))
		f.ciphertexts = append(f.ciphertexts, sealed)
	}

	user := func(email, name string, companies ...*models.Company) uuid.UUID {
		u := &models.User{Email: email, Name: name}
		create(u)
		for _, c := range companies {
			create(&models.CompanyMembership{CompanyID: c.ID, UserID: u.ID, Role: models.MembershipRoleRecruiter})
		}
		return u.ID
	}
	f.scully = user("scully@acme.test", "Dana Scully", f.acme, f.globex)
	f.reyes = user("reyes@acme.test", "Dana Reyes", f.acme)
	f.annLee = user("ann@acme.test", "Ann Lee", f.acme)
	user("annl@acme.test", "Ann Leeds", f.acme)
	user("skinner@acme.test", "Walter Skinner", f.acme)
	gustavo := user("gus@globex.test", "Gustavo Fring", f.globex)

	tpl := func(c *models.Company, typ models.TemplateType, name string) uuid.UUID {
		x := &models.Template{CompanyID: c.ID, Type: typ, Name: name}
		create(x)
		return x.ID
	}
	f.rfEngineering = tpl(f.acme, models.TemplateTypeResumeFit, "Engineering Fit")
	rfSales := tpl(f.acme, models.TemplateTypeResumeFit, "Sales Fit")
	tpl(f.acme, models.TemplateTypeResumeFit, "Unused Fit")
	f.igBehavior = tpl(f.acme, models.TemplateTypeInterviewGuide, "Behavioral Core")
	igAssess := tpl(f.acme, models.TemplateTypeInterviewGuide, "Assessment Basics")
	gRF := tpl(f.globex, models.TemplateTypeResumeFit, "Globex RF Template")
	gIG := tpl(f.globex, models.TemplateTypeInterviewGuide, "Globex Guide Template")
	f.gTemplates = []uuid.UUID{gRF, gIG}

	type jobSpec struct {
		title, ext, created string
		status              models.JobStatus
		open, deleted, iv   bool
		creator, rf         *uuid.UUID
	}
	job := func(c *models.Company, s jobSpec) uuid.UUID {
		j := &models.Job{CompanyID: c.ID, ExternalID: s.ext, InterviewerID: c.Slug + "-" + s.ext, Title: s.title,
			ExternalTitle: s.title, Status: s.status, IsOpen: s.open, IsDeleted: s.deleted, EnableIdentityVerification: s.iv,
			CreatedByUserID: s.creator, ResumeFitTemplateID: s.rf, CreatedAt: day(s.created), UpdatedAt: day(s.created)}
		if s.status == models.JobStatusActive || s.status == models.JobStatusPaused {
			j.GeneratedAt = ptr(day(s.created).Add(time.Hour))
		}
		if s.status == models.JobStatusFailed {
			j.FailureReason = ptr("description too short")
		}
		create(j)
		return j.ID
	}
	f.j[1] = job(f.acme, jobSpec{"Senior Backend Engineer", "A-100", "2026-01-05", models.JobStatusActive, true, false, true, &f.scully, &f.rfEngineering})
	f.j[2] = job(f.acme, jobSpec{"Backend Engineer", "A-101", "2026-02-10", models.JobStatusActive, true, false, false, &f.scully, &f.rfEngineering})
	f.j[3] = job(f.acme, jobSpec{"Sales Manager", "A-102", "2026-03-02", models.JobStatusPaused, false, false, true, &f.reyes, &rfSales})
	f.j[4] = job(f.acme, jobSpec{"Data Analyst", "A-103", "2026-04-06", models.JobStatusGenerating, true, false, false, nil, nil})
	f.j[5] = job(f.acme, jobSpec{"Frontend Engineer", "A-104", "2026-05-04", models.JobStatusFailed, false, false, false, &f.reyes, nil})
	f.j[6] = job(f.acme, jobSpec{"Product Designer", "A-105", "2026-05-20", models.JobStatusActive, false, false, true, &f.annLee, nil})
	f.j[7] = job(f.acme, jobSpec{"Legacy Deleted Job", "A-106", "2026-03-15", models.JobStatusActive, true, true, true, nil, &f.rfEngineering})
	// Globex: a look-alike job created by Dana Scully (a member of both companies) with Acme's
	// external id A-100, and one with an id from Acme's ATS report.
	f.gJob = job(f.globex, jobSpec{"Globex Secret Welder", "A-100", "2026-02-11", models.JobStatusActive, true, false, true, &f.scully, &gRF})
	job(f.globex, jobSpec{"Globex Night Shift", "X-1", "2026-02-12", models.JobStatusActive, true, false, false, &gustavo, &gRF})

	guide := func(c *models.Company, jobID uuid.UUID, intro string, lo, skills []string) uuid.UUID {
		g := &models.InterviewGuide{CompanyID: c.ID, JobID: jobID, Intro: intro, Outro: "Thanks for your time.",
			LearningObjectives: lo, Skills: skills}
		create(g)
		return g.ID
	}
	question := func(c *models.Company, g uuid.UUID, pos int, text string, src models.QuestionSource, skill *string, tplID *uuid.UUID, answers []string, tag *string) {
		create(&models.InterviewQuestion{CompanyID: c.ID, GuideID: g, Position: pos, Text: text, Source: src, Skill: skill,
			TemplateID: tplID, Answers: answers, TagName: tag})
	}
	criterion := func(c *models.Company, g uuid.UUID, pos int, name string, tplID *uuid.UUID) {
		create(&models.GradingCriterion{CompanyID: c.ID, GuideID: g, Position: pos, Name: name, Description: name + " matters", TemplateID: tplID})
	}
	g1 := guide(f.acme, f.j[1], "Welcome to the backend interview.", []string{"Assess Go depth", "Assess system design"}, []string{"Go", "SQL", "Distributed systems"})
	question(f.acme, g1, 0, "Tell me about a Go service you built.", models.QuestionSourceGenerated, ptr("Go"), nil, nil, nil)
	question(f.acme, g1, 1, "Describe a conflict you resolved.", models.QuestionSourceAdditional, nil, &f.igBehavior, nil, nil)
	question(f.acme, g1, 2, "Are you authorised to work in the US?", models.QuestionSourceStructured, nil, nil, []string{"Yes", "No"}, ptr("work_authorisation"))
	criterion(f.acme, g1, 0, "Technical depth", nil)
	criterion(f.acme, g1, 1, "Communication", nil)
	g2 := guide(f.acme, f.j[2], "Hello.", nil, []string{"Go"})
	question(f.acme, g2, 0, "What is a goroutine?", models.QuestionSourceGenerated, ptr("Go"), nil, nil, nil)
	criterion(f.acme, g2, 0, "Assessment", &igAssess)
	g3 := guide(f.acme, f.j[3], "Hi.", nil, nil)
	question(f.acme, g3, 0, "How do you close deals?", models.QuestionSourceGenerated, nil, &f.igBehavior, nil, nil)
	g6 := guide(f.acme, f.j[6], "Hi designer.", nil, nil)
	question(f.acme, g6, 0, "Show us your portfolio.", models.QuestionSourceGenerated, nil, nil, nil, nil)
	g7 := guide(f.acme, f.j[7], "Old.", nil, nil)
	question(f.acme, g7, 0, "Legacy question", models.QuestionSourceGenerated, nil, &f.igBehavior, nil, nil)
	gg := guide(f.globex, f.gJob, "Globex intro.", nil, nil)
	question(f.globex, gg, 0, "Globex secret weld question", models.QuestionSourceGenerated, nil, &gIG, nil, nil)

	cand := func(c *models.Company, first, last, status, created string) uuid.UUID {
		x := &models.Candidate{CompanyID: c.ID, FirstName: first, LastName: last, Status: status, CreatedAt: day(created), UpdatedAt: day(created)}
		create(x)
		return x.ID
	}
	f.c[1] = cand(f.acme, "Alice", "Anders", "interviewing", "2026-01-09")
	f.c[2] = cand(f.acme, "Bob", "Brown", "hired", "2026-01-11")
	f.c[3] = cand(f.acme, "Carol", "Chen", "new", "2026-02-14")
	f.c[4] = cand(f.acme, "Dave", "Diaz", "rejected", "2026-03-09")
	f.c[5] = cand(f.acme, "Eve", "Evans", "new", "2026-05-10")
	f.gCandidate = cand(f.globex, "Zed", "Zorro", "hired", "2026-02-12")

	app := func(c *models.Company, cand, jobID uuid.UUID, created string) uuid.UUID {
		a := &models.Application{CompanyID: c.ID, CandidateID: cand, JobID: jobID, Source: models.ApplicationSourceManual, CreatedAt: day(created), UpdatedAt: day(created)}
		create(a)
		return a.ID
	}
	a1 := app(f.acme, f.c[1], f.j[1], "2026-01-10")
	a2 := app(f.acme, f.c[2], f.j[1], "2026-01-12")
	a3 := app(f.acme, f.c[3], f.j[1], "2026-02-15")
	a4 := app(f.acme, f.c[1], f.j[2], "2026-02-20")
	a5 := app(f.acme, f.c[4], f.j[3], "2026-03-10")
	a6 := app(f.acme, f.c[2], f.j[1], "2026-03-01")
	ga := app(f.globex, f.gCandidate, f.gJob, "2026-02-12")

	session := func(c *models.Company, appID, cand, jobID uuid.UUID, invited string, status models.SessionStatus, d models.Decision) uuid.UUID {
		s := &models.InterviewSession{CompanyID: c.ID, ApplicationID: &appID, CandidateID: cand, JobID: jobID, Status: status,
			MediumType: models.MediumTypeVideo, InvitedAt: day(invited), Decision: d, CreatedAt: day(invited), UpdatedAt: day(invited)}
		if status == models.SessionStatusStarted || status == models.SessionStatusCompleted {
			s.StartedAt = ptr(day(invited).Add(2 * time.Hour))
		}
		if status == models.SessionStatusCompleted {
			s.CompletedAt = ptr(day(invited).Add(3 * time.Hour))
			s.DurationSeconds = ptr(1800)
		}
		create(s)
		return s.ID
	}
	f.s[1] = session(f.acme, a1, f.c[1], f.j[1], "2026-01-11", models.SessionStatusCompleted, models.DecisionAccepted)
	f.s[2] = session(f.acme, a2, f.c[2], f.j[1], "2026-01-13", models.SessionStatusCompleted, models.DecisionHired)
	f.s[3] = session(f.acme, a3, f.c[3], f.j[1], "2026-02-16", models.SessionStatusInvited, models.DecisionNone)
	f.s[4] = session(f.acme, a6, f.c[2], f.j[1], "2026-03-02", models.SessionStatusStarted, models.DecisionNone)
	f.s[5] = session(f.acme, a4, f.c[1], f.j[2], "2026-02-21", models.SessionStatusExpired, models.DecisionNone)
	f.s[6] = session(f.acme, a5, f.c[4], f.j[3], "2026-03-11", models.SessionStatusCompleted, models.DecisionRejected)
	session(f.globex, ga, f.gCandidate, f.gJob, "2026-02-13", models.SessionStatusCompleted, models.DecisionHired)

	week := func(c *models.Company, start string, typ models.ATSType, ids ...string) {
		_, err := h.DB.SQL.ExecContext(ctx, `INSERT INTO ats_coverage_weeks (company_id, week_start, ats_type, ats_job_ids) VALUES ($1, $2, $3, $4)`,
			c.ID, start, string(typ), models.StringArray(ids))
		must(err)
	}
	week(f.acme, "2026-01-05", models.ATSTypeA, "A-100", "X-1")
	week(f.acme, "2026-02-09", models.ATSTypeA, "A-101", "A-100", "X-2")
	week(f.acme, "2026-03-02", models.ATSTypeA, "A-102", "A-106", "X-3")
	week(f.acme, "2026-04-06", models.ATSTypeA, "A-103")
	week(f.globex, "2026-02-09", models.ATSTypeB, "A-100", "X-1", "G-777")
	return f
}

// call is a tools/call as Acme's key with optional _meta.
func (f *fixture) call(t *testing.T, name string, args map[string]any, meta map[string]any) *tooltest.Result {
	t.Helper()
	r := f.h.Call(t, f.acmeKey, name, args, meta)
	if r.IsError {
		t.Fatalf("%s(%v) is a tool error: %s", name, args, r.Text)
	}
	return r
}

// decode calls the tool as Acme and decodes its structured content into a generic map.
func (f *fixture) decode(t *testing.T, name string, args map[string]any) (map[string]any, *tooltest.Result) {
	t.Helper()
	r := f.h.OK(t, f.acmeKey, name, args)
	var m map[string]any
	r.Decode(t, &m)
	return m, r
}

// toolError asserts a tool error containing every one of wants.
func (f *fixture) toolError(t *testing.T, name string, args map[string]any, meta map[string]any, wants ...string) {
	t.Helper()
	r := f.h.Call(t, f.acmeKey, name, args, meta)
	if !r.IsError {
		t.Errorf("%s(%v) succeeded; want a tool error containing %q:\n%s", name, args, wants, r.Text)
		return
	}
	for _, w := range wants {
		if !strings.Contains(r.Text, w) {
			t.Errorf("%s(%v) error %q does not contain %q", name, args, r.Text, w)
		}
	}
}

// noticeIn asserts that the notice is reported in the text and in structuredContent.notices.
func noticeIn(t *testing.T, r *tooltest.Result, notice string) {
	t.Helper()
	if !strings.Contains(r.Text, "Note: "+notice) {
		t.Errorf("text lacks the notice %q:\n%s", notice, r.Text)
	}
	var s struct {
		Notices []string `json:"notices"`
	}
	if err := json.Unmarshal(r.Structured, &s); err != nil {
		t.Fatal(err)
	}
	for _, n := range s.Notices {
		if n == notice {
			return
		}
	}
	t.Errorf("structuredContent.notices = %q; want %q", s.Notices, notice)
}

// secrets are the fixture's credential values in every form they exist in.
func (f *fixture) secrets() []string {
	out := []string{secretBaseURL, secretRestToken, secretOtherURL, "S3CRET"}
	for _, c := range f.ciphertexts {
		out = append(out, base64.StdEncoding.EncodeToString(c), hex.EncodeToString(c), string(c[1:13]))
	}
	return out
}

// jsonPath returns the value at a dotted path of nested maps and slices (numeric segments index
// slices).
func jsonPath(t *testing.T, v any, path string) any {
	t.Helper()
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				t.Fatalf("path %s: no key %q in %v", path, seg, x)
			}
		case []any:
			var i int
			if err := json.Unmarshal([]byte(seg), &i); err != nil || i >= len(x) {
				t.Fatalf("path %s: bad index %q for %d items", path, seg, len(x))
			}
			v = x[i]
		default:
			t.Fatalf("path %s: cannot descend into %T at %q", path, v, seg)
		}
	}
	return v
}

// num returns the number at path (JSON numbers decode as float64).
func num(t *testing.T, v any, path string) float64 {
	t.Helper()
	n, ok := jsonPath(t, v, path).(float64)
	if !ok {
		t.Fatalf("path %s = %v, not a number", path, jsonPath(t, v, path))
	}
	return n
}

// expect checks numbers at paths.
func expect(t *testing.T, v any, want map[string]float64) {
	t.Helper()
	for p, w := range want {
		if got := num(t, v, p); got != w {
			t.Errorf("%s = %v, want %v", p, got, w)
		}
	}
}

// isNull checks that every path holds JSON null.
func isNull(t *testing.T, v any, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if got := jsonPath(t, v, p); got != nil {
			t.Errorf("%s = %v, want null", p, got)
		}
	}
}

func contains(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func lacks(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("text contains %q:\n%s", w, text)
		}
	}
}

// toMap converts a JSON-able value (a schema) to generic JSON.
func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
