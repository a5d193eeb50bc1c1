package jobtools_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

func TestInterviewGuide(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m, r := f.decode(t, "getInterviewGuideDetails", map[string]any{"positionId": f.j[1].String()})
	if m["hasGuide"] != true || jsonPath(t, m, "scope.source") != "positionId" || jsonPath(t, m, "scope.job.title") != "Senior Backend Engineer" {
		t.Fatalf("guide = %v", m)
	}
	for path, want := range map[string]any{
		"guide.intro": "Welcome to the backend interview.", "guide.outro": "Thanks for your time.",
		"guide.learningObjectives.1": "Assess system design", "guide.skills.2": "Distributed systems",
		"guide.questions.0.text": "Tell me about a Go service you built.", "guide.questions.0.skill": "Go",
		"guide.questions.0.source": "generated", "guide.questions.0.template": nil,
		"guide.questions.1.source": "additional", "guide.questions.1.template.name": "Behavioral Core",
		"guide.questions.1.template.id": f.igBehavior.String(),
		"guide.questions.2.answers.1":   "No", "guide.questions.2.tagName": "work_authorisation", "guide.questions.2.source": "structured",
		"guide.gradingCriteria.0.name": "Technical depth", "guide.gradingCriteria.1.description": "Communication matters",
	} {
		if got := jsonPath(t, m, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if n := len(jsonPath(t, m, "guide.questions").([]any)); n != 3 {
		t.Errorf("questions = %d", n)
	}
	contains(t, r.Text, "# Interview guide: Senior Backend Engineer", "## Intro", "Welcome to the backend interview.",
		"## Learning objectives", "- Assess Go depth", "## Skills", "- Distributed systems", "## Questions (3)",
		"1. Tell me about a Go service you built.", "source: generated; skill: Go", "from template: Behavioral Core",
		"answers: Yes | No; tag: work_authorisation", "## Grading criteria (2)", "2. Communication: Communication matters",
		"## Outro", "Thanks for your time.", "https://app.example.com/jobs/"+f.j[1].String())

	// The job context is used without positionId; positionId wins over it.
	r = f.call(t, "getInterviewGuideDetails", map[string]any{}, map[string]any{"io.recruitd/jobId": f.j[2].String()})
	r.Decode(t, &m)
	if jsonPath(t, m, "scope.source") != "jobContext" || jsonPath(t, m, "guide.gradingCriteria.0.template.name") != "Assessment Basics" {
		t.Errorf("job context guide = %v", m)
	}
	r = f.call(t, "getInterviewGuideDetails", map[string]any{"positionId": f.j[6].String()}, map[string]any{"io.recruitd/jobId": f.j[2].String()})
	r.Decode(t, &m)
	if jsonPath(t, m, "scope.job.title") != "Product Designer" {
		t.Errorf("positionId over context = %v", jsonPath(t, m, "scope.job.title"))
	}
	// A job without a guide yet.
	m, r = f.decode(t, "getInterviewGuideDetails", map[string]any{"positionId": f.j[4].String()})
	if m["hasGuide"] != false || m["guide"] != nil {
		t.Errorf("J4 = %v", m)
	}
	contains(t, r.Text, "The interview guide is still being generated.")

	// Neither: the company-level answer is the guide of the most recently updated active job (J6;
	// not the paused J3, the deleted J7 or Globex's), with the other recent guides listed.
	m, r = f.decode(t, "getInterviewGuideDetails", map[string]any{})
	if jsonPath(t, m, "scope.source") != "companyDefault" || jsonPath(t, m, "scope.job.id") != f.j[6].String() || m["hasGuide"] != true ||
		jsonPath(t, m, "guide.questions.0.text") != "Show us your portfolio." {
		t.Errorf("getInterviewGuideDetails({}) scope %v, hasGuide %v; want J6's guide chosen by companyDefault", m["scope"], m["hasGuide"])
	}
	others, _ := m["otherGuides"].([]any)
	if len(others) != 2 || jsonPath(t, m, "otherGuides.0.jobId") != f.j[2].String() || jsonPath(t, m, "otherGuides.1.jobId") != f.j[1].String() ||
		jsonPath(t, m, "otherGuides.0.guideId") == "" {
		t.Errorf("getInterviewGuideDetails({}) otherGuides = %v, want J2 then J1 with their guide ids", m["otherGuides"])
	}
	contains(t, r.Text, "Interview guide: Product Designer", "no job given: the most recently updated active job with a guide",
		"Other recent guides (2)", "Backend Engineer", f.j[2].String(), f.j[1].String(), "Show us your portfolio.")
	lacks(t, r.Text, "Legacy Deleted Job", "Globex", "Sales Manager")
	empty := f.h.Call(t, tooltest.KeyCaller(f.initech), "getInterviewGuideDetails", map[string]any{}, nil)
	if empty.IsError || !strings.Contains(empty.Text, "no active job with an interview guide") || !strings.Contains(string(empty.Structured), `"hasGuide":false`) {
		t.Errorf("getInterviewGuideDetails({}) for Initech = error %v %s %s; want an answer saying there is no guide", empty.IsError, empty.Text, empty.Structured)
	}
	f.toolError(t, "getInterviewGuideDetails", map[string]any{"positionId": uuid.NewString()}, nil, "is not a job of this company")
	f.toolError(t, "getInterviewGuideDetails", map[string]any{"positionId": "Sales Manager"}, nil, "is not a job UUID")
}

func TestListTemplates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Active jobs: J1 J2 J6 (J3 is paused, J7 deleted). Resume-fit: J1 J2 use Engineering Fit;
	// J3 (paused) uses Sales Fit and J7 (deleted) Engineering Fit, neither counts.
	m, r := f.decode(t, "listTemplates", nil)
	expect(t, m, map[string]float64{"topN": 10, "activeJobs": 3,
		"resumeFit.totalTemplates": 3, "resumeFit.jobsUsingType": 2, "resumeFit.adoptionPercent": 66.7,
		"resumeFit.topTemplates.0.jobCount": 2,
		// Proxy: J1 (question from Behavioral Core) and J2 (criterion from Assessment Basics); J3
		// and J7 carry marks but are not active.
		"interviewGuide.totalTemplates": 2, "interviewGuide.jobsUsingType": 2, "interviewGuide.adoptionPercent": 66.7,
		"interviewGuide.topTemplates.0.jobCount": 0, "interviewGuide.topTemplates.1.jobCount": 0})
	if jsonPath(t, m, "resumeFit.adoptionMethod") != "exact" || jsonPath(t, m, "interviewGuide.adoptionMethod") != "proxy" {
		t.Errorf("methods = %v %v", jsonPath(t, m, "resumeFit.adoptionMethod"), jsonPath(t, m, "interviewGuide.adoptionMethod"))
	}
	if got := namesAt(t, m, "resumeFit.topTemplates"); !equal(got, []string{"Engineering Fit"}) {
		t.Errorf("resumeFit top = %v (unused templates are left out by default)", got)
	}
	if got := namesAt(t, m, "interviewGuide.topTemplates"); !equal(got, []string{"Assessment Basics", "Behavioral Core"}) {
		t.Errorf("interviewGuide top = %v, want alphabetical", got)
	}
	contains(t, r.Text, "Adoption:              66.7% (exact)", "66.7% (proxy)", "company-level adoption only",
		"survives duplication", "n/a (proxy)", "Engineering Fit  2")

	m, _ = f.decode(t, "listTemplates", map[string]any{"templateType": "resumeFit", "includeUnused": true})
	if got := namesAt(t, m, "resumeFit.topTemplates"); !equal(got, []string{"Engineering Fit", "Sales Fit", "Unused Fit"}) {
		t.Errorf("includeUnused = %v", got)
	}
	if m["interviewGuide"] != nil {
		t.Errorf("interviewGuide reported for templateType resumeFit")
	}
	expect(t, m, map[string]float64{"resumeFit.topTemplates.1.jobCount": 0, "resumeFit.topTemplates.2.jobCount": 0})
	m, _ = f.decode(t, "listTemplates", map[string]any{"templateType": "resumeFit", "includeUnused": true, "topN": 2})
	if got := namesAt(t, m, "resumeFit.topTemplates"); !equal(got, []string{"Engineering Fit", "Sales Fit"}) {
		t.Errorf("topN 2 = %v", got)
	}
	m, r = f.decode(t, "listTemplates", map[string]any{"templateType": "interviewGuide", "includeUnused": true, "topN": 1})
	if m["resumeFit"] != nil || !equal(namesAt(t, m, "interviewGuide.topTemplates"), []string{"Assessment Basics"}) {
		t.Errorf("interviewGuide topN 1 = %v", m)
	}
	noticeIn(t, r, "includeUnused applies to resumeFit only; interviewGuide lists every template anyway")
	m, r = f.decode(t, "listTemplates", map[string]any{"topN": 51})
	expect(t, m, map[string]float64{"topN": 50})
	noticeIn(t, r, "topN 51 is above the maximum 50; used 50")
	f.toolError(t, "listTemplates", map[string]any{"topN": 0}, nil, "topN must be at least 1")
	f.toolError(t, "listTemplates", map[string]any{"templateType": "guide"}, nil, "resumeFit", "interviewGuide")

	// No active jobs: adoption is null, not 0% or a division error.
	ir := f.h.OK(t, tooltest.KeyCaller(f.initech), "listTemplates", nil)
	var i map[string]any
	ir.Decode(t, &i)
	expect(t, i, map[string]float64{"activeJobs": 0, "resumeFit.totalTemplates": 0, "interviewGuide.jobsUsingType": 0})
	isNull(t, i, "resumeFit.adoptionPercent", "interviewGuide.adoptionPercent")
	contains(t, ir.Text, "n/a (exact)", "No templates.")
}

func TestCompanyFeatures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m, r := f.decode(t, "getCompanyFeatures", nil)
	got := map[string]bool{}
	for _, x := range jsonPath(t, m, "features").([]any) {
		got[jsonPath(t, x, "name").(string)] = jsonPath(t, x, "enabled").(bool)
	}
	want := map[string]bool{"fraudDetection": true, "modelCheatDetection": true, "identityVerification": true,
		"resumeFit": true, "talentMatch": false, "coordinator": false, "whatsappChannel": true, "customLogo": false, "hrSuiteAccount": false}
	if len(got) != len(want) {
		t.Errorf("features = %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s enabled = %v, want %v", k, got[k], v)
		}
	}
	contains(t, r.Text, "Model cheat detection", "enabled (cheat threshold 65)", "enabled (2 of 3 active jobs)", "Messaging-app channel (WhatsApp)")

	// One feature, by machine name in any spelling. Identity verification: active jobs J1 J2 J6,
	// on for J1 and J6 (J3 paused and J7 deleted have it too but are not active).
	m, _ = f.decode(t, "getCompanyFeatures", map[string]any{"featureName": "identity_verification"})
	if n := len(jsonPath(t, m, "features").([]any)); n != 1 {
		t.Fatalf("featureName gave %d features", n)
	}
	expect(t, m, map[string]float64{"features.0.activeJobs": 3, "features.0.activeJobsWithFeature": 2})
	m, _ = f.decode(t, "getCompanyFeatures", map[string]any{"featureName": "ModelCheatDetection"})
	expect(t, m, map[string]float64{"features.0.cheatThreshold": 65})
	if jsonPath(t, m, "features.0.label") != "Model cheat detection" {
		t.Errorf("label = %v", jsonPath(t, m, "features.0.label"))
	}
	m, _ = f.decode(t, "getCompanyFeatures", map[string]any{"featureName": "Custom Logo"})
	if jsonPath(t, m, "features.0.name") != "customLogo" || jsonPath(t, m, "features.0.enabled") != false {
		t.Errorf("customLogo = %v", m)
	}
	f.toolError(t, "getCompanyFeatures", map[string]any{"featureName": "teleportation"}, nil, `unknown featureName "teleportation"`,
		"fraudDetection, modelCheatDetection, identityVerification, resumeFit, talentMatch, coordinator, whatsappChannel, customLogo, hrSuiteAccount")

	// Globex: the other flags.
	gr := f.h.OK(t, f.globexKey, "getCompanyFeatures", nil)
	var g map[string]any
	gr.Decode(t, &g)
	for _, x := range jsonPath(t, g, "features").([]any) {
		name, on := jsonPath(t, x, "name").(string), jsonPath(t, x, "enabled").(bool)
		wantOn := map[string]bool{"talentMatch": true, "coordinator": true, "hrSuiteAccount": true, "identityVerification": true}[name]
		if on != wantOn {
			t.Errorf("Globex %s = %v, want %v", name, on, wantOn)
		}
	}
}

func TestAtsConnection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m, r := f.decode(t, "getAtsConnection", nil)
	for path, want := range map[string]any{
		"atsType": "ATS-A", "atsLabel": "ATS-A (job-submission records)", "connected": true,
		"kombo.integrationId": "kombo-int-42", "kombo.status": "connected", "kombo.configured": true,
		"autoJobImportEnabled": false, "syncFieldsConfigured": true,
	} {
		if got := jsonPath(t, m, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	for path, want := range map[string][]string{
		"expectedCredentialFields": {"baseUrl", "restToken"}, "configuredCredentialFields": {"baseUrl", "restToken"}, "missingCredentialFields": {},
	} {
		if got := anyStrings(jsonPath(t, m, path)); !equal(got, want) {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	contains(t, r.Text, "ATS-A (job-submission records)", "Missing credential fields:    none", "kombo-int-42", "never shown")

	// Globex: ATS-B with only baseUrl: connected (one expected field), apiKey missing; its sync
	// pairs lack a field or a value, so none is configured; no kombo integration.
	gr := f.h.OK(t, f.globexKey, "getAtsConnection", nil)
	var g map[string]any
	gr.Decode(t, &g)
	if g["connected"] != true || g["syncFieldsConfigured"] != false || g["autoJobImportEnabled"] != true ||
		!equal(anyStrings(g["missingCredentialFields"]), []string{"apiKey"}) || !equal(anyStrings(g["expectedCredentialFields"]), []string{"baseUrl", "apiKey"}) {
		t.Errorf("Globex = %v", g)
	}
	if jsonPath(t, g, "kombo.configured") != false || jsonPath(t, g, "kombo.integrationId") != nil || jsonPath(t, g, "kombo.status") != nil {
		t.Errorf("Globex kombo = %v", g["kombo"])
	}
	// Initech: no ATS, nothing configured.
	ir := f.h.OK(t, tooltest.KeyCaller(f.initech), "getAtsConnection", nil)
	var i map[string]any
	ir.Decode(t, &i)
	if i["atsType"] != nil || i["atsLabel"] != nil || i["connected"] != false || len(i["expectedCredentialFields"].([]any)) != 0 ||
		len(i["configuredCredentialFields"].([]any)) != 0 || i["syncFieldsConfigured"] != false {
		t.Errorf("Initech = %v", i)
	}
	contains(t, ir.Text, "none configured")

	// No output of any tool carries a credential value or the sealed bytes.
	for _, res := range []*tooltest.Result{r, gr, ir} {
		lacks(t, res.Text+string(res.Structured), f.secrets()...)
	}
	for _, name := range allTools {
		args := map[string]any{}
		switch name {
		case "getPositionStats":
			args["metric"] = "totalPositions"
		case "getCandidatePipelineStats":
			args["metric"] = "funnel"
		case "getJobDetails", "getInterviewGuideDetails":
			args["jobId"] = f.j[1].String()
			if name == "getInterviewGuideDetails" {
				args = map[string]any{"positionId": f.j[1].String()}
			}
		}
		res := f.h.OK(t, f.acmeKey, name, args)
		lacks(t, res.Text+string(res.Structured), f.secrets()...)
	}
}

func namesAt(t *testing.T, m map[string]any, path string) []string {
	t.Helper()
	var out []string
	for _, x := range jsonPath(t, m, path).([]any) {
		out = append(out, jsonPath(t, x, "name").(string))
	}
	return out
}

// TestAtsConnectionApplicationSync: a company whose ATS is connected through the aggregator
// reports its application sync (times and counts of its own records only); an HR-suite
// account's connection and a company without one report it disabled.
func TestAtsConnectionApplicationSync(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := f.h.DB.SQL
	ctx := t.Context()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	m, r := f.decode(t, "getAtsConnection", nil)
	if jsonPath(t, m, "applicationSync.enabled") != false || jsonPath(t, m, "applicationSync.lastSyncAt") != nil {
		t.Errorf("applicationSync before connecting = %v", m["applicationSync"])
	}
	contains(t, r.Text, "## Application sync from the ATS")

	exec(`INSERT INTO aggregator_integrations (company_id, integration_id, state, applications_synced_at, applications_full_pass_at)
		VALUES ($1, 'sim:acme', 'connected', '2026-06-01T10:00:00Z', '2026-06-01T04:00:00Z'),
		       ($2, 'sim:globex', 'connected', '2026-06-01T10:00:00Z', NULL)`, f.acme.ID, f.globex.ID)
	record := func(companyID, jobID uuid.UUID, ext, candExt, upstream string) {
		t.Helper()
		var cand, app uuid.UUID
		if err := db.QueryRowContext(ctx, `INSERT INTO candidates (company_id, external_id, first_name) VALUES ($1, $2, 'Sync')
			ON CONFLICT (company_id, external_id) WHERE external_id IS NOT NULL DO UPDATE SET first_name = 'Sync' RETURNING id`, companyID, candExt).Scan(&cand); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, `INSERT INTO applications (company_id, candidate_id, job_id, external_id, source) VALUES ($1, $2, $3, $4, 'ats') RETURNING id`,
			companyID, cand, jobID, ext).Scan(&app); err != nil {
			t.Fatal(err)
		}
		exec(`INSERT INTO aggregator_applications (company_id, remote_id, ats_application_id, application_id, ats_candidate_id, upstream_status)
			VALUES ($1, $2, $3, $4, $5, $6)`, companyID, "kmb_"+ext, ext, app, candExt, upstream)
	}
	record(f.acme.ID, f.j[1], "APP-1", "SYNC-C1", "")
	record(f.acme.ID, f.j[1], "APP-2", "SYNC-C1", "hired")
	record(f.acme.ID, f.j[2], "APP-3", "SYNC-C2", "closed")
	record(f.globex.ID, f.gJob, "APP-G", "SYNC-G1", "")

	m, r = f.decode(t, "getAtsConnection", nil)
	for path, want := range map[string]any{
		"applicationSync.enabled": true, "applicationSync.lastSyncAt": "2026-06-01T10:00:00Z", "applicationSync.lastFullPassAt": "2026-06-01T04:00:00Z",
		"applicationSync.applicationsSynced": 3.0, "applicationSync.closedApplications": 1.0, "applicationSync.candidatesSynced": 2.0,
		"kombo.integrationId": "sim:acme",
	} {
		if got := jsonPath(t, m, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	contains(t, r.Text, "Applications synced:", "Closed (deleted at the ATS):", "2026-06-01T04:00:00Z")
	// Globex is an HR-suite account: its applications come by webhook, not by this sync.
	gr := f.h.OK(t, f.globexKey, "getAtsConnection", nil)
	var g map[string]any
	gr.Decode(t, &g)
	if jsonPath(t, g, "applicationSync.enabled") != false || jsonPath(t, g, "applicationSync.applicationsSynced") != 0.0 {
		t.Errorf("Globex applicationSync = %v", g["applicationSync"])
	}
	for _, res := range []*tooltest.Result{r, gr} {
		lacks(t, res.Text+string(res.Structured), f.secrets()...)
	}
}

// TestAtsConnectionWriteBack: the last write back to the ATS and the last write error of the
// caller's company, without another company's writes and without secrets; an HR-suite company
// reports write-back disabled.
func TestAtsConnectionWriteBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := f.h.DB.SQL
	ctx := t.Context()
	m, _ := f.decode(t, "getAtsConnection", nil)
	if jsonPath(t, m, "writeBack.enabled") != true || jsonPath(t, m, "writeBack.lastWriteAt") != nil || jsonPath(t, m, "writeBack.lastError") != nil {
		t.Fatalf("writeBack before any write = %v", m["writeBack"])
	}
	write := func(companyID uuid.UUID, key, op, status, lastErr, at string) {
		t.Helper()
		var sess uuid.UUID
		if err := db.QueryRowContext(ctx, `SELECT id FROM interview_sessions WHERE company_id = $1 LIMIT 1`, companyID).Scan(&sess); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO ats_writes (company_id, session_id, application_id, key, op, target, ref, status, attempts, last_error, updated_at, done_at)
			VALUES ($1, $2, gen_random_uuid(), $3, $4, 'ATS-A', '1001', $5, 1, $6, $7, CASE WHEN $5 IN ('done', 'failed') THEN $7::timestamptz END)`,
			companyID, sess, key, op, status, lastErr, at); err != nil {
			t.Fatal(err)
		}
	}
	write(f.acme.ID, "a1", "note", "done", "", "2026-06-01T10:00:00Z")
	write(f.acme.ID, "a2", "stage", "failed", "ATS-A update of job submission 1001: ats: write refused (status 400)", "2026-06-01T11:00:00Z")
	write(f.acme.ID, "a3", "stage", "sending", "", "2026-06-01T12:00:00Z")
	write(f.globex.ID, "g1", "stage", "done", "", "2026-06-02T10:00:00Z")
	write(f.globex.ID, "g2", "stage", "failed", "globex error", "2026-06-02T11:00:00Z")

	m, r := f.decode(t, "getAtsConnection", nil)
	for path, want := range map[string]any{
		"writeBack.lastWriteAt": "2026-06-01T10:00:00Z", "writeBack.lastWriteOp": "note",
		"writeBack.lastErrorAt": "2026-06-01T11:00:00Z", "writeBack.lastError": "ATS-A update of job submission 1001: ats: write refused (status 400)",
		"writeBack.failedWrites": 1.0, "writeBack.pendingWrites": 1.0,
	} {
		if got := jsonPath(t, m, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	contains(t, r.Text, "## Write-back to the ATS", "write refused")
	lacks(t, r.Text+string(r.Structured), append(f.secrets(), "globex error")...)
	// Globex is an HR-suite account: nothing is ever written back to it.
	gr := f.h.OK(t, f.globexKey, "getAtsConnection", nil)
	var g map[string]any
	gr.Decode(t, &g)
	if jsonPath(t, g, "writeBack.enabled") != false {
		t.Errorf("Globex writeBack = %v", g["writeBack"])
	}
}
