package searchtools_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/mcpserver/searchtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

func addCandidate(t *testing.T, h *tooltest.Harness, co *models.Company, first, last, title, city, state string, lat, lon float64, status string, skills ...string) string {
	t.Helper()
	var id string
	err := h.DB.SQL.QueryRowContext(t.Context(), `
		INSERT INTO candidates (company_id, first_name, last_name, email, title, location, city, state, country, latitude, longitude, skills, employers, education, years_experience, status)
		VALUES ($1, $2, $3, lower($2 || '.' || $3 || '@example.com'), $4, $5 || ', ' || $6, $5, $6, 'US', $7, $8, $9, '{Acme Labs}', 'BS Computer Science', 6, $10)
		RETURNING id`, co.ID, first, last, title, city, state, lat, lon, skills, status).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSearchCandidates(t *testing.T) {
	h := tooltest.New(t, time.Time{}, searchtools.Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	globex := h.Company(t, "globex", "Globex", nil)
	caller := tooltest.KeyCaller(acme)
	austin := addCandidate(t, h, acme, "Ada", "Austin", "Senior Software Engineer", "Austin", "TX", 30.2672, -97.7431, "new", "Go", "Kubernetes")
	roundRock := addCandidate(t, h, acme, "Rob", "Rock", "Software Engineer", "Round Rock", "TX", 30.5083, -97.6789, "hired", "Go")
	addCandidate(t, h, acme, "Dana", "Dallas", "Software Engineer", "Dallas", "TX", 32.7767, -96.7970, "new", "Go")
	addCandidate(t, h, acme, "Nora", "Nurse", "Registered Nurse", "Austin", "TX", 30.2672, -97.7431, "new", "BLS")
	addCandidate(t, h, globex, "Gus", "Globex", "Software Engineer", "Austin", "TX", 30.2672, -97.7431, "new", "Go")

	type out struct {
		Interpretation string   `json:"interpretation"`
		Total          int      `json:"total"`
		RadiusMiles    *float64 `json:"radiusMiles"`
		Candidates     []struct {
			ID            string   `json:"id"`
			DistanceMiles *float64 `json:"distanceMiles"`
			Link          string   `json:"link"`
		} `json:"candidates"`
		Notices []string `json:"notices"`
	}
	ids := func(o out) []string {
		var s []string
		for _, c := range o.Candidates {
			s = append(s, c.ID)
		}
		return s
	}

	// Default radius 25 miles: Austin and Round Rock (about 17 miles), not Dallas; the nurse is not
	// a software engineer; Globex's engineer is another company's.
	var o out
	r := h.OK(t, caller, "searchCandidates", map[string]any{"query": "software engineer with Go near Austin, TX"})
	r.Decode(t, &o)
	if got := ids(o); len(got) != 2 || !slices.Contains(got, austin) || !slices.Contains(got, roundRock) || o.Total != 2 || o.RadiusMiles == nil || *o.RadiusMiles != 25 {
		t.Errorf("near Austin = %v total %d radius %v; want austin and roundRock\n%s", got, o.Total, o.RadiusMiles, r.Text)
	}
	for _, c := range o.Candidates {
		if d := c.DistanceMiles; c.ID == roundRock && (d == nil || *d < 14 || *d > 20) {
			t.Errorf("Round Rock distance = %v, want about 17 miles", d)
		}
	}
	if !strings.Contains(r.Text, "Interpreted as:") || !strings.Contains(r.Text, tooltest.AppURL+"/candidates/"+austin) {
		t.Errorf("text lacks the interpretation or the deep link:\n%s", r.Text)
	}

	// A 300-mile radius reaches Dallas; status excludes drops the hired one.
	r = h.OK(t, caller, "searchCandidates", map[string]any{"query": "software engineer in Austin, TX", "radius": 300, "status": []string{"hired"}, "statusOperator": "excludes"})
	r.Decode(t, &o)
	if got := ids(o); len(got) != 2 || got[0] == roundRock || got[1] == roundRock {
		t.Errorf("300 miles excluding hired = %v\n%s", got, r.Text)
	}
	r = h.OK(t, caller, "searchCandidates", map[string]any{"query": "software engineer", "status": []string{"hired"}})
	r.Decode(t, &o)
	if got := ids(o); len(got) != 1 || got[0] != roundRock {
		t.Errorf("status hired = %v", got)
	}

	// Bounds: limit above 100 is clamped and said; a radius above 500 too.
	r = h.OK(t, caller, "searchCandidates", map[string]any{"query": "engineer", "limit": 500, "radius": 9000})
	r.Decode(t, &o)
	if len(o.Notices) != 2 || !strings.Contains(r.Text, "limit 500 is above the maximum 100") || !strings.Contains(r.Text, "radius 9000 is above the maximum 500") {
		t.Errorf("clamp notices = %v\n%s", o.Notices, r.Text)
	}
	h.ToolError(t, caller, "searchCandidates", map[string]any{"query": "engineer", "statusOperator": "without"}, "statusOperator must be one of includes, excludes")
	h.ToolError(t, caller, "searchCandidates", map[string]any{"query": "  "}, "query is required")
	h.ToolError(t, caller, "searchCandidates", map[string]any{"query": "engineer", "limit": 0}, "limit must be at least 1")
	h.AssertIsolated(t, acme, globex, "searchCandidates", map[string]any{"query": "software engineer in Austin, TX"}, "Gus", "Globex")
}
