// Package tooltest runs MCP tools in tests through the real Streamable HTTP transport, against a
// real Postgres database (pgtest), with callers chosen per call.
package tooltest

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// AppURL is the app URL deep links are built from in tests.
const AppURL = "https://app.example.com"

// Harness serves the registered tools over HTTP for one test.
type Harness struct {
	DB    *pgtest.DB
	Store *store.Store
	Env   *toolkit.Env

	srv     *httptest.Server
	mu      sync.Mutex
	callers map[string]*toolkit.Caller
	clients map[string]*mcp.ClientSession
}

// New starts a harness serving the tools that register adds. now fixes the tools' clock (zero
// means the real clock).
func New(t testing.TB, now time.Time, register func(*mcp.Server, *toolkit.Env)) *Harness {
	t.Helper()
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := &toolkit.Env{Store: st, Links: links.New(AppURL, AppURL), Log: slog.New(slog.DiscardHandler)}
	if !now.IsZero() {
		env.Now = func() time.Time { return now }
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "tooltest", Version: "0"}, nil)
	register(srv, env)
	h := &Harness{DB: db, Store: st, Env: env, callers: map[string]*toolkit.Caller{}, clients: map[string]*mcp.ClientSession{}}
	transport := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, PropagateRequestCancellation: true})
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		c := h.callers[r.Header.Get("X-Test-Caller")]
		h.mu.Unlock()
		if c == nil {
			http.Error(w, "unknown test caller", http.StatusUnauthorized)
			return
		}
		transport.ServeHTTP(w, toolkit.WithRequest(r, c))
	}))
	t.Cleanup(func() {
		for _, cs := range h.clients {
			cs.Close()
		}
		h.srv.Close()
	})
	return h
}

// Company creates a company; edit may set flags before insertion.
func (h *Harness) Company(t testing.TB, slug, name string, edit func(*models.Company)) *models.Company {
	t.Helper()
	c := &models.Company{Slug: slug, Name: name, DefaultJobStatus: models.JobStatusActive}
	if edit != nil {
		edit(c)
	}
	if err := h.Store.CreateCompany(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// KeyCaller is the caller of a company API key: that company only.
func KeyCaller(c *models.Company) *toolkit.Caller {
	return &toolkit.Caller{Kind: toolkit.CallerAPIKey, CompanyIDs: []uuid.UUID{c.ID}}
}

// Result is one tools/call outcome.
type Result struct {
	Text       string
	IsError    bool
	Structured json.RawMessage
}

// Decode unmarshals the structured content into v.
func (r *Result) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Structured, v); err != nil {
		t.Fatalf("decode structuredContent %s: %v", r.Structured, err)
	}
}

// Call calls tool name with args as caller, with optional params._meta.
func (h *Harness) Call(t testing.TB, caller *toolkit.Caller, name string, args map[string]any, meta map[string]any) *Result {
	t.Helper()
	cs := h.Session(t, caller)
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if meta != nil {
		p.Meta = meta
	}
	res, err := cs.CallTool(t.Context(), p)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	r := &Result{IsError: res.IsError}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.Text = tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		r.Structured = b
	}
	return r
}

// OK calls the tool and fails the test on a tool error.
func (h *Harness) OK(t testing.TB, caller *toolkit.Caller, name string, args map[string]any) *Result {
	t.Helper()
	r := h.Call(t, caller, name, args, nil)
	if r.IsError {
		t.Fatalf("%s(%v) is a tool error: %s", name, args, r.Text)
	}
	return r
}

// ToolError calls the tool and fails the test unless it is a tool error containing want.
func (h *Harness) ToolError(t testing.TB, caller *toolkit.Caller, name string, args map[string]any, want string) {
	t.Helper()
	r := h.Call(t, caller, name, args, nil)
	if !r.IsError || !strings.Contains(r.Text, want) {
		t.Errorf("%s(%v) = error %v %q; want a tool error containing %q", name, args, r.IsError, r.Text, want)
	}
}

// Tools lists the registered tools.
func (h *Harness) Tools(t testing.TB, caller *toolkit.Caller) []*mcp.Tool {
	t.Helper()
	res, err := h.Session(t, caller).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// AssertIsolated checks tenant isolation for one tool call: as `own`'s key caller the call with
// companyId = foreign is refused with the spec's message, and neither that refusal nor the
// call without companyId mentions any of foreignMarkers (ids, names, e-mails of the other
// company's data).
func (h *Harness) AssertIsolated(t testing.TB, own, foreign *models.Company, name string, args map[string]any, foreignMarkers ...string) {
	t.Helper()
	caller := KeyCaller(own)
	withForeign := map[string]any{"companyId": foreign.ID.String()}
	for k, v := range args {
		withForeign[k] = v
	}
	r := h.Call(t, caller, name, withForeign, nil)
	if !r.IsError || !strings.Contains(r.Text, "companyId is not in your accessible companies") || !strings.Contains(r.Text, "listCompanies") {
		t.Errorf("%s with a foreign companyId = error %v %q; want the accessible-companies tool error", name, r.IsError, r.Text)
	}
	own2 := h.Call(t, caller, name, args, nil)
	for _, out := range []*Result{r, own2} {
		body := out.Text + string(out.Structured)
		for _, m := range append(foreignMarkers, foreign.ID.String(), foreign.Name) {
			if m != "" && strings.Contains(body, m) {
				t.Errorf("%s(%v) output mentions the foreign company's %q:\n%s", name, args, m, body)
			}
		}
	}
}

// Session is the caller's client session (one per caller, reused), for calls with a context of
// the test's own.
func (h *Harness) Session(t testing.TB, caller *toolkit.Caller) *mcp.ClientSession {
	t.Helper()
	id := caller.Kind + ":" + strings.Join(uuidStrings(caller.CompanyIDs), ",")
	if caller.PlatformAdmin {
		id += ":admin"
	}
	h.mu.Lock()
	cs, ok := h.clients[id]
	h.callers[id] = caller
	h.mu.Unlock() // the server side reads callers while Connect runs
	if ok {
		return cs
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tooltest", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:             h.srv.URL,
		HTTPClient:           &http.Client{Transport: header{"X-Test-Caller", id}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	h.mu.Lock()
	h.clients[id] = cs
	h.mu.Unlock()
	return cs
}

func uuidStrings(ids []uuid.UUID) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return s
}

type header struct{ name, value string }

func (h header) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}
