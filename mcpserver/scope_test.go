package mcpserver

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/ratelimit"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestKeyWithoutMCPScope: a key limited to partner submissions (a job board's) gets 403
// insufficient_scope with the challenge; a key with mcp:read gets in and its use is recorded.
func TestKeyWithoutMCPScope(t *testing.T) {
	f := newFixture(t)
	partnerKey, _ := apikey.Generate()
	if _, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "job board", partnerKey, models.ScopePartnerApplications); err != nil {
		t.Fatal(err)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"searchCandidates","arguments":{"query":"nurse"}}}`
	status, body := f.post(t, list, "Authorization", "Bearer "+partnerKey)
	if status != http.StatusForbidden || !strings.Contains(body, "insufficient_scope") || strings.Contains(body, "result") {
		t.Errorf("tools/call with a partner-only key = %d %s, want 403 insufficient_scope", status, body)
	}
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(list))
	req.Header.Set("Authorization", "Bearer "+partnerKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if h := resp.Header.Get("WWW-Authenticate"); !strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, `scope="mcp:read"`) || !strings.Contains(h, "resource_metadata=") {
		t.Errorf("WWW-Authenticate = %q, want insufficient_scope naming mcp:read", h)
	}

	mcpKey, _ := apikey.Generate()
	k, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "assistant", mcpKey, models.ScopeMCPRead)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := f.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Authorization", "Bearer "+mcpKey); status != http.StatusOK {
		t.Fatalf("tools/list with an mcp:read key = %d %s", status, body)
	}
	keys, err := f.st.ListAPIKeys(t.Context(), f.acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range keys {
		if got.ID == k.ID && (got.LastUsedAt == nil || time.Since(*got.LastUsedAt) > time.Minute) {
			t.Errorf("last use of the mcp:read key = %v, want recorded now", got.LastUsedAt)
		}
	}
}

// TestToolServerThrottling: a key over its rate gets 429 with Retry-After, another key is
// served; failed authentications from one address end in 429 for the failing tokens.
func TestToolServerThrottling(t *testing.T) {
	f := newFixture(t, "API_RATE_LIMIT", "2", "API_RATE_BURST", "2", "AUTH_FAILURE_LIMIT", "0.5", "AUTH_FAILURE_BURST", "2")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	var got []int
	for range 4 {
		status, _ := f.post(t, list)
		got = append(got, status)
	}
	if got[0] != 200 || got[1] != 200 || got[2] != http.StatusTooManyRequests || got[3] != http.StatusTooManyRequests {
		t.Errorf("4 quick calls with a burst of 2 = %v, want [200 200 429 429]", got)
	}
	if status, _ := f.post(t, list, "Authorization", "Bearer "+f.otherKy); status != 200 {
		t.Errorf("another key's call = %d, want 200", status)
	}
	for range 2 {
		if status, _ := f.post(t, list, "Authorization", "Bearer rk_wrong_wrong_wrong_wrong"); status != http.StatusUnauthorized {
			t.Fatalf("bad token = %d, want 401", status)
		}
	}
	if status, body := f.post(t, list, "Authorization", "Bearer rk_wrong_wrong_wrong_wrong"); status != http.StatusTooManyRequests || !strings.Contains(body, "failed authentications") {
		t.Errorf("a bad token after 2 failures from this address = %d %s, want 429", status, body)
	}
}

// TestConcurrentCallsPerKey: with MCP_MAX_CONCURRENT_CALLS=1 a key's second request in flight
// gets 429 at once; another key is unaffected; the slot is free again when the first ends.
func TestConcurrentCallsPerKey(t *testing.T) {
	f := newFixture(t)
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	a := &authenticator{store: f.st, log: slog.New(slog.DiscardHandler), base: func(*http.Request) string { return "https://mcp.example.com" },
		keyLimits: ratelimit.NewShared(nil, nil).Limit("mcp-key", 0, 0), authFailures: ratelimit.NewShared(nil, nil).Limit("mcp-auth-failure", 0, 0),
		calls: ratelimit.NewShared(f.st, nil).CallSlots("mcp-calls", 1, time.Minute)}
	srv := httptest.NewServer(a.require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})))
	defer srv.Close()
	call := func(key string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	first := make(chan int)
	go func() { first <- call(f.acmeKey) }()
	<-entered
	if got := call(f.acmeKey); got != http.StatusTooManyRequests {
		t.Errorf("second call in flight = %d, want 429", got)
	}
	other := make(chan int)
	go func() { other <- call(f.otherKy) }()
	<-entered
	close(release)
	if got := <-first; got != http.StatusOK {
		t.Errorf("first call = %d", got)
	}
	if got := <-other; got != http.StatusOK {
		t.Errorf("other key's call = %d, want 200", got)
	}
	if got := call(f.acmeKey); got != http.StatusOK {
		t.Errorf("call after the first ended = %d, want 200", got)
	}
}

func TestStatementTimeoutOnToolServerConnections(t *testing.T) {
	cfg, err := config.Load(func(k string) string { return map[string]string{"MCP_TOOL_TIMEOUT": "7s"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	db := pgtest.New(t)
	st, err := store.Open(t.Context(), db.URL, 2, nil, PostgresSettings(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got string
	if err := st.SQL().QueryRow("SHOW statement_timeout").Scan(&got); err != nil || got != "7s" {
		t.Errorf("statement_timeout = %q, %v; want 7s", got, err)
	}
}

// TestArgumentsPostgresCannotStore: NUL and invalid UTF-8 in any argument are a tool error that
// names the argument, never an internal error.
func TestArgumentsPostgresCannotStore(t *testing.T) {
	f := newFixture(t)
	for _, args := range []string{
		`{"name":"\u0000"}`,
		`{"externalId":"rn-1\u0000"}`,
		"{\"name\":\"caf\xc3\x28\"}",
	} {
		tool := "getCandidateReport"
		if strings.Contains(args, "externalId") {
			tool = "getJobDetails"
		}
		status, body := f.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
		if status != http.StatusOK || !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "argument ") ||
			strings.Contains(body, "internal error") {
			t.Errorf("%s %q = %d %s, want a tool error naming the argument", tool, args, status, body)
		}
	}
	// A backslash before "u0000" is ordinary text.
	if _, body := f.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getJobDetails","arguments":{"externalId":"C:\\u0000"}}}`); strings.Contains(body, "NUL") || strings.Contains(body, "internal error") {
		t.Errorf("getJobDetails with an escaped backslash = %s, want an ordinary answer", body)
	}
}
