package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolTimeoutSetting: MCP_TOOL_TIMEOUT bounds a tool call end to end: a call whose statement
// waits (here on a lock another transaction holds) answers a tool error naming the bound soon
// after it, and its statement does not outlive it.
func TestToolTimeoutSetting(t *testing.T) {
	f := newFixture(t, "MCP_TOOL_TIMEOUT", "1s")
	lock, err := f.st.SQL().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.Exec(`LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: f.srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{f.acmeKey, http.DefaultTransport}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "getJobsSummary", Arguments: map[string]any{}})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("getJobsSummary while jobs is locked, bounded to 1s: %v after %s", err, took)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "took longer than 1s") || took > 8*time.Second {
		t.Errorf("getJobsSummary while jobs is locked = %q (error %v) after %s; want the 1s bound's tool error soon", text, res.IsError, took)
	}
	var waiting int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := f.st.SQL().QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting == 0 || time.Now().After(deadline) {
			break
		}
	}
	if waiting != 0 {
		t.Errorf("%d statements still waiting on the lock after the call ended", waiting)
	}
}
