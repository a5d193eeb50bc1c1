package mcpserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(func(k string) string {
		if k == "MCP_BASE_URL" {
			return "https://mcp.example.com"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	h := NewServer(Deps{
		Log: slog.New(slog.DiscardHandler), Config: cfg, Store: st,
		Health:  health.New(time.Second, map[string]health.Check{"postgres": st.Ping}),
		Metrics: httpmetrics.New(reg), Gatherer: reg,
	})
	f := &fixture{srv: httptest.NewServer(h), st: st}
	t.Cleanup(f.srv.Close)
	f.acme, f.acmeKey = f.company(t, "acme", "Acme Corp")
	_, f.otherKy = f.company(t, "globex", "Globex")
	return f
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
	if err != nil || len(tools.Tools) == 0 || tools.Tools[0].Name != "listCompanies" || !tools.Tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("tools/list = %+v, %v", tools, err)
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
