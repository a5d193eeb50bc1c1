package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

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

// TestValidKeyAfterOthersFailures: the failed-authentication budget of an address slows down
// failing credentials only. After 25 wrong keys from one address (a partner's egress serving many
// customers), another company's valid key and a valid support token from the same address are
// served; a missing key is 401, not 429; the wrong keys go on getting 429.
func TestValidKeyAfterOthersFailures(t *testing.T) {
	f := newFixture(t)
	token := f.supportToken(t)
	statuses := map[int]int{}
	last := 0
	for range 25 {
		resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {"rk_wrong_wrong_wrong_wrong_wrong"}})
		resp.Body.Close()
		statuses[resp.StatusCode]++
		last = resp.StatusCode
	}
	if statuses[http.StatusUnauthorized] < 20 || last != http.StatusTooManyRequests {
		t.Fatalf("25 wrong keys = %v, last %d; want the budget of 20 spent, then 429", statuses, last)
	}
	resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.otherKy}})
	if body := decode[struct{ Company struct{ Slug string } }](t, resp); resp.StatusCode != http.StatusOK || body.Company.Slug != "globex" {
		t.Errorf("another company's valid key from the same address = %d %v, want 200", resp.StatusCode, body)
	}
	f.supportCall(t, token, http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusOK)
	resp = f.get(t, "/v1/api/company", nil)
	if body := decode[httpapi.ErrorBody](t, resp); resp.StatusCode != http.StatusUnauthorized || body.Code != "MISSING_API_KEY" {
		t.Errorf("no key from the same address = %d %+v, want 401 MISSING_API_KEY", resp.StatusCode, body)
	}
	resp = f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {"rk_wrong_wrong_wrong_wrong_wrong"}})
	if body := decode[httpapi.ErrorBody](t, resp); resp.StatusCode != http.StatusTooManyRequests || body.Code != "AUTH_RATE_LIMITED" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("another wrong key = %d %+v, want 429 AUTH_RATE_LIMITED with Retry-After", resp.StatusCode, body)
	}
	f.supportCall(t, "rsp_wrong_wrong_wrong_wrong_wrong", http.MethodGet, "/v1/support/hrsuite/deliveries", nil, http.StatusTooManyRequests)
}

// TestClientRequestID: a client's X-Request-ID is kept when it is well formed (1-64 characters
// of A-Z a-z 0-9 . _ : -) and replaced by a new UUID otherwise.
func TestClientRequestID(t *testing.T) {
	f := newFixture(t)
	for id, kept := range map[string]bool{
		"req-123":                              true,
		"01HZX3K5Q.trace_9:span-2":             true,
		"7c9e6679-7425-40de-944b-e07fc1f90ae7": true,
		strings.Repeat("a", 64):                true,
		strings.Repeat("a", 65):                false,
		"two words":                            false,
		"<script>alert(1)</script>":            false,
		"caf\xc3\xa9":                          false,
		"id\xff":                               false,
		"a/b":                                  false,
	} {
		resp := f.get(t, "/healthz", http.Header{"X-Request-Id": {id}})
		got := resp.Header.Get("X-Request-ID")
		if kept && got != id {
			t.Errorf("X-Request-ID %q answered %q, want it kept", id, got)
		}
		if _, err := uuid.Parse(got); !kept && (got == id || err != nil) {
			t.Errorf("X-Request-ID %q answered %q, want a new UUID", id, got)
		}
	}
}
