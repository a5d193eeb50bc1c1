package mcpserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/devidp"
)

// TestTokenThatIsNotText: a bearer token holding bytes that are not UTF-8 is an invalid token,
// 401 with the challenge and one failed authentication of the address; never a 500.
func TestTokenThatIsNotText(t *testing.T) {
	f := newFixture(t, "AUTH_FAILURE_LIMIT", "0.001", "AUTH_FAILURE_BURST", "2")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, token := range []string{"\xff\xfe" + f.acmeKey[2:], f.acmeKey[:11] + "\xc3" + f.acmeKey[12:]} {
		if status, body := f.post(t, list, "Authorization", "Bearer "+token); status != http.StatusUnauthorized || !strings.Contains(body, "invalid or revoked token") {
			t.Errorf("token %q = %d %s, want 401", token[:14], status, body)
		}
	}
	if status, body := f.post(t, list, "Authorization", "Bearer rk_wrong_wrong_wrong_wrong"); status != http.StatusTooManyRequests {
		t.Errorf("a third bad token after two that are not text = %d %s, want 429 (the budget of 2 spent)", status, body)
	}
}

// TestValidCredentialsAfterOthersFailures: the failed-authentication budget of an address slows
// down failing tokens only. After 25 wrong tokens from one address (an AI vendor's egress), a
// valid API key of another company and a valid OAuth access token from the same address are
// served; a request without a token (the first step of OAuth discovery) gets the 401 challenge;
// wrong tokens go on getting 429.
func TestValidCredentialsAfterOthersFailures(t *testing.T) {
	f := newOAuthFixture(t)
	globexKey, _ := apikey.Generate()
	if _, err := f.st.CreateAPIKey(t.Context(), f.globex.ID, "t", globexKey); err != nil {
		t.Fatal(err)
	}
	tok := f.publicClient(t, "http://127.0.0.1/cb").signIn("http://127.0.0.1:5000/cb", devidp.Member.Email)
	statuses := map[int]int{}
	last := 0
	for range 25 {
		last, _ = f.postMCP(t, "rk_wrong_wrong_wrong_wrong")
		statuses[last]++
	}
	if statuses[http.StatusUnauthorized] < 20 || last != http.StatusTooManyRequests {
		t.Fatalf("25 wrong tokens = %v, last %d; want the budget of 20 spent, then 429", statuses, last)
	}
	if status, _ := f.postMCP(t, globexKey); status != http.StatusOK {
		t.Errorf("another company's valid API key from the same address = %d, want 200", status)
	}
	if status, _ := f.postMCP(t, tok.AccessToken); status != http.StatusOK {
		t.Errorf("a valid OAuth access token from the same address = %d, want 200", status)
	}
	if status, challenge := f.postMCP(t, ""); status != http.StatusUnauthorized || !strings.Contains(challenge, "resource_metadata=") {
		t.Errorf("no token from the same address = %d %q, want 401 with the challenge", status, challenge)
	}
	if status, _ := f.postMCP(t, "rmcp_at_"+strings.Repeat("x", 43)); status != http.StatusTooManyRequests {
		t.Errorf("an unknown access token = %d, want 429", status)
	}
}

// TestExpiredAccessTokenIsNoFailure: an expired OAuth access token (clients refresh hourly)
// answers 401 invalid_token, also from an address whose budget is spent, and spends nothing.
func TestExpiredAccessTokenIsNoFailure(t *testing.T) {
	f := newOAuthFixture(t, "AUTH_FAILURE_LIMIT", "0.001", "AUTH_FAILURE_BURST", "2")
	tok := f.publicClient(t, "http://127.0.0.1/cb").signIn("http://127.0.0.1:5000/cb", devidp.Member.Email)
	if _, err := f.st.SQL().Exec(`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access'`); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if status, challenge := f.postMCP(t, tok.AccessToken); status != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) {
			t.Fatalf("expired token #%d = %d %q, want 401 invalid_token", i+1, status, challenge)
		}
	}
	for i := range 2 {
		if status, _ := f.postMCP(t, "rk_wrong_wrong_wrong_wrong"); status != http.StatusUnauthorized {
			t.Fatalf("wrong token #%d after 5 expired ones = %d, want 401: the expired ones spent the budget", i+1, status)
		}
	}
	if status, _ := f.postMCP(t, "rk_wrong_wrong_wrong_wrong"); status != http.StatusTooManyRequests {
		t.Errorf("third wrong token = %d, want 429", status)
	}
	if status, _ := f.postMCP(t, tok.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("expired token from an address over its budget = %d, want 401 (refresh it)", status)
	}
}
