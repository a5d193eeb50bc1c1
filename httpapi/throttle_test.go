package httpapi_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestThrottling: one key over its rate gets 429 with Retry-After while another key of the same
// company is served at once; an address that keeps failing authentication gets 429 for its
// failing keys until its budget refills, and its good keys are served.
func TestThrottling(t *testing.T) {
	f := newFixture(t, withEnv("API_RATE_LIMIT=5", "API_RATE_BURST=5", "AUTH_FAILURE_LIMIT=0.5", "AUTH_FAILURE_BURST=3"))

	// A bounded burst of 60 requests from one key, and a steady trickle from another.
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	retryAfter := ""
	for range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.acmeKey}})
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			statuses[resp.StatusCode]++
			if resp.StatusCode == http.StatusTooManyRequests {
				retryAfter = resp.Header.Get("Retry-After")
			}
		}()
	}
	var slowest time.Duration
	for range 5 {
		begin := time.Now()
		resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.otherKy}})
		resp.Body.Close()
		slowest = max(slowest, time.Since(begin))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the other key's request = %d during the first key's burst, want 200", resp.StatusCode)
		}
	}
	wg.Wait()
	if statuses[http.StatusOK] < 5 || statuses[http.StatusOK] > 7 || statuses[http.StatusTooManyRequests] < 50 {
		t.Errorf("60 requests of one key with a burst of 5 at 5/s: %v, want about 5 answered and the rest 429", statuses)
	}
	if n, err := strconv.Atoi(retryAfter); err != nil || n < 1 {
		t.Errorf("429 Retry-After = %q, want whole seconds", retryAfter)
	}
	if slowest > 500*time.Millisecond {
		t.Errorf("the other key waited up to %s, want it served at once", slowest)
	}

	// Failed authentications from one address: three 401s, then 429 for a bad key, while a good
	// key from the same address is served.
	for i := range 3 {
		resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {"rk_wrong_wrong_wrong_wrong_wrong"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("bad key #%d = %d, want 401", i+1, resp.StatusCode)
		}
	}
	resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {"rk_wrong_wrong_wrong_wrong_wrong"}})
	body := decode[map[string]any](t, resp)
	if resp.StatusCode != http.StatusTooManyRequests || body["code"] != "AUTH_RATE_LIMITED" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a bad key after 3 failures from this address = %d %v (Retry-After %q), want 429 AUTH_RATE_LIMITED", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	_, fresh := f.company(t, "initech", "Initech") // a key with its whole request budget
	if resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {fresh}}); resp.StatusCode != http.StatusOK {
		t.Errorf("a good key after 3 failures from this address = %d, want 200", resp.StatusCode)
	}
}
