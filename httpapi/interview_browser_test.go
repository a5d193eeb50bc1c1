package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/mcpserver"
	"github.com/recruitd/recruitd/mcpserver/interviewtools"

	"github.com/recruitd/recruitd/internal/browsertest"
	"github.com/recruitd/recruitd/models"
)

// The candidate takes the interview in Debian's chromium (driven by chromedp through
// internal/browsertest), at a desktop viewport with the
// keyboard only and at a phone's with taps: accept, answer every question (a structured choice
// and a follow-up among them), reload in the middle, finish, open the link again. axe-core
// checks every screen (no serious or critical violation), and the page logs no error and no
// CSP violation.
func TestInterviewInTheBrowser(t *testing.T) {
	f := newFixture(t, withEnv("INTERVIEW_RATE_BURST=1000"))
	for _, vp := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
		t.Run(vp.Name, func(t *testing.T) {
			c, sessionID := f.invite(t, f.acmeKey, "browser-"+vp.Name)
			keyboard := vp == browsertest.Desktop
			ctx := browsertest.Start(t, browsertest.Options{Viewport: vp})
			takeInterview(t, ctx, f.srv.URL+c.path, keyboard)

			iv, err := f.st.Interview(t.Context(), f.acme.ID, sessionID)
			if err != nil {
				t.Fatal(err)
			}
			s := iv.Session
			if s.Status != models.SessionStatusCompleted || s.DurationSeconds == nil || s.CompletedAt == nil {
				t.Fatalf("session = %s, duration %v; want COMPLETED with duration_seconds", s.Status, s.DurationSeconds)
			}
			sources := map[string]int{}
			for _, tr := range iv.Turns {
				if tr.Answer == nil {
					t.Errorf("turn %d unanswered", tr.Seq)
				}
				sources[tr.Source]++
			}
			if sources["follow-up"] != 1 || sources["structured"] != 1 {
				t.Errorf("transcript sources = %v, want one follow-up and one structured answer", sources)
			}
			// The run saw the completion: its last state is COMPLETED.
			awaitInterviewRun(t, f, sessionID)
			browsertest.AssertNoConsoleErrors(t, ctx)
		})
	}
	if t.Failed() {
		return
	}

	// The tools count the two interviews, over the real MCP transport.
	tools := f.mcpClient(t, f.acmeKey)
	stats := callTool[interviewtools.InterviewStatsOutput](t, tools, "getInterviewStats", map[string]any{"metric": "completedInterviews"})
	if stats.CompletedInterviews == nil || *stats.CompletedInterviews != 2 {
		t.Errorf("getInterviewStats completedInterviews = %v, want 2", stats.CompletedInterviews)
	}
	avg := callTool[interviewtools.InterviewStatsOutput](t, tools, "getInterviewStats", map[string]any{"metric": "averageDuration"})
	if d := avg.AverageDuration; d == nil || d.Sessions != 2 || d.AverageSeconds == nil {
		t.Errorf("getInterviewStats averageDuration = %+v, want 2 sessions averaged", d)
	}
	tod := callTool[interviewtools.TimeOfDayOutput](t, tools, "getInterviewTimeOfDayBreakdown", map[string]any{"timezone": "UTC"})
	if tod.Total != 2 {
		t.Errorf("getInterviewTimeOfDayBreakdown total = %d, want 2", tod.Total)
	}
	rep := callTool[interviewtools.CandidateReportOutput](t, tools, "getCandidateReport", map[string]any{"email": "ada+browser-phone@example.com"})
	if len(rep.Candidates) != 1 || len(rep.Candidates[0].Sessions) != 1 {
		t.Fatalf("getCandidateReport = %+v, want the candidate's session", rep)
	}
	if s := rep.Candidates[0].Sessions[0]; s.Status != "COMPLETED" || s.CompletedAt == nil || s.InviteToCompletionSeconds == nil {
		t.Errorf("getCandidateReport session = %+v, want COMPLETED with its completion", s)
	}
}

// mcpClient connects to a tool server over the fixture's database with the company key.
func (f *fixture) mcpClient(t *testing.T, key string) *mcp.ClientSession {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"MCP_BASE_URL": "http://127.0.0.1"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcpserver.NewServer(mcpserver.Deps{
		Log: slog.New(slog.DiscardHandler), Config: cfg, Store: f.st,
		Health:  health.New(time.Second, map[string]health.Check{"postgres": f.st.Ping}),
		Metrics: httpmetrics.New(prometheus.NewRegistry()),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "interview-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: withKey{key}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// callTool calls a tool and decodes its structured result.
func callTool[T any](t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) T {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		text := ""
		if res != nil && len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		t.Fatalf("%s(%v) = %+v %s, %v", name, args, res, text, err)
	}
	var out T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, b)
	}
	return out
}

// takeInterview drives one interview from the link to the completed page.
func takeInterview(t *testing.T, ctx context.Context, link string, keyboard bool) {
	t.Helper()
	submit := func(button, waitFor string) {
		t.Helper()
		if keyboard {
			browsertest.TabTo(t, ctx, button, 12)
			browsertest.PressKeyNavigate(t, ctx, browsertest.Enter, waitFor)
		} else {
			browsertest.ClickNavigate(t, ctx, button, waitFor)
		}
	}
	if status := browsertest.Navigate(t, ctx, link, "#focus"); status != 200 {
		t.Fatalf("GET link = %d", status)
	}
	browsertest.AssertFocus(t, ctx, "#focus")
	browsertest.AssertAccessible(t, ctx, "start")
	if h := browsertest.Text(t, ctx, "h1"); h != "Backend Engineer" {
		t.Errorf("start screen title = %q, want the job's external title", h)
	}
	submit(`form[action$="/consent"] button`, "#focus")
	if strings.TrimSpace(browsertest.Text(t, ctx, ".intro")) == "" {
		t.Error("the first question does not show the guide's intro")
	}

	first, reloaded, choices, followUps := true, false, 0, 0
	for i := 0; i < 40; i++ {
		title := browsertest.Eval[string](t, ctx, "document.title")
		if strings.HasPrefix(title, "Complete") {
			break
		}
		browsertest.AssertFocus(t, ctx, "#focus")
		if !strings.Contains(browsertest.Text(t, ctx, "#progress"), " of ") {
			t.Errorf("no progress on %q", title)
		}
		kind := browsertest.Eval[string](t, ctx, `document.querySelector('.kind').textContent`)
		if i < 2 || kind == "Follow-up question" {
			browsertest.AssertAccessible(t, ctx, title)
		}
		if i == 3 && !reloaded {
			before := browsertest.Text(t, ctx, ".q")
			browsertest.Reload(t, ctx, "#focus")
			if after := browsertest.Text(t, ctx, ".q"); after != before {
				t.Fatalf("a reload moved the interview from %q to %q", before, after)
			}
			reloaded = true
		}
		switch {
		case browsertest.Eval[bool](t, ctx, `!!document.querySelector('input[type=radio]')`):
			choices++
			// Sending no choice is refused with an announced error, and nothing moves.
			submit(`form.answer button[type=submit]`, "#answer-error")
			browsertest.AssertAccessible(t, ctx, "refused answer")
			if keyboard {
				browsertest.TabTo(t, ctx, "#choice-0", 12)
				browsertest.PressKey(t, ctx, browsertest.Space)
			} else {
				browsertest.Click(t, ctx, "#choice-0")
			}
		case kind == "Follow-up question":
			followUps++
			browsertest.Type(t, ctx, "#answer", goodAnswer)
		case first:
			browsertest.Type(t, ctx, "#answer", "Go, mostly.") // short: the interviewer follows up
			first = false
		default:
			browsertest.Type(t, ctx, "#answer", goodAnswer)
		}
		submit(`form.answer button[type=submit]`, "#focus")
	}
	if !reloaded || choices != 1 || followUps != 1 {
		t.Errorf("reloaded %v, structured questions %d, follow-ups %d; want a reload, 1 and 1", reloaded, choices, followUps)
	}
	if h := browsertest.Text(t, ctx, "h1"); h != "Interview complete" {
		t.Fatalf("last screen = %q, want the completed page", h)
	}
	if !strings.Contains(browsertest.Text(t, ctx, ".lead"), "Thank") {
		t.Error("the completed page does not show the guide's outro")
	}
	browsertest.AssertAccessible(t, ctx, "completed")
	browsertest.Navigate(t, ctx, link, "#focus")
	if h := browsertest.Text(t, ctx, "h1"); h != "Interview complete" {
		t.Errorf("the link opened again shows %q, want the completed page", h)
	}
}

// awaitInterviewRun waits until the session's interview run has seen the completion.
func awaitInterviewRun(t *testing.T, f *fixture, sessionID uuid.UUID) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30e9)
	defer cancel()
	id := kinds.Interview.ID(f.acme.Slug, sessionID.String())
	if err := f.tc.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Errorf("interview run %s: %v", id, err)
	}
}
