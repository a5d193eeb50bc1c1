package jobtools

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// Bounds of listTemplates.topN (spec Limits).
const (
	defaultTopN = 10
	maxTopN     = 50
)

// proxyNote explains the interviewGuide adoption figure.
const proxyNote = "Interview-guide adoption is a proxy: an active job counts when its guide has at least one question or " +
	"grading criterion copied from a template. The mark survives duplication of a guide, so the figure is company-level " +
	"adoption only; per-template jobCount is not known and always 0, and templates are listed alphabetically."

func registerTemplates(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "listTemplates",
		Title: "Templates and their adoption",
		Description: "The company's reusable templates and how widely active jobs (status ACTIVE, not deleted) use them. " +
			"Two types: resumeFit (resume-fit scoring templates, referenced by jobs) and interviewGuide (interview-guide " +
			"templates whose questions and criteria are copied into job guides). templateType picks one; omitted, both.\n" +
			"Per type: totalTemplates, jobsUsingType (active jobs using a template of the type), adoptionPercent " +
			"(jobsUsingType / active jobs), adoptionMethod and topTemplates.\n" +
			"resumeFit adoption is exact (adoptionMethod exact): topTemplates ranks templates by the number of active jobs " +
			"using each (jobCount); unused templates are left out unless includeUnused is true.\n" +
			"interviewGuide adoption is a proxy (adoptionMethod proxy): a job counts when its guide has at least one " +
			"template-copied question or criterion; this is company-level adoption only, per-template jobCount is always 0 " +
			"and templates are listed alphabetically.\n" +
			"topN (default 10, max 50) bounds topTemplates per type.",
		InputSchema: toolkit.InputSchema[TemplatesInput](map[string][]string{"templateType": toolkit.Strings(models.AllTemplateTypes())}),
	}, listTemplates)
}

// TemplatesInput are listTemplates' arguments.
type TemplatesInput struct {
	TemplateType  string `json:"templateType,omitempty" jsonschema:"resumeFit or interviewGuide; omitted means both"`
	TopN          *int   `json:"topN,omitempty" jsonschema:"templates listed per type: default 10, 1 to 50 (larger values are clamped to 50)"`
	IncludeUnused bool   `json:"includeUnused,omitempty" jsonschema:"resumeFit only: also list templates no active job uses (jobCount 0); default false"`
	toolkit.CompanyArg
}

// TemplatesOutput is listTemplates' structured result; a type not asked for is omitted.
type TemplatesOutput struct {
	TopN           int            `json:"topN"`
	ActiveJobs     int            `json:"activeJobs" jsonschema:"jobs with status ACTIVE and not deleted (the adoption denominator)"`
	ResumeFit      *templateStats `json:"resumeFit,omitempty"`
	InterviewGuide *templateStats `json:"interviewGuide,omitempty"`
	toolkit.Notices
}

type templateStats struct {
	TemplateType    string          `json:"templateType"`
	TotalTemplates  int             `json:"totalTemplates"`
	JobsUsingType   int             `json:"jobsUsingType" jsonschema:"active jobs using a template of this type"`
	AdoptionPercent *float64        `json:"adoptionPercent" jsonschema:"jobsUsingType / activeJobs in percent (one decimal); null without active jobs"`
	AdoptionMethod  string          `json:"adoptionMethod" jsonschema:"exact (real per-template counts) or proxy (company-level only)"`
	AdoptionNote    string          `json:"adoptionNote,omitempty" jsonschema:"how to read a proxy figure"`
	TopTemplates    []templateUsage `json:"topTemplates"`
}

type templateUsage struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	JobCount int    `json:"jobCount" jsonschema:"active jobs using the template (always 0 for interviewGuide)"`
}

func listTemplates(ctx context.Context, call *toolkit.Call, in TemplatesInput) (TemplatesOutput, *toolkit.Text, error) {
	var out TemplatesOutput
	types := models.AllTemplateTypes()
	if in.TemplateType != "" {
		tt, err := toolkit.OneOf("templateType", in.TemplateType, models.AllTemplateTypes())
		if err != nil {
			return out, nil, err
		}
		types = []models.TemplateType{tt}
		if tt == models.TemplateTypeInterviewGuide && in.IncludeUnused {
			call.Notice("includeUnused applies to resumeFit only; interviewGuide lists every template anyway")
		}
	}
	topN, err := call.Limit("topN", in.TopN, defaultTopN, 1, maxTopN)
	if err != nil {
		return out, nil, err
	}
	out.TopN = topN
	db := call.DB
	// The active jobs from job_counts (a few rows, whatever the company's jobs; migration 00059).
	if err := db.QueryRowContext(ctx, `
		SELECT coalesce(sum(jobs), 0) FROM job_counts WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted`,
		call.Company.ID).Scan(&out.ActiveJobs); err != nil {
		return out, nil, err
	}
	for _, tt := range types {
		st := &templateStats{TemplateType: string(tt), TopTemplates: []templateUsage{}}
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM templates WHERE company_id = $1 AND type = $2`,
			call.Company.ID, string(tt)).Scan(&st.TotalTemplates); err != nil {
			return out, nil, err
		}
		var err error
		switch tt {
		case models.TemplateTypeResumeFit:
			err = resumeFitStats(ctx, call, st, topN, in.IncludeUnused)
			out.ResumeFit = st
		case models.TemplateTypeInterviewGuide:
			err = guideTemplateStats(ctx, call, st, topN)
			out.InterviewGuide = st
		}
		if err != nil {
			return out, nil, err
		}
		st.AdoptionPercent = toolkit.Percent(int64(st.JobsUsingType), int64(out.ActiveJobs))
	}
	return out, templatesText(&out), nil
}

func resumeFitStats(ctx context.Context, call *toolkit.Call, st *templateStats, topN int, includeUnused bool) error {
	st.AdoptionMethod = "exact"
	db := call.DB
	// resume_fit_jobs (migration 00067) counts the jobs of each template by status: a few rows
	// per template, however many jobs. A deleted template's jobs lose their reference.
	if err := db.QueryRowContext(ctx, `
		SELECT coalesce(sum(jobs), 0) FROM resume_fit_jobs
		WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted`,
		call.Company.ID).Scan(&st.JobsUsingType); err != nil {
		return err
	}
	used := " AND u.jobs > 0"
	if includeUnused {
		used = ""
	}
	return collect(ctx, db, `
		SELECT t.id, t.name, coalesce(u.jobs, 0) FROM templates t
		LEFT JOIN (SELECT template_id, sum(jobs) AS jobs FROM resume_fit_jobs
		           WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted GROUP BY template_id) u ON u.template_id = t.id
		WHERE t.company_id = $1 AND t.type = 'resumeFit'`+used+`
		ORDER BY coalesce(u.jobs, 0) DESC, lower(t.name), t.name, t.id
		LIMIT $2`, []any{call.Company.ID, topN}, func(r *sql.Rows) error {
		return scanUsage(r, st)
	})
}

func guideTemplateStats(ctx context.Context, call *toolkit.Call, st *templateStats, topN int) error {
	st.AdoptionMethod, st.AdoptionNote = "proxy", proxyNote
	db := call.DB
	// guide_template_jobs (migration 00067) counts the jobs whose guide has a question or criterion
	// copied from a template, by status: a few rows per company.
	if err := db.QueryRowContext(ctx, `
		SELECT coalesce(sum(jobs), 0) FROM guide_template_jobs
		WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted`,
		call.Company.ID).Scan(&st.JobsUsingType); err != nil {
		return err
	}
	return collect(ctx, db, `
		SELECT id, name, 0 FROM templates WHERE company_id = $1 AND type = 'interviewGuide'
		ORDER BY lower(name), name, id LIMIT $2`, []any{call.Company.ID, topN}, func(r *sql.Rows) error {
		return scanUsage(r, st)
	})
}

func scanUsage(r *sql.Rows, st *templateStats) error {
	var u templateUsage
	var id uuid.UUID
	if err := r.Scan(&id, &u.Name, &u.JobCount); err != nil {
		return err
	}
	u.ID = id.String()
	st.TopTemplates = append(st.TopTemplates, u)
	return nil
}

func templatesText(o *TemplatesOutput) *toolkit.Text {
	var t toolkit.Text
	t.H1("Templates")
	t.KV("Active jobs", itoa(o.ActiveJobs)+" (status ACTIVE, not deleted; the adoption denominator)")
	for _, st := range []*templateStats{o.ResumeFit, o.InterviewGuide} {
		if st == nil {
			continue
		}
		label := map[string]string{"resumeFit": "Resume-fit templates", "interviewGuide": "Interview-guide templates"}[st.TemplateType]
		t.H2("%s (%s)", label, st.TemplateType)
		t.KV(
			"Total templates", itoa(st.TotalTemplates),
			"Active jobs using one", itoa(st.JobsUsingType),
			"Adoption", fmt.Sprintf("%s (%s)", toolkit.Pct(st.AdoptionPercent), st.AdoptionMethod),
		)
		if st.AdoptionNote != "" {
			t.Blank()
			t.Line("%s", st.AdoptionNote)
		}
		t.Blank()
		rows := make([][]string, 0, len(st.TopTemplates))
		for _, u := range st.TopTemplates {
			if st.TemplateType == string(models.TemplateTypeInterviewGuide) {
				rows = append(rows, []string{u.Name, "n/a (proxy)", u.ID})
			} else {
				rows = append(rows, []string{u.Name, itoa(u.JobCount), u.ID})
			}
		}
		empty := "No templates."
		if st.TemplateType == string(models.TemplateTypeResumeFit) && st.TotalTemplates > 0 {
			empty = "No template is used by an active job (includeUnused: true lists them all)."
		}
		order := "most used first"
		if st.TemplateType == string(models.TemplateTypeInterviewGuide) {
			order = "alphabetical"
		}
		t.Line("Top %d (%s):", o.TopN, order)
		t.Table([]string{"Template", "Active jobs", "Template id"}, rows, empty)
	}
	return &t
}
