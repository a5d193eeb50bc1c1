package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestMCPTypeScriptClient drives `recruitd mcp`, the production process, with the official MCP
// TypeScript client (e2e/mcp-client.mjs): the 401 challenge, initialize, tools/list with the 18
// tools and their schemas, and a successful tools/call of every tool on seeded demo data.
func TestMCPTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; the MCP e2e test needs Node.js 20+ (see README)")
	}
	root, _ := filepath.Abs("../..")
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatal("node_modules lacks @modelcontextprotocol/sdk: run `npm ci` in the repository root (.ci/run does)")
	}

	db := pgtest.NewEmpty(t)
	port := freePort(t)
	base := "http://127.0.0.1:" + port
	env := []string{
		"DATABASE_URL=" + db.URL, "MCP_ADDR=127.0.0.1:" + port, "MCP_BASE_URL=" + base, "MCP_METRICS_ADDR=127.0.0.1:0",
		"RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "RECRUITD_DEMO_API_KEY=",
	}
	runCmd(t, env, "migrate")
	out := runCmd(t, env, "seed", "demo", "--companies", "2", "--candidates", "400")
	key := regexp.MustCompile(`demo API key: (rk_\S+)`).FindStringSubmatch(out)
	if key == nil {
		t.Fatalf("seed demo printed no key:\n%s", out)
	}

	p := start(t, env, "mcp")
	p.await(t, `listening.*listener=mcp`, time.Minute)

	cmd := exec.Command(node, filepath.Join(root, "e2e", "mcp-client.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCP_URL="+base+"/mcp", "MCP_API_KEY="+key[1], "MCP_BASE_URL="+base)
	res, err := cmd.CombinedOutput()
	t.Logf("mcp-client.mjs:\n%s", res)
	if err != nil || !strings.Contains(string(res), "\nPASS") {
		t.Errorf("the TypeScript client checks failed (%v)", err)
	}
	checkJobWindow(t, db, base+"/mcp", key[1])
	p.interrupt(t)
	if strings.Contains(p.output(), "level=ERROR") {
		t.Errorf("recruitd mcp logged errors:\n%s", p.output())
	}
}

// checkJobWindow calls getInterviewStats byInterviewer through the mcp process over a window of
// the seeded demo company's sessions that starts on a Monday, where every job's lower bound is its
// weekly row of that Monday (migration 00071, written by the seed's load), and compares every
// job's sessions and completions with the sessions' own.
func checkJobWindow(t *testing.T, db *pgtest.DB, mcpURL, key string) {
	t.Helper()
	// About the middle third of the sessions' invitations, from the Monday after its start.
	var first, last time.Time
	if err := db.SQL.QueryRow(`SELECT min(invited_at), max(invited_at) FROM interview_sessions WHERE company_id = $1`,
		demoCompanyID(t, db)).Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	since, until := first.Add(last.Sub(first)/3).UTC(), first.Add(2*last.Sub(first)/3).UTC()
	since = since.AddDate(0, 0, (8-int(since.Weekday()))%7)
	headers := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Authorization": "Bearer " + key}
	r := call(t, "POST", mcpURL, headers, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"getInterviewStats",
		"arguments":{"metric":"byInterviewer","sinceDate":%q,"untilDate":%q}}}`, since.Format(time.DateOnly), until.Format(time.DateOnly)))
	var answer struct {
		Result struct {
			Structured struct {
				ByInterviewer []struct {
					JobID               string
					Sessions, Completed int64
				}
			} `json:"structuredContent"`
		}
	}
	body := r.body
	if i := strings.Index(body, "data: "); i >= 0 { // an event stream of one message
		body = strings.TrimSpace(strings.SplitN(body[i+len("data: "):], "\n", 2)[0])
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil || r.status != 200 {
		t.Fatalf("byInterviewer = %d %s (%v)", r.status, r.body, err)
	}
	want := pgtest.CountsByKey(t, db.SQL, `SELECT job_id, count(*), count(*) FILTER (WHERE status = 'COMPLETED') FROM interview_sessions
		WHERE company_id = $1 AND invited_at >= $2::date AND invited_at < $3::date + 1 GROUP BY 1`,
		demoCompanyID(t, db), since.Format(time.DateOnly), until.Format(time.DateOnly))
	if got := answer.Result.Structured.ByInterviewer; len(got) != min(len(want), 100) || len(want) < 2 {
		t.Errorf("byInterviewer from %s to %s has %d jobs, the sessions %d (want at least 2)", since.Format(time.DateOnly), until.Format(time.DateOnly), len(got), len(want))
	}
	for _, j := range answer.Result.Structured.ByInterviewer {
		if got := [2]int64{j.Sessions, j.Completed}; got != want[j.JobID] {
			t.Errorf("byInterviewer job %s = %v, the sessions %v", j.JobID, got, want[j.JobID])
		}
	}
}
