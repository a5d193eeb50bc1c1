package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/workflows"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary the run built (75 MB a run, left in the temporary directory
// otherwise).
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// binary builds cmd/recruitd once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "recruitd-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "recruitd")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is a running recruitd with its output captured.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary(t), args...), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// await waits for re to match the output and returns the first submatch (or the match).
func (p *proc) await(t *testing.T, re string, timeout time.Duration) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(p.output()); m != nil {
			return m[len(m)-1]
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("recruitd exited (%v) before printing %q:\n%s", err, re, p.output())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("recruitd did not print %q within %s:\n%s", re, timeout, p.output())
	return ""
}

// interrupt sends SIGINT, as Ctrl-C does, and waits for a clean exit.
func (p *proc) interrupt(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("recruitd exited with %v after SIGINT:\n%s", err, p.output())
		}
	case <-time.After(45 * time.Second):
		t.Fatalf("recruitd still running 45s after SIGINT:\n%s", p.output())
	}
}

// runCmd runs a one-shot subcommand and returns its standard output.
func runCmd(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("recruitd %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

type response struct {
	status int
	header http.Header
	body   string
}

func call(t *testing.T, method, url string, header map[string]string, body string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, string(b)}
}

// rawCall writes raw on a new connection to addr, as it is, and reads one response.
func rawCall(t *testing.T, addr, raw string) response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("response to %q: %v", raw, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, string(b)}
}

func freePort(t *testing.T) string {
	t.Helper()
	p, err := devstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(p)
}

// processesUsing lists live processes whose command line mentions path.
func processesUsing(path string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(path)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie has exited; only its parent's reaping is pending
		}
		out = append(out, e.Name()+": "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	return out
}

// TestDevEndToEnd runs `recruitd dev` as `make dev` does: it creates its own Postgres cluster and
// Temporal dev server, prints the four lines, serves the demo tenant and the demo ATS company
// (devATS), stops everything on Ctrl-C, and a second start reuses the state.
func TestDevEndToEnd(t *testing.T) {
	dir, err := devstack.ScratchDir("recruitd-e2e-dev-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	api, mcp, metrics, temporalPort := freePort(t), freePort(t), freePort(t), freePort(t)
	env := []string{
		"DEV_DIR=" + dir, "DEV_POSTGRES_PORT=" + freePort(t), "DEV_TEMPORAL_PORT=" + temporalPort, "DEV_TEMPORAL_UI_PORT=" + freePort(t),
		"API_ADDR=127.0.0.1:" + api, "MCP_ADDR=127.0.0.1:" + mcp, "MCP_BASE_URL=http://127.0.0.1:" + mcp,
		"API_METRICS_ADDR=127.0.0.1:" + metrics,
		"DATABASE_URL=", "TEMPORAL_ADDRESS=", "RECRUITD_DEMO_API_KEY=", "TEST_DATABASE_URL=",
	}

	p := start(t, env, "dev")
	key := p.await(t, `(?m)^demo API key: (\S+)$`, 3*time.Minute)
	out := p.output()
	restURL := regexp.MustCompile(`REST API:\s+(\S+)`).FindStringSubmatch(out)
	mcpURL := regexp.MustCompile(`MCP server:\s+(\S+)`).FindStringSubmatch(out)
	uiURL := regexp.MustCompile(`Temporal UI:\s+(\S+)`).FindStringSubmatch(out)
	if restURL == nil || mcpURL == nil || uiURL == nil {
		t.Fatalf("dev did not print the REST, MCP and Temporal UI URLs:\n%s", out)
	}
	if restURL[1] != "http://127.0.0.1:"+api || mcpURL[1] != "http://127.0.0.1:"+mcp+"/mcp" {
		t.Errorf("printed URLs %s, %s do not match API_ADDR and MCP_ADDR", restURL[1], mcpURL[1])
	}

	r := call(t, "GET", restURL[1]+"/v1/api/company", map[string]string{"X-API-Key": key}, "")
	if r.status != 200 || !strings.Contains(r.body, `"slug":"demo"`) {
		t.Errorf("company with the demo key = %d %s", r.status, r.body)
	}
	r = call(t, "GET", restURL[1]+"/v1/api/company", nil, "")
	if r.status != 401 || !strings.Contains(r.body, `"success":false`) || !strings.Contains(r.body, `"code":"MISSING_API_KEY"`) {
		t.Errorf("company without a key = %d %s, want 401 with the spec body", r.status, r.body)
	}
	if r := call(t, "GET", uiURL[1], nil, ""); r.status != 200 {
		t.Errorf("Temporal UI %s = %d", uiURL[1], r.status)
	}
	for _, base := range []string{restURL[1], "http://127.0.0.1:" + mcp} {
		if r := call(t, "GET", base+"/readyz", nil, ""); r.status != 200 || !strings.Contains(r.body, `"status":"ok"`) {
			t.Errorf("%s/readyz = %d %s", base, r.status, r.body)
		}
		if r := call(t, "GET", base+"/metrics", nil, ""); r.status != 404 {
			t.Errorf("%s/metrics = %d, want 404: metrics are private", base, r.status)
		}
	}
	// dev prints where its metrics are: its private listener, API_METRICS_ADDR.
	metricsURL := regexp.MustCompile(`Metrics:\s+(\S+)`).FindStringSubmatch(out)
	if metricsURL == nil || metricsURL[1] != "http://127.0.0.1:"+metrics+"/metrics" {
		t.Errorf("dev printed metrics at %v, want http://127.0.0.1:%s/metrics", metricsURL, metrics)
	} else if r := call(t, "GET", metricsURL[1], nil, ""); r.status != 200 || !strings.Contains(r.body, `server="api"`) {
		t.Errorf("%s = %d %.200s, want the process's metrics", metricsURL[1], r.status, r.body)
	}

	// The demo tenant has data for the tool server.
	r = call(t, "POST", mcpURL[1], map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getInterviewStats","arguments":{"metric":"completedInterviews"}}}`)
	if r.status != 200 || strings.Contains(r.body, `"isError":true`) || !regexp.MustCompile(`"completedInterviews":[1-9]`).MatchString(r.body) {
		t.Errorf("getInterviewStats on the demo tenant = %d %.400s", r.status, r.body)
	}

	devIdentityWebhook(t, out)
	devTwilioSimulator(t, out)
	devJobAndInvite(t, p, restURL[1], key, "127.0.0.1:"+temporalPort)
	devATS(t, p, restURL[1], key, "127.0.0.1:"+temporalPort)

	running := strings.Join(processesUsing(dir), "\n")
	if !strings.Contains(running, "postgres") || !strings.Contains(running, "temporal") {
		t.Fatalf("cannot see dev's postgres and temporal processes, so the leftover check below would prove nothing:\n%s", running)
	}
	p.interrupt(t)
	if left := processesUsing(dir); len(left) > 0 {
		t.Fatalf("processes left behind after Ctrl-C:\n%s", strings.Join(left, "\n"))
	}

	// A second start reuses the cluster, the Temporal database and the demo key.
	p = start(t, env, "dev")
	if again := p.await(t, `(?m)^demo API key: (\S+)$`, time.Minute); again != key {
		t.Errorf("second start printed key %s, want the first one %s", again, key)
	}
	if !strings.Contains(p.output(), "company_created=false") {
		t.Errorf("second start re-created the demo tenant:\n%s", p.output())
	}
	r = call(t, "GET", restURL[1]+"/v1/api/company", map[string]string{"X-API-Key": key}, "")
	if r.status != 200 {
		t.Errorf("company after restart = %d %s", r.status, r.body)
	}
	p.interrupt(t)
	if left := processesUsing(dir); len(left) > 0 {
		t.Fatalf("processes left behind after the second Ctrl-C:\n%s", strings.Join(left, "\n"))
	}
}

// devJobAndInvite does what a developer tries first with curl: create a job, see it generated in
// the listing, invite a candidate and find the invitation, link included, in dev's outbox
// output, and the runs in Temporal under their search attributes.
func devJobAndInvite(t *testing.T, p *proc, base, key, temporalAddr string) {
	t.Helper()
	h := map[string]string{"X-API-Key": key, "Content-Type": "application/json"}
	r := call(t, "POST", base+"/v1/api/createJob", h, `{"externalJobId":"e2e-7","jobDescription":"We are hiring a Warehouse Associate to pick, pack and ship orders. Forklift certification preferred."}`)
	if r.status != 200 || !strings.Contains(r.body, `"payload":"demo-e2e-7"`) {
		t.Fatalf("createJob = %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.body, `"status":"ACTIVE"`) {
		if time.Now().After(deadline) {
			t.Fatalf("job not ACTIVE in the listing after 30s: %s", r.body)
		}
		time.Sleep(100 * time.Millisecond)
		r = call(t, "GET", base+"/v1/api/interviewers?status=ACTIVE&limit=200", h, "")
		if !strings.Contains(r.body, "demo-e2e-7") {
			r.body = ""
		}
	}
	r = call(t, "POST", base+"/v1/api/inviteCandidate", h, `{"interviewerId":"demo-e2e-7","candidate":{"firstName":"Lin","email":"lin@example.com"}}`)
	var inv struct{ InterviewLink, SessionID string }
	if err := json.Unmarshal([]byte(r.body), &inv); r.status != 200 || err != nil || inv.InterviewLink == "" {
		t.Fatalf("inviteCandidate = %d %s", r.status, r.body)
	}
	p.await(t, `outbox · email → lin@example.com[\s\S]*`+regexp.QuoteMeta(inv.InterviewLink), 30*time.Second)
	devAssessmentLink(t, p, base, key, inv.SessionID)
	devHRSuite(t, p, base, key, temporalAddr)

	tc, err := client.Dial(client.Options{HostPort: temporalAddr, Logger: devstack.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	for _, q := range []string{
		`CompanySlug = "demo" AND InterviewerId = "demo-e2e-7" AND WorkflowType = "JobGeneration" AND Outcome = "ACTIVE"`,
		`CompanySlug = "demo" AND WorkflowTrigger = "manual_invite" AND Outcome = "completed"`,
	} {
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, err := tc.ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{Query: q})
			if err == nil && len(resp.Executions) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no workflow matches %s (%v)", q, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// TestProductionProcesses runs api, mcp and worker as separate processes against shared services,
// as docker-compose.yml does, and drives every operator subcommand.
func TestProductionProcesses(t *testing.T) {
	db := pgtest.NewEmpty(t)
	tmp := temporaltest.New(t)
	queue := temporaltest.TaskQueue(t)
	env := []string{
		"DATABASE_URL=" + db.URL, "TEMPORAL_ADDRESS=" + tmp.Address, "TEMPORAL_NAMESPACE=" + tmp.Namespace,
		"TEMPORAL_TASK_QUEUE=" + queue, "LOG_FORMAT=json",
		"RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
		"API_ADDR=127.0.0.1:0", "MCP_ADDR=127.0.0.1:0",
		"API_METRICS_ADDR=127.0.0.1:0", "MCP_METRICS_ADDR=127.0.0.1:0", "WORKER_METRICS_ADDR=127.0.0.1:0",
	}

	// A worker (or api) without MESSAGING_MODE refuses to start rather than print messages.
	for _, which := range []string{"worker", "api"} {
		cmd := exec.Command(binary(t), which)
		cmd.Env = append(os.Environ(), append(slices.Clone(env), "MESSAGING_MODE=")...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "MESSAGING_MODE is not set") {
			t.Errorf("recruitd %s without MESSAGING_MODE = %v:\n%s\nwant an exit naming MESSAGING_MODE", which, err, out)
		}
	}
	env = append(env, "MESSAGING_MODE=outbox")

	files, _ := filepath.Glob("../../migrations/*.sql")
	if len(files) == 0 {
		t.Fatal("no migrations found")
	}
	latest := filepath.Base(files[len(files)-1])
	if out := runCmd(t, env, "migrate"); !strings.Contains(out, fmt.Sprintf("applied %d migration(s)", len(files))) {
		t.Errorf("migrate printed %q, want %d migrations applied", out, len(files))
	}
	if out := runCmd(t, env, "migrate", "status"); strings.Count(out, "applied") != len(files) || !strings.Contains(out, latest) {
		t.Errorf("migrate status printed %q", out)
	}
	out := runCmd(t, env, "seed", "demo")
	demoKey := regexp.MustCompile(`demo API key: (rk_\S+)`).FindStringSubmatch(out)
	if demoKey == nil {
		t.Fatalf("seed demo printed no key:\n%s", out)
	}
	if out := runCmd(t, env, "seed", "demo"); !strings.Contains(out, "(exists") || !strings.Contains(out, "unchanged") {
		t.Errorf("second seed demo printed %q, want the tenant kept and no new key", out)
	}
	runCmd(t, env, "company", "create", "--slug", "acme", "--name", "Acme Corp", "--ats-type", "ATS-B",
		"--ats-credential", "baseUrl=https://ats.example.com", "--ats-credential", "apiKey=s3cret-ats")
	if out := runCmd(t, env, "company", "list"); !strings.Contains(out, "acme") || !strings.Contains(out, "ATS-B") || !strings.Contains(out, "demo") {
		t.Errorf("company list printed %q", out)
	}
	// Outside development a partner's callback URL must be https.
	add := exec.Command(binary(t), "partners", "add", "--company", "acme", "--name", "plain", "--callback-url", "http://partner.example.com/cb")
	add.Env = append(os.Environ(), append(slices.Clone(env), "DEV_POSTGRES_PORT=1")...) // never make dev's database
	if out, err := add.CombinedOutput(); err == nil || !strings.Contains(string(out), "want an absolute https URL") {
		t.Errorf("partners add with an http callback URL = %v:\n%s\nwant refused", err, out)
	}
	partnerOut := runCmd(t, env, "partners", "add", "--company", "acme", "--name", "board", "--callback-url", "https://partner.example.com/cb")
	partnerSecrets := regexp.MustCompile(`(?m)(?:x-service-callback-secret|signing secret \(Standard Webhooks\)): (\S+)$`).FindAllStringSubmatch(partnerOut, -1)
	if len(partnerSecrets) != 2 {
		t.Errorf("partners add (https) printed %q, want both secrets", partnerOut)
	}
	runCmd(t, env, "apikey", "create", "--company", "acme", "--name", "board-key", "--partner", "board")
	if out := runCmd(t, env, "apikey", "list", "--company", "acme"); !regexp.MustCompile(`board-key\s+\S+\s+partner-applications\s`).MatchString(out) {
		t.Errorf("apikey list printed %q, want the partner-bound key with only partner-applications", out)
	}
	var sealed []byte
	if err := db.SQL.QueryRow(`SELECT ats_credentials FROM companies WHERE slug = 'acme'`).Scan(&sealed); err != nil || len(sealed) == 0 || bytes.Contains(sealed, []byte("s3cret-ats")) {
		t.Errorf("ATS credentials are not stored encrypted: %q, %v", sealed, err)
	}
	wf := filepath.Join(t.TempDir(), "invite.json")
	if err := os.WriteFile(wf, []byte(`{"enabled":true,"steps":[{"type":"invite","invite":{"channels":["sms","email"],"mediumType":"PHONE"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := runCmd(t, env, "workflows", "set", "--company", "acme", "--trigger", "manual_invite", "--file", wf); !strings.Contains(out, "version 1") {
		t.Errorf("workflows set printed %q", out)
	}
	if out := runCmd(t, env, "workflows", "get", "--company", "acme", "--trigger", "manual_invite"); !strings.Contains(out, `"PHONE"`) || !strings.Contains(out, "version 1") {
		t.Errorf("workflows get printed %q", out)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"enabled":true,"steps":[{"type":"wait","wait":{"duration":"forever"}}]}`), 0o600)
	cmd := exec.Command(binary(t), "workflows", "set", "--company", "acme", "--trigger", "manual_invite", "--file", bad)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "steps[0].wait.duration") {
		t.Errorf("workflows set with an invalid definition: %v %s", err, out)
	}

	acmeKey := strings.TrimSpace(runCmd(t, env, "apikey", "create", "--company", "acme", "--name", "e2e"))
	if !strings.HasPrefix(acmeKey, "rk_") {
		t.Fatalf("apikey create printed %q", acmeKey)
	}
	var stored int
	if err := db.SQL.QueryRow(`SELECT count(*) FROM api_keys WHERE key_hash = sha256($1::bytea)`, acmeKey).Scan(&stored); err != nil || stored != 1 {
		t.Errorf("the key's hash is not stored: %d, %v", stored, err)
	}
	var clear int
	if err := db.SQL.QueryRow(`SELECT count(*) FROM api_keys WHERE encode(key_hash, 'escape') LIKE '%' || $1 || '%'`, acmeKey[12:]).Scan(&clear); err != nil || clear != 0 {
		t.Errorf("the key is stored in clear: %d, %v", clear, err)
	}

	api := start(t, env, "api")
	apiAddr := api.await(t, `"listener":"api","addr":"([^"]+)"`, time.Minute)
	mcp := start(t, env, "mcp")
	mcpAddr := mcp.await(t, `"listener":"mcp","addr":"([^"]+)"`, time.Minute)
	worker := start(t, env, "worker")
	// Every process serves its metrics on a private listener of its own.
	const metricsListener = `"listener":"metrics","addr":"([^"]+)"`
	apiMetricsAddr := api.await(t, metricsListener, time.Minute)
	mcpMetricsAddr := mcp.await(t, metricsListener, time.Minute)
	workerAddr := worker.await(t, metricsListener, time.Minute)
	worker.await(t, `"msg":"worker started"`, time.Minute)
	for _, s := range []string{api.output(), mcp.output(), worker.output()} {
		if strings.Contains(s, "s3cret") || strings.Contains(s, "MDEyMzQ1Njc4OWFiY2Rl") {
			t.Errorf("a process logged a secret:\n%s", s)
		}
	}

	base := "http://" + apiAddr
	r := call(t, "GET", base+"/v1/api/company", map[string]string{"x-api-key": acmeKey}, "")
	if r.status != 200 || !strings.Contains(r.body, `"slug":"acme"`) {
		t.Errorf("company with acme's key = %d %s", r.status, r.body)
	}
	r = call(t, "GET", base+"/v1/api/company", map[string]string{"X-API-Key": demoKey[1]}, "")
	if r.status != 200 || !strings.Contains(r.body, `"slug":"demo"`) || strings.Contains(r.body, "acme") {
		t.Errorf("company with the demo key = %d %s", r.status, r.body)
	}
	if out := runCmd(t, env, "apikey", "list", "--company", "acme"); !strings.Contains(out, acmeKey[:12]) || strings.Contains(out, acmeKey) {
		t.Errorf("apikey list printed %q, want the prefix and never the key", out)
	}
	runCmd(t, env, "apikey", "revoke", "--company", "acme", acmeKey[:12])
	r = call(t, "GET", base+"/v1/api/company", map[string]string{"X-API-Key": acmeKey}, "")
	if r.status != 401 || !strings.Contains(r.body, "revoked") {
		t.Errorf("company with a revoked key = %d %s, want 401", r.status, r.body)
	}

	for _, probe := range []string{base, "http://" + mcpAddr, "http://" + apiMetricsAddr, "http://" + mcpMetricsAddr, "http://" + workerAddr} {
		if r := call(t, "GET", probe+"/readyz", nil, ""); r.status != 200 {
			t.Errorf("%s/readyz = %d %s", probe, r.status, r.body)
		}
		if r := call(t, "GET", probe+"/healthz", nil, ""); r.status != 200 {
			t.Errorf("%s/healthz = %d", probe, r.status)
		}
	}

	mcpHeaders := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	r = call(t, "POST", "http://"+mcpAddr+"/mcp", mcpHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	// MCP_BASE_URL is unset: the challenge names where the server listens (MCP_ADDR).
	if r.status != 401 || !strings.Contains(r.header.Get("WWW-Authenticate"), `realm="http://`+mcpAddr+`"`) ||
		!strings.Contains(r.header.Get("WWW-Authenticate"), `resource_metadata="http://`+mcpAddr+`/.well-known/oauth-protected-resource"`) {
		t.Errorf("unauthenticated MCP call = %d, WWW-Authenticate %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	// A head net/http refuses before any handler gets each listener's JSON error, not Go's text.
	r = rawCall(t, mcpAddr, "POST /mcp HTTP/1.1\r\nHost: "+mcpAddr+"\r\nAuthorization: Bearer rk_\x01\r\n\r\n")
	if r.status != 400 || !strings.Contains(r.body, `"error":"invalid_request"`) || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Errorf("mcp listener, control character in Authorization = %d %q %s, want 400 invalid_request in JSON", r.status, r.header.Get("Content-Type"), r.body)
	}
	r = rawCall(t, apiAddr, "GET /v1/api/company HTTP/1.1\r\nHost: "+apiAddr+"\r\nX-API-Key: rk_\x01\r\n\r\n")
	if r.status != 401 || !strings.Contains(r.body, `"code":"INVALID_API_KEY"`) {
		t.Errorf("api listener, control character in X-API-Key = %d %s, want 401 INVALID_API_KEY", r.status, r.body)
	}
	mcpHeaders["Authorization"] = "Bearer " + demoKey[1]
	r = call(t, "POST", "http://"+mcpAddr+"/mcp", mcpHeaders, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"listCompanies","arguments":{}}}`)
	if r.status != 200 || !strings.Contains(r.body, "Demo Staffing Co") || strings.Contains(r.body, "Acme") {
		t.Errorf("listCompanies = %d %s", r.status, r.body)
	}

	// Support's rollup commands: the seeded and the created company are exact.
	if out := runCmd(t, env, "rollups", "check"); !strings.Contains(out, "demo: exact in") || !strings.Contains(out, "acme: exact in") {
		t.Errorf("rollups check printed %q", out)
	}
	if out := runCmd(t, env, "rollups", "rebuild", "--company", "demo"); !strings.Contains(out, "[1/1] demo: rebuilt in") {
		t.Errorf("rollups rebuild printed %q", out)
	}

	// The worker runs workflows against the database.
	tc := tmp.Client(t)
	wr, err := tc.ExecuteWorkflow(t.Context(), client.StartWorkflowOptions{ID: kinds.Ping.ID("demo", t.Name()), TaskQueue: queue}, workflows.Ping, demoCompanyID(t, db))
	if err != nil {
		t.Fatal(err)
	}
	var res activities.PingResult
	if err := wr.Get(t.Context(), &res); err != nil || res.CompanySlug != "demo" {
		t.Errorf("Ping = %+v, %v; want the demo slug", res, err)
	}

	// The public listeners never serve /metrics, not even to a loopback client (a TLS front on
	// the same host is one); the private ones do.
	for _, public := range []string{base, "http://" + mcpAddr} {
		if r := call(t, "GET", public+"/metrics", nil, ""); r.status != 404 || strings.Contains(r.body, "go_goroutines") {
			t.Errorf("%s/metrics = %d %.80s, want 404", public, r.status, r.body)
		}
	}
	metrics := call(t, "GET", "http://"+apiMetricsAddr+"/metrics", nil, "").body
	if !strings.Contains(metrics, `recruitd_http_request_duration_seconds_count{code="401",method="GET",route="/v1/api/company",server="api"}`) {
		t.Error("the api process's /metrics lacks the request histogram")
	}
	if metrics := call(t, "GET", "http://"+mcpMetricsAddr+"/metrics", nil, "").body; !strings.Contains(metrics, `server="mcp"`) {
		t.Error("the mcp process's /metrics lacks the tool server's requests")
	}
	workerMetrics := call(t, "GET", "http://"+workerAddr+"/metrics", nil, "").body
	if !strings.Contains(workerMetrics, `temporal_activity_execution_latency_seconds_count{activity_type="Ping"`) {
		t.Error("worker /metrics lacks the Temporal SDK's activity metrics")
	}

	for _, p := range []*proc{api, mcp, worker} {
		p.interrupt(t)
	}
	// No secret this test created or configured appears in any process's log.
	secrets := map[string]string{"acme's API key": acmeKey, "the demo key": demoKey[1], "an ATS credential": "s3cret-ats",
		"the encryption key": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="}
	for i, m := range partnerSecrets {
		secrets[fmt.Sprintf("partner secret %d", i+1)] = m[1]
	}
	for _, p := range []*proc{api, mcp, worker} {
		for what, secret := range secrets {
			if strings.Contains(p.output(), secret) {
				t.Errorf("recruitd %s logged %s", p.cmd.Args[1], what)
			}
		}
	}
	if out := runCmd(t, env, "migrate", "down"); !strings.Contains(out, "rolled back "+latest) {
		t.Errorf("migrate down printed %q, want %s rolled back", out, latest)
	}
	if out := runCmd(t, env, "migrate", "status"); strings.Count(out, "pending") != 1 {
		t.Errorf("migrate status after down printed %q, want one pending migration", out)
	}

	var logLines int
	sc := bufio.NewScanner(strings.NewReader(api.output()))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "configuration" {
			logLines++
		}
	}
	if logLines != 1 {
		t.Errorf("api logged its configuration %d times, want once", logLines)
	}
}

func demoCompanyID(t *testing.T, db *pgtest.DB) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := db.SQL.QueryRow(`SELECT id FROM companies WHERE slug = 'demo'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
