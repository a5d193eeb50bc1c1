package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

// scopedTools are the tools whose input has both positionId and companyWide; the test below
// finds them in tools/list and fails when this list is out of date.
var scopedTools = []string{"getCandidatePipelineStats", "getCheatingDetectionStats", "getInterviewStats", "getInterviewTimeOfDayBreakdown"}

// TestEveryScopedToolAppliesOneScopeRule calls every tool that takes a job scope, over the real
// transport, with positionId plus companyWide: true (refused, with the same message), and with
// each of positionId, the job context and companyWide alone (the same scope output everywhere).
func TestEveryScopedToolAppliesOneScopeRule(t *testing.T) {
	h := tooltest.New(t, time.Time{}, Register)
	acme := h.Company(t, "acme", "Acme Corp", func(c *models.Company) {
		c.FraudDetectionEnabled, c.ModelCheatDetectionEnabled = true, true
	})
	job := &models.Job{CompanyID: acme.ID, ExternalID: "A-1", InterviewerID: "acme-A-1", Title: "Welder", Status: models.JobStatusActive}
	if err := h.Store.DB().Create(job).Error; err != nil {
		t.Fatal(err)
	}
	caller := tooltest.KeyCaller(acme)
	jobMeta := map[string]any{toolkit.JobContextMetaKey: job.ID.String()}

	var found []string
	for _, tool := range h.Tools(t, caller) {
		var schema struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatalf("%s input schema %s: %v", tool.Name, b, err)
		}
		_, hasPosition := schema.Properties["positionId"]
		_, hasCompanyWide := schema.Properties["companyWide"]
		if !hasPosition || !hasCompanyWide {
			continue
		}
		found = append(found, tool.Name)
		base := map[string]any{}
		for _, req := range schema.Required {
			if e := schema.Properties[req].Enum; len(e) > 0 {
				base[req] = e[0]
			}
		}
		with := func(kv ...any) map[string]any {
			args := map[string]any{}
			for k, v := range base {
				args[k] = v
			}
			for i := 0; i+1 < len(kv); i += 2 {
				args[kv[i].(string)] = kv[i+1]
			}
			return args
		}
		h.ToolError(t, caller, tool.Name, with("positionId", job.ID.String(), "companyWide", true),
			"pass either positionId (one job) or companyWide: true (the whole company), not both")

		for _, tc := range []struct {
			args       map[string]any
			meta       map[string]any
			source     string
			jobID      string
			textJobRef bool
		}{
			{with("positionId", job.ID.String()), nil, toolkit.ScopePositionID, job.ID.String(), true},
			{with(), jobMeta, toolkit.ScopeJobContext, job.ID.String(), true},
			{with("companyWide", true), jobMeta, toolkit.ScopeCompanyWide, "", false},
		} {
			r := h.Call(t, caller, tool.Name, tc.args, tc.meta)
			var out struct {
				Scope *struct {
					Source string `json:"source"`
					Job    *struct {
						ID   string `json:"id"`
						Link string `json:"link"`
					} `json:"job"`
				} `json:"scope"`
			}
			if !r.IsError {
				r.Decode(t, &out)
			}
			got, gotJob := "", ""
			if out.Scope != nil {
				got = out.Scope.Source
				if out.Scope.Job != nil {
					gotJob = out.Scope.Job.ID
				}
			}
			if r.IsError || got != tc.source || gotJob != tc.jobID || strings.Contains(r.Text, h.Env.Links.Job(job.ID)) != tc.textJobRef {
				t.Errorf("%s(%v, _meta %v) = scope %q job %q (error %v); want scope %q job %q, the job's link in the text %v\n%s",
					tool.Name, tc.args, tc.meta, got, gotJob, r.IsError, tc.source, tc.jobID, tc.textJobRef, r.Text)
			}
		}
	}
	slices.Sort(found)
	if !slices.Equal(found, scopedTools) {
		t.Errorf("tools with positionId and companyWide = %v, want %v", found, scopedTools)
	}
}

// TestListCompaniesMarksCompanyID: listCompanies takes companyId like every tool, checks it like
// every tool, and marks that company in its answer.
func TestListCompaniesMarksCompanyID(t *testing.T) {
	h := tooltest.New(t, time.Time{}, Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	globex := h.Company(t, "globex", "Globex", nil)
	initech := h.Company(t, "initech", "Initech", nil)
	type entry struct {
		ID       string `json:"id"`
		Primary  bool   `json:"primary"`
		Selected bool   `json:"selected"`
	}
	var out struct {
		Companies []entry `json:"companies"`
		Selected  string  `json:"selectedCompanyId"`
	}
	marks := func(r *tooltest.Result) map[string]entry {
		t.Helper()
		r.Decode(t, &out)
		m := map[string]entry{}
		for _, e := range out.Companies {
			m[e.ID] = e
		}
		return m
	}

	member := &toolkit.Caller{Kind: toolkit.CallerUser, CompanyIDs: []uuid.UUID{acme.ID, globex.ID}}
	r := h.OK(t, member, "listCompanies", map[string]any{"companyId": globex.ID.String()})
	m := marks(r)
	if len(m) != 2 || !m[acme.ID.String()].Primary || m[acme.ID.String()].Selected || !m[globex.ID.String()].Selected ||
		out.Selected != globex.ID.String() || !strings.Contains(r.Text, "selected (companyId)") {
		t.Errorf("listCompanies(companyId globex) as a member of acme and globex = %+v\n%s", out, r.Text)
	}
	r = h.OK(t, member, "listCompanies", nil)
	if m := marks(r); !m[acme.ID.String()].Selected || m[globex.ID.String()].Selected || out.Selected != acme.ID.String() {
		t.Errorf("listCompanies() = %+v; want the primary company selected", out)
	}
	h.ToolError(t, member, "listCompanies", map[string]any{"companyId": initech.ID.String()}, "companyId is not in your accessible companies")
	h.ToolError(t, member, "listCompanies", map[string]any{"companyId": "acme"}, `companyId "acme" is not a UUID`)

	// A platform admin's filtered list still shows the company it names.
	admin := &toolkit.Caller{Kind: toolkit.CallerUser, CompanyIDs: []uuid.UUID{acme.ID}, PlatformAdmin: true}
	r = h.OK(t, admin, "listCompanies", map[string]any{"query": "glob", "companyId": initech.ID.String()})
	m = marks(r)
	if g, ok := m[globex.ID.String()]; len(m) != 2 || !m[initech.ID.String()].Selected || !ok || g.Selected {
		t.Errorf("listCompanies(query glob, companyId initech) as admin = %+v; want initech (selected) and globex (the match)", out)
	}
}

// TestChallengeAndMetadataNameTheListenAddress: without MCP_BASE_URL the 401 challenge and the
// protected-resource metadata name MCP_ADDR, or, for port 0, the address really bound.
func TestChallengeAndMetadataNameTheListenAddress(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want func(f *fixture) string
	}{
		{"127.0.0.1:18081", func(*fixture) string { return "http://127.0.0.1:18081" }},
		{"127.0.0.1:0", func(f *fixture) string { return "http://" + f.srv.Listener.Addr().String() }},
	} {
		f := newFixture(t, "MCP_BASE_URL", "", "MCP_ADDR", tc.addr)
		want := tc.want(f)
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		challenge := `Bearer realm="` + want + `", resource_metadata="` + want + `/.well-known/oauth-protected-resource"`
		if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || got != challenge {
			t.Errorf("MCP_ADDR=%s: POST /mcp = %d, WWW-Authenticate %q; want 401, %q", tc.addr, resp.StatusCode, got, challenge)
		}
		resp, err = http.Get(f.srv.URL + "/.well-known/oauth-protected-resource")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var doc struct {
			Resource string `json:"resource"`
		}
		if err := json.Unmarshal(body, &doc); err != nil || doc.Resource != want+"/mcp" {
			t.Errorf("MCP_ADDR=%s: metadata resource = %q (%v); want %q", tc.addr, doc.Resource, err, want+"/mcp")
		}
	}
}
