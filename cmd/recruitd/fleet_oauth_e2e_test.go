package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
)

// TestFleetOAuth runs two `recruitd mcp` replicas behind one public base URL: a client registered
// and signed in through one replica gets its token from the other, the token works on both, and
// its refresh token rotates once across them (the old one, replayed on the other replica within
// the retry grace, gets the same successor, not a second rotation).
func TestFleetOAuth(t *testing.T) {
	db := pgtest.NewEmpty(t)
	portA, portB := freePort(t), freePort(t)
	front := "http://127.0.0.1:" + portA // what a front would publish; replica A answers there
	replicaB := "http://127.0.0.1:" + portB
	idpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + idpLn.Addr().String()
	idp := &httptest.Server{Listener: idpLn, Config: &http.Server{Handler: devidp.New(issuer,
		devidp.Client{ID: "recruitd-mcp", Secret: "e2e-secret-e2e-secret", RedirectURIs: []string{front + "/oauth/callback"}}, devidp.DemoIdentities())}}
	idp.Start()
	t.Cleanup(idp.Close)
	env := []string{
		"DATABASE_URL=" + db.URL, "MCP_BASE_URL=" + front, "MCP_METRICS_ADDR=127.0.0.1:0",
		"RECRUITD_ENCRYPTION_KEY=" + fleetEncryptionKey, "RECRUITD_DEMO_API_KEY=",
		"OIDC_ISSUER=" + issuer, "OIDC_CLIENT_ID=recruitd-mcp", "OIDC_CLIENT_SECRET=e2e-secret-e2e-secret",
	}
	runCmd(t, env, "migrate")
	runCmd(t, env, "seed", "demo", "--companies", "1", "--candidates", "10")
	st, err := store.Open(t.Context(), db.URL, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := devidp.EnsureDemoUsers(t.Context(), st, seed.DemoSlug); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, port := range []string{portA, portB} {
		p := start(t, append(env, "MCP_ADDR=127.0.0.1:"+port), "mcp")
		p.await(t, `listening.*listener=mcp`, time.Minute)
	}

	clientID, code, verifier := oauthCode(t, front, "fleet-state")
	token := func(base string, form url.Values) (int, map[string]any) {
		t.Helper()
		form.Set("client_id", clientID)
		r := call(t, "POST", base+"/oauth/token", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode())
		var out map[string]any
		json.Unmarshal([]byte(r.body), &out)
		return r.status, out
	}
	status, first := token(replicaB, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {oauthRedirect},
		"code_verifier": {verifier}, "resource": {front + "/mcp"}})
	access, _ := first["access_token"].(string)
	refresh, _ := first["refresh_token"].(string)
	if status != 200 || access == "" || refresh == "" {
		t.Fatalf("code exchange on replica B = %d %v", status, first)
	}
	list := func(base, bearer string) response {
		return call(t, "POST", base+"/mcp", map[string]string{"Authorization": "Bearer " + bearer, "Content-Type": "application/json",
			"Accept": "application/json, text/event-stream"}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"listCompanies","arguments":{}}}`)
	}
	for _, base := range []string{front, replicaB} {
		if r := list(base, access); r.status != 200 || !strings.Contains(r.body, "companies") || strings.Contains(r.body, `"isError":true`) {
			t.Errorf("listCompanies on %s with the token issued by replica B = %d %.300s", base, r.status, r.body)
		}
	}
	status, second := token(front, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	access2, _ := second["access_token"].(string)
	refresh2, _ := second["refresh_token"].(string)
	if status != 200 || access2 == "" || refresh2 == "" || refresh2 == refresh {
		t.Fatalf("refresh on replica A = %d %v, want a rotated pair", status, second)
	}
	// A retry of the refresh (the answer lost on the way) on the other replica, within
	// oauth.RefreshGrace, gets the same successor: the token rotated once across both replicas.
	if status, again := token(replicaB, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}); status != 200 ||
		again["refresh_token"] != refresh2 || again["access_token"] != access2 {
		t.Errorf("the used refresh token replayed on replica B = %d, refresh token %s the successor, access token %s; want the same pair again",
			status, same(again["refresh_token"], refresh2), same(again["access_token"], access2))
	}
	if r := list(replicaB, access2); r.status != 200 || strings.Contains(r.body, `"isError":true`) {
		t.Errorf("the refreshed token on replica B = %d %.300s", r.status, r.body)
	}
}

// oauthRedirect is the redirect URI of the MCP client the fleet tests register.
const oauthRedirect = "http://127.0.0.1:43119/callback"

// oauthCode registers a public MCP client through front and signs devidp.Member in as that client
// does (authorization code with PKCE, the resource front/mcp); it returns the client id, the code
// and its verifier.
func oauthCode(t *testing.T, front, state string) (clientID, code, verifier string) {
	t.Helper()
	r := call(t, "POST", front+"/oauth/register", map[string]string{"Content-Type": "application/json"},
		`{"client_name":"fleet","redirect_uris":["`+oauthRedirect+`"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`)
	var client struct {
		ClientID string `json:"client_id"`
	}
	if r.status != 201 || json.Unmarshal([]byte(r.body), &client) != nil || client.ClientID == "" {
		t.Fatalf("OAuth registration through %s = %d %s", front, r.status, r.body)
	}
	verifier = oauth2.GenerateVerifier()
	auth := front + "/oauth/authorize?" + url.Values{
		"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {oauthRedirect}, "state": {state},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "resource": {front + "/mcp"},
	}.Encode()
	q, err := devidp.SignIn(t.Context(), auth, oauthRedirect, devidp.Member.Email, devidp.Password)
	if err != nil || q.Get("code") == "" {
		t.Fatalf("sign-in through %s: %v %v", front, err, q)
	}
	return client.ClientID, q.Get("code"), verifier
}

func same(got any, want string) string {
	if got == want {
		return "is"
	}
	return "is not"
}
