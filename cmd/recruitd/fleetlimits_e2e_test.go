package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/temporaltest"
)

// TestLimitsHoldAcrossReplicas runs two api and two mcp processes of the real binary on one
// database, the requests alternating between the replicas: a per-key request limit with a burst
// of N allows N in total, not 2N, on the REST API and on the tool server; so do the per-address
// budget of failed authentications, the candidate page's per-address limit and the OAuth
// registration limit; the refused get 429 from both replicas.
func TestLimitsHoldAcrossReplicas(t *testing.T) {
	db := pgtest.NewEmpty(t)
	tmp := temporaltest.New(t)
	env := []string{
		"DATABASE_URL=" + db.URL, "TEMPORAL_ADDRESS=" + tmp.Address, "TEMPORAL_NAMESPACE=" + tmp.Namespace,
		"TEMPORAL_TASK_QUEUE=" + temporaltest.TaskQueue(t), "LOG_FORMAT=json", "MESSAGING_MODE=outbox",
		"RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
		"API_ADDR=127.0.0.1:0", "MCP_ADDR=127.0.0.1:0",
		"API_METRICS_ADDR=127.0.0.1:0", "MCP_METRICS_ADDR=127.0.0.1:0", "WORKER_METRICS_ADDR=127.0.0.1:0",
		// Refills slow enough that the test's few seconds bring back at most one token.
		"API_RATE_LIMIT=0.05", "API_RATE_BURST=6",
		"AUTH_FAILURE_LIMIT=0.05", "AUTH_FAILURE_BURST=4",
		"INTERVIEW_ADDR_RATE_LIMIT=0.05", "INTERVIEW_ADDR_RATE_BURST=5",
		"OAUTH_REGISTRATION_LIMIT=0.05", "OAUTH_REGISTRATION_BURST=3",
	}
	runCmd(t, env, "migrate")
	runCmd(t, env, "company", "create", "--slug", "acme", "--name", "Acme Corp")
	key := strings.TrimSpace(runCmd(t, env, "apikey", "create", "--company", "acme", "--name", "fleet", "--scope", "mcp:read"))
	other := strings.TrimSpace(runCmd(t, env, "apikey", "create", "--company", "acme", "--name", "fleet-rest"))

	var apis, mcps []string
	for range 2 {
		p := start(t, env, "api")
		apis = append(apis, "http://"+p.await(t, `"listener":"api","addr":"([^"]+)"`, time.Minute))
	}
	for range 2 {
		p := start(t, env, "mcp")
		mcps = append(mcps, "http://"+p.await(t, `"listener":"mcp","addr":"([^"]+)"`, time.Minute))
	}

	// count sends n requests alternating between the replicas and counts the statuses, and the
	// 429s per replica.
	count := func(n int, bases []string, send func(base string) response) (map[int]int, [2]int) {
		t.Helper()
		got := map[int]int{}
		var refused [2]int
		for i := range n {
			r := send(bases[i%2])
			got[r.status]++
			if r.status == http.StatusTooManyRequests {
				refused[i%2]++
				if r.header.Get("Retry-After") == "" {
					t.Errorf("429 from %s without Retry-After", bases[i%2])
				}
			}
		}
		return got, refused
	}
	check := func(what string, got map[int]int, refused [2]int, okStatus, n, burst int) {
		t.Helper()
		// One token may come back while the test runs (0.05/s).
		if got[okStatus] < burst || got[okStatus] > burst+1 || got[http.StatusTooManyRequests] != n-got[okStatus] {
			t.Errorf("%s: %d requests over two replicas with a burst of %d = %v, want %d answered %d in total (not %d) and the rest 429",
				what, n, burst, got, burst, okStatus, 2*burst)
		}
		if refused[0] == 0 || refused[1] == 0 {
			t.Errorf("%s: 429s per replica = %v, want both replicas refusing", what, refused)
		}
	}

	got, refused := count(16, apis, func(base string) response {
		return call(t, "GET", base+"/v1/api/company", map[string]string{"X-API-Key": other}, "")
	})
	check("REST requests of one key", got, refused, http.StatusOK, 16, 6)

	got, refused = count(12, apis, func(base string) response {
		return call(t, "GET", base+"/v1/api/company", map[string]string{"X-API-Key": "rk_wrong_wrong_wrong_wrong_wrong"}, "")
	})
	check("failed authentications from one address", got, refused, http.StatusUnauthorized, 12, 4)

	got, refused = count(12, apis, func(base string) response {
		return call(t, "GET", base+"/interview/no-such-link-"+fmt.Sprint(time.Now().UnixNano()), nil, "")
	})
	check("candidate-page requests from one address", got, refused, http.StatusNotFound, 12, 5)

	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	got, refused = count(16, mcps, func(base string) response {
		return call(t, "POST", base+"/mcp", map[string]string{"Authorization": "Bearer " + key,
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}, list)
	})
	check("tool-server requests of one key", got, refused, http.StatusOK, 16, 6)

	got, refused = count(9, mcps, func(base string) response {
		return call(t, "POST", base+"/oauth/register", map[string]string{"Content-Type": "application/json"}, `{"redirect_uris":["http://127.0.0.1/cb"]}`)
	})
	check("OAuth registrations from one address", got, refused, http.StatusCreated, 9, 3)
}
