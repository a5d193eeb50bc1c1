package browsertest

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// strictCSP is the policy of the interview page: nothing inline, everything from the origin.
const strictCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

const pageCSS = `body { font: 16px/1.5 sans-serif; color: #1a1a1a; background: #fff; margin: 0 auto; max-width: 40rem; padding: 1rem; }
textarea { width: 100%; box-sizing: border-box; }
button { font: inherit; padding: .5rem 1rem; }
.faint { color: #b8b8b8; }`

// pageJS moves the focus to the heading of each new page, as the interview page does, and
// reports what the tests of console capture ask for.
const pageJS = `document.addEventListener('DOMContentLoaded', () => {
	const h = document.querySelector('h1[tabindex="-1"]');
	if (h) h.focus();
	const save = document.getElementById('save');
	if (save) save.addEventListener('click', () => setTimeout(() => { document.getElementById('status').textContent = 'Saved'; }, 300));
	if (document.body.dataset.fail === 'console') {
		console.error('marker console error', 42);
		setTimeout(() => { throw new Error('marker exception'); }, 0);
	}
});`

// site is a small server-rendered form: GET / shows a question, POST /answer stores the answer
// and redirects to /done, which shows it.
type site struct {
	mu     sync.Mutex
	answer string
	loads  int
}

func (s *site) handler() http.Handler {
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, body, attrs string) {
		w.Header().Set("Content-Security-Policy", strictCSP)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Browser test page</title><link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>
<body%s><main>%s</main></body></html>`, attrs, body)
	}
	mux.HandleFunc("GET /app.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, pageCSS)
	})
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, pageJS)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.loads++
		n := s.loads
		s.mu.Unlock()
		page(w, fmt.Sprintf(`<h1 tabindex="-1">Question 1 of 1</h1>
<p id="loads">Loaded %d times</p>
<form method="post" action="/answer">
<label for="answer">Tell us about a project you led</label>
<textarea id="answer" name="answer" rows="4" required></textarea>
<button type="submit" id="send">Send answer</button>
</form>`, n), "")
	})
	mux.HandleFunc("GET /choice", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1 tabindex="-1">Question 2 of 2</h1>
<form method="post" action="/answer"><fieldset><legend>Which shift can you work?</legend>
<div><input type="radio" id="c1" name="answer" value="Early" required><label for="c1">Early</label></div>
<div><input type="radio" id="c2" name="answer" value="Late"><label for="c2">Late</label></div>
<div><input type="radio" id="c3" name="answer" value="Night"><label for="c3">Night</label></div>
</fieldset><button type="submit" id="send">Send answer</button></form>`, "")
	})
	mux.HandleFunc("POST /answer", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.answer = r.PostFormValue("answer")
		s.mu.Unlock()
		http.Redirect(w, r, "/done", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /done", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		a := s.answer
		s.mu.Unlock()
		page(w, `<h1 tabindex="-1">Thank you</h1><p>Your answer: <span id="echo">`+html.EscapeString(a)+`</span></p>`, "")
	})
	mux.HandleFunc("GET /missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", strictCSP)
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Not found</title></head><body><main><h1>Not found</h1></main></body></html>`)
	})
	mux.HandleFunc("GET /live", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Live</h1><p id="status" role="status">Waiting</p><button type="button" id="save">Save</button>`, "")
	})
	// Violations axe must find: a field without a label (critical) and grey text on white
	// (contrast 1.9:1, serious).
	mux.HandleFunc("GET /inaccessible", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Inaccessible</h1><p class="faint" id="faint">Hard to read</p><input type="text" id="nolabel" name="q">`, "")
	})
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Console</h1><img src="/missing.png" alt="">`, ` data-fail="console"`)
	})
	// An inline script and an inline style, both refused by the policy.
	mux.HandleFunc("GET /csp", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>CSP</h1><script>document.title = 'inline ran';</script><p style="color: red">styled</p>`, "")
	})
	return mux
}

func newSite(t *testing.T) (*site, *httptest.Server) {
	s := &site{}
	srv := httptest.NewServer(s.handler())
	t.Cleanup(srv.Close)
	return s, srv
}

// TestCleanPageWithStrictCSP takes the form with the keyboard and the mouse at the desktop
// viewport: the strict CSP page passes axe, the focus lands on each page's heading, Tab reaches
// the field and then the button, Enter submits, a reload loads the page again, a 404 page gives
// its status, a script's change is waited for, and nothing is reported on the console (the 404
// document is not an error of the page).
func TestCleanPageWithStrictCSP(t *testing.T) {
	s, srv := newSite(t)
	began := time.Now()
	ctx := Start(t, Options{Viewport: Desktop, Timeout: time.Minute})
	t.Logf("browser start: %s", time.Since(began).Round(time.Millisecond))

	if status := Navigate(t, ctx, srv.URL+"/", "#answer"); status != http.StatusOK {
		t.Errorf("GET / status %d", status)
	}
	if got := Eval[int](t, ctx, "window.innerWidth"); got != int(Desktop.Width) {
		t.Errorf("desktop innerWidth = %d, want %d", got, Desktop.Width)
	}
	AssertFocus(t, ctx, "h1")
	began = time.Now()
	AssertAccessible(t, ctx, "question")
	t.Logf("axe, first run (inject + run): %s", time.Since(began).Round(time.Millisecond))
	began = time.Now()
	AssertAccessible(t, ctx, "question")
	t.Logf("axe, second run on the same page: %s", time.Since(began).Round(time.Millisecond))

	path := TabTo(t, ctx, "#answer", 5)
	if len(path) != 1 {
		t.Errorf("Tab from the heading went through %+v before the answer field", path)
	}
	if f := FocusedElement(t, ctx); f.Label != "Tell us about a project you led" {
		t.Errorf("focused field's label = %q", f.Label)
	}
	Type(t, ctx, "#answer", "I led the move to Postgres")
	if got := Value(t, ctx, "#answer"); got != "I led the move to Postgres" {
		t.Errorf("typed value = %q", got)
	}
	PressKey(t, ctx, Tab)
	AssertFocus(t, ctx, "#send")
	if status := PressKeyNavigate(t, ctx, Enter, "#echo"); status != http.StatusOK {
		t.Errorf("Enter on the button: status %d", status)
	}
	if got := Text(t, ctx, "#echo"); got != "I led the move to Postgres" {
		t.Errorf("the next page shows %q", got)
	}
	s.mu.Lock()
	if s.answer != "I led the move to Postgres" {
		t.Errorf("the server stored %q", s.answer)
	}
	s.mu.Unlock()
	AssertFocus(t, ctx, "h1")
	AssertAccessible(t, ctx, "done")

	Navigate(t, ctx, srv.URL+"/", "#loads")
	Reload(t, ctx, "#loads")
	if got := Text(t, ctx, "#loads"); got != "Loaded 3 times" {
		t.Errorf("after a reload the page says %q, want Loaded 3 times", got)
	}
	Type(t, ctx, "#answer", "by mouse")
	if status := ClickNavigate(t, ctx, "#send", "#echo"); status != http.StatusOK {
		t.Errorf("click on the button: status %d", status)
	}
	if got := Text(t, ctx, "#echo"); got != "by mouse" {
		t.Errorf("after a click the next page shows %q", got)
	}

	if status := Navigate(t, ctx, srv.URL+"/missing", "h1"); status != http.StatusNotFound {
		t.Errorf("GET /missing status %d, want 404", status)
	}
	Navigate(t, ctx, srv.URL+"/live", "#save")
	Click(t, ctx, "#save")
	if got := Text(t, ctx, "#status"); got != "Waiting" {
		t.Errorf("status before the script's change: %q", got)
	}
	WaitText(t, ctx, "#status", "Saved")

	AssertNoConsoleErrors(t, ctx)
}

// TestKeyboardChoice answers a choice question with the keyboard alone, as a screen reader user
// would, at the phone viewport: Tab into the radio group, Space checks the first choice, Down
// moves to the next, Tab to the button and Shift+Tab back, Enter sends.
func TestKeyboardChoice(t *testing.T) {
	s, srv := newSite(t)
	ctx := Start(t, Options{Viewport: Phone})
	Navigate(t, ctx, srv.URL+"/choice", "#c1")
	AssertAccessible(t, ctx, "choice")
	TabTo(t, ctx, "#c1", 3)
	PressKey(t, ctx, Space)
	if got := Eval[string](t, ctx, `document.querySelector('input[name=answer]:checked').value`); got != "Early" {
		t.Errorf("Space checked %q", got)
	}
	PressKey(t, ctx, Down)
	AssertFocus(t, ctx, "#c2")
	if f := FocusedElement(t, ctx); f.Label != "Late" {
		t.Errorf("focused choice %+v", f)
	}
	PressKey(t, ctx, Tab)
	AssertFocus(t, ctx, "#send")
	PressKey(t, ctx, ShiftTab) // back into the group, on its checked choice
	AssertFocus(t, ctx, "#c2")
	PressKey(t, ctx, Tab)
	PressKeyNavigate(t, ctx, Enter, "#echo")
	s.mu.Lock()
	if s.answer != "Late" {
		t.Errorf("the server stored %q, want Late", s.answer)
	}
	s.mu.Unlock()
	AssertNoConsoleErrors(t, ctx)
}

// TestInaccessiblePageIsCaught checks that axe reports the deliberate violations and that
// AssertAccessible fails the test for them.
func TestInaccessiblePageIsCaught(t *testing.T) {
	_, srv := newSite(t)
	ctx := Start(t, Options{})
	Navigate(t, ctx, srv.URL+"/inaccessible", "h1")

	violations, err := Axe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]Violation{}
	for _, v := range violations {
		found[v.ID] = v
	}
	for id, target := range map[string]string{"label": "#nolabel", "color-contrast": "#faint"} {
		v, ok := found[id]
		if !ok {
			t.Errorf("axe did not report %s; it reported %v", id, violations)
			continue
		}
		if !v.Blocking() || v.Help == "" || !strings.HasPrefix(v.HelpURL, "https://") {
			t.Errorf("%s: impact %q, help %q, url %q", id, v.Impact, v.Help, v.HelpURL)
		}
		if !slices.ContainsFunc(v.Nodes, func(n ViolationNode) bool { return n.Target == target }) {
			t.Errorf("%s: nodes %+v, want the target %s", id, v.Nodes, target)
		}
	}

	rec := &recorder{TB: t}
	AssertAccessible(rec, ctx, "inaccessible")
	if len(rec.errors) < 2 {
		t.Fatalf("AssertAccessible reported %d errors, want one per blocking violation: %q", len(rec.errors), rec.errors)
	}
	all := strings.Join(rec.errors, "\n")
	for _, want := range []string{`"inaccessible" (desktop)`, "label (critical)", "color-contrast (serious)", "#nolabel", "#faint", "https://dequeuniversity.com/rules/axe/"} {
		if !strings.Contains(all, want) {
			t.Errorf("the failure report lacks %q:\n%s", want, all)
		}
	}
}

// recorder is a testing.TB whose Errorf records instead of failing, to test a failing assertion.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {}

// TestPhoneViewport checks the phone emulation: the layout width, touch and the mobile media
// queries.
func TestPhoneViewport(t *testing.T) {
	_, srv := newSite(t)
	ctx := Start(t, Options{Viewport: Phone})
	Navigate(t, ctx, srv.URL+"/", "#answer")
	got := Eval[map[string]any](t, ctx, `({width: window.innerWidth, height: window.innerHeight,
		touch: navigator.maxTouchPoints > 0 && 'ontouchstart' in window,
		coarse: matchMedia('(pointer: coarse)').matches, dpr: window.devicePixelRatio})`)
	want := map[string]any{"width": float64(390), "height": float64(844), "touch": true, "coarse": true, "dpr": float64(3)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("phone %s = %v, want %v", k, got[k], v)
		}
	}
	AssertAccessible(t, ctx, "question")
	AssertNoConsoleErrors(t, ctx)
}

// TestConsoleErrorsAreCaptured checks that console.error, an uncaught exception and a failed
// image load are recorded, and that AssertNoConsoleErrors reports each.
func TestConsoleErrorsAreCaptured(t *testing.T) {
	_, srv := newSite(t)
	ctx := Start(t, Options{})
	Navigate(t, ctx, srv.URL+"/console", "h1")
	var msgs []Message
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if msgs = ConsoleErrors(ctx); len(msgs) >= 3 {
			break
		}
	}
	if !slices.ContainsFunc(msgs, func(m Message) bool {
		return m.Kind == "console" && m.Text == "marker console error 42" && strings.HasSuffix(m.URL, "/app.js")
	}) {
		t.Errorf("console.error not captured: %v", msgs)
	}
	if !slices.ContainsFunc(msgs, func(m Message) bool {
		return m.Kind == "exception" && strings.Contains(m.Text, "marker exception")
	}) {
		t.Errorf("uncaught exception not captured: %v", msgs)
	}
	if !slices.ContainsFunc(msgs, func(m Message) bool {
		return m.Kind == "network" && strings.HasSuffix(m.URL, "/missing.png") && strings.Contains(m.Text, "404")
	}) {
		t.Errorf("the failed image load not captured: %v", msgs)
	}

	rec := &recorder{TB: t}
	AssertNoConsoleErrors(rec, ctx)
	if len(rec.errors) != len(msgs) {
		t.Errorf("AssertNoConsoleErrors reported %q for %v", rec.errors, msgs)
	}
}

// TestCSPViolationsAreCaptured checks that the inline script and the inline style a strict CSP
// refuses are recorded as violations, and that the script indeed did not run.
func TestCSPViolationsAreCaptured(t *testing.T) {
	_, srv := newSite(t)
	ctx := Start(t, Options{})
	Navigate(t, ctx, srv.URL+"/csp", "h1")
	if title := Eval[string](t, ctx, "document.title"); title != "Browser test page" {
		t.Errorf("the inline script ran: title %q", title)
	}
	var v []Message
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if v = CSPViolations(ctx); len(v) >= 2 {
			break
		}
	}
	if !slices.ContainsFunc(v, func(m Message) bool { return strings.Contains(m.Text, "script-src") }) ||
		!slices.ContainsFunc(v, func(m Message) bool { return strings.Contains(m.Text, "style-src") }) {
		t.Errorf("CSP violations of script-src and style-src not captured: %v (all: %v)", v, ConsoleErrors(ctx))
	}
}
