package httpapi_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/models"
)

// TestKeyScopes: each route needs its scope. A partner-only key (a job board's) submits partner
// applications and nothing else; an mcp:read key cannot create jobs; GET /v1/api/company needs
// no scope.
func TestKeyScopes(t *testing.T) {
	f := newFixture(t)
	keyWith := func(scopes ...models.Scope) string {
		key, _ := apikey.Generate()
		if _, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "scoped", key, scopes...); err != nil {
			t.Fatal(err)
		}
		return key
	}
	partnerOnly := keyWith(models.ScopePartnerApplications)
	mcpOnly := keyWith(models.ScopeMCPRead)
	jobsOnly := keyWith(models.ScopeJobs)
	job := map[string]any{"externalJobId": "scoped-1", "jobDescription": "We are hiring a Registered Nurse."}
	tests := []struct {
		name, method, path, key string
		body                    any
		want                    int
	}{
		{"partner key, createJob", http.MethodPost, "/v1/api/createJob", partnerOnly, job, http.StatusForbidden},
		{"partner key, interviewers", http.MethodGet, "/v1/api/interviewers", partnerOnly, nil, http.StatusForbidden},
		{"partner key, inviteCandidate", http.MethodPost, "/v1/api/inviteCandidate", partnerOnly, map[string]any{"interviewerId": "x", "candidate": map[string]any{"email": "a@example.com"}}, http.StatusForbidden},
		{"partner key, rewrite workflows", http.MethodPut, "/v1/api/workflows/manual_invite", partnerOnly, map[string]any{"enabled": true, "steps": []any{}}, http.StatusForbidden},
		{"partner key, read workflows", http.MethodGet, "/v1/api/workflows/manual_invite", partnerOnly, nil, http.StatusForbidden},
		{"partner key, company", http.MethodGet, "/v1/api/company", partnerOnly, nil, http.StatusOK},
		{"mcp key, createJob", http.MethodPost, "/v1/api/createJob", mcpOnly, job, http.StatusForbidden},
		{"mcp key, partner submission", http.MethodPost, "/v2/api/partner-applications", mcpOnly, map[string]any{"atsApplicantId": "1"}, http.StatusForbidden},
		{"jobs key, createJob", http.MethodPost, "/v1/api/createJob", jobsOnly, job, http.StatusOK},
		{"jobs key, inviteCandidate", http.MethodPost, "/v1/api/inviteCandidate", jobsOnly, map[string]any{"interviewerId": "x", "candidate": map[string]any{"email": "a@example.com"}}, http.StatusForbidden},
		{"customer key, read workflows", http.MethodGet, "/v1/api/workflows/manual_invite", f.acmeKey, nil, http.StatusNotFound}, // no definition saved: past the scope check
	}
	for _, tt := range tests {
		resp := f.send(t, tt.method, tt.path, tt.key, tt.body)
		if resp.StatusCode != tt.want {
			b, _ := io.ReadAll(resp.Body)
			t.Errorf("%s: %s %s = %d %s, want %d", tt.name, tt.method, tt.path, resp.StatusCode, b, tt.want)
			continue
		}
		if tt.want == http.StatusForbidden {
			if body := decode[map[string]any](t, resp); body["code"] != "INSUFFICIENT_SCOPE" || body["success"] != false {
				t.Errorf("%s: body %v, want the spec's error body with INSUFFICIENT_SCOPE", tt.name, body)
			}
		}
	}
}
