package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/devidp"
)

// TestPlatformAdminWithoutCompany: a platform admin with no membership (how `users add --admin`
// without --company creates support admins) signs in over OAuth; listCompanies lists every
// company and filters by query; other tools without companyId say to pass one, and work with it.
func TestPlatformAdminWithoutCompany(t *testing.T) {
	f := newOAuthFixture(t)
	if _, err := f.st.EnsureUser(t.Context(), devidp.Admin.Email, devidp.Admin.Name, true); err != nil {
		t.Fatal(err)
	}
	c := f.publicClient(t, "http://127.0.0.1/cb")
	cs := f.session(t, c.signIn("http://127.0.0.1:5002/cb", devidp.Admin.Email).AccessToken)

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "listCompanies"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "Acme Corp") || !strings.Contains(text, "Globex Corp") || !strings.Contains(text, "pass companyId") {
		t.Fatalf("listCompanies as an admin without companies = %q (error %v), want every company and the companyId hint", text, res.IsError)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out ListCompaniesOutput
	if err := json.Unmarshal(b, &out); err != nil || len(out.Companies) != 2 || out.SelectedCompanyID != "" || out.Companies[0].Primary || out.Companies[1].Primary {
		t.Errorf("structuredContent = %s, want two companies, none primary or selected", b)
	}

	if text, isErr := callText(t, cs, "listCompanies", map[string]any{"query": "glob"}); isErr || !strings.Contains(text, "Globex Corp") || strings.Contains(text, "Acme Corp") {
		t.Errorf("listCompanies(query glob) = %q (error %v), want Globex only", text, isErr)
	}
	if text, isErr := callText(t, cs, "listCompanies", map[string]any{"companyId": f.acme.ID.String()}); isErr || !strings.Contains(text, "This call's company: Acme Corp") {
		t.Errorf("listCompanies(companyId of acme) = %q (error %v), want it selected", text, isErr)
	}

	text, isErr := callText(t, cs, "getCompanyFeatures", nil)
	if !isErr || !strings.Contains(text, "platform admin") || !strings.Contains(text, "pass companyId") || !strings.Contains(text, "listCompanies") {
		t.Errorf("getCompanyFeatures without companyId = %q (error %v), want a tool error asking for companyId", text, isErr)
	}
	if text, isErr := callText(t, cs, "getCompanyFeatures", map[string]any{"companyId": f.globex.ID.String()}); isErr {
		t.Errorf("getCompanyFeatures(companyId of globex) = %q, want the company's features", text)
	}
}
