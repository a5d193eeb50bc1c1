package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/models"
)

// The deadline holds while the session's run cannot act: an answer after expires_at of a
// session still STARTED (its run has not marked it) is refused with the incomplete screen and
// nothing is stored.
func TestInterviewDeadlineHoldsWithoutTemporal(t *testing.T) {
	f := newFixture(t)
	c, sessionID := f.invite(t, f.acmeKey, "iv-late")
	turn := turnOf(t, c.post(t, "consent", nil))
	if err := f.st.DB().Exec(`UPDATE interview_sessions SET expires_at = now() - interval '2 seconds' WHERE id = ?`, sessionID).Error; err != nil {
		t.Fatal(err)
	}
	r := c.post(t, "answer", url.Values{"turn": {turn}, "answer": {goodAnswer}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "Not finished in time") {
		t.Errorf("answer after the deadline = %d, want 409 with the incomplete screen:\n%s", r.status, r.body)
	}
	iv, err := f.st.Interview(t.Context(), f.acme.ID, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(iv.Turns) != 1 || iv.Turns[0].Answer != nil {
		t.Errorf("after a late answer: %d turns, first answered %v; want the one question unanswered", len(iv.Turns), iv.Turns[0].Answer != nil)
	}
	if iv.Session.Status != models.SessionStatusStarted {
		t.Errorf("status %s: the test wants the run not to have acted", iv.Session.Status)
	}
	if g := c.get(t); g.status != 200 || !strings.Contains(g.body, "Not finished in time") || strings.Contains(g.body, `name="answer"`) {
		t.Errorf("the page after the deadline = %d, want the incomplete screen without a form", g.status)
	}
}

// Small rules of the page: invisible answers are empty, an answer before the consent gets the
// consent's message, the trailing-slash redirect carries the page's headers, turn is digits only,
// and decisions are upper case only.
func TestInterviewPageSmallRules(t *testing.T) {
	f := newFixture(t)
	c, sessionID := f.invite(t, f.acmeKey, "iv-small")

	// Before the consent.
	r := c.do(t, http.MethodPost, c.path+"/answer", "application/x-www-form-urlencoded", []byte("turn=1&answer=hello"))
	if r.status != http.StatusConflict || !strings.Contains(r.body, "Accept and start") || !strings.Contains(r.body, "before answering") {
		t.Errorf("answer before consent = %d, want 409 with the consent's own message:\n%s", r.status, r.body)
	}
	if strings.Contains(r.body, "takes no more answers") {
		t.Error("an answer before the consent is told the interview takes no more answers")
	}

	// The trailing-slash redirect.
	// Not a route of the OpenAPI (gin's redirect to the page), so not checked against it.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, f.srv.URL+c.path+"/", nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r = pageResp{status: resp.StatusCode, header: resp.Header}
	if loc := resp.Header.Get("Location"); loc != c.path {
		t.Errorf("redirect to %q, want the page", loc)
	}
	if r.status/100 != 3 {
		t.Fatalf("GET %s/ = %d, want a redirect", "/interview/<token>", r.status)
	}
	for k, want := range map[string]string{"Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Frame-Options": "DENY"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("redirect's %s = %q, want %q", k, got, want)
		}
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "form-action 'self'") {
		t.Errorf("redirect's CSP = %q, want the page's", csp)
	}

	turn := turnOf(t, c.post(t, "consent", nil))
	for _, tc := range []struct{ name, body string }{
		{"zero-width spaces", "turn=" + turn + "&answer=" + url.QueryEscape("\u200b\u200b")},
		{"bidi override", "turn=" + turn + "&answer=" + url.QueryEscape(" \u202e\u200b\u2060\ufeff ")},
		{"hangul filler", "turn=" + turn + "&answer=" + url.QueryEscape("\u3164\u200d")},
	} {
		r := c.do(t, http.MethodPost, c.path+"/answer", "application/x-www-form-urlencoded", []byte(tc.body))
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "Please write an answer") {
			t.Errorf("%s: %d, want 422 empty", tc.name, r.status)
		}
	}
	for _, bad := range []string{"+" + turn, " " + turn, turn + " ", "0x1", "-" + turn} {
		r := c.do(t, http.MethodPost, c.path+"/answer", "application/x-www-form-urlencoded", []byte("turn="+url.QueryEscape(bad)+"&answer=hello"))
		if r.status != http.StatusBadRequest {
			t.Errorf("turn %q: %d, want 400", bad, r.status)
		}
	}
	iv, _ := f.st.Interview(t.Context(), f.acme.ID, sessionID)
	if len(iv.Turns) != 1 || iv.Turns[0].Answer != nil {
		t.Fatalf("refused answers stored something: %d turns", len(iv.Turns))
	}

	for _, d := range []string{"accepted", "Accepted", "hired"} {
		resp := f.send(t, http.MethodPut, "/v1/api/sessions/"+sessionID.String()+"/decision", f.acmeKey, map[string]any{"decision": d})
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("decision %q = %d, want 400", d, resp.StatusCode)
		}
	}
	s, _ := f.st.Session(t.Context(), f.acme.ID, sessionID)
	if s.Decision != "" && s.Decision != models.DecisionNone {
		t.Errorf("decision after refused values = %q", s.Decision)
	}
}

// The per-address limit counts the peer: a forged X-Forwarded-For from an untrusted peer picks
// no address; behind a trusted proxy (MCP_TRUSTED_PROXIES) the forwarded address counts.
func TestInterviewAddressLimitUsesThePeer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     []string
		limited bool
	}{
		{"no-proxy", nil, true},
		{"loopback-proxy", []string{"MCP_TRUSTED_PROXIES=127.0.0.1/8, ::1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, withEnv(append([]string{"INTERVIEW_ADDR_RATE_LIMIT=0.5", "INTERVIEW_ADDR_RATE_BURST=5", "INTERVIEW_RATE_BURST=1000"}, tc.env...)...))
			c, _ := f.invite(t, f.acmeKey, "iv-xff-"+tc.name) // one job generation per subtest (Temporal is shared)
			statuses := map[int]int{}
			for i := range 12 {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, f.srv.URL+c.path, nil)
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				statuses[resp.StatusCode]++
			}
			if limited := statuses[http.StatusTooManyRequests] > 0; limited != tc.limited {
				t.Errorf("12 requests with 12 forwarded addresses: %v; limited %v, want %v", statuses, limited, tc.limited)
			}
		})
	}
}
