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
