package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// devAssessmentLink is the assessment-link walkthrough of docs/assessment-links.md against a
// running `recruitd dev`: give the invitation's application an ATS id with the CLI, push a link
// with it, and find the message with the link in dev's outbox output within seconds.
func devAssessmentLink(t *testing.T, p *proc, base, key, sessionID string) {
	t.Helper()
	port := ""
	for _, kv := range p.cmd.Env {
		if v, ok := strings.CutPrefix(kv, "DEV_POSTGRES_PORT="); ok {
			port = v
		}
	}
	if port == "" {
		t.Fatal("dev runs without DEV_POSTGRES_PORT: cannot reach its database")
	}
	out := runCmd(t, []string{"DATABASE_URL=postgres://recruitd@127.0.0.1:" + port + "/recruitd?sslmode=disable"},
		"applications", "set-external-id", "--company", "demo", "--session", sessionID, "--external-id", "e2e-ad-58213")
	if !strings.Contains(out, "external id e2e-ad-58213") {
		t.Fatalf("applications set-external-id printed %q", out)
	}
	link := "https://assess.example.com/t/e2e-8f3k2"
	begin := time.Now()
	r := call(t, "POST", base+"/v2/api/assessment-links", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"applicationId":"e2e-ad-58213","assessmentUrl":"`+link+`","orderId":"ORD-e2e"}`)
	if r.status != 200 || r.body != `{"success":true}` {
		t.Fatalf("push assessment link = %d %s", r.status, r.body)
	}
	p.await(t, `outbox · email → lin@example.com[\s\S]*`+regexp.QuoteMeta(link), 10*time.Second)
	t.Logf("assessment link pushed and printed by dev's outbox in %s", time.Since(begin).Round(time.Millisecond))
}
