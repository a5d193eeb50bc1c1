package searchtools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/talent"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// CandidatesInput are searchCandidates' arguments.
type CandidatesInput struct {
	toolkit.CompanyArg
	Query          string   `json:"query" jsonschema:"what you are looking for in plain words: role, skills, location, years of experience, education, prior employers, preferences; for example 'senior backend engineer with Go and Kubernetes, 5+ years, near Austin TX, ex-Google'"`
	Limit          *int     `json:"limit,omitempty" jsonschema:"candidates to return; default 10, at most 100 (larger values are clamped)"`
	Radius         *float64 `json:"radius,omitempty" jsonschema:"miles around the location named in the query; default 25 when the query names a city, at most 500"`
	Recency        *int     `json:"recency,omitempty" jsonschema:"only candidates whose record was updated within this many days"`
	Status         []string `json:"status,omitempty" jsonschema:"candidate statuses to include or exclude, for example new, screening, interviewing, offered, hired, rejected, withdrawn"`
	StatusOperator string   `json:"statusOperator,omitempty" jsonschema:"includes (default) keeps only the listed statuses; excludes drops them"`
}

// CandidateHit is one candidate found.
type CandidateHit struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	Title           string   `json:"title"`
	Location        string   `json:"location"`
	DistanceMiles   *float64 `json:"distanceMiles" jsonschema:"distance from the query's location; null when the query names none"`
	Skills          []string `json:"skills"`
	MatchedSkills   []string `json:"matchedSkills"`
	Employers       []string `json:"employers"`
	Education       string   `json:"education"`
	YearsExperience *int     `json:"yearsExperience"`
	Status          string   `json:"status"`
	UpdatedAt       string   `json:"updatedAt"`
	Score           float64  `json:"score" jsonschema:"relevance; higher is better"`
	Link            string   `json:"link"`
}

// CandidatesOutput is searchCandidates' structured result.
type CandidatesOutput struct {
	Interpretation string         `json:"interpretation" jsonschema:"how the query was understood, filters included"`
	Total          int            `json:"total" jsonschema:"matching candidates; a lower bound when totalCapped"`
	TotalCapped    bool           `json:"totalCapped"`
	Ranked         int            `json:"ranked" jsonschema:"how many matches were ranked by relevance (the most recently updated ones when the match set is very large)"`
	RadiusMiles    *float64       `json:"radiusMiles" jsonschema:"the radius applied around the query's location; null when none"`
	Notes          []string       `json:"notes,omitempty"`
	Candidates     []CandidateHit `json:"candidates"`
	toolkit.Notices
}

var statusOperators = []string{"includes", "excludes"}

func registerCandidates(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "searchCandidates",
		Title: "Search the talent pool",
		Description: "Finds candidates in the company's talent pool from a natural-language request. The query is parsed into " +
			"role and skills (full-text search over titles, skills, prior employers, education and location), a location with a " +
			"radius in miles (default 25 when a city is named), minimum years of experience, degree level and field, and prior " +
			"employers; the answer starts with how the query was understood. Optional filters: recency (updated within N days) " +
			"and status with statusOperator includes/excludes. Results are ranked by relevance, then recency, with deep links. " +
			"Use getCandidateReport for one candidate's interviews.",
	}, func(ctx context.Context, call *toolkit.Call, in CandidatesInput) (CandidatesOutput, *toolkit.Text, error) {
		var out CandidatesOutput
		if strings.TrimSpace(in.Query) == "" {
			return out, nil, toolkit.Errorf("query is required: describe the role, skills, location or experience you are looking for")
		}
		limit, err := call.Limit("limit", in.Limit, talent.DefaultLimit, 1, talent.MaxLimit)
		if err != nil {
			return out, nil, err
		}
		if in.Radius != nil && *in.Radius > talent.MaxRadiusMiles {
			call.Notice("radius %g is above the maximum %g miles; used %g", *in.Radius, talent.MaxRadiusMiles, talent.MaxRadiusMiles)
			r := talent.MaxRadiusMiles
			in.Radius = &r
		}
		op := in.StatusOperator
		if op != "" {
			if op, err = toolkit.OneOf("statusOperator", op, statusOperators); err != nil {
				return out, nil, err
			}
		}
		call.EndSnapshot() // talent.Search runs in a read-only transaction of its own
		res, err := talent.Search(ctx, env.Store.SQL(), call.Company.ID, talent.Params{
			Query: in.Query, Limit: limit, RadiusMiles: in.Radius, RecencyDays: in.Recency, Status: in.Status, StatusOperator: op,
		})
		if errors.Is(err, talent.ErrInvalidParams) {
			return out, nil, toolkit.Errorf("%s", strings.TrimPrefix(err.Error(), talent.ErrInvalidParams.Error()+": "))
		}
		if err != nil {
			return out, nil, err
		}
		out = CandidatesOutput{
			Interpretation: res.Interpretation, Total: res.Total, TotalCapped: res.TotalCapped, Ranked: res.Ranked,
			Notes: res.Notes, Candidates: make([]CandidateHit, 0, len(res.Candidates)),
		}
		if res.RadiusMiles > 0 {
			out.RadiusMiles = &res.RadiusMiles
		}
		for _, c := range res.Candidates {
			out.Candidates = append(out.Candidates, CandidateHit{
				ID: c.ID.String(), Name: c.Name, Title: c.Title, Location: c.Location, DistanceMiles: c.DistanceMiles,
				Skills: nonNil(c.Skills), MatchedSkills: nonNil(c.MatchedSkills), Employers: nonNil(c.Employers),
				Education: c.Education, YearsExperience: c.YearsExperience, Status: c.Status,
				UpdatedAt: toolkit.Timestamp(c.UpdatedAt), Score: toolkit.Round(c.Score, 4), Link: env.Links.Candidate(c.ID),
			})
		}
		return out, candidatesText(in.Query, &out), nil
	})
}

func candidatesText(query string, out *CandidatesOutput) *toolkit.Text {
	var t toolkit.Text
	t.H1("Candidates for %q", query)
	total := fmt.Sprint(out.Total)
	if out.TotalCapped {
		total = "at least " + total
	}
	t.KV("Interpreted as", out.Interpretation, "Matches", total, "Showing", fmt.Sprint(len(out.Candidates)))
	for _, n := range out.Notes {
		t.Line("- %s", n)
	}
	if out.TotalCapped || out.Ranked < out.Total {
		t.Line("Ranked by relevance among the %d most recently updated matches; narrow the query for a complete ranking.", out.Ranked)
	}
	t.Blank()
	rows := make([][]string, 0, len(out.Candidates))
	for i, c := range out.Candidates {
		years, dist := "—", ""
		if c.YearsExperience != nil {
			years = fmt.Sprint(*c.YearsExperience)
		}
		if c.DistanceMiles != nil {
			dist = fmt.Sprintf(" (%.0f mi)", *c.DistanceMiles)
		}
		skills := c.MatchedSkills
		if len(skills) == 0 {
			skills = c.Skills[:min(3, len(c.Skills))]
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), c.Name, c.Title, c.Location + dist, years, strings.Join(skills, ", "), c.Status, c.Link})
	}
	t.Table([]string{"#", "Name", "Title", "Location", "Years", "Skills", "Status", "Link"}, rows, "No candidate matches; try fewer requirements or a larger radius.")
	return &t
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
