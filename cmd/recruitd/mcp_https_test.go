package main

import (
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestMCPRefusesPlainHTTPOffLoopback: recruitd mcp with an http:// MCP_BASE_URL (the default)
// on an address other hosts can reach exits at once with a message naming what to set; the same
// on loopback, and an https:// MCP_BASE_URL on any address, start.
func TestMCPRefusesPlainHTTPOffLoopback(t *testing.T) {
	db := pgtest.New(t)
	base := []string{"DATABASE_URL=" + db.URL, "LOG_FORMAT=json", "MCP_BASE_URL=", "MCP_TLS_CERT=", "MCP_TLS_KEY=", "MCP_TRUSTED_PROXIES="}

	for _, env := range [][]string{{"MCP_ADDR=0.0.0.0:0"}, {"MCP_ADDR=:0", "MCP_BASE_URL=http://mcp.example.com"}} {
		p := start(t, append(append([]string{}, base...), env...), "mcp")
		select {
		case err := <-p.done:
			out := p.output()
			if err == nil || strings.Contains(out, `"msg":"listening"`) {
				t.Errorf("recruitd mcp with %v = %v, want a refusal before listening:\n%s", env, err, out)
			}
			for _, want := range []string{"HTTPS only", "https://", "MCP_TLS_CERT", "MCP_TRUSTED_PROXIES", "loopback"} {
				if !strings.Contains(out, want) {
					t.Errorf("refusal with %v does not mention %s:\n%s", env, want, out)
				}
			}
		case <-time.After(time.Minute):
			t.Fatalf("recruitd mcp with %v still running, want a refusal:\n%s", env, p.output())
		}
	}

	for _, env := range [][]string{{"MCP_ADDR=127.0.0.1:0"}, {"MCP_ADDR=0.0.0.0:0", "MCP_BASE_URL=https://mcp.example.com"}} {
		p := start(t, append(append([]string{}, base...), env...), "mcp")
		p.await(t, `"listener":"mcp"`, time.Minute)
		p.interrupt(t)
	}
}
