package httpapi_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// row is one HR-suite report row; cells not set are left out.
func row(app, cand, job, contact, kind string, extra ...string) map[string]any {
	r := map[string]any{
		"Candidate Id": cand, "Candidate First Name": "First-" + cand, "Candidate Last Name": "Last-" + cand,
		"Contact Method": contact, "Contact Type Description": kind, "Job Req Id": job,
		"Job Req Location": "Austin, TX", "Job Req Title": "Registered Nurse", "Application Date/Time": "2026-11-21 14:05",
		"Job Posting Application Id": app, "Do Not Hire Status": "False",
	}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		if v == "<drop>" {
			delete(r, k)
			continue
		}
		r[k] = v
	}
	return r
}

// hrsuiteFixture is the fixture with acme an HR-suite account with jobs REQ-1 and REQ-2 and the
// platform default 'New Applications via Webhook' workflow saved.
func hrsuiteFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.hrsuiteAccount(t, f.acme, true)
	for _, ext := range []string{"REQ-1", "REQ-2"} {
		f.job(t, f.acme, ext)
	}
	return f
}

// hrsuiteAccount makes co an HR-suite account and, when withFlow, saves the platform
// default 'New Applications via Webhook' definition for it (without one nobody is invited).
func (f *fixture) hrsuiteAccount(t *testing.T, co *models.Company, withFlow bool) {
	t.Helper()
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", co.ID).Update("hr_suite_account", true).Error; err != nil {
		t.Fatal(err)
	}
	co.HRSuiteAccount = true
	if withFlow {
		f.saveFlow(t, co, flow.Defaults()[models.TriggerNewApplicationWebhook])
	}
}

// saveFlow saves d as co's definition for its trigger.
func (f *fixture) saveFlow(t *testing.T, co *models.Company, d *flow.Definition) {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SaveFlowDefinition(t.Context(), co.ID, d.Trigger, raw, d.Enabled, flow.Hash(d)); err != nil {
		t.Fatal(err)
	}
}

// job creates an open, active job of co with the ATS job id ext and its aggregator record, as
// the import would.
func (f *fixture) job(t *testing.T, co *models.Company, ext string) *models.Job {
	t.Helper()
	j := &models.Job{CompanyID: co.ID, ExternalID: ext, InterviewerID: co.Slug + "-" + ext, Title: "Nurse " + ext,
		ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
	if err := f.st.DB().Create(j).Error; err != nil {
		t.Fatal(err)
	}
	f.imported(t, co, j)
	interviewReady(t, f.st, j)
	return j
}

// interviewReady gives job j an interview of one question, as its generation would: invitations
// to a job without one wait for it.
func interviewReady(t *testing.T, st *store.Store, j *models.Job) {
	t.Helper()
	g := store.GuideContent{Title: j.Title, ExternalTitle: j.ExternalTitle, Guide: models.InterviewGuide{Intro: "Welcome.", Outro: "Thank you."},
		Questions: []models.InterviewQuestion{{Text: "Tell us about your experience.", Source: models.QuestionSourceGenerated}}}
	if _, err := st.SaveGuide(t.Context(), j.CompanyID, j.ID, g, 1, models.JobStatusActive); err != nil {
		t.Fatalf("interview of job %s: %v", j.ExternalID, err)
	}
}

// imported records job j of co as imported from the HR suite (its aggregator record).
func (f *fixture) imported(t *testing.T, co *models.Company, j *models.Job) {
	t.Helper()
	if err := f.st.DB().Exec(`INSERT INTO aggregator_jobs (company_id, remote_id, ats_job_id, job_id, name) VALUES (?, ?, ?, ?, ?)`,
		co.ID, "remote-"+j.ExternalID, j.ExternalID, j.ID, j.Title).Error; err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) deliver(t *testing.T, key string, body any) (int, httpapi.HRSuiteDeliveryResponse, string) {
	t.Helper()
	resp := f.send(t, http.MethodPost, "/webhook/hrsuite", key, body)
	b, _ := io.ReadAll(resp.Body)
	var out httpapi.HRSuiteDeliveryResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
	}
	return resp.StatusCode, out, string(b)
}

// awaitProcessed waits until the delivery's latest processing is recorded and returns its row
// outcomes by index.
func (f *fixture) awaitProcessed(t *testing.T, id uuid.UUID, after time.Time) map[int]string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var d models.HRSuiteDelivery
		if err := f.st.DB().First(&d, "id = ?", id).Error; err != nil {
			t.Fatal(err)
		}
		if d.ProcessedAt != nil && d.ProcessedAt.After(after) {
			var rows []models.HRSuiteRow
			if err := f.st.DB().Where("delivery_id = ?", id).Find(&rows).Error; err != nil {
				t.Fatal(err)
			}
			out := map[int]string{}
			for _, r := range rows {
				out[r.RowIndex] = r.Outcome
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s not processed after 60s", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// applicationStarts counts the company's 'New Applications via Webhook' starts.
func (f *fixture) applicationStarts(t *testing.T, co *models.Company) int64 {
	t.Helper()
	var n int64
	if err := f.st.DB().Model(&models.WorkflowStart{}).Where("company_id = ? AND kind = ?", co.ID, "new-application").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// candidateByRef loads the company's candidate with the HR suite's Candidate Id, or nil.
func (f *fixture) candidateByRef(t *testing.T, co *models.Company, ref string) *models.Candidate {
	t.Helper()
	var cs []models.Candidate
	if err := f.st.DB().Where("company_id = ? AND external_id = ?", co.ID, ref).Find(&cs).Error; err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		return nil
	}
	return &cs[0]
}

// awaitInvited waits until every listed application (by Job Posting Application Id) has exactly
// one sent invitation message, and checks that none has more.
func (f *fixture) awaitInvited(t *testing.T, co *models.Company, refs ...string) {
	t.Helper()
	wait := 90*time.Second + time.Duration(len(refs))*100*time.Millisecond
	deadline := time.Now().Add(wait)
	for {
		var rows []struct {
			Ref string
			N   int
		}
		if err := f.st.DB().Raw(`SELECT a.external_id AS ref, count(m.id) AS n FROM applications a
LEFT JOIN messages m ON m.company_id = a.company_id AND m.application_id = a.id AND m.status = 'sent'
WHERE a.company_id = ? AND a.source = 'hrsuite_webhook' AND a.external_id = ANY (?::text[]) GROUP BY a.external_id`,
			co.ID, models.StringArray(refs)).Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, r := range rows {
			if r.N > 1 {
				t.Fatalf("application %s has %d invitations, want 1", r.Ref, r.N)
			}
			done += r.N
		}
		if done == len(refs) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("invited %d of %d after %s", done, len(refs), wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestHRSuiteDeliveryRules(t *testing.T) {
	f := hrsuiteFixture(t)
	rows := []map[string]any{
		// APP-1: a Home and a Mobile number (Mobile wins), an e-mail, and two bad rows of its own.
		0: row("APP-1", "C-1", "REQ-1", "(650) 253-0000", "Home"),
		1: row("APP-1", "C-1", "REQ-1", "(201) 555-0123", "Mobile"),
		2: row("APP-1", "C-1", "REQ-1", "ada@example.com", "Personal Email"),
		3: row("APP-1", "C-1", "REQ-1", "(201) 555-0199", "Work"),
		4: row("APP-1", "C-1", "REQ-1", "not-an-address", "Personal Email"),
		// APP-2: an invalid Mobile loses to a valid Home.
		5: row("APP-2", "C-2", "REQ-1", "(123) 456-7890", "Mobile"),
		6: row("APP-2", "C-2", "REQ-1", "650.253.0001", "Home"),
		// APP-3: US numbers without +1, conflicting duplicates: the latest wins.
		7: row("APP-3", "C-3", "REQ-2", "2015550124", "Mobile"),
		8: row("APP-3", "C-3", "REQ-2", "201-555-0125", "Mobile"),
		// APP-4: do-not-hire on one of two rows.
		9:  row("APP-4", "C-4", "REQ-1", "(201) 555-0126", "Mobile"),
		10: row("APP-4", "C-4", "REQ-1", "c4@example.com", "Personal Email", "Do Not Hire Status=True"),
		// APP-5: a job that is not imported.
		11: row("APP-5", "C-5", "REQ-404", "(201) 555-0127", "Mobile"),
		// Bad rows: no application id, a cell of the wrong JSON type.
		12: row("", "C-9", "REQ-1", "(201) 555-0128", "Mobile", "Job Posting Application Id=<drop>"),
		13: row("APP-9", "C-9", "REQ-1", "(201) 555-0128", "Mobile"),
		// APP-6: e-mail only; a number that cannot be validated is passed through.
		14: row("APP-6", "C-6", "REQ-2", "c6@Example.COM", "Personal Email"),
		// APP-7: a foreign number keeps its country code.
		15: row("APP-7", "C-7", "REQ-2", "+44 7400 123456", "Mobile"),
		// APP-10: a US-shaped number that does not validate is passed through with +1.
		16: row("APP-10", "C-10", "REQ-2", "(123) 456-7890", "Mobile"),
		17: row("APP-10", "C-10", "REQ-2", "c10@example.com", "Personal Email"),
	}
	rows[13]["Candidate Id"] = true // wrong JSON type
	began := time.Now()
	status, resp, raw := f.deliver(t, f.acmeKey, rows)
	if status != http.StatusOK || !resp.Success || resp.Rows != len(rows) || resp.DeliveryID == uuid.Nil || resp.DuplicateOf != nil {
		t.Fatalf("POST = %d %s", status, raw)
	}
	got := f.awaitProcessed(t, resp.DeliveryID, began.Add(-time.Second))
	want := map[int]string{
		0: "accepted", 1: "accepted", 2: "accepted", 3: "invalid:unknown_contact_type", 4: "invalid:unusable_contact",
		5: "accepted", 6: "accepted", 7: "accepted", 8: "accepted",
		9: "do_not_hire", 10: "do_not_hire", 11: "unknown_job", 12: "invalid:missing_application_id",
		13: "invalid:wrong_type:Candidate Id", 14: "accepted", 15: "accepted", 16: "accepted", 17: "accepted",
	}
	for i := range rows {
		if got[i] != want[i] {
			t.Errorf("row %d outcome = %q, want %q", i, got[i], want[i])
		}
	}
	contacts := []struct {
		ref, phone, email string
	}{
		{"C-1", "+12015550123", "ada@example.com"},
		{"C-2", "+16502530001", ""},
		{"C-3", "+12015550125", ""},
		{"C-6", "", "c6@example.com"},
		{"C-7", "+447400123456", ""},
		{"C-10", "+11234567890", "c10@example.com"},
	}
	for _, c := range contacts {
		cd := f.candidateByRef(t, f.acme, c.ref)
		if cd == nil {
			t.Errorf("candidate %s not created", c.ref)
			continue
		}
		if deref(cd.Phone) != c.phone || deref(cd.Email) != c.email || cd.FirstName != "First-"+c.ref {
			t.Errorf("candidate %s = phone %q email %q name %q, want %q %q", c.ref, deref(cd.Phone), deref(cd.Email), cd.FirstName, c.phone, c.email)
		}
	}
	for _, ref := range []string{"C-4", "C-5", "C-9"} {
		if f.candidateByRef(t, f.acme, ref) != nil {
			t.Errorf("candidate %s created; want none (do-not-hire, unknown job, invalid row)", ref)
		}
	}
	f.awaitInvited(t, f.acme, "APP-1", "APP-2", "APP-3", "APP-6", "APP-7", "APP-10")
	if n := f.applicationStarts(t, f.acme); n != 6 {
		t.Errorf("application runs = %d, want 6", n)
	}

	t.Run("same body again is a duplicate delivery", func(t *testing.T) {
		status, again, raw := f.deliver(t, f.acmeKey, rows)
		if status != http.StatusOK || again.DuplicateOf == nil || *again.DuplicateOf != resp.DeliveryID || again.DeliveryID == resp.DeliveryID {
			t.Fatalf("POST again = %d %s", status, raw)
		}
		time.Sleep(500 * time.Millisecond)
		if n := f.applicationStarts(t, f.acme); n != 6 {
			t.Errorf("application runs = %d after a duplicate body, want 6", n)
		}
		f.awaitInvited(t, f.acme, "APP-1", "APP-2", "APP-3", "APP-6", "APP-7", "APP-10")
	})

	t.Run("an application id seen before is a duplicate in a new delivery", func(t *testing.T) {
		began := time.Now()
		status, d2, raw := f.deliver(t, f.acmeKey, []map[string]any{
			row("APP-1", "C-1", "REQ-1", "(201) 555-0140", "Mobile"),
			row("APP-8", "C-8", "REQ-1", "(201) 555-0141", "Mobile"),
			row("APP-4", "C-4", "REQ-1", "(201) 555-0126", "Mobile"),
		})
		if status != http.StatusOK {
			t.Fatalf("POST = %d %s", status, raw)
		}
		got := f.awaitProcessed(t, d2.DeliveryID, began.Add(-time.Second))
		if got[0] != "duplicate" || got[1] != "accepted" || got[2] != "duplicate" {
			t.Errorf("outcomes = %v, want duplicate, accepted, duplicate", got)
		}
		if cd := f.candidateByRef(t, f.acme, "C-1"); deref(cd.Phone) != "+12015550123" {
			t.Errorf("a duplicate changed the candidate's phone to %q", deref(cd.Phone))
		}
		f.awaitInvited(t, f.acme, "APP-1", "APP-8")
		if n := f.applicationStarts(t, f.acme); n != 7 {
			t.Errorf("application runs = %d, want 7", n)
		}
	})

	t.Run("replay after the job is imported", func(t *testing.T) {
		f.job(t, f.acme, "REQ-404")
		token := f.supportToken(t)
		began := time.Now()
		plan := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays",
			map[string]any{"deliveryId": resp.DeliveryID.String(), "dryRun": true}, http.StatusOK)
		if p := plan["plan"].(map[string]any); p["deliveries"] != 1.0 || p["rows"] != float64(len(rows)) || p["unprocessedApplications"] != 1.0 {
			t.Errorf("dry run = %v, want 1 delivery, %d rows, 1 unprocessed application", p, len(rows))
		}
		if n := f.applicationStarts(t, f.acme); n != 7 {
			t.Fatalf("a dry run started runs: %d", n)
		}
		out := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"deliveryId": resp.DeliveryID.String()}, http.StatusAccepted)
		replayID := out["replay"].(map[string]any)["id"].(string)
		f.awaitReplay(t, token, replayID)
		got := f.awaitProcessed(t, resp.DeliveryID, began)
		if got[11] != "accepted" {
			t.Errorf("APP-5 after replay = %q, want accepted", got[11])
		}
		for i, o := range want {
			if i != 11 && got[i] != o {
				t.Errorf("row %d after replay = %q, want %q unchanged", i, got[i], o)
			}
		}
		f.awaitInvited(t, f.acme, "APP-1", "APP-2", "APP-3", "APP-5", "APP-6", "APP-7", "APP-10")
		if n := f.applicationStarts(t, f.acme); n != 8 {
			t.Errorf("application runs = %d after the replay, want 8", n)
		}

		again := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"deliveryId": resp.DeliveryID.String()}, http.StatusAccepted)
		rep := f.awaitReplay(t, token, again["replay"].(map[string]any)["id"].(string))
		if counts := rep["counts"].(map[string]any); counts["accepted"] != 12.0 || counts["unknown_job"] != nil {
			t.Errorf("second replay counts = %v, want 12 accepted rows and no unknown job", counts)
		}
		time.Sleep(500 * time.Millisecond)
		if n := f.applicationStarts(t, f.acme); n != 8 {
			t.Errorf("application runs = %d after a second replay, want 8", n)
		}
		f.awaitInvited(t, f.acme, "APP-1", "APP-2", "APP-3", "APP-5", "APP-6", "APP-7", "APP-10")
		var replays int64
		f.st.DB().Model(&models.HRSuiteReplay{}).Where("requested_by = ?", "ops@recruitd.test").Count(&replays)
		if replays != 2 {
			t.Errorf("recorded replays = %d, want 2", replays)
		}
	})
}

// supportToken creates a platform admin and a support token for it.
func (f *fixture) supportToken(t *testing.T) string {
	t.Helper()
	u := &models.User{Email: "ops@recruitd.test", Name: "Ops", IsPlatformAdmin: true}
	if err := f.st.DB().Create(u).Error; err != nil {
		t.Fatal(err)
	}
	raw, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	raw = "rsp_" + raw
	if _, _, err := f.st.CreateSupportToken(t.Context(), u.Email, "test", raw, store.DefaultSupportTokenTTL); err != nil {
		t.Fatal(err)
	}
	return raw
}

// supportCall calls a support endpoint with a bearer token and checks the status.
func (f *fixture) supportCall(t *testing.T, token, method, path string, body any, want int) map[string]any {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	req, _ := http.NewRequestWithContext(t.Context(), method, f.srv.URL+path, r)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	f.api.Check(t, req, resp)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func (f *fixture) awaitReplay(t *testing.T, token, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/replays/"+id, nil, http.StatusOK)["replay"].(map[string]any)
		if r["finishedAt"] != nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("replay %s not finished after 60s: %v", id, r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestHRSuiteWebhookErrors(t *testing.T) {
	f := hrsuiteFixture(t)
	ok := []map[string]any{row("APP-1", "C-1", "REQ-1", "(201) 555-0123", "Mobile")}
	tests := []struct {
		name, key, contentType, body string
		status                       int
		code                         string
	}{
		{"missing key", "", "application/json", `[]`, 401, "MISSING_API_KEY"},
		{"wrong key", "rk_nope_nope_nope_nope_nope", "application/json", `[]`, 401, "INVALID_API_KEY"},
		{"not an HR-suite account", f.otherKy, "application/json", `[]`, 400, "NOT_HR_SUITE_ACCOUNT"},
		{"object", f.acmeKey, "application/json", `{"rows":[]}`, 400, "NOT_A_JSON_ARRAY"},
		{"string", f.acmeKey, "application/json", `"[]"`, 400, "NOT_A_JSON_ARRAY"},
		{"truncated", f.acmeKey, "application/json", `[{"Candidate Id":"C-1"`, 400, "NOT_A_JSON_ARRAY"},
		{"trailing garbage", f.acmeKey, "application/json", `[] []`, 400, "NOT_A_JSON_ARRAY"},
		{"empty body", f.acmeKey, "application/json", ``, 400, "NOT_A_JSON_ARRAY"},
		{"not JSON", f.acmeKey, "text/csv", `a,b`, 415, "UNSUPPORTED_MEDIA_TYPE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL+"/webhook/hrsuite", strings.NewReader(tt.body))
			if tt.key != "" {
				req.Header.Set("x-api-key", tt.key)
			}
			req.Header.Set("Content-Type", tt.contentType)
			resp, err := f.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			f.api.Check(t, req, resp)
			var e httpapi.ErrorBody
			_ = json.NewDecoder(resp.Body).Decode(&e)
			if resp.StatusCode != tt.status || e.Code != tt.code || e.Success {
				t.Errorf("= %d %+v, want %d %s", resp.StatusCode, e, tt.status, tt.code)
			}
		})
	}
	var n int64
	f.st.DB().Model(&models.HRSuiteDelivery{}).Count(&n)
	if n != 0 {
		t.Errorf("%d deliveries stored by refused requests, want 0", n)
	}

	t.Run("oversized body", func(t *testing.T) {
		f := newFixture(t, withEnv("HRSUITE_MAX_BODY_BYTES=4096"))
		f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).Update("hr_suite_account", true)
		big := make([]map[string]any, 40)
		for i := range big {
			big[i] = row(fmt.Sprintf("APP-%d", i), "C-1", "REQ-1", "(201) 555-0123", "Mobile")
		}
		status, _, raw := f.deliver(t, f.acmeKey, big)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "BODY_TOO_LARGE") || !strings.Contains(raw, "4096") {
			t.Errorf("= %d %s, want 413 naming the limit", status, raw)
		}
		if status, _, raw := f.deliver(t, f.acmeKey, big[:2]); status != http.StatusOK {
			t.Errorf("a small delivery = %d %s", status, raw)
		}
	})

	t.Run("a delivery larger than MAX_BODY_BYTES is accepted", func(t *testing.T) {
		big := make([]map[string]any, 6000)
		for i := range big {
			big[i] = row(fmt.Sprintf("APP-%d", i), fmt.Sprintf("C-%d", i), "REQ-1", "(201) 555-0123", "Mobile")
		}
		status, resp, raw := f.deliver(t, f.acmeKey, big)
		if status != http.StatusOK || resp.Rows != 6000 {
			t.Errorf("= %d %.200s", status, raw)
		}
	})

	t.Run("support endpoints refuse company keys", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, f.srv.URL+"/v1/support/hrsuite/deliveries", nil)
		req.Header.Set("X-API-Key", f.acmeKey)
		req.Header.Set("Authorization", "Bearer "+f.acmeKey)
		resp, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		f.api.Check(t, req, resp)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("= %d, want 401", resp.StatusCode)
		}
		f.supportCall(t, "", http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusUnauthorized)
		token := f.supportToken(t)
		f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries?from=yesterday", nil, http.StatusBadRequest)
		f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries?company=nope", nil, http.StatusBadRequest)
		f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{}, http.StatusBadRequest)
		f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"company": "globex"}, http.StatusNotFound)
		list := f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries?company=acme", nil, http.StatusOK)
		if n := len(list["deliveries"].([]any)); n < 1 {
			t.Errorf("listed %d deliveries of acme", n)
		}
		// A platform admin demoted loses the token's access at once.
		f.st.DB().Model(&models.User{}).Where("email = ?", "ops@recruitd.test").Update("is_platform_admin", false)
		f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusUnauthorized)
	})
	_ = ok
}

// TestHRSuiteTenancy: a delivery of one company never reaches another's jobs or candidates.
func TestHRSuiteTenancy(t *testing.T) {
	f := hrsuiteFixture(t)
	f.hrsuiteAccount(t, f.other, true)
	// acme already has candidate C-1 through its own delivery.
	began := time.Now()
	_, a, _ := f.deliver(t, f.acmeKey, []map[string]any{row("APP-1", "C-1", "REQ-1", "(201) 555-0123", "Mobile")})
	f.awaitProcessed(t, a.DeliveryID, began.Add(-time.Second))
	// globex names acme's job and acme's application and candidate ids.
	status, g, raw := f.deliver(t, f.otherKy, []map[string]any{row("APP-1", "C-1", "REQ-1", "(201) 555-0199", "Mobile")})
	if status != http.StatusOK {
		t.Fatalf("= %d %s", status, raw)
	}
	got := f.awaitProcessed(t, g.DeliveryID, began.Add(-time.Second))
	if got[0] != "unknown_job" {
		t.Errorf("globex row naming acme's job = %q, want unknown_job", got[0])
	}
	if cd := f.candidateByRef(t, f.acme, "C-1"); cd == nil || deref(cd.Phone) != "+12015550123" {
		t.Errorf("acme's candidate changed by globex's delivery: %+v", cd)
	}
	if f.candidateByRef(t, f.other, "C-1") != nil || f.applicationStarts(t, f.other) != 0 {
		t.Error("globex got a candidate or a run for a job it does not have")
	}
	// Globex's own job: accepted under globex, acme's records untouched.
	f.job(t, f.other, "REQ-1")
	began = time.Now()
	_, g2, _ := f.deliver(t, f.otherKy, []map[string]any{row("APP-1", "C-1", "REQ-1", "(201) 555-0199", "Mobile"), row("APP-X", "C-1", "REQ-1", "(201) 555-0199", "Mobile")})
	if got := f.awaitProcessed(t, g2.DeliveryID, began.Add(-time.Second)); got[0] != "accepted" {
		t.Errorf("globex APP-1 = %q, want accepted (deduplication is per company)", got[0])
	}
	if cd := f.candidateByRef(t, f.other, "C-1"); cd == nil || deref(cd.Phone) != "+12015550199" {
		t.Errorf("globex candidate = %+v", cd)
	}
	if cd := f.candidateByRef(t, f.acme, "C-1"); deref(cd.Phone) != "+12015550123" {
		t.Errorf("acme's candidate phone = %q after globex's delivery", deref(cd.Phone))
	}
}

// TestHRSuiteWorkerKilledMidDelivery stops the worker once the first chunk of a delivery is
// committed and starts another: the delivery finishes with exact counts, one run per
// application and one invitation each.
func TestHRSuiteWorkerKilledMidDelivery(t *testing.T) {
	f := hrsuiteFixture(t)
	const apps = 1100
	rows := make([]map[string]any, apps)
	refs := make([]string, apps)
	for i := range rows {
		refs[i] = fmt.Sprintf("APP-%04d", i)
		rows[i] = row(refs[i], fmt.Sprintf("C-%04d", i), "REQ-1", fmt.Sprintf("(201) 555-%04d", i), "Mobile")
	}
	began := time.Now()
	status, resp, raw := f.deliver(t, f.acmeKey, rows)
	if status != http.StatusOK {
		t.Fatalf("= %d %.200s", status, raw)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int64
		f.st.DB().Model(&models.HRSuiteRow{}).Where("delivery_id = ?", resp.DeliveryID).Count(&n)
		if n > 0 && n < apps {
			t.Logf("stopping the worker with %d of %d rows recorded", n, apps)
			break
		}
		if n >= apps || time.Now().After(deadline) {
			t.Fatalf("%d of %d rows recorded; want to stop the worker in the middle", n, apps)
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.worker.Stop()
	f.worker = f.startWorker()
	got := f.awaitProcessed(t, resp.DeliveryID, began.Add(-time.Second))
	accepted := 0
	for _, o := range got {
		if o == "accepted" {
			accepted++
		}
	}
	var d models.HRSuiteDelivery
	f.st.DB().First(&d, "id = ?", resp.DeliveryID)
	if accepted != apps || len(got) != apps || d.Counts.V["accepted"] != apps || len(d.Counts.V) != 1 {
		t.Errorf("outcomes: %d accepted of %d recorded, counts %v; want %d accepted", accepted, len(got), d.Counts.V, apps)
	}
	if n := f.applicationStarts(t, f.acme); n != apps {
		t.Errorf("application runs = %d, want %d", n, apps)
	}
	f.awaitInvited(t, f.acme, refs...)
}

// TestHRSuiteWithoutSavedWorkflowInvitesNobody: a company that has saved no 'New Applications
// via Webhook' definition gets no_trigger rows and no invitation, as a partner submission gets
// 409; once it saves the workflow, a replay invites the candidate.
func TestHRSuiteWithoutSavedWorkflowInvitesNobody(t *testing.T) {
	f := newFixture(t)
	f.hrsuiteAccount(t, f.acme, false)
	f.job(t, f.acme, "REQ-1")
	began := time.Now()
	status, d, raw := f.deliver(t, f.acmeKey, []map[string]any{
		row("APP-1", "C-1", "REQ-1", "(201) 555-0123", "Mobile"),
		row("APP-1", "C-1", "REQ-1", "c1@example.com", "Personal Email"),
	})
	if status != http.StatusOK {
		t.Fatalf("POST = %d %s", status, raw)
	}
	if got := f.awaitProcessed(t, d.DeliveryID, began.Add(-time.Second)); got[0] != "no_trigger" || got[1] != "no_trigger" {
		t.Fatalf("outcomes = %v, want no_trigger for both rows", got)
	}
	if n := f.applicationStarts(t, f.acme); n != 0 {
		t.Errorf("application runs = %d without a saved workflow, want 0", n)
	}
	if f.candidateByRef(t, f.acme, "C-1") == nil {
		t.Error("the candidate is not stored; a replay could not invite them")
	}
	var messages int64
	f.st.DB().Model(&models.Message{}).Where("company_id = ?", f.acme.ID).Count(&messages)
	if messages != 0 {
		t.Errorf("%d messages sent without a saved workflow, want 0", messages)
	}

	def, _ := json.Marshal(flow.Defaults()[models.TriggerNewApplicationWebhook])
	if resp := f.send(t, http.MethodPut, "/v1/api/workflows/new_application_webhook", f.acmeKey, string(def)); resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT workflow = %d", resp.StatusCode)
	}
	token := f.supportToken(t)
	began = time.Now()
	out := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"deliveryId": d.DeliveryID.String()}, http.StatusAccepted)
	f.awaitReplay(t, token, out["replay"].(map[string]any)["id"].(string))
	if got := f.awaitProcessed(t, d.DeliveryID, began); got[0] != "accepted" {
		t.Errorf("after the workflow is saved, replayed outcomes = %v, want accepted", got)
	}
	f.awaitInvited(t, f.acme, "APP-1")
}

// TestHRSuiteMatchesImportedJobsOnly: Job Req Id names a job imported from the HR suite. A job
// created through createJob with the same external id, or an imported job that was deleted, is
// unknown_job; once the job is imported, a replay accepts the application.
func TestHRSuiteMatchesImportedJobsOnly(t *testing.T) {
	f := hrsuiteFixture(t)
	f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "REQ-API", "jobDescription": "We are hiring a Registered Nurse. Requirements: RN license."})
	gone := f.job(t, f.acme, "REQ-GONE")
	if err := f.st.DB().Model(gone).Update("is_deleted", true).Error; err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	status, d, raw := f.deliver(t, f.acmeKey, []map[string]any{
		row("APP-API", "C-1", "REQ-API", "(201) 555-0123", "Mobile"),
		row("APP-GONE", "C-2", "REQ-GONE", "(201) 555-0124", "Mobile"),
		row("APP-OK", "C-3", "REQ-1", "(201) 555-0125", "Mobile"),
	})
	if status != http.StatusOK {
		t.Fatalf("POST = %d %s", status, raw)
	}
	got := f.awaitProcessed(t, d.DeliveryID, began.Add(-time.Second))
	if got[0] != "unknown_job" || got[1] != "unknown_job" || got[2] != "accepted" {
		t.Fatalf("outcomes = %v, want unknown_job (createJob job), unknown_job (deleted job), accepted", got)
	}
	for _, ref := range []string{"C-1", "C-2"} {
		if f.candidateByRef(t, f.acme, ref) != nil {
			t.Errorf("candidate %s created for a job that was not imported", ref)
		}
	}
	f.awaitInvited(t, f.acme, "APP-OK")

	// The import reaches the createJob job (one job per external id): now it is imported.
	var j models.Job
	if err := f.st.DB().First(&j, "company_id = ? AND external_id = ?", f.acme.ID, "REQ-API").Error; err != nil {
		t.Fatal(err)
	}
	f.imported(t, f.acme, &j)
	token := f.supportToken(t)
	began = time.Now()
	out := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"deliveryId": d.DeliveryID.String()}, http.StatusAccepted)
	f.awaitReplay(t, token, out["replay"].(map[string]any)["id"].(string))
	if got := f.awaitProcessed(t, d.DeliveryID, began); got[0] != "accepted" || got[1] != "unknown_job" {
		t.Errorf("after the import, replayed outcomes = %v, want accepted, unknown_job", got)
	}
}

// TestHRSuiteDuplicateColumns: a row that names a column twice is invalid, and a duplicated Do
// Not Hire Status excludes its application ("True" then "False" must not read as hireable).
func TestHRSuiteDuplicateColumns(t *testing.T) {
	f := hrsuiteFixture(t)
	body := `[
{"Job Posting Application Id":"APP-1","Candidate Id":"C-1","Job Req Id":"REQ-1","Contact Method":"(201) 555-0123",
 "Contact Type Description":"Mobile","Do Not Hire Status":"True","Do Not Hire Status":"False"},
{"Job Posting Application Id":"APP-1","Candidate Id":"C-1","Job Req Id":"REQ-1","Contact Method":"c1@example.com",
 "Contact Type Description":"Personal Email","Do Not Hire Status":"False"},
{"Job Posting Application Id":"APP-2","Candidate Id":"C-2","Candidate Id":"C-3","Job Req Id":"REQ-1","Contact Method":"(201) 555-0124",
 "Contact Type Description":"Mobile","Do Not Hire Status":"False"},
{"Job Posting Application Id":"APP-2","Candidate Id":"C-2","Job Req Id":"REQ-1","Contact Method":"c2@example.com",
 "Contact Type Description":"Personal Email","Do Not Hire Status":"False"}]`
	began := time.Now()
	status, d, raw := f.deliver(t, f.acmeKey, body)
	if status != http.StatusOK || d.Rows != 4 {
		t.Fatalf("POST = %d %s", status, raw)
	}
	got := f.awaitProcessed(t, d.DeliveryID, began.Add(-time.Second))
	want := map[int]string{0: "invalid:duplicate_column:Do Not Hire Status", 1: "do_not_hire", 2: "invalid:duplicate_column:Candidate Id", 3: "accepted"}
	for i, o := range want {
		if got[i] != o {
			t.Errorf("row %d = %q, want %q", i, got[i], o)
		}
	}
	if f.candidateByRef(t, f.acme, "C-1") != nil {
		t.Error("the do-not-hire candidate was created")
	}
	if f.candidateByRef(t, f.acme, "C-3") != nil {
		t.Error("a duplicated Candidate Id's last value was used")
	}
	f.awaitInvited(t, f.acme, "APP-2")
	if n := f.applicationStarts(t, f.acme); n != 1 {
		t.Errorf("application runs = %d, want 1 (APP-2 only)", n)
	}
}

// TestSupportTokensExpireAndRevoke: a support token stops working when it expires or when it is
// revoked (what `recruitd support token revoke` does), at once, and the listing tells which.
func TestSupportTokensExpireAndRevoke(t *testing.T) {
	f := newFixture(t)
	u := &models.User{Email: "ops@recruitd.test", Name: "Ops", IsPlatformAdmin: true}
	if err := f.st.DB().Create(u).Error; err != nil {
		t.Fatal(err)
	}
	mint := func(name string, ttl time.Duration) (string, *models.SupportToken) {
		raw, _ := apikey.Generate()
		raw = "rsp_" + raw
		tok, _, err := f.st.CreateSupportToken(t.Context(), u.Email, name, raw, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return raw, tok
	}
	if _, _, err := f.st.CreateSupportToken(t.Context(), u.Email, "too long", "rsp_"+strings.Repeat("x", 40), 400*24*time.Hour); err == nil {
		t.Error("a token valid for 400 days was created; want at most 365")
	}
	short, _ := mint("short", 1500*time.Millisecond)
	revoked, rtok := mint("revoked", store.DefaultSupportTokenTTL)
	kept, ktok := mint("kept", store.DefaultSupportTokenTTL)
	if d := time.Until(ktok.ExpiresAt); d < 29*24*time.Hour || d > 30*24*time.Hour {
		t.Errorf("default expiry in %s, want 30 days", d)
	}
	for _, tok := range []string{short, revoked, kept} {
		f.supportCall(t, tok, http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusOK)
	}
	if _, err := f.st.RevokeSupportToken(t.Context(), rtok.Prefix); err != nil {
		t.Fatal(err)
	}
	f.supportCall(t, revoked, http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusUnauthorized)
	time.Sleep(1600 * time.Millisecond) // past the short token's expiry
	f.supportCall(t, short, http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusUnauthorized)
	f.supportCall(t, kept, http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusOK)

	list, err := f.st.ListSupportTokens(t.Context(), "OPS@recruitd.test")
	if err != nil || len(list) != 3 {
		t.Fatalf("listed %d tokens, %v; want 3", len(list), err)
	}
	for _, v := range list {
		expired := !v.ExpiresAt.After(time.Now())
		if v.UserEmail != u.Email || (v.Name == "short") != expired || (v.Name == "revoked") != (v.RevokedAt != nil) {
			t.Errorf("listed %s: email %s expired %v revoked %v", v.Name, v.UserEmail, expired, v.RevokedAt != nil)
		}
	}
}

// TestHRSuiteStorageBounds: bodies are stored compressed and read back for processing and
// replay; a company's stored deliveries stay under HRSUITE_STORAGE_QUOTA_BYTES (429
// STORAGE_QUOTA_EXCEEDED, nothing stored); deliveries whose rows all have final outcomes are
// deleted after the retention by the reconciler's prune, their dedupe records kept, while one
// with an unknown_job row stays for a replay.
func TestHRSuiteStorageBounds(t *testing.T) {
	const quota = 1 << 20
	f := newFixture(t, withEnv(fmt.Sprintf("HRSUITE_STORAGE_QUOTA_BYTES=%d", quota)))
	f.hrsuiteAccount(t, f.acme, true)
	f.job(t, f.acme, "REQ-1")
	stored := func(id uuid.UUID) models.HRSuiteDelivery {
		t.Helper()
		var d models.HRSuiteDelivery
		if err := f.st.DB().First(&d, "id = ?", id).Error; err != nil {
			t.Fatal(err)
		}
		return d
	}

	// A report compresses well: its rows repeat the column names. (Most are do-not-hire: no
	// invitation to wait for.)
	rows := make([]map[string]any, 3000)
	for i := range rows {
		rows[i] = row(fmt.Sprintf("APP-%04d", i), fmt.Sprintf("C-%04d", i), "REQ-1", fmt.Sprintf("(201) 555-%04d", i), "Mobile")
		if i >= 3 {
			rows[i]["Do Not Hire Status"] = "True"
		}
	}
	rows[2999] = row("APP-LATER", "C-LATER", "REQ-LATER", "(201) 555-0999", "Mobile") // unknown_job: not final
	began := time.Now()
	status, report, raw := f.deliver(t, f.acmeKey, rows)
	if status != http.StatusOK {
		t.Fatalf("report = %d %.200s", status, raw)
	}
	if got := f.awaitProcessed(t, report.DeliveryID, began.Add(-time.Second)); got[0] != "accepted" || got[3] != "do_not_hire" || got[2999] != "unknown_job" {
		t.Fatalf("report outcomes: rows 0, 3, 2999 %q, %q, %q", got[0], got[3], got[2999])
	}
	if d := stored(report.DeliveryID); d.BodyEncoding != "gzip" || d.StoredBytes*5 > d.BodyBytes || d.FinalAt != nil {
		t.Errorf("report stored %s, %d bytes for %d, final %v; want gzip under a fifth, not final", d.BodyEncoding, d.StoredBytes, d.BodyBytes, d.FinalAt)
	}
	small := []map[string]any{row("APP-SMALL", "C-SMALL", "REQ-1", "(201) 555-1999", "Mobile")}
	began = time.Now()
	_, final, _ := f.deliver(t, f.acmeKey, small)
	f.awaitProcessed(t, final.DeliveryID, began.Add(-time.Second))
	if d := stored(final.DeliveryID); d.FinalAt == nil {
		t.Error("a delivery whose rows are all accepted is not final")
	}

	// Junk that does not compress fills the quota: then 429, and nothing is stored.
	junk := func(i int) string {
		b := make([]byte, 200<<10)
		_, _ = rand.Read(b)
		return fmt.Sprintf(`[%q]`, base64.StdEncoding.EncodeToString(b))
	}
	var junkIDs []uuid.UUID
	for i := 0; ; i++ {
		if i == 10 {
			t.Fatalf("10 junk deliveries of 270 KB stored under a %d-byte quota", quota)
		}
		resp := f.send(t, http.MethodPost, "/webhook/hrsuite", f.acmeKey, junk(i))
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK {
			var out httpapi.HRSuiteDeliveryResponse
			_ = json.Unmarshal(b, &out)
			junkIDs = append(junkIDs, out.DeliveryID)
			continue
		}
		var e httpapi.ErrorBody
		_ = json.Unmarshal(b, &e)
		if resp.StatusCode != http.StatusTooManyRequests || e.Code != "STORAGE_QUOTA_EXCEEDED" || e.Success || resp.Header.Get("Retry-After") != "3600" ||
			!strings.Contains(e.Message, fmt.Sprint(quota)) {
			t.Fatalf("junk delivery %d = %d %s (Retry-After %q), want 429 STORAGE_QUOTA_EXCEEDED naming the quota", i, resp.StatusCode, b, resp.Header.Get("Retry-After"))
		}
		break
	}
	var count, used int64
	f.st.DB().Model(&models.HRSuiteDelivery{}).Where("company_id = ?", f.acme.ID).Count(&count)
	f.st.DB().Raw(`SELECT sum(stored_bytes) FROM hrsuite_deliveries WHERE company_id = ?`, f.acme.ID).Scan(&used)
	if count != int64(2+len(junkIDs)) || used > quota || len(junkIDs) == 0 {
		t.Errorf("%d deliveries stored (%d junk), %d bytes; want the refused one not stored, at most %d bytes", count, len(junkIDs), used, quota)
	}
	// Another company's storage is its own.
	f.hrsuiteAccount(t, f.other, false)
	if status, _, raw := f.deliver(t, f.otherKy, junk(99)); status != http.StatusOK {
		t.Errorf("globex's delivery = %d %.200s while acme is at its quota", status, raw)
	}

	// Within the retention, support replays the compressed report.
	f.job(t, f.acme, "REQ-LATER")
	token := f.supportToken(t)
	began = time.Now()
	out := f.supportCall(t, token, http.MethodPost, "/v1/support/hrsuite/replays", map[string]any{"deliveryId": report.DeliveryID.String()}, http.StatusAccepted)
	f.awaitReplay(t, token, out["replay"].(map[string]any)["id"].(string))
	if got := f.awaitProcessed(t, report.DeliveryID, began); got[2999] != "accepted" || got[0] != "accepted" {
		t.Errorf("replayed report: row 0 %q, row 2999 %q; want accepted", got[0], got[2999])
	}
	if d := stored(report.DeliveryID); d.FinalAt == nil {
		t.Error("the report is not final after the replay settled its last row")
	}

	// Past the retention: final deliveries go, a not-final one stays.
	pending := row("APP-PENDING", "C-PENDING", "REQ-NONE", "(201) 555-1998", "Mobile")
	began = time.Now()
	_, notFinal, _ := f.deliver(t, f.acmeKey, []map[string]any{pending})
	f.awaitProcessed(t, notFinal.DeliveryID, began.Add(-time.Second))
	old := time.Now().Add(-outbox.HRSuiteRetention - time.Hour)
	f.st.DB().Model(&models.HRSuiteDelivery{}).Where("company_id = ? AND final_at IS NOT NULL", f.acme.ID).Update("final_at", old)
	f.st.DB().Model(&models.HRSuiteDelivery{}).Where("id = ?", notFinal.DeliveryID).Update("received_at", old)
	n, err := f.launcher.PruneHRSuiteDeliveries(t.Context(), time.Now())
	if err != nil || n != int64(2+len(junkIDs)) {
		t.Fatalf("PruneHRSuiteDeliveries = %d, %v; want the %d final deliveries", n, err, 2+len(junkIDs))
	}
	f.st.DB().Model(&models.HRSuiteDelivery{}).Where("company_id = ?", f.acme.ID).Count(&count)
	if count != 1 {
		t.Errorf("%d deliveries left, want the not-final one", count)
	}
	f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries/"+report.DeliveryID.String(), nil, http.StatusNotFound)
	f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries/"+notFinal.DeliveryID.String(), nil, http.StatusOK)

	// The space is free again, and the pruned deliveries' applications are still duplicates.
	began = time.Now()
	status, again, raw := f.deliver(t, f.acmeKey, small)
	if status != http.StatusOK || again.DuplicateOf != nil {
		t.Fatalf("a delivery after the prune = %d %s", status, raw)
	}
	if got := f.awaitProcessed(t, again.DeliveryID, began.Add(-time.Second)); got[0] != "duplicate" {
		t.Errorf("APP-SMALL delivered again after its delivery was pruned = %q, want duplicate", got[0])
	}
	f.awaitInvited(t, f.acme, "APP-SMALL", "APP-0000", "APP-0002", "APP-LATER")
}
