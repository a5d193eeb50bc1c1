package mcpserver

import (
	"net/url"
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
