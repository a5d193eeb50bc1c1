package browsertest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// do runs actions within the step timeout and fails the test with what, the step's description.
func do(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := stepContext(ctx)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browsertest: %s: %v", what, err)
	}
}

// run runs one action that returns a value within the step timeout.
func run[T any](t testing.TB, ctx context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := stepContext(ctx)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		t.Fatalf("browsertest: %s: %v", what, err)
	}
	return v
}

// Navigate opens url, waits until an element matching the CSS selector waitFor is visible and
// returns the HTTP status of the document (after redirects).
func Navigate(t testing.TB, ctx context.Context, url, waitFor string) int {
	t.Helper()
	resp := run(t, ctx, "open "+url, chromedp.NavigateResponse(url))
	WaitVisible(t, ctx, waitFor)
	return int(resp.Status)
}

// ClickNavigate clicks the first element matching sel (a link, or a button that submits a form),
// waits for the page it opens to load and for an element matching waitFor to be visible, and
// returns the HTTP status of the new document (after redirects). Unlike Click then WaitVisible,
// it cannot find waitFor on the page it left.
func ClickNavigate(t testing.TB, ctx context.Context, sel, waitFor string) int {
	t.Helper()
	return navigateBy(t, ctx, "click "+sel, waitFor, chromedp.Click(chromedp.CSS(sel)))
}

// PressKeyNavigate is ClickNavigate with a key (Enter on a focused button or field submits).
func PressKeyNavigate(t testing.TB, ctx context.Context, key Key, waitFor string) int {
	t.Helper()
	return navigateBy(t, ctx, "press "+string(key), waitFor, keyAction(t, key))
}

func navigateBy(t testing.TB, ctx context.Context, what, waitFor string, trigger chromedp.Action[chromedp.Void]) int {
	t.Helper()
	sctx, cancel := stepContext(ctx)
	defer cancel()
	resp, err := chromedp.RunResponse(sctx, trigger)
	if err != nil {
		t.Fatalf("browsertest: %s and wait for the next page: %v", what, err)
	}
	WaitVisible(t, ctx, waitFor)
	return int(resp.Status)
}

// Reload reloads the page and waits until an element matching waitFor is visible.
func Reload(t testing.TB, ctx context.Context, waitFor string) {
	t.Helper()
	do(t, ctx, "reload and wait for "+waitFor, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(waitFor)))
}

// WaitVisible waits until an element matching the CSS selector is visible.
func WaitVisible(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	do(t, ctx, "wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Type focuses the first element matching sel (a textarea or an input) and types text into it
// with key events, as a person would; "\n" presses Enter.
func Type(t testing.TB, ctx context.Context, sel, text string) {
	t.Helper()
	do(t, ctx, "type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// Click clicks the first element matching sel with the mouse, at its center, once it is
// visible. A click that submits a form does not wait for the next page: follow it with
// WaitVisible on an element of that page.
func Click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	do(t, ctx, "click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// Text returns the rendered text (innerText) of the first element matching sel.
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	return run(t, ctx, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// WaitText waits until the rendered text of the first element matching sel contains want, for a
// page that changes without a navigation, and returns that text.
func WaitText(t testing.TB, ctx context.Context, sel, want string) string {
	t.Helper()
	q, _ := json.Marshal(sel)
	expr := `(() => { const e = document.querySelector(` + string(q) + `); return e ? e.innerText : null; })()`
	sctx, cancel := stepContext(ctx)
	defer cancel()
	var last *string
	for {
		v, err := chromedp.Run(sctx, chromedp.Evaluate[*string](expr))
		if err == nil && v != nil && strings.Contains(*v, want) {
			return *v
		}
		if err == nil {
			last = v
		}
		select {
		case <-sctx.Done():
			if last == nil {
				t.Fatalf("browsertest: wait for %s to show %q: no such element (%v)", sel, want, err)
			}
			t.Fatalf("browsertest: wait for %s to show %q: it shows %q", sel, want, *last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Value returns the current value of the form field matching sel.
func Value(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	return run(t, ctx, "value of "+sel, chromedp.Value(chromedp.CSS(sel)))
}

// Eval evaluates a JavaScript expression in the page and decodes its JSON value into T.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	return run(t, ctx, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// Focused describes document.activeElement.
type Focused struct {
	Tag   string `json:"tag"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Label string `json:"label"` // its accessible name as far as a test needs: aria-label, label text or text
}

const focusedJS = `(() => {
	const e = document.activeElement;
	if (!e) return {tag: '', id: '', name: '', label: ''};
	const label = e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].innerText : '') || e.innerText || e.value || '';
	return {tag: e.tagName.toLowerCase(), id: e.id, name: e.getAttribute('name') || '', label: label.trim().slice(0, 80)};
})()`

// FocusedElement returns the element that has the keyboard focus (the body when none has).
func FocusedElement(t testing.TB, ctx context.Context) Focused {
	t.Helper()
	return Eval[Focused](t, ctx, focusedJS)
}

// AssertFocus fails the test unless the element with the keyboard focus matches the CSS
// selector sel; use it after a navigation to check where the page put the focus.
func AssertFocus(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	if !focusMatches(t, ctx, sel) {
		t.Errorf("browsertest: the focus is on %+v, want %s", FocusedElement(t, ctx), sel)
	}
}

func focusMatches(t testing.TB, ctx context.Context, sel string) bool {
	t.Helper()
	q, _ := json.Marshal(sel)
	return Eval[bool](t, ctx, `(() => { const e = document.activeElement; return !!e && e.matches(`+string(q)+`); })()`)
}

// Key is a key PressKey sends to the focused element.
type Key string

// Keys for keyboard-only navigation.
const (
	Tab      Key = "Tab"
	ShiftTab Key = "Shift+Tab"
	Enter    Key = "Enter"
	Space    Key = "Space"
	Escape   Key = "Escape"
	Up       Key = "ArrowUp"
	Down     Key = "ArrowDown"
)

var keyText = map[Key]string{
	Tab: kb.Tab, ShiftTab: kb.Tab, Enter: kb.Enter, Space: " ", Escape: kb.Escape,
	Up: kb.ArrowUp, Down: kb.ArrowDown,
}

// PressKey presses and releases key on the focused element, as the keyboard does (keydown, the
// character, keyup): Tab moves the focus, Enter activates a link or a button or submits a form,
// Space checks a radio button or a checkbox. A key that opens another page needs
// PressKeyNavigate.
func PressKey(t testing.TB, ctx context.Context, key Key) {
	t.Helper()
	do(t, ctx, "press "+string(key), keyAction(t, key))
}

func keyAction(t testing.TB, key Key) chromedp.Action[chromedp.Void] {
	t.Helper()
	text, ok := keyText[key]
	if !ok {
		t.Fatalf("browsertest: no key %q", key)
	}
	var opts []chromedp.KeyOption
	if key == ShiftTab {
		opts = append(opts, chromedp.KeyModifiers(chromedp.ModifierShift))
	}
	return chromedp.KeyEvent(text, opts...)
}

// TabTo presses Tab until the focused element matches sel, at most max times, and returns the
// elements the focus passed through (the last is the match), so a test can check the focus
// order. It fails the test when sel is not reached.
func TabTo(t testing.TB, ctx context.Context, sel string, max int) []Focused {
	t.Helper()
	var path []Focused
	for range max {
		PressKey(t, ctx, Tab)
		path = append(path, FocusedElement(t, ctx))
		if focusMatches(t, ctx, sel) {
			return path
		}
	}
	t.Fatalf("browsertest: %d Tab presses did not reach %s; the focus went through %+v", max, sel, path)
	return nil
}
