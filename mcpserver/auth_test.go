package mcpserver

import (
	"net/http"
	"strings"
	"testing"
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
