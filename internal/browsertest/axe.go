package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axePath is axe-core's browser bundle under the repository root, installed by npm ci from
// package.json's pinned devDependency.
var axePath = filepath.Join("node_modules", "axe-core", "axe.min.js")

// Violation is one axe-core rule that failed on the page.
type Violation struct {
	ID string `json:"id"`
	// Impact is "minor", "moderate", "serious" or "critical".
	Impact  string          `json:"impact"`
	Help    string          `json:"help"`
	HelpURL string          `json:"helpUrl"`
	Nodes   []ViolationNode `json:"nodes"`
}

// ViolationNode is one element that fails a rule.
type ViolationNode struct {
	// Target is the element's CSS selector path; an element inside shadow roots has one selector
	// per root, joined with " >>> ".
	Target         string `json:"-"`
	HTML           string `json:"html"`
	FailureSummary string `json:"failureSummary"`
}

// UnmarshalJSON reads axe's target, a list of selectors or, through shadow roots, of lists.
func (n *ViolationNode) UnmarshalJSON(b []byte) error {
	type plain ViolationNode
	var v struct {
		plain
		Target []json.RawMessage `json:"target"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*n = ViolationNode(v.plain)
	parts := make([]string, 0, len(v.Target))
	for _, raw := range v.Target {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			parts = append(parts, one)
			continue
		}
		var path []string
		if err := json.Unmarshal(raw, &path); err != nil {
			return fmt.Errorf("axe target %s: %w", raw, err)
		}
		parts = append(parts, strings.Join(path, " >>> "))
	}
	n.Target = strings.Join(parts, ", ")
	return nil
}

// Blocking reports whether the violation fails AssertAccessible: serious or critical.
func (v Violation) Blocking() bool {
	return v.Impact == "serious" || v.Impact == "critical"
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s <%s>", v.ID, v.Impact, v.Help, v.HelpURL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n\t%s  %s", n.Target, n.HTML)
	}
	return b.String()
}

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

func loadAxe() (string, error) {
	axeOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			axeErr = err
			return
		}
		b, err := os.ReadFile(filepath.Join(root, axePath))
		if err != nil {
			axeErr = fmt.Errorf("read axe-core (%w): run `npm ci` in the repository root (make test does)", err)
			return
		}
		axeSource = string(b)
	})
	return axeSource, axeErr
}

// repoRoot is the nearest folder above the working directory (a test's package folder) that
// holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// axeRun runs every rule on the document and keeps what the report needs.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
	nodes: v.nodes.map(n => ({target: n.target, html: n.html, failureSummary: n.failureSummary})),
})))`

// Axe runs axe-core's rules on the page as it is now and returns every violation, of any impact.
// axe is injected through the DevTools protocol (Runtime.evaluate), which the page's Content
// Security Policy does not govern, so a page with script-src 'self' is checked as it is served;
// it is injected again after a navigation.
func Axe(ctx context.Context) ([]Violation, error) {
	src, err := loadAxe()
	if err != nil {
		return nil, err
	}
	present, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object' && typeof window.axe.run === 'function'`))
	if err != nil {
		return nil, fmt.Errorf("look for axe in the page: %w", err)
	}
	if !present {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
			return nil, fmt.Errorf("inject axe-core: %w", err)
		}
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("run axe-core: %w", err)
	}
	return violations, nil
}

// AssertAccessible runs axe-core on the page as it is now (one screen of a flow, named by screen
// in the report) and fails the test for each serious or critical violation, printing its rule,
// impact, help and the elements' selectors. Minor and moderate violations are logged. It does not
// stop the test, so one run reports every screen.
func AssertAccessible(t testing.TB, ctx context.Context, screen string) {
	t.Helper()
	sctx, cancel := stepContext(ctx)
	defer cancel()
	violations, err := Axe(sctx)
	if err != nil {
		t.Fatalf("browsertest: accessibility of %q: %v", screen, err)
	}
	vp := ViewportOf(ctx).Name
	for _, v := range violations {
		if v.Blocking() {
			t.Errorf("browsertest: accessibility of %q (%s): %s", screen, vp, v)
		} else {
			t.Logf("browsertest: accessibility of %q (%s), not failing: %s", screen, vp, v)
		}
	}
}
