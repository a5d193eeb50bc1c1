package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTextPostgresCannotStore: NUL and bytes that are not UTF-8 in a path parameter, a query
// parameter or a JSON string at any depth answer 400 INVALID_FIELD naming the field; nothing
// else does (the literal text `C:\u0000`, a backslash and "u0000", creates a job).
func TestTextPostgresCannotStore(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		method, path string
		body         any
		field        string
	}{
		{http.MethodGet, "/v1/api/interviewers/acme-rn-1%00", nil, "interviewerId"},
		{http.MethodGet, "/v1/api/interviewers/acme-rn-1%ff%fe", nil, "interviewerId"},
		{http.MethodGet, "/v1/api/interviewers/acme-%c3%28", nil, "interviewerId"},
		{http.MethodGet, "/v1/api/interviewers?status=ACTIVE%00", nil, "status"},
		{http.MethodPut, "/v1/api/workflows/new_job_from_ats", `{"enabled":true,"steps":[{"type":"condition","condition":{"all":[{"field":"job.title","op":"eq","value":"\u0000"}],"onFalse":{"outcome":"stop"}}}]}`, "steps[0].condition.all[0].value"},
		{http.MethodPost, "/v1/api/createJob", `{"externalJobId":"rn-1","jobDescription":"nurse\u0000"}`, "jobDescription"},
		{http.MethodPost, "/v1/api/inviteCandidate", "{\"interviewerId\":\"x\",\"candidate\":{\"firstName\":\"\xff\",\"email\":\"a@example.com\"}}", "candidate.firstName"},
	}
	for _, tt := range tests {
		resp := f.send(t, tt.method, tt.path, f.acmeKey, tt.body)
		body := decode[map[string]any](t, resp)
		msg, _ := body["message"].(string)
		if resp.StatusCode != http.StatusBadRequest || body["code"] != "INVALID_FIELD" || !strings.HasPrefix(msg, tt.field+" ") {
			t.Errorf("%s %s = %d %v, want 400 INVALID_FIELD naming %s", tt.method, tt.path, resp.StatusCode, body, tt.field)
		}
	}
	resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, `{"externalJobId":"win-1","jobDescription":"Paths like C:\\u0000 are text."}`)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("createJob with a backslash before u0000 = %d %s, want 200", resp.StatusCode, b)
	}
}

// TestDeepJSONRefusedFast: a body nested 4,000 deep (24 KB, which took seconds of CPU per
// request when the text check rebuilt every path) is refused at once on every JSON route with
// 400 JSON_TOO_DEEP naming the limit; a body at the limit passes the check; a name given twice in
// one object is refused naming it (in a workflow definition, as the definition's problem).
func TestDeepJSONRefusedFast(t *testing.T) {
	f := newFixture(t)
	deep := strings.Repeat(`{"a":`, 4000) + `"x"` + strings.Repeat("}", 4000)
	routes := []struct{ method, path string }{
		{http.MethodPost, "/v1/api/createJob"},
		{http.MethodPost, "/v1/api/inviteCandidate"},
		{http.MethodPut, "/v1/api/workflows/new_job_from_ats"},
		{http.MethodPost, "/v2/api/partner-applications"},
		{http.MethodPost, "/v2/api/assessment-links"},
	}
	for _, r := range routes {
		start := time.Now()
		resp := f.send(t, r.method, r.path, f.acmeKey, deep)
		took := time.Since(start)
		body := decode[map[string]any](t, resp)
		msg, _ := body["message"].(string)
		if resp.StatusCode != http.StatusBadRequest || body["code"] != "JSON_TOO_DEEP" || !strings.Contains(msg, "64") {
			t.Errorf("%s %s with a 4,000-deep body = %d %v, want 400 JSON_TOO_DEEP naming the limit 64", r.method, r.path, resp.StatusCode, body)
		}
		if took > 2*time.Second {
			t.Errorf("%s %s with a 4,000-deep body took %s, want it refused at once", r.method, r.path, took)
		}
	}

	atLimit := `{"externalJobId":"deep-1","jobDescription":"d","x":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`
	overLimit := `{"externalJobId":"deep-2","jobDescription":"d","x":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`
	if resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, atLimit); decode[map[string]any](t, resp)["code"] == "JSON_TOO_DEEP" {
		t.Errorf("createJob nested 64 deep = %d JSON_TOO_DEEP, want it past the depth check", resp.StatusCode)
	}
	if resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, overLimit); decode[map[string]any](t, resp)["code"] != "JSON_TOO_DEEP" {
		t.Errorf("createJob nested 65 deep = %d, want JSON_TOO_DEEP", resp.StatusCode)
	}

	resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, `{"externalJobId":"dup-1","jobDescription":"d","externalJobId":"dup-2"}`)
	body := decode[map[string]any](t, resp)
	if msg, _ := body["message"].(string); resp.StatusCode != http.StatusBadRequest || body["code"] != "REPEATED_FIELD" || !strings.HasPrefix(msg, "externalJobId is given twice") {
		t.Errorf("createJob with externalJobId twice = %d %v, want 400 REPEATED_FIELD naming externalJobId", resp.StatusCode, body)
	}
	resp = f.send(t, http.MethodPut, "/v1/api/workflows/new_job_from_ats", f.acmeKey, `{"enabled":true,"enabled":false,"steps":[]}`)
	body = decode[map[string]any](t, resp)
	if msg, _ := body["message"].(string); resp.StatusCode != http.StatusBadRequest || body["code"] != "INVALID_WORKFLOW" || !strings.Contains(msg, "enabled: repeated field") {
		t.Errorf("PUT workflow with enabled twice = %d %v, want 400 INVALID_WORKFLOW naming enabled", resp.StatusCode, body)
	}
}
