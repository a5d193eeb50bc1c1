package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// oauthToolServer starts `recruitd mcp`, the production process, on a migrated database with two
// seeded demo companies and the demo users, signing in through a local identity provider (the
// one recruitd dev runs). It returns the tool server's base URL, the demo member's companies and
// the process, once the process's OAuth sweep has removed a stale client planted for it.
func oauthToolServer(t *testing.T) (string, []models.Company, *proc) {
	t.Helper()
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
	t.Cleanup(idp.Close)
	env := []string{
		"DATABASE_URL=" + db.URL, "MCP_ADDR=127.0.0.1:" + port, "MCP_BASE_URL=" + base, "MCP_METRICS_ADDR=127.0.0.1:0",
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
	if err != nil || len(companies) != 2 {
		t.Fatalf("EnsureDemoUsers = %d companies, %v; want 2", len(companies), err)
	}
	// A client registered two days ago that never signed in: the process's sweep removes it.
	if err := st.CreateOAuthClient(t.Context(), &store.OAuthClient{ID: "rmcp_c_stale", Kind: store.OAuthClientRegistered,
		RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{"authorization_code"}, AuthMethod: "none"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SQL().ExecContext(t.Context(), `UPDATE oauth_clients SET created_at = now() - interval '2 days' WHERE id = 'rmcp_c_stale'`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	p := start(t, env, "mcp")
	p.await(t, `listening.*listener=mcp`, time.Minute)
	p.await(t, `oauth sweep.*unused_clients=1`, 30*time.Second)
	return base, companies, p
}

// stopToolServer stops recruitd mcp and checks that it logged no error and no token.
func stopToolServer(t *testing.T, p *proc) {
	t.Helper()
	p.interrupt(t)
	if out := p.output(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "rmcp_at_") || strings.Contains(out, "rmcp_rt_") {
		t.Errorf("recruitd mcp logged errors or tokens:\n%s", out)
	}
}

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
	base, _, p := oauthToolServer(t)
	cmd := exec.Command(node, filepath.Join(root, "e2e", "mcp-oauth-client.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCP_URL="+base+"/mcp", "OAUTH_EMAIL="+devidp.Member.Email, "OAUTH_PASSWORD="+devidp.Password)
	res, err := cmd.CombinedOutput()
	t.Logf("mcp-oauth-client.mjs:\n%s", res)
	if err != nil || !strings.Contains(string(res), "\nPASS") {
		t.Errorf("the TypeScript client's OAuth checks failed (%v)", err)
	}
	stopToolServer(t, p)
}

// TestMCPOAuthGoClient drives `recruitd mcp` with the official go-sdk client: its
// auth.AuthorizationCodeHandler discovers the protected-resource and authorization-server
// metadata from the 401 challenge, registers dynamically, sends PKCE and resource, checks the
// RFC 9207 iss and exchanges the code; the fetcher is the user's browser (devidp.SignIn),
// following the authorization URL, allowing on the consent page and submitting the identity
// provider's login form. Then tools/list, a call in each of the demo member's two companies, a
// refresh (the oauth2.Config the handler built from the metadata, on the handler's token source)
// and a call with the refreshed token.
func TestMCPOAuthGoClient(t *testing.T) {
	base, companies, p := oauthToolServer(t)
	const redirect = "http://127.0.0.1:43118/callback" // nothing listens: the browser stops at it

	// wire records what the client sends: the bearer of each /mcp request and each token request.
	wire := &recorder{next: http.DefaultTransport}
	httpClient := &http.Client{Transport: wire, Timeout: 30 * time.Second}
	var ts *forcedRefresh
	var fetches int
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "recruitd e2e (go-sdk)", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              httpClient,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			fetches++
			q, err := devidp.SignIn(ctx, args.URL, redirect, devidp.Member.Email, devidp.Password)
			if err != nil || q.Get("error") != "" {
				return nil, fmt.Errorf("sign-in: %v %s %s", err, q.Get("error"), q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			ts = &forcedRefresh{ctx: ctx, cfg: cfg, tok: tok}
			return ts, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "recruitd-e2e-oauth-go", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", OAuthHandler: handler, HTTPClient: httpClient, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connect with the go-sdk OAuth handler: %v", err)
	}
	defer cs.Close()
	if fetches != 1 || ts == nil {
		t.Fatalf("the handler signed in %d times (token source %v), want once", fetches, ts != nil)
	}
	first := ts.current()
	if !strings.HasPrefix(first.AccessToken, "rmcp_at_") || first.RefreshToken == "" || time.Until(first.Expiry) < 50*time.Minute {
		t.Fatalf("token after sign-in: access %.8s…, refresh %t, expires in %s; want the server's own access token for about an hour and a refresh token",
			first.AccessToken, first.RefreshToken != "", time.Until(first.Expiry).Round(time.Second))
	}
	if got := wire.lastBearer(); got != first.AccessToken {
		t.Errorf("the retried initialize carried %.12s…, want the new access token", got)
	}

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 18 {
		t.Fatalf("tools/list = %d tools, %v; want 18", lenTools(tools), err)
	}
	listed := structured(t, cs, "listCompanies", map[string]any{})
	var ids []string
	for _, c := range listed["companies"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	for _, c := range companies {
		if !strings.Contains(strings.Join(ids, " "), c.ID.String()) {
			t.Errorf("listCompanies = %v, want it to include %s (%s)", ids, c.Slug, c.ID)
		}
		features := structured(t, cs, "getCompanyFeatures", map[string]any{"companyId": c.ID.String()})
		if len(features) == 0 {
			t.Errorf("getCompanyFeatures in %s returned no structured content", c.Slug)
		}
	}

	// Refresh: the token source's access token is treated as expired, so the next request's
	// Token() uses the refresh grant at the token endpoint the handler discovered.
	ts.expire()
	again := structured(t, cs, "getCompanyFeatures", map[string]any{"companyId": companies[1].ID.String()})
	if len(again) == 0 {
		t.Error("getCompanyFeatures after the refresh returned no structured content")
	}
	second := ts.current()
	if ts.refreshes != 1 || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken ||
		!strings.HasPrefix(second.AccessToken, "rmcp_at_") {
		t.Errorf("after the refresh: %d refreshes, access token rotated %t, refresh token rotated %t; want one refresh rotating both",
			ts.refreshes, second.AccessToken != first.AccessToken, second.RefreshToken != first.RefreshToken)
	}
	if got := wire.lastBearer(); got != second.AccessToken {
		t.Errorf("the call after the refresh carried %.12s…, want the refreshed access token", got)
	}
	if grants := wire.tokenGrants(); strings.Join(grants, ",") != "authorization_code,refresh_token" {
		t.Errorf("token requests = %v, want authorization_code then refresh_token", grants)
	}
	if fetches != 1 {
		t.Errorf("the handler sent the user to sign in %d times, want once (the refresh needs no browser)", fetches)
	}
	cs.Close()
	stopToolServer(t, p)
}

// forcedRefresh is the handler's token source, as oauth2.Config.TokenSource makes it, with a way
// to treat the current access token as expired so that the next Token() refreshes.
type forcedRefresh struct {
	ctx       context.Context
	cfg       *oauth2.Config
	mu        sync.Mutex
	tok       *oauth2.Token
	refreshes int
}

func (f *forcedRefresh) Token() (*oauth2.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tok.Valid() {
		return f.tok, nil
	}
	tok, err := f.cfg.TokenSource(f.ctx, f.tok).Token()
	if err != nil {
		return nil, err
	}
	f.tok = tok
	f.refreshes++
	return tok, nil
}

func (f *forcedRefresh) expire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	expired := *f.tok
	expired.Expiry = time.Now().Add(-time.Minute)
	f.tok = &expired
}

func (f *forcedRefresh) current() oauth2.Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.tok
}

// recorder is the client's HTTP transport, noting the bearer of each /mcp request and the grant
// type of each token request.
type recorder struct {
	next   http.RoundTripper
	mu     sync.Mutex
	bearer string
	grants []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	switch {
	case req.URL.Path == "/mcp" && req.Method == http.MethodPost:
		r.bearer = strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	case req.URL.Path == "/oauth/token" && req.Body != nil:
		b, _ := io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		form, _ := url.ParseQuery(string(b))
		r.grants = append(r.grants, form.Get("grant_type"))
	}
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *recorder) lastBearer() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bearer
}

func (r *recorder) tokenGrants() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.grants...)
}

// structured calls a tool and returns its structured content; a tool error fails the test.
func structured(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		t.Fatalf("%s(%v) is a tool error: %s", name, args, b.String())
	}
	m, _ := res.StructuredContent.(map[string]any)
	return m
}

func lenTools(r *mcp.ListToolsResult) int {
	if r == nil {
		return 0
	}
	return len(r.Tools)
}
