package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
