package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pgTree is the postmaster and every process it started (its backends and helpers).
func pgTree(t *testing.T, pid int) []int {
	t.Helper()
	children := map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// hungAnswer is one request sent while Postgres hung.
type hungAnswer struct {
	what       string
	status     int
	code       string
	retryAfter string
	took       time.Duration
}

// TestHungPostgres stops the postmaster and all its backends (SIGSTOP) for 30 s under a steady
// load of API calls (an authenticated read, invitations) and candidate-page requests (the page,
// answers): every request is answered within 5 s with 503 and Retry-After, the page with its
// HTML 503 page. After SIGCONT every refused request retried succeeds, the invitations stored
// equal the 2xx answers, and the answer refused during the hang is taken. Then Postgres is
// restarted: while it is down the page answers 503, never 500, and afterwards 200.
func TestHungPostgres(t *testing.T) {
	ctx := t.Context()
	pg, startPostgres := privatePostgres(t, "recruitd-pg-hung-")
	dbURL := pg.URL("recruitd")

	f := newFixture(t, withDatabase(dbURL), withEnv("INTERVIEW_RATE_BURST=1000"), withProductionBounds())
	c, sessionID := f.invite(t, f.acmeKey, "iv-hung")
	turn := turnOf(t, c.post(t, "consent", nil))
	job, err := f.st.JobByExternalID(ctx, f.acme.ID, "iv-hung")
	if err != nil {
		t.Fatalf("the job of iv-hung: %v", err)
	}
	interviewer := job.InterviewerID

	var (
		mu      sync.Mutex
		answers []hungAnswer
		invited = map[string]int{} // e-mail -> status
	)
	send := func(what, method, path, key, contentType, body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, method, f.srv.URL+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 60 * time.Second}
		begin := time.Now()
		resp, err := client.Do(req)
		took := time.Since(begin)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return 0, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e struct{ Code string }
		_ = json.Unmarshal(b, &e)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && resp.StatusCode == http.StatusServiceUnavailable {
			e.Code = "page"
			if !strings.Contains(string(b), "briefly unavailable") {
				t.Errorf("%s: the 503 page does not say the service is briefly unavailable", what)
			}
		}
		mu.Lock()
		answers = append(answers, hungAnswer{what: what, status: resp.StatusCode, code: e.Code, retryAfter: resp.Header.Get("Retry-After"), took: took})
		mu.Unlock()
		return resp.StatusCode, string(b)
	}
	invite := func(email string) int {
		body := fmt.Sprintf(`{"interviewerId":%q,"candidate":{"firstName":"Hung","email":%q}}`, interviewer, email)
		status, _ := send("inviteCandidate", http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, "application/json", body)
		mu.Lock()
		invited[email] = status
		mu.Unlock()
		return status
	}
	answerForm := url.Values{"turn": {turn}, "answer": {goodAnswer}}.Encode()

	procs := pgTree(t, pg.PID())
	signal := func(sig syscall.Signal) {
		for _, p := range procs {
			_ = syscall.Kill(p, sig)
		}
	}
	t.Cleanup(func() { signal(syscall.SIGCONT) })
	signal(syscall.SIGSTOP)
	hangStart := time.Now()
	var wg sync.WaitGroup
	n := 0
	for time.Since(hangStart) < 30*time.Second {
		n++
		i := n
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 4 {
			case 0:
				send("GET /v1/api/company", http.MethodGet, "/v1/api/company", f.acmeKey, "", "")
			case 1:
				invite(fmt.Sprintf("hung%d@example.com", i))
			case 2:
				send("GET the page", http.MethodGet, c.path, "", "", "")
			default:
				send("POST an answer", http.MethodPost, c.path+"/answer", "", "application/x-www-form-urlencoded", answerForm)
			}
		}()
		time.Sleep(500 * time.Millisecond)
	}
	wg.Wait()
	signal(syscall.SIGCONT)
	t.Logf("Postgres hung for %s", time.Since(hangStart).Round(time.Millisecond))

	byWhat := map[string]map[int]int{}
	var slowest time.Duration
	for _, a := range answers {
		if byWhat[a.what] == nil {
			byWhat[a.what] = map[int]int{}
		}
		byWhat[a.what][a.status]++
		slowest = max(slowest, a.took)
		if a.took > 5*time.Second {
			t.Errorf("%s answered %d after %s, want within 5s", a.what, a.status, a.took)
		}
		if a.status != http.StatusServiceUnavailable || a.retryAfter == "" {
			t.Errorf("%s answered %d %s (Retry-After %q) while Postgres hung, want 503 with Retry-After", a.what, a.status, a.code, a.retryAfter)
		}
		if a.status == http.StatusServiceUnavailable && a.code != "SERVICE_UNAVAILABLE" && a.code != "page" {
			t.Errorf("%s: 503 with code %q, want SERVICE_UNAVAILABLE (or the page)", a.what, a.code)
		}
	}
	t.Logf("%d requests while Postgres hung: %v; slowest %s", len(answers), byWhat, slowest.Round(time.Millisecond))
	if len(answers) < 40 {
		t.Errorf("only %d requests answered during the hang", len(answers))
	}

	// After SIGCONT: the service recovers by itself, and nothing is lost.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.acmeKey}})
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /v1/api/company after SIGCONT = %d for 30 s", resp.StatusCode)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for email, status := range invited {
		if status == http.StatusServiceUnavailable {
			if s := invite(email); s != http.StatusOK {
				t.Errorf("retry of the invitation of %s = %d, want 200", email, s)
			}
		}
	}
	var stored int64
	f.st.DB().Raw(`SELECT count(*) FROM interview_sessions s JOIN candidates c ON c.company_id = s.company_id AND c.id = s.candidate_id
		WHERE s.company_id = ? AND c.email LIKE 'hung%@example.com'`, f.acme.ID).Scan(&stored)
	if int(stored) != len(invited) {
		t.Errorf("%d invitations stored for %d invited e-mails (each answered 2xx once), want equal", stored, len(invited))
	}
	if r := c.post(t, "answer", url.Values{"turn": {turn}, "answer": {goodAnswer}}); r.status != http.StatusOK || turnOf(t, r) == turn {
		t.Errorf("the answer refused during the hang, sent again = %d", r.status)
	}
	iv, err := f.st.Interview(ctx, f.acme.ID, sessionID)
	if err != nil || iv.Turns[0].Answer == nil || *iv.Turns[0].Answer != goodAnswer {
		t.Errorf("the answer is not stored after the hang: %v", err)
	}

	// A restarting Postgres: the page answers 503 while it is down, not 500.
	if err := pg.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	r := c.get(t)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "briefly unavailable") {
		t.Errorf("the page while Postgres is down = %d (Retry-After %q), want the 503 page", r.status, r.header.Get("Retry-After"))
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Error("the 503 page lacks the page's headers")
	}
	pg = startPostgres(pg.Port())
	deadline = time.Now().Add(30 * time.Second)
	for {
		r = c.get(t)
		if r.status == http.StatusOK {
			break
		}
		if r.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("the page while Postgres restarts = %d, want 503 until it is back, then 200", r.status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
