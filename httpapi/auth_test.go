package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/recruitd/recruitd/httpapi"
)

// TestCredentialThatIsNotText: an API key or support token holding bytes that are not UTF-8 is an
// invalid credential like any other, 401 and one failed authentication of the address, on the
// company routes and on /v1/support; never a 500.
func TestCredentialThatIsNotText(t *testing.T) {
	f := newFixture(t, withEnv("AUTH_FAILURE_LIMIT=0.001", "AUTH_FAILURE_BURST=3"))
	for _, key := range []string{"\xff\xfe" + f.acmeKey[2:], f.acmeKey[:11] + "\xc3" + f.acmeKey[12:]} {
		resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {key}})
		if body := decode[httpapi.ErrorBody](t, resp); resp.StatusCode != http.StatusUnauthorized || body.Code != "INVALID_API_KEY" {
			t.Errorf("key %q = %d %+v, want 401 INVALID_API_KEY", key[:14], resp.StatusCode, body)
		}
	}
	token := f.supportToken(t)
	if body := f.supportCall(t, "\xff"+token[1:], http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusUnauthorized); body["code"] != "INVALID_SUPPORT_TOKEN" {
		t.Errorf("support token that is not UTF-8 = %v, want INVALID_SUPPORT_TOKEN", body)
	}
	// The three failures spent the address's budget of 3.
	resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {"rk_wrong_wrong_wrong_wrong_wrong"}})
	if body := decode[httpapi.ErrorBody](t, resp); resp.StatusCode != http.StatusTooManyRequests || body.Code != "AUTH_RATE_LIMITED" {
		t.Errorf("a fourth bad key = %d %+v, want 429 AUTH_RATE_LIMITED", resp.StatusCode, body)
	}
}
