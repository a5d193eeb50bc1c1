package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
)

// TestMCPOAuthTypeScriptClient drives `recruitd mcp`, the production process, signed in through
// the local identity provider by the official MCP TypeScript client (e2e/mcp-oauth-client.mjs):
// registration, PKCE, consent, the provider's login form, tools/list, a call in each of the demo
// member's two companies, a refresh and a call with the refreshed token.
func TestMCPOAuthTypeScriptClient(t *testing.T) {
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
	idpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + idpLn.Addr().String()
	idp := &httptest.Server{Listener: idpLn, Config: &http.Server{Handler: devidp.New(issuer,
		devidp.Client{ID: "recruitd-mcp", Secret: "e2e-secret-e2e-secret", RedirectURIs: []string{base + "/oauth/callback"}}, devidp.DemoIdentities())}}
	idp.Start()
	defer idp.Close()
	env := []string{
		"DATABASE_URL=" + db.URL, "MCP_ADDR=127.0.0.1:" + port, "MCP_BASE_URL=" + base,
		"RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "RECRUITD_DEMO_API_KEY=",
		"OIDC_ISSUER=" + issuer, "OIDC_CLIENT_ID=recruitd-mcp", "OIDC_CLIENT_SECRET=e2e-secret-e2e-secret",
	}
	runCmd(t, env, "migrate")
	runCmd(t, env, "seed", "demo", "--companies", "2", "--candidates", "50")
	st, err := store.Open(t.Context(), db.URL, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	companies, err := devidp.EnsureDemoUsers(t.Context(), st, seed.DemoSlug)
	st.Close()
	if err != nil || len(companies) != 2 {
		t.Fatalf("EnsureDemoUsers = %d companies, %v; want 2", len(companies), err)
	}

	p := start(t, env, "mcp")
	p.await(t, `listening.*listener=mcp`, time.Minute)
	cmd := exec.Command(node, filepath.Join(root, "e2e", "mcp-oauth-client.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCP_URL="+base+"/mcp", "OAUTH_EMAIL="+devidp.Member.Email, "OAUTH_PASSWORD="+devidp.Password)
	res, err := cmd.CombinedOutput()
	t.Logf("mcp-oauth-client.mjs:\n%s", res)
	if err != nil || !strings.Contains(string(res), "\nPASS") {
		t.Errorf("the TypeScript client's OAuth checks failed (%v)", err)
	}
	p.interrupt(t)
	if out := p.output(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "rmcp_at_") || strings.Contains(out, "rmcp_rt_") {
		t.Errorf("recruitd mcp logged errors or tokens:\n%s", out)
	}
}
