package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestMCPTypeScriptClient drives `recruitd mcp`, the production process, with the official MCP
// TypeScript client (e2e/mcp-client.mjs): the 401 challenge, initialize, tools/list with the 18
// tools and their schemas, and a successful tools/call of every tool on seeded demo data.
func TestMCPTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; the MCP e2e test needs Node.js 20+ (see README)")
	}
	root, _ := filepath.Abs("../..")
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatal("node_modules lacks @modelcontextprotocol/sdk: run `npm ci` in the repository root (.ci/run does)")
	}

	db := pgtest.NewEmpty(t)
	port := freePort(t)
	base := "http://127.0.0.1:" + port
	env := []string{
		"DATABASE_URL=" + db.URL, "MCP_ADDR=127.0.0.1:" + port, "MCP_BASE_URL=" + base, "MCP_METRICS_ADDR=127.0.0.1:0",
		"RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "RECRUITD_DEMO_API_KEY=",
	}
	runCmd(t, env, "migrate")
	out := runCmd(t, env, "seed", "demo", "--companies", "2", "--candidates", "400")
	key := regexp.MustCompile(`demo API key: (rk_\S+)`).FindStringSubmatch(out)
	if key == nil {
		t.Fatalf("seed demo printed no key:\n%s", out)
	}

	p := start(t, env, "mcp")
	p.await(t, `listening.*listener=mcp`, time.Minute)

	cmd := exec.Command(node, filepath.Join(root, "e2e", "mcp-client.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCP_URL="+base+"/mcp", "MCP_API_KEY="+key[1], "MCP_BASE_URL="+base)
	res, err := cmd.CombinedOutput()
	t.Logf("mcp-client.mjs:\n%s", res)
	if err != nil || !strings.Contains(string(res), "\nPASS") {
		t.Errorf("the TypeScript client checks failed (%v)", err)
	}
	p.interrupt(t)
	if strings.Contains(p.output(), "level=ERROR") {
		t.Errorf("recruitd mcp logged errors:\n%s", p.output())
	}
}
