package mcpserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/apikey"
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
