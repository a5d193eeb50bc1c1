package searchtools_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/mcpserver/searchtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

func TestSearchDocumentation(t *testing.T) {
	h := tooltest.New(t, time.Time{}, searchtools.Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	globex := h.Company(t, "globex", "Globex", nil)
	caller := tooltest.KeyCaller(acme)

	r := h.OK(t, caller, "searchDocumentation", map[string]any{"query": "how do I verify the partner callback signature"})
	var out struct {
		Found     bool `json:"found"`
		Citations []struct {
			URL string `json:"url"`
		} `json:"citations"`
	}
	r.Decode(t, &out)
	want := tooltest.AppURL + "/docs/partner-callbacks#verify-the-callback-signature"
	if !out.Found || len(out.Citations) == 0 || out.Citations[0].URL != want || !strings.Contains(r.Text, want) || !strings.Contains(r.Text, "webhook-signature") {
		t.Errorf("signature question: found %v citations %+v text:\n%s", out.Found, out.Citations, r.Text)
	}

	r = h.OK(t, caller, "searchDocumentation", map[string]any{"query": "how do I connect Claude to the MCP server"})
	r.Decode(t, &out)
	if !out.Found || !strings.Contains(out.Citations[0].URL, "/docs/mcp#") {
		t.Errorf("MCP question cites %+v", out.Citations)
	}

	r = h.OK(t, caller, "searchDocumentation", map[string]any{"query": "quantum banana spaceship"})
	r.Decode(t, &out)
	if out.Found || !strings.Contains(r.Text, "No matching documentation") {
		t.Errorf("nonsense query found %v: %s", out.Found, r.Text)
	}
	h.ToolError(t, caller, "searchDocumentation", map[string]any{"query": "   "}, "query is empty")
	h.ToolError(t, caller, "searchDocumentation", map[string]any{"query": strings.Repeat("job ", 200)}, "longer than 500")
	h.AssertIsolated(t, acme, globex, "searchDocumentation", map[string]any{"query": "create a job"})
}

// TestSearchDocumentationNeverBuildsTheIndex: the tool reads the index recruitd migrate builds;
// without one it says so, with one built from other docs it answers with a notice, and it writes
// nothing either way.
func TestSearchDocumentationNeverBuildsTheIndex(t *testing.T) {
	h := tooltest.New(t, time.Time{}, searchtools.Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	caller := tooltest.KeyCaller(acme)
	ask := map[string]any{"query": "how do I create a job"}

	if _, err := h.DB.SQL.ExecContext(t.Context(), `UPDATE doc_index_state SET content_hash = 'older docs'`); err != nil {
		t.Fatal(err)
	}
	r := h.OK(t, caller, "searchDocumentation", ask)
	var out struct {
		Found   bool     `json:"found"`
		Notices []string `json:"notices"`
	}
	r.Decode(t, &out)
	if !out.Found || len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "built from another version of the docs") || !strings.Contains(r.Text, "recruitd migrate") {
		t.Errorf("searchDocumentation on a stale index = found %v, notices %v\n%s", out.Found, out.Notices, r.Text)
	}

	if _, err := h.DB.SQL.ExecContext(t.Context(), `DELETE FROM doc_sections; DELETE FROM doc_index_state`); err != nil {
		t.Fatal(err)
	}
	h.ToolError(t, caller, "searchDocumentation", ask, "the documentation index has not been built")
	var rows int
	if err := h.DB.SQL.QueryRowContext(t.Context(), `SELECT (SELECT count(*) FROM doc_sections) + (SELECT count(*) FROM doc_index_state)`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("index rows after searchDocumentation on a missing index = %d, %v; want 0 (the tool builds nothing)", rows, err)
	}
}
