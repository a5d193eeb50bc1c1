package jobtools_test

import (
	"slices"
	"strings"
	"testing"
)

var allTools = []string{"getJobDetails", "getJobsSummary", "getPositionStats", "getCandidatePipelineStats",
	"getInterviewGuideDetails", "listTemplates", "getCompanyFeatures", "getAtsConnection"}

func TestToolsList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tools := f.h.Tools(t, f.acmeKey)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: readOnlyHint not set", tool.Name)
		}
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: input schema %v, output schema %v", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil)
			continue
		}
		schema := toMap(t, tool.InputSchema)
		if schema["type"] != "object" {
			t.Errorf("%s: input schema type %v", tool.Name, schema["type"])
		}
		if _, ok := jsonPath(t, schema, "properties").(map[string]any)["companyId"]; !ok {
			t.Errorf("%s: input schema lacks companyId", tool.Name)
		}
		if len(tool.Description) < 200 {
			t.Errorf("%s: description too short for a language model: %q", tool.Name, tool.Description)
		}
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(allTools))
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	// Fixed enumerations are in the schemas.
	for tool, prop := range map[string]string{"getPositionStats": "metric", "getCandidatePipelineStats": "metric", "listTemplates": "templateType"} {
		for _, x := range tools {
			if x.Name != tool {
				continue
			}
			enum, _ := jsonPath(t, toMap(t, x.InputSchema), "properties."+prop+".enum").([]any)
			if len(enum) < 2 {
				t.Errorf("%s.%s enum = %v", tool, prop, enum)
			}
			if prop == "metric" && !slices.Contains(anyStrings(jsonPath(t, toMap(t, x.InputSchema), "required")), "metric") {
				t.Errorf("%s: metric is not required", tool)
			}
		}
	}
}

// TestIsolation checks every tool for tenant isolation: Acme's key may not query Globex, and
// Acme's answers never mention Globex's jobs, templates, users or candidates, even where Globex
// shares an external job id, a creator or ATS report ids with Acme.
func TestIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	markers := f.globexMarkers()
	j1 := f.j[1].String()
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"getJobDetails", map[string]any{"jobId": j1}},
		{"getJobDetails", map[string]any{"externalId": "A-100"}},
		{"getJobDetails", map[string]any{"jobName": "Engineer"}},
		{"getJobsSummary", map[string]any{"userName": "Dana Scully"}},
		{"getJobsSummary", map[string]any{}},
		{"getPositionStats", map[string]any{"metric": "openPositions"}},
		{"getPositionStats", map[string]any{"metric": "totalPositions"}},
		{"getPositionStats", map[string]any{"metric": "candidatesPerPosition"}},
		{"getCandidatePipelineStats", map[string]any{"metric": "byStatus"}},
		{"getCandidatePipelineStats", map[string]any{"metric": "byDecision"}},
		{"getCandidatePipelineStats", map[string]any{"metric": "byDecision", "sinceDate": "2026-02-12T12:00:00Z", "untilDate": "2026-02-14T06:00:00Z"}},
		{"getCandidatePipelineStats", map[string]any{"metric": "funnel"}},
		{"getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": j1}},
		{"getInterviewGuideDetails", map[string]any{"positionId": j1}},
		{"listTemplates", map[string]any{"includeUnused": true, "topN": 50}},
		{"getCompanyFeatures", map[string]any{}},
		{"getAtsConnection", map[string]any{}},
	} {
		f.h.AssertIsolated(t, f.acme, f.globex, c.name, c.args, markers...)
	}
	// Globex's ids are unknown to Acme's key.
	g := f.gJob.String()
	f.toolError(t, "getJobDetails", map[string]any{"jobId": g}, nil, "no job with id")
	f.toolError(t, "getInterviewGuideDetails", map[string]any{"positionId": g}, nil, "not a job of this company")
	f.toolError(t, "getCandidatePipelineStats", map[string]any{"metric": "funnel", "positionId": g}, nil, "not a job of this company")
	f.toolError(t, "getJobsSummary", map[string]any{"userName": "Gustavo"}, nil, "no member of this company")
	// A foreign job as job context is ignored with a notice, not used.
	r := f.h.Call(t, f.acmeKey, "getCandidatePipelineStats", map[string]any{"metric": "funnel"}, map[string]any{"io.recruitd/jobId": g})
	if r.IsError || !strings.Contains(r.Text, "company-wide") {
		t.Errorf("foreign job context: %v %s", r.IsError, r.Text)
	}
	// (The notice echoes the id the caller sent; nothing else of Globex's may appear.)
	lacks(t, r.Text+string(r.Structured), slices.DeleteFunc(slices.Clone(markers), func(s string) bool { return s == g })...)
	// Globex's own view shows its data (the markers are real).
	gr := f.h.OK(t, f.globexKey, "getJobsSummary", nil)
	contains(t, gr.Text, "Globex Secret Welder")
	lacks(t, gr.Text+string(gr.Structured), "Senior Backend Engineer", f.j[1].String())
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
