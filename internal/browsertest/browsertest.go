// Package browsertest drives a real browser from tests: Debian's chromium, headless, through
// chromedp. Start opens one tab in a fresh browser for one test, at a desktop or a phone
// viewport, records what the page writes to its console (errors, uncaught exceptions, Content
// Security Policy violations) and closes everything in t.Cleanup. AssertAccessible runs axe-core
// in the page. The helpers (Navigate, Type, Click, Text, Reload, PressKey, AssertFocus, ...)
// fail the test with the selector they were given.
//
// A page test, once per viewport:
//
//	ctx := browsertest.Start(t, browsertest.Options{Viewport: browsertest.Phone})
//	browsertest.Navigate(t, ctx, link, "h1")
//	browsertest.AssertAccessible(t, ctx, "start")
//	browsertest.ClickNavigate(t, ctx, "#accept", "textarea")
//	browsertest.AssertFocus(t, ctx, "h1")
//	browsertest.Type(t, ctx, "textarea", "an answer")
//	browsertest.ClickNavigate(t, ctx, "button[type=submit]", "h1") // or Tab to it, then PressKeyNavigate Enter
//	browsertest.AssertNoConsoleErrors(t, ctx)
//
// Each browser start takes about a second on a 2-core machine; axe's first run on a page about
// 0.3 s (it is injected again after each navigation), later runs on the same page 30 ms.
//
// Test tooling only: production code never imports it. Chromium is installed when missing
// (see Chromium); axe-core comes from node_modules (npm ci, which make test runs).
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Viewport is the size of the page the browser lays out, in CSS pixels.
type Viewport struct {
	Name          string
	Width, Height int64
	// Scale is the device pixel ratio.
	Scale float64
	// Mobile turns on mobile emulation (meta viewport, overlay scrollbars) and touch events.
	Mobile bool
}

var (
	// Desktop is a laptop's browser window.
	Desktop = Viewport{Name: "desktop", Width: 1280, Height: 800, Scale: 1}
	// Phone is a current phone held upright (390x844, an iPhone 12 to 15), with touch.
	Phone = Viewport{Name: "phone", Width: 390, Height: 844, Scale: 3, Mobile: true}
)

// DefaultTimeout bounds a test's use of its browser when Options.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// Options are how Start opens the browser.
type Options struct {
	// Viewport is Desktop when zero.
	Viewport Viewport
	// Timeout bounds every action run with the returned context, from the browser's start to the
	// end of the test; DefaultTimeout when zero.
	Timeout time.Duration
	// StepTimeout bounds each helper of this package (a navigation and its wait, a click, a wait
	// for an element), so a missing element fails the test quickly; DefaultStepTimeout when zero.
	StepTimeout time.Duration
}

// DefaultStepTimeout bounds one helper's wait when Options.StepTimeout is zero.
const DefaultStepTimeout = 15 * time.Second

type sessionKey struct{}

// session is what Start records about one test's tab.
type session struct {
	viewport Viewport
	step     time.Duration

	mu       sync.Mutex
	messages []Message
	// documents are the requests of the pages the tab opened, whose status is the navigation's
	// result (Navigate returns it), not an error of the page.
	documents map[network.RequestID]bool
}

// Message is an error the page reported: a console.error or console.assert call, an uncaught
// exception or promise rejection, or an error of the browser's log (a Content Security Policy
// violation, a failed load of a script, a style sheet, an image or a fetch; the page's own
// document is not one: a 404 page is Navigate's status).
type Message struct {
	// Kind is "console", "exception" or the browser log's source ("network", "security", ...).
	Kind string
	Text string
	URL  string
	Line int64
}

func (m Message) String() string {
	where := ""
	if m.URL != "" {
		where = fmt.Sprintf(" (%s:%d)", m.URL, m.Line+1)
	}
	return m.Kind + ": " + m.Text + where
}

// CSP reports whether the message is a Content Security Policy violation.
func (m Message) CSP() bool {
	return strings.Contains(m.Text, "Content Security Policy")
}

// Start opens a new headless chromium with one tab at opts.Viewport and returns the context to run
// actions in (chromedp.Run, chromedp.Do and this package's helpers). The browser starts before
// Start returns, so the time it takes is not charged to the test's first action; t.Cleanup
// closes it. When the test has failed, the cleanup first saves a screenshot of the page and logs
// its path.
func Start(t testing.TB, opts Options) context.Context {
	t.Helper()
	vp := opts.Viewport
	if vp.Width == 0 {
		vp = Desktop
	}
	if vp.Scale == 0 {
		vp.Scale = 1
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	exe := Chromium(t)

	var output syncBuffer
	allocOpts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(int(vp.Width), int(vp.Height)),
		chromedp.DisableGPU,
		chromedp.Flag("lang", "en-US"),
		chromedp.CombinedOutput(&output),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to start its sandbox as root.
		allocOpts = append(allocOpts, chromedp.NoSandbox)
	}
	step := opts.StepTimeout
	if step == 0 {
		step = DefaultStepTimeout
	}
	s := &session{viewport: vp, step: step, documents: map[network.RequestID]bool{}}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(s.listen))
	// Cleanups run last in, first out: the tab closes, then the browser (its process and its
	// profile folder).
	t.Cleanup(cancelAlloc)
	t.Cleanup(cancelTab)

	// The first action starts the browser and binds its life to tabCtx, which has no deadline;
	// the start itself is bounded here.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(tabCtx, viewportAction(vp)) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("browsertest: start %s: %v\nchromium said:\n%s", exe, err, tail(output.Bytes(), 4000))
		}
	case <-time.After(timeout):
		cancelTab()
		t.Fatalf("browsertest: %s did not start within %s\nchromium said:\n%s", exe, timeout, tail(output.Bytes(), 4000))
	}

	ctx, cancel := context.WithTimeout(tabCtx, timeout)
	t.Cleanup(func() {
		if t.Failed() {
			screenshotOnFailure(t, tabCtx)
		}
		cancel()
	})
	return context.WithValue(ctx, sessionKey{}, s)
}

func viewportAction(vp Viewport) chromedp.Action[chromedp.Void] {
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(vp.Scale)}
	if vp.Mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	return chromedp.EmulateViewport(vp.Width, vp.Height, opts...)
}

// ViewportOf returns the viewport the context's browser was started with.
func ViewportOf(ctx context.Context) Viewport {
	return sessionOf(ctx).viewport
}

// stepContext bounds one helper's actions by the session's StepTimeout.
func stepContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, sessionOf(ctx).step)
}

func sessionOf(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		panic("browsertest: the context does not come from browsertest.Start")
	}
	return s
}

// listen runs in the tab's event loop (chromedp.WithListener), in the order the events arrive,
// so an error the page reports before an action's reply is recorded when the action returns.
func (s *session) listen(ev any) {
	var m Message
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.Type == network.ResourceTypeDocument {
			s.mu.Lock()
			s.documents[ev.RequestID] = true
			s.mu.Unlock()
		}
		return
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		m = Message{Kind: "console", Text: argsText(ev.Args)}
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			m.URL, m.Line = ev.StackTrace.CallFrames[0].URL, ev.StackTrace.CallFrames[0].LineNumber
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		m = Message{Kind: "exception", Text: text, URL: d.URL, Line: d.LineNumber}
	case *log.EventEntryAdded:
		e := ev.Entry
		if e.Level != log.EntryLevelError {
			return
		}
		if e.NetworkRequestID != "" {
			s.mu.Lock()
			doc := s.documents[e.NetworkRequestID]
			s.mu.Unlock()
			if doc {
				return
			}
		}
		m = Message{Kind: string(e.Source), Text: e.Text, URL: e.URL, Line: e.LineNumber}
	default:
		return
	}
	s.mu.Lock()
	s.messages = append(s.messages, m)
	s.mu.Unlock()
}

func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		v := []byte(a.Value)
		switch {
		case len(v) > 0 && v[0] == '"':
			var unq string
			if err := json.Unmarshal(v, &unq); err == nil {
				parts = append(parts, unq)
				continue
			}
			parts = append(parts, string(v))
		case len(v) > 0:
			parts = append(parts, string(v))
		case a.UnserializableValue != "":
			parts = append(parts, string(a.UnserializableValue))
		default:
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// ConsoleErrors returns the errors the page has reported since Start (see Message).
func ConsoleErrors(ctx context.Context) []Message {
	s := sessionOf(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// CSPViolations returns the Content Security Policy violations among ConsoleErrors.
func CSPViolations(ctx context.Context) []Message {
	var out []Message
	for _, m := range ConsoleErrors(ctx) {
		if m.CSP() {
			out = append(out, m)
		}
	}
	return out
}

// AssertNoConsoleErrors fails the test for every error the page has reported since Start,
// Content Security Policy violations included.
func AssertNoConsoleErrors(t testing.TB, ctx context.Context) {
	t.Helper()
	for _, m := range ConsoleErrors(ctx) {
		t.Errorf("browsertest: the page reported %s", m)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func screenshotOnFailure(t testing.TB, ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("browsertest: no screenshot of the failed test: %v", err)
		return
	}
	name := unsafeName.ReplaceAllString(t.Name(), "_") + ".png"
	path := filepath.Join(os.TempDir(), "browsertest-"+name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Logf("browsertest: no screenshot of the failed test: %v", err)
		return
	}
	t.Logf("browsertest: screenshot of the page when the test ended: %s", path)
}

// syncBuffer collects the browser's output, which its process writes from another goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
