package mcpserver

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/devidp"
)

// TestOAuthRedirectURIOmitted: a client with one registered redirect URI may leave redirect_uri
// out of the authorization request, and then out of the token request too (RFC 6749 4.1.3); if
// it sends one there, it must be that URI. A request that named it must repeat it.
func TestOAuthRedirectURIOmitted(t *testing.T) {
	f := newOAuthFixture(t)
	const cb = "http://localhost:8765/cb"
	c := f.publicClient(t, cb)
	exchange := func(code string, redirect *string) tokenResp {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {c.verifier}, "resource": {f.base + "/mcp"}}
		if redirect != nil {
			form.Set("redirect_uri", *redirect)
		}
		return c.tokenRequest(form)
	}
	str := func(s string) *string { return &s }

	q := c.authorize(cb, devidp.Member.Email, "redirect_uri", "")
	if q.Get("code") == "" {
		t.Fatalf("authorization without redirect_uri = %v, want a code at the registered URI", q)
	}
	if r := exchange(q.Get("code"), nil); r.Status != 200 || r.AccessToken == "" {
		t.Errorf("token request without redirect_uri after an authorization without one = %+v, want tokens", r)
	}

	q = c.authorize(cb, devidp.Member.Email, "redirect_uri", "")
	if r := exchange(q.Get("code"), str(cb)); r.Status != 200 || r.AccessToken == "" {
		t.Errorf("token request with the registered redirect_uri after an authorization without one = %+v, want tokens", r)
	}

	q = c.authorize(cb, devidp.Member.Email, "redirect_uri", "")
	if r := exchange(q.Get("code"), str("http://localhost:8765/other")); r.Status != 400 || r.Error != "invalid_grant" {
		t.Errorf("token request with another redirect_uri after an authorization without one = %+v, want invalid_grant", r)
	}

	q = c.authorize(cb, devidp.Member.Email)
	if r := exchange(q.Get("code"), nil); r.Status != 400 || r.Error != "invalid_request" {
		t.Errorf("token request without redirect_uri after an authorization with one = %+v, want invalid_request", r)
	}
}

// TestOAuthUnknownScopeRefused: an authorization request naming a scope the server does not
// know is sent back with invalid_scope (RFC 6749 4.1.2.1) and no code; mcp:read, with or without
// offline_access, or no scope at all, signs in.
func TestOAuthUnknownScopeRefused(t *testing.T) {
	f := newOAuthFixture(t)
	const cb = "http://127.0.0.1:4200/cb"
	c := f.publicClient(t, "http://127.0.0.1/cb")
	for _, scope := range []string{"mcp:read admin", "mcp:write", "openid", "mcp:read\u202e"} {
		q := c.authorize(cb, devidp.Member.Email, "scope", scope)
		if q.Get("error") != "invalid_scope" || q.Get("code") != "" || q.Get("state") != "st-123" {
			t.Errorf("authorize with scope %q = %v, want invalid_scope with the state and no code", scope, q)
		}
	}
	for _, scope := range []string{"mcp:read", "mcp:read offline_access", ""} {
		if q := c.authorize(cb, devidp.Member.Email, "scope", scope); q.Get("code") == "" {
			t.Errorf("authorize with scope %q = %v, want a code", scope, q)
		}
	}
}

// TestOAuthConsentPageShowsNoInvisibleCharacters: a client name with direction overrides,
// isolates and zero-width characters is shown on the consent page without them, so it cannot
// display as another name.
func TestOAuthConsentPageShowsNoInvisibleCharacters(t *testing.T) {
	f := newOAuthFixture(t)
	c, status, out := f.register(t, `{"client_name":"Test\u202Etneilc\u200B \u2066Client\u2069\ufeff\u200d","redirect_uris":["http://127.0.0.1/cb"]}`)
	if c == nil {
		t.Fatalf("register = %d %v", status, out)
	}
	jar, _ := cookiejar.New(nil)
	c.browser = &http.Client{Jar: jar}
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {"http://127.0.0.1:4300/cb"},
		"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}}
	resp, body := c.get(f.base + "/oauth/authorize?" + q.Encode())
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Allow Testtneilc Client to read") {
		t.Fatalf("consent page = %d %.600s, want the name without its invisible characters", resp.StatusCode, body)
	}
	if i := strings.IndexAny(body, "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200B\u200C\u200D\u200E\u200F\uFEFF"); i >= 0 {
		t.Errorf("consent page keeps an invisible or direction-changing character: %q", body[max(0, i-20):min(len(body), i+20)])
	}
}
