package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// devHRSuite is the HR-suite walkthrough of the README against a running `recruitd dev`: post the
// example delivery with the demo key, find Ada's invitation in dev's outbox, then do what support
// does with the CLI (list, dry run, replay) and over HTTP with a support token.
func devHRSuite(t *testing.T, p *proc, base, key, temporalAddr string) {
	t.Helper()
	body, err := os.ReadFile("../../docs/examples/hrsuite-delivery.json")
	if err != nil {
		t.Fatal(err)
	}
	r := call(t, "POST", base+"/webhook/hrsuite", map[string]string{"x-api-key": key, "Content-Type": "application/json"}, string(body))
	id := regexp.MustCompile(`"deliveryId":"([0-9a-f-]{36})"`).FindStringSubmatch(r.body)
	if r.status != 200 || id == nil || !strings.Contains(r.body, `"rows":3`) {
		t.Fatalf("POST /webhook/hrsuite = %d %s", r.status, r.body)
	}
	p.await(t, `outbox · sms → \+14155552671[\s\S]*Licensed Practical Nurse`, 30*time.Second)
	// Her link opens the interview of the job imported from the HR suite, not "not ready".
	link := p.await(t, `outbox · sms → \+14155552671[^\n]*\n(?:[^\n]*\n){0,8}?[^\n]*?(http://\S+/interview/[A-Za-z0-9_-]+)`, 10*time.Second)
	if r := call(t, "GET", link, nil, ""); r.status != 200 || !strings.Contains(r.body, "Licensed Practical Nurse") || strings.Contains(r.body, "not ready") {
		t.Errorf("Ada's link %s = %d, want the interview's start:\n%.600s", link, r.status, r.body)
	}

	var port string
	for _, kv := range p.cmd.Env {
		if v, ok := strings.CutPrefix(kv, "DEV_POSTGRES_PORT="); ok {
			port = v
		}
	}
	env := []string{"DATABASE_URL=postgres://recruitd@127.0.0.1:" + port + "/recruitd?sslmode=disable", "TEMPORAL_ADDRESS=" + temporalAddr}
	deadline := time.Now().Add(20 * time.Second)
	for out := ""; !strings.Contains(out, "accepted=2 unknown_job=1"); out = runCmd(t, env, "hrsuite", "deliveries", "list", "--company", "demo") {
		if time.Now().After(deadline) {
			t.Fatalf("hrsuite deliveries list = %q, want the delivery with accepted=2 unknown_job=1", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if out := runCmd(t, env, "hrsuite", "replay", "--company", "demo", "--dry-run"); !strings.Contains(out, "1 deliveries, 3 rows, 2 applications (1 not processed yet) would be reprocessed") {
		t.Errorf("hrsuite replay --dry-run = %q", out)
	}
	if out := runCmd(t, env, "hrsuite", "replay", "--delivery", id[1], "--as", "e2e"); !strings.Contains(out, "1 of 1 deliveries") {
		t.Errorf("hrsuite replay = %q, want its progress to the end", out)
	}
	if n := strings.Count(p.output(), "outbox · sms → +14155552671"); n != 1 {
		t.Errorf("Ada's invitation printed %d times after a replay, want once", n)
	}

	runCmd(t, env, "users", "add", "ops@example.com", "--admin")
	token := regexp.MustCompile(`(?m)^(rsp_\S+)$`).FindStringSubmatch(runCmd(t, env, "support", "token", "create", "--user", "ops@example.com"))
	if token == nil {
		t.Fatal("support token create printed no token")
	}
	r = call(t, "GET", base+"/v1/support/hrsuite/deliveries?company=demo", map[string]string{"Authorization": "Bearer " + token[1]}, "")
	if r.status != 200 || !strings.Contains(r.body, id[1]) {
		t.Errorf("support list = %d %.300s", r.status, r.body)
	}
	if r := call(t, "GET", base+"/v1/support/hrsuite/deliveries", map[string]string{"Authorization": "Bearer " + key}, ""); r.status != 401 {
		t.Errorf("support list with the company key = %d, want 401", r.status)
	}
}
