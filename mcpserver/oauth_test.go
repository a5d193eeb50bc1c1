package mcpserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// oauthFixture is the tool server and the local identity provider on real loopback listeners.
type oauthFixture struct {
	st           *store.Store
	base, issuer string
	acme, globex *models.Company
}

func newOAuthFixture(t *testing.T, vars ...string) *oauthFixture {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	mcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	idpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &oauthFixture{st: st, base: "http://" + mcpLn.Addr().String(), issuer: "http://" + idpLn.Addr().String()}
	h := testServer(t, st, map[string]string{"MCP_BASE_URL": f.base, "OIDC_ISSUER": f.issuer, "OIDC_CLIENT_ID": "recruitd-mcp",
		"OIDC_CLIENT_SECRET": "dev-secret-dev-secret", "MAX_BODY_BYTES": "65536", "MCP_MAX_CONCURRENT_CALLS": "0"}, vars...)
	mcpSrv := &httptest.Server{Listener: mcpLn, Config: &http.Server{Handler: h}}
	mcpSrv.Start()
	t.Cleanup(mcpSrv.Close)
	idp := devidp.New(f.issuer, devidp.Client{ID: "recruitd-mcp", Secret: "dev-secret-dev-secret", RedirectURIs: []string{f.base + "/oauth/callback"}},
		devidp.DemoIdentities())
	idpSrv := &httptest.Server{Listener: idpLn, Config: &http.Server{Handler: idp}}
	idpSrv.Start()
	t.Cleanup(idpSrv.Close)

	for _, c := range []**models.Company{&f.acme, &f.globex} {
		slug := map[**models.Company]string{&f.acme: "acme", &f.globex: "globex"}[c]
		*c = &models.Company{Slug: slug, Name: strings.ToUpper(slug[:1]) + slug[1:] + " Corp", DefaultJobStatus: models.JobStatusActive}
		if err := st.CreateCompany(t.Context(), *c); err != nil {
			t.Fatal(err)
		}
	}
	// Dana (the demo member) belongs to both; the admin is a platform admin; Fiona is soft-deleted.
	dana, err := st.EnsureUser(t.Context(), devidp.Member.Email, "Dana", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*models.Company{f.acme, f.globex} {
		if err := st.EnsureMembership(t.Context(), c.ID, dana.ID, models.MembershipRoleRecruiter); err != nil {
			t.Fatal(err)
		}
	}
	former, err := st.EnsureUser(t.Context(), devidp.Former.Email, "Fiona", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DB().Delete(former).Error; err != nil {
		t.Fatal(err)
	}
	return f
}

// oauthClient is an MCP client's side of the flow: a registration, PKCE and a headless
// browser (cookie jar) that submits the consent and the identity provider's login form.
type oauthClient struct {
	f            *oauthFixture
	t            *testing.T
	id, secret   string
	redirect     string
	verifier     string
	browser      *http.Client
	resourceSent string
}

func (f *oauthFixture) register(t *testing.T, body string) (*oauthClient, int, map[string]any) {
	t.Helper()
	resp, err := http.Post(f.base+"/oauth/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusCreated {
		return nil, resp.StatusCode, out
	}
	c := &oauthClient{f: f, t: t, id: out["client_id"].(string), resourceSent: f.base + "/mcp"}
	c.secret, _ = out["client_secret"].(string)
	return c, resp.StatusCode, out
}

func (f *oauthFixture) publicClient(t *testing.T, redirect string) *oauthClient {
	t.Helper()
	c, status, out := f.register(t, `{"client_name":"Test Client","redirect_uris":["`+redirect+`"]}`)
	if c == nil {
		t.Fatalf("register = %d %v", status, out)
	}
	return c
}

// authorize runs the browser part of the flow for redirect, signing in as email, and returns
// the query the client's redirect URI received. extra overrides authorisation parameters.
func (c *oauthClient) authorize(redirect, email string, extra ...string) url.Values {
	t := c.t
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c.redirect = redirect
	c.browser = &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	c.verifier = base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("v", 40) + email))
	sum := sha256.Sum256([]byte(c.verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {redirect}, "state": {"st-123"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"resource": {c.f.base + "/mcp"}, "scope": {"mcp:read"}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	resp, body := c.get(c.f.base + "/oauth/authorize?" + q.Encode())
	if resp.StatusCode == http.StatusFound {
		return location(t, resp, redirect)
	}
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET /oauth/authorize = %d %.300s, want the consent page", resp.StatusCode, body)
	}
	if !strings.Contains(body, "Test Client") || !strings.Contains(body, hostOf(redirect)) {
		t.Errorf("consent page does not name the client and the redirect host %s: %.500s", hostOf(redirect), body)
	}
	resp, body = c.post(c.f.base+"/oauth/authorize", url.Values{"id": {m[1]}, "decision": {"allow"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent = %d %.300s, want the identity provider's login page", resp.StatusCode, body)
	}
	m = regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no login form at the identity provider: %.300s", body)
	}
	resp, body = c.post(c.f.issuer+"/login/username", url.Values{"id": {m[1]}, "username": {email}, "password": {devidp.Password}})
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("login = %d %.300s, want a redirect to the client", resp.StatusCode, body)
	}
	return location(t, resp, redirect)
}

func hostOf(raw string) string {
	u, _ := url.Parse(raw)
	return u.Host
}

func location(t *testing.T, resp *http.Response, redirect string) url.Values {
	t.Helper()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), redirect) {
		t.Fatalf("redirected to %q, want %s", resp.Header.Get("Location"), redirect)
	}
	return loc.Query()
}

func (c *oauthClient) get(u string) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.browser.Get(u)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (c *oauthClient) post(u string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.browser.PostForm(u, form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// tokenResp is the token endpoint's answer.
type tokenResp struct {
	Status       int
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
	CacheControl string
}

func (c *oauthClient) tokenRequest(form url.Values) tokenResp {
	c.t.Helper()
	if c.secret == "" {
		form.Set("client_id", c.id)
	}
	req, _ := http.NewRequest(http.MethodPost, c.f.base+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.secret != "" {
		req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out tokenResp
	_ = json.NewDecoder(resp.Body).Decode(&out)
	out.Status, out.CacheControl = resp.StatusCode, resp.Header.Get("Cache-Control")
	return out
}

func (c *oauthClient) exchange(code string, extra ...string) tokenResp {
	c.t.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.redirect},
		"code_verifier": {c.verifier}, "resource": {c.f.base + "/mcp"}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	return c.tokenRequest(form)
}

func (c *oauthClient) refresh(token string, extra ...string) tokenResp {
	c.t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "resource": {c.f.base + "/mcp"}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	return c.tokenRequest(form)
}

// signIn runs the whole flow for email and returns the tokens.
func (c *oauthClient) signIn(redirect, email string) tokenResp {
	c.t.Helper()
	q := c.authorize(redirect, email)
	if q.Get("code") == "" || q.Get("state") != "st-123" || q.Get("iss") != c.f.base {
		c.t.Fatalf("authorization response %v, want code, state st-123 and iss %s", q, c.f.base)
	}
	tok := c.exchange(q.Get("code"))
	if tok.Status != 200 || tok.AccessToken == "" || tok.RefreshToken == "" {
		c.t.Fatalf("token exchange = %+v", tok)
	}
	return tok
}

// session connects an MCP client with the bearer token.
func (f *oauthFixture) session(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: f.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connect with %.12s…: %v", token, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its text and whether it is a tool error.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// postMCP sends tools/list with a bearer token and returns the status and challenge.
func (f *oauthFixture) postMCP(t *testing.T, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

func TestOAuthMetadata(t *testing.T) {
	f := newOAuthFixture(t)
	var as, prm map[string]any
	for path, v := range map[string]*map[string]any{"/.well-known/oauth-authorization-server": &as, "/.well-known/oauth-protected-resource/mcp": &prm} {
		resp, err := http.Get(f.base + path)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(v)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d, %v", path, resp.StatusCode, err)
		}
	}
	str := func(m map[string]any, k string) string { b, _ := json.Marshal(m[k]); return string(b) }
	for k, want := range map[string]string{
		"issuer": `"` + f.base + `"`, "authorization_endpoint": `"` + f.base + `/oauth/authorize"`,
		"token_endpoint": `"` + f.base + `/oauth/token"`, "registration_endpoint": `"` + f.base + `/oauth/register"`,
		"code_challenge_methods_supported":               `["S256"]`,
		"grant_types_supported":                          `["authorization_code","refresh_token"]`,
		"token_endpoint_auth_methods_supported":          `["none","client_secret_post","client_secret_basic"]`,
		"authorization_response_iss_parameter_supported": `true`,
		"client_id_metadata_document_supported":          `true`,
	} {
		if got := str(as, k); got != want {
			t.Errorf("authorization server metadata %s = %s, want %s", k, got, want)
		}
	}
	if got, want := str(prm, "authorization_servers"), `["`+f.base+`"]`; got != want {
		t.Errorf("protected resource authorization_servers = %s, want %s", got, want)
	}
}

// TestOAuthFlow: a public client registers a loopback redirect without port, signs in Dana
// through the identity provider from another port, lists tools, calls a tool in each of her two
// companies, refreshes (the rotated token within the grace window gives the same successor,
// after it revokes the sign-in) and calls again.
func TestOAuthFlow(t *testing.T) {
	f := newOAuthFixture(t)
	c := f.publicClient(t, "http://127.0.0.1/callback")
	tok := c.signIn("http://127.0.0.1:53682/callback", devidp.Member.Email)
	if tok.ExpiresIn != 3600 || tok.CacheControl != "no-store" {
		t.Errorf("token response expires_in %d, Cache-Control %q; want 3600, no-store", tok.ExpiresIn, tok.CacheControl)
	}
	cs := f.session(t, tok.AccessToken)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != len(allTools) {
		t.Fatalf("tools/list = %v, %v", tools, err)
	}
	for _, co := range []*models.Company{f.acme, f.globex} {
		text, isErr := callText(t, cs, "listCompanies", map[string]any{"companyId": co.ID.String()})
		if isErr || !strings.Contains(text, "This call's company: "+co.Name) {
			t.Errorf("listCompanies(companyId of %s) = %q (error %v), want it selected", co.Slug, text, isErr)
		}
		if text, isErr := callText(t, cs, "getCompanyFeatures", map[string]any{"companyId": co.ID.String()}); isErr {
			t.Errorf("getCompanyFeatures(%s) = %q, want the company's features", co.Slug, text)
		}
	}
	if text, _ := callText(t, cs, "listCompanies", nil); !strings.Contains(text, "Acme Corp") || !strings.Contains(text, "Globex Corp") {
		t.Errorf("listCompanies = %q, want both of Dana's companies", text)
	}

	next := c.refresh(tok.RefreshToken)
	if next.Status != 200 || next.RefreshToken == tok.RefreshToken || next.AccessToken == tok.AccessToken {
		t.Fatalf("refresh = %+v, want a new pair", next)
	}
	again := c.refresh(tok.RefreshToken)
	if again.Status != 200 || again.AccessToken != next.AccessToken || again.RefreshToken != next.RefreshToken {
		t.Errorf("rotated token again within the grace window = %+v, want the same successor %+v", again, next)
	}
	if text, isErr := callText(t, f.session(t, next.AccessToken), "getCompanyFeatures", map[string]any{"companyId": f.globex.ID.String()}); isErr {
		t.Errorf("call with the refreshed token = %q", text)
	}
	third := c.refresh(next.RefreshToken)
	if third.Status != 200 {
		t.Fatalf("second rotation = %+v", third)
	}
	if _, err := f.st.SQL().Exec(`UPDATE oauth_tokens SET rotated_at = now() - interval '2 minutes' WHERE rotated_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	late := c.refresh(tok.RefreshToken)
	if late.Status != 400 || late.Error != "invalid_grant" {
		t.Errorf("rotated token after the grace window = %+v, want invalid_grant", late)
	}
	if status, _ := f.postMCP(t, third.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("newest access token after reuse was detected = %d, want 401 (family revoked)", status)
	}
	if r := c.refresh(third.RefreshToken); r.Error != "invalid_grant" {
		t.Errorf("newest refresh token after reuse was detected = %+v, want invalid_grant", r)
	}
}

func TestOAuthCodeRules(t *testing.T) {
	f := newOAuthFixture(t)
	c := f.publicClient(t, "http://localhost:8765/cb")

	q := c.authorize("http://localhost:8765/cb", devidp.Member.Email)
	if r := c.exchange(q.Get("code"), "code_verifier", strings.Repeat("x", 43)); r.Error != "invalid_grant" {
		t.Errorf("wrong PKCE verifier = %+v, want invalid_grant", r)
	}

	q = c.authorize("http://localhost:8765/cb", devidp.Member.Email)
	if r := c.exchange(q.Get("code"), "resource", "https://other.example/mcp"); r.Error != "invalid_target" {
		t.Errorf("token request for another resource = %+v, want invalid_target", r)
	}

	q = c.authorize("http://localhost:8765/cb", devidp.Member.Email)
	if r := c.exchange(q.Get("code"), "redirect_uri", "http://localhost:8765/other"); r.Error != "invalid_grant" {
		t.Errorf("token request with another redirect_uri = %+v, want invalid_grant", r)
	}

	q = c.authorize("http://localhost:8765/cb", devidp.Member.Email)
	first := c.exchange(q.Get("code"))
	if first.Status != 200 {
		t.Fatalf("exchange = %+v", first)
	}
	if r := c.exchange(q.Get("code")); r.Error != "invalid_grant" {
		t.Errorf("replayed code = %+v, want invalid_grant", r)
	}
	if status, _ := f.postMCP(t, first.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("access token of a replayed code = %d, want 401 (grant revoked)", status)
	}
	if r := c.refresh(first.RefreshToken); r.Error != "invalid_grant" {
		t.Errorf("refresh token of a replayed code = %+v, want invalid_grant", r)
	}

	q = c.authorize("http://localhost:8765/cb", devidp.Member.Email, "resource", "https://other.example/mcp")
	if q.Get("error") != "invalid_target" {
		t.Errorf("authorize for another resource = %v, want error invalid_target", q)
	}
	q = c.authorize("http://localhost:8765/cb", devidp.Member.Email, "code_challenge_method", "plain")
	if q.Get("error") != "invalid_request" {
		t.Errorf("authorize with plain PKCE = %v, want invalid_request", q)
	}

	// The consent is only taken from the browser that was shown the page.
	jar, _ := cookiejar.New(nil)
	c.browser = &http.Client{Jar: jar}
	v := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {"http://localhost:8765/cb"}, "code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}}
	_, page := c.get(f.base + "/oauth/authorize?" + v.Encode())
	if m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(page); m != nil {
		resp, err := http.PostForm(f.base+"/oauth/authorize", url.Values{"id": {m[1]}, "decision": {"allow"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("consent from another browser = %d, want 403", resp.StatusCode)
		}
	} else {
		t.Errorf("no consent page: %.200q", page)
	}

	// An unregistered redirect is shown an error page, never redirected to.
	for _, bad := range []string{"http://localhost:8765/evil", "http://127.0.0.1:8765/cb", "https://evil.example/cb"} {
		jar, _ := cookiejar.New(nil)
		c.browser = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		v := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {bad}, "code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}}
		if resp, _ := c.get(f.base + "/oauth/authorize?" + v.Encode()); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("authorize with redirect_uri %s = %d, want 400 without redirect", bad, resp.StatusCode)
		}
	}
}

func TestOAuthSignInRefusals(t *testing.T) {
	f := newOAuthFixture(t)
	c := f.publicClient(t, "http://127.0.0.1/cb")
	for _, id := range []devidp.Identity{devidp.Former, devidp.Stranger} {
		q := c.authorize("http://127.0.0.1:4000/cb", id.Email)
		if q.Get("error") != "access_denied" || q.Get("error_description") != "No active account is associated with this email" || q.Get("code") != "" {
			t.Errorf("sign-in as %s = %v, want access_denied with the spec's message", id.Email, q)
		}
	}
	if q := c.authorize("http://127.0.0.1:4000/cb", devidp.Unverified.Email); q.Get("error") != "access_denied" {
		t.Errorf("sign-in with an unverified e-mail = %v, want access_denied", q)
	}
}

// TestOAuthAccessRules: expired token, removed membership, foreign company, the identity
// provider's own token, and API keys beside OAuth.
func TestOAuthAccessRules(t *testing.T) {
	f := newOAuthFixture(t)
	c := f.publicClient(t, "http://127.0.0.1/cb")
	tok := c.signIn("http://127.0.0.1:5000/cb", devidp.Member.Email)
	cs := f.session(t, tok.AccessToken)
	if _, isErr := callText(t, cs, "getCompanyFeatures", map[string]any{"companyId": f.globex.ID.String()}); isErr {
		t.Fatal("Dana cannot read Globex before the membership is removed")
	}
	if _, err := f.st.SQL().Exec(`DELETE FROM company_memberships WHERE company_id = $1`, f.globex.ID); err != nil {
		t.Fatal(err)
	}
	text, isErr := callText(t, cs, "getCompanyFeatures", map[string]any{"companyId": f.globex.ID.String()})
	if !isErr || !strings.Contains(text, "companyId is not in your accessible companies") {
		t.Errorf("call for a company whose membership was removed = %q (error %v), want the spec's message", text, isErr)
	}
	if _, isErr := callText(t, cs, "getCompanyFeatures", nil); isErr {
		t.Error("call for the remaining company refused")
	}

	if _, err := f.st.SQL().Exec(`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access'`); err != nil {
		t.Fatal(err)
	}
	status, challenge := f.postMCP(t, tok.AccessToken)
	want := `Bearer realm="` + f.base + `", resource_metadata="` + f.base + `/.well-known/oauth-protected-resource", scope="mcp:read", error="invalid_token"`
	if status != http.StatusUnauthorized || !strings.HasPrefix(challenge, want) {
		t.Errorf("expired access token = %d %q, want 401 and %q", status, challenge, want)
	}

	// The identity provider's own access token is not ours.
	idpToken := idpAccessToken(t, f)
	if status, _ := f.postMCP(t, idpToken); status != http.StatusUnauthorized {
		t.Errorf("identity provider's token at /mcp = %d, want 401", status)
	}
}

// idpAccessToken signs in at the identity provider directly, as a client of its own would, and
// returns its access token.
func idpAccessToken(t *testing.T, f *oauthFixture) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	cb := f.base + "/oauth/callback"
	browser := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), cb) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	q := url.Values{"response_type": {"code"}, "client_id": {"recruitd-mcp"}, "redirect_uri": {cb}, "scope": {"openid email"}, "state": {"s"}}
	resp, err := browser.Get(f.issuer + "/auth?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("identity provider login page: %.300s", b)
	}
	resp, err = browser.PostForm(f.issuer+"/login/username", url.Values{"id": {m[1]}, "username": {devidp.Member.Email}, "password": {devidp.Password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {cb}}
	req, _ := http.NewRequest(http.MethodPost, f.issuer+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("recruitd-mcp", "dev-secret-dev-secret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("identity provider token = %d, %v", resp.StatusCode, err)
	}
	return tok.AccessToken
}

// TestOAuthTenancy: a token of a user of Acme alone cannot read Globex through any tool.
func TestOAuthTenancy(t *testing.T) {
	f := newOAuthFixture(t)
	if _, err := f.st.SQL().Exec(`DELETE FROM company_memberships WHERE company_id = $1`, f.globex.ID); err != nil {
		t.Fatal(err)
	}
	c := f.publicClient(t, "http://127.0.0.1/cb")
	cs := f.session(t, c.signIn("http://127.0.0.1:5001/cb", devidp.Member.Email).AccessToken)
	args := map[string]map[string]any{
		"searchCandidates": {"query": "nurse"}, "searchDocumentation": {"query": "api key"}, "getJobDetails": {"jobName": "nurse"},
		"getCandidatePipelineStats": {"metric": "byStatus"}, "getPositionStats": {"metric": "openPositions"},
		"getInterviewStats": {"metric": "completedInterviews"}, "getCandidateReport": {"name": "Smith"},
		"getCheatingDetectionStats": {"metric": "flaggedCandidates"}, "getFraudVerificationStats": {"metric": "flaggedCandidates"},
		"getIdentityVerificationStats": {"metric": "statusBreakdown"}, "getCandidateVerification": {"name": "Smith"},
	}
	for _, name := range allTools {
		a := map[string]any{"companyId": f.globex.ID.String()}
		for k, v := range args[name] {
			a[k] = v
		}
		text, isErr := callText(t, cs, name, a)
		if name == "searchDocumentation" && !isErr {
			continue // product documentation is no company's data
		}
		if !isErr || !strings.Contains(text, "companyId is not in your accessible companies") {
			t.Errorf("%s(companyId of another company) = %.200q (error %v), want the spec's refusal", name, text, isErr)
		}
	}
	if text, _ := callText(t, cs, "listCompanies", nil); strings.Contains(text, "Globex") {
		t.Errorf("listCompanies = %q, want Acme only", text)
	}
}

func TestOAuthRegistration(t *testing.T) {
	f := newOAuthFixture(t, "OAUTH_REGISTRATION_LIMIT", "0.001", "OAUTH_REGISTRATION_BURST", "8")
	for _, bad := range []string{"javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "http://evil.example/cb", "https://x.example/cb#frag", "vbscript:x"} {
		if _, status, out := f.register(t, `{"redirect_uris":["`+bad+`"]}`); status != 400 || out["error"] != "invalid_redirect_uri" {
			t.Errorf("register %s = %d %v, want 400 invalid_redirect_uri", bad, status, out)
		}
	}
	c, status, out := f.register(t, `{"client_name":"Test Client","redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`)
	if c == nil || c.secret == "" || out["client_secret_expires_at"] != float64(0) {
		t.Fatalf("confidential registration = %d %v", status, out)
	}
	var stored []byte
	if err := f.st.SQL().QueryRow(`SELECT secret_hash FROM oauth_clients WHERE id = $1`, c.id).Scan(&stored); err != nil || strings.Contains(string(stored), c.secret) || len(stored) != 32 {
		t.Errorf("stored secret = %x, %v; want a 32-byte hash", stored, err)
	}
	wrong := *c
	wrong.secret = "rmcp_cs_wrong"
	if r := wrong.refresh("rmcp_rt_x"); r.Status != 401 || r.Error != "invalid_client" {
		t.Errorf("wrong client secret = %+v, want 401 invalid_client", r)
	}
	if _, status, _ := f.register(t, `{"redirect_uris":["http://127.0.0.1/cb"]}`); status != 201 {
		t.Errorf("eighth registration from one address = %d, want 201", status)
	}
	if _, status, _ := f.register(t, `{"redirect_uris":["http://127.0.0.1/cb"]}`); status != 429 {
		t.Errorf("ninth registration from one address = %d, want 429", status)
	}
}
