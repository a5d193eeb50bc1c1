package mcpserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

type fixture struct {
	srv              *httptest.Server
	st               *store.Store
	acmeKey, otherKy string
	acme             *models.Company
}

func newFixture(t *testing.T, vars ...string) *fixture {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := testServer(t, st, map[string]string{"MCP_BASE_URL": "https://mcp.example.com", "MAX_BODY_BYTES": "65536"}, vars...)
	f := &fixture{srv: httptest.NewServer(h), st: st}
	t.Cleanup(f.srv.Close)
	f.acme, f.acmeKey = f.company(t, "acme", "Acme Corp")
	_, f.otherKy = f.company(t, "globex", "Globex")
	return f
}

// testServer is the tool server over st, configured by env and then vars (name, value pairs).
func testServer(t *testing.T, st *store.Store, env map[string]string, vars ...string) http.Handler {
	t.Helper()
	for i := 0; i+1 < len(vars); i += 2 {
		env[vars[i]] = vars[i+1]
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	h, err := NewServer(Deps{
		Log: slog.New(slog.DiscardHandler), Config: cfg, Store: st,
		Health:  health.New(time.Second, map[string]health.Check{"postgres": st.Ping}),
		Metrics: httpmetrics.New(reg),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (f *fixture) company(t *testing.T, slug, name string) (*models.Company, string) {
	t.Helper()
	c := &models.Company{Slug: slug, Name: name, DefaultJobStatus: models.JobStatusActive}
	if err := f.st.CreateCompany(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	key, _ := apikey.Generate()
	if _, err := f.st.CreateAPIKey(t.Context(), c.ID, "t", key); err != nil {
		t.Fatal(err)
	}
	return c, key
}

func TestUnauthenticatedGetsChallenge(t *testing.T) {
	f := newFixture(t)
	revoked, _ := apikey.Generate()
	k, _ := f.st.CreateAPIKey(t.Context(), f.acme.ID, "old", revoked)
	if _, err := f.st.RevokeAPIKey(t.Context(), f.acme.ID, k.ID.String()); err != nil {
		t.Fatal(err)
	}
	want := `Bearer realm="https://mcp.example.com", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`
	for name, auth := range map[string]string{"missing": "", "not bearer": "Basic abc", "unknown": "Bearer rk_unknownunknownunknownunknown", "revoked": "Bearer " + revoked} {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 401 || !strings.HasPrefix(got, want) {
			t.Errorf("%s: %d, WWW-Authenticate %q; want 401 and %q", name, resp.StatusCode, got, want)
		}
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || doc["resource"] != "https://mcp.example.com/mcp" {
			t.Errorf("GET %s = %d %v, %v", path, resp.StatusCode, doc, err)
		}
	}
}

type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

func TestListCompaniesThroughTheTransport(t *testing.T) {
	f := newFixture(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:             f.srv.URL + "/mcp",
		HTTPClient:           &http.Client{Transport: bearer{f.acmeKey, http.DefaultTransport}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.InputSchema == nil || tool.OutputSchema == nil || len(tool.Description) < 60 {
			t.Errorf("tool %s lacks readOnlyHint, schemas or a description", tool.Name)
		}
	}
	slices.Sort(names)
	if want := slices.Sorted(slices.Values(allTools)); !slices.Equal(names, want) {
		t.Errorf("tools/list = %v\nwant the spec's %d tools %v", names, len(want), want)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "listCompanies"})
	if err != nil || res.IsError {
		t.Fatalf("listCompanies = %+v, %v", res, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "Acme Corp") || !strings.Contains(text, f.acme.ID.String()) || strings.Contains(text, "Globex") {
		t.Errorf("listCompanies text = %q, want acme only", text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out ListCompaniesOutput
	if err := json.Unmarshal(b, &out); err != nil || len(out.Companies) != 1 || out.Companies[0].Slug != "acme" || !out.Companies[0].Primary {
		t.Errorf("structuredContent = %s", b)
	}
}

func TestGetIsNotAllowed(t *testing.T) {
	f := newFixture(t)
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+f.acmeKey)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp = %d, want 405", resp.StatusCode)
	}
}

// post sends a raw JSON-RPC body to /mcp with the given headers (a valid bearer key unless the
// headers set Authorization) and returns the status and body.
func (f *fixture) post(t *testing.T, body string, headers ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.acmeKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestTransportRules(t *testing.T) {
	f := newFixture(t, "MCP_ALLOWED_ORIGINS", "https://app.example.com")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name    string
		body    string
		headers []string
		status  int
		want    string
	}{
		{"tools/list", list, nil, 200, `"listCompanies"`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, ""},
		{"text/plain", list, []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"accept json only", list, []string{"Accept", "application/json"}, 400, "text/event-stream"},
		{"unknown protocol version", list, []string{"MCP-Protocol-Version", "1999-01-01"}, 400, "Unsupported protocol version"},
		{"supported protocol version", list, []string{"MCP-Protocol-Version", "2025-06-18"}, 200, `"listCompanies"`},
		{"own origin", list, []string{"Origin", "https://mcp.example.com"}, 200, `"listCompanies"`},
		{"configured origin", list, []string{"Origin", "https://app.example.com"}, 200, `"listCompanies"`},
		{"foreign origin", list, []string{"Origin", "https://evil.example"}, 403, "origin https://evil.example is not allowed"},
		{"malformed json", `{"jsonrpc":`, nil, 400, ""},
		{"body too large", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 70000) + `"}}`, nil, 413, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := f.post(t, tt.body, tt.headers...)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("status %d body %.200q; want %d containing %q", status, body, tt.status, tt.want)
			}
		})
	}
}

func TestBadOriginConfigIsRejected(t *testing.T) {
	_, err := allowedOrigins("https://mcp.example.com", "app.example.com")
	if err == nil || !strings.Contains(err.Error(), "MCP_ALLOWED_ORIGINS") {
		t.Errorf("allowedOrigins(no scheme) err = %v", err)
	}
}

// allTools are the spec's 18 tools.
var allTools = []string{
	"listCompanies", "searchCandidates", "searchDocumentation", "getJobDetails", "getJobsSummary",
	"getCandidatePipelineStats", "getPositionStats", "getInterviewGuideDetails", "getInterviewStats",
	"getInterviewTimeOfDayBreakdown", "getCandidateReport", "getCheatingDetectionStats",
	"getFraudVerificationStats", "getIdentityVerificationStats", "getCandidateVerification",
	"getCompanyFeatures", "getAtsConnection", "listTemplates",
}
