package jobtools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// maxOtherGuides bounds the other recent guides listed when getInterviewGuideDetails answers at
// company level.
const maxOtherGuides = 10

func registerGuide(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getInterviewGuideDetails",
		Title: "Interview guide of a job",
		Description: "The interview guide (script) of one job: intro and outro, learning objectives, skills assessed, every " +
			"question in order (text, skill, source: generated from the job description / additional / structured, allowed " +
			"answers and report tag for structured questions, the template it was copied from) and the grading criteria.\n" +
			"Uses positionId when given, else the job currently open in the client (job context). Without either it answers " +
			"at company level: the guide of the most recently updated active job (scope.source companyDefault says so), and " +
			"otherGuides lists the other recent active jobs with guides, so you can pass one's id as positionId " +
			"(getJobDetails with jobName also finds a job's id).",
		InputSchema: toolkit.InputSchema[GuideInput](nil),
	}, guideDetails)
}

// GuideInput are getInterviewGuideDetails' arguments.
type GuideInput struct {
	PositionID string `json:"positionId,omitempty" jsonschema:"the job UUID; defaults to the job open in the client, else the most recently updated active job with a guide"`
	toolkit.CompanyArg
}

// GuideOutput is getInterviewGuideDetails' structured result.
type GuideOutput struct {
	Scope       toolkit.Scope `json:"scope" jsonschema:"the job and how it was chosen: positionId, jobContext or companyDefault (the most recently updated active job with a guide)"`
	HasGuide    bool          `json:"hasGuide" jsonschema:"false while the guide is being generated, when generation failed, or when the company has no active job with a guide"`
	Guide       *guideBody    `json:"guide" jsonschema:"null when hasGuide is false"`
	OtherGuides []guideRef    `json:"otherGuides,omitempty" jsonschema:"companyDefault only: the other active jobs with guides, most recently updated first (at most 10)"`
	toolkit.Notices
}

// guideRef is a job's guide in a list.
type guideRef struct {
	JobID        string `json:"jobId" jsonschema:"pass it as positionId to see this guide"`
	JobTitle     string `json:"jobTitle"`
	GuideID      string `json:"guideId"`
	JobUpdatedAt string `json:"jobUpdatedAt"`
	JobLink      string `json:"jobLink"`
}

type guideBody struct {
	ID                 string          `json:"id"`
	Intro              string          `json:"intro"`
	Outro              string          `json:"outro"`
	LearningObjectives []string        `json:"learningObjectives"`
	Skills             []string        `json:"skills"`
	Questions          []guideQuestion `json:"questions" jsonschema:"in interview order"`
	GradingCriteria    []guideCriteria `json:"gradingCriteria" jsonschema:"in order"`
	CreatedAt          string          `json:"createdAt"`
	UpdatedAt          string          `json:"updatedAt"`
}

type guideQuestion struct {
	Position        int          `json:"position"`
	Text            string       `json:"text"`
	Skill           *string      `json:"skill"`
	Source          string       `json:"source" jsonschema:"generated (from the job description), additional or structured (request's additional questions)"`
	Answers         []string     `json:"answers" jsonschema:"allowed answers (structured questions)"`
	TagName         *string      `json:"tagName" jsonschema:"report tag set from the answer (structured questions)"`
	TagInstructions *string      `json:"tagInstructions"`
	Template        *templateRef `json:"template" jsonschema:"the interviewGuide template the question was copied from; null when none"`
}

type guideCriteria struct {
	Position    int          `json:"position"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Template    *templateRef `json:"template" jsonschema:"the interviewGuide template the criterion was copied from; null when none"`
}

func guideDetails(ctx context.Context, call *toolkit.Call, in GuideInput) (GuideOutput, *toolkit.Text, error) {
	var out GuideOutput
	var err error
	if out.Scope, err = call.Scope(ctx, toolkit.ScopeArg{PositionID: in.PositionID}); err != nil {
		return out, nil, err
	}
	if out.Scope.Job == nil {
		if err := latestGuides(ctx, call, &out); err != nil {
			return out, nil, err
		}
		if out.Scope.Job == nil {
			return out, guideText(&out), nil
		}
	}
	if out.Guide, err = loadGuide(ctx, call, *out.Scope.JobID()); err != nil {
		return out, nil, err
	}
	out.HasGuide = out.Guide != nil
	return out, guideText(&out), nil
}

// latestGuides is the company-level answer: the most recently updated active job with a guide
// becomes the scope (source companyDefault) and the next ones are listed in OtherGuides.
func latestGuides(ctx context.Context, call *toolkit.Call, out *GuideOutput) error {
	out.Scope.Source, out.OtherGuides = toolkit.ScopeCompanyDefault, []guideRef{}
	var first *uuid.UUID
	err := collect(ctx, call.DB, `
		SELECT j.id, j.title, g.id, j.updated_at FROM jobs j
		JOIN interview_guides g ON g.company_id = $1 AND g.job_id = j.id
		WHERE j.company_id = $1 AND j.status = 'ACTIVE' AND NOT j.is_deleted
		ORDER BY j.updated_at DESC, j.id LIMIT $2`, []any{call.Company.ID, maxOtherGuides + 1}, func(r *sql.Rows) error {
		var jid, gid uuid.UUID
		var g guideRef
		var updated time.Time
		if err := r.Scan(&jid, &g.JobTitle, &gid, &updated); err != nil {
			return err
		}
		if first == nil {
			first = &jid
			return nil
		}
		g.JobID, g.GuideID, g.JobUpdatedAt, g.JobLink = jid.String(), gid.String(), tsStr(updated), call.Env.Links.Job(jid)
		out.OtherGuides = append(out.OtherGuides, g)
		return nil
	})
	if err != nil || first == nil {
		return err
	}
	out.Scope.Job, err = call.Job(ctx, *first)
	return err
}

func loadGuide(ctx context.Context, call *toolkit.Call, jobID uuid.UUID) (*guideBody, error) {
	db := call.DB
	g := &guideBody{Questions: []guideQuestion{}, GradingCriteria: []guideCriteria{}}
	var gid uuid.UUID
	var lo, skills models.StringArray
	var created, updated sql.NullTime
	err := db.QueryRowContext(ctx, `
		SELECT id, intro, outro, learning_objectives, skills, created_at, updated_at
		FROM interview_guides WHERE company_id = $1 AND job_id = $2`, call.Company.ID, jobID).
		Scan(&gid, &g.Intro, &g.Outro, &lo, &skills, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	g.ID, g.CreatedAt, g.UpdatedAt = gid.String(), tsStr(created.Time), tsStr(updated.Time)
	g.LearningObjectives, g.Skills = nonNil(lo), nonNil(skills)
	err = collect(ctx, db, `
		SELECT q.position, q.text, q.skill, q.source, q.answers, q.tag_name, q.tag_instructions, t.id, t.name
		FROM interview_questions q
		LEFT JOIN templates t ON t.company_id = $1 AND t.id = q.template_id
		WHERE q.company_id = $1 AND q.guide_id = $2
		ORDER BY q.position`, []any{call.Company.ID, gid}, func(r *sql.Rows) error {
		var q guideQuestion
		var skill, tag, instr, tname sql.NullString
		var answers models.StringArray
		var tid uuid.NullUUID
		if err := r.Scan(&q.Position, &q.Text, &skill, &q.Source, &answers, &tag, &instr, &tid, &tname); err != nil {
			return err
		}
		q.Skill, q.TagName, q.TagInstructions, q.Answers = toolkit.NullString(skill), toolkit.NullString(tag), toolkit.NullString(instr), nonNil(answers)
		if tid.Valid {
			q.Template = &templateRef{ID: tid.UUID.String(), Name: tname.String}
		}
		g.Questions = append(g.Questions, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = collect(ctx, db, `
		SELECT c.position, c.name, c.description, t.id, t.name
		FROM grading_criteria c
		LEFT JOIN templates t ON t.company_id = $1 AND t.id = c.template_id
		WHERE c.company_id = $1 AND c.guide_id = $2
		ORDER BY c.position`, []any{call.Company.ID, gid}, func(r *sql.Rows) error {
		var c guideCriteria
		var tid uuid.NullUUID
		var tname sql.NullString
		if err := r.Scan(&c.Position, &c.Name, &c.Description, &tid, &tname); err != nil {
			return err
		}
		if tid.Valid {
			c.Template = &templateRef{ID: tid.UUID.String(), Name: tname.String}
		}
		g.GradingCriteria = append(g.GradingCriteria, c)
		return nil
	})
	return g, err
}

func nonNil(a models.StringArray) []string {
	if a == nil {
		return []string{}
	}
	return a
}

func guideText(o *GuideOutput) *toolkit.Text {
	var t toolkit.Text
	j := o.Scope.Job
	if j == nil {
		t.H1("Interview guide")
		t.Line("No job was given and this company has no active job with an interview guide. Pass positionId (getJobsSummary lists job ids).")
		return &t
	}
	t.H1("Interview guide: %s", j.Title)
	src := map[string]string{toolkit.ScopePositionID: "positionId", toolkit.ScopeJobContext: "the job open in the client",
		toolkit.ScopeCompanyDefault: "no job given: the most recently updated active job with a guide"}[o.Scope.Source]
	t.KV("Job id", j.ID, "Chosen by", src, "Status", j.Status, "Deleted", yesNo(j.Deleted), "Link", j.Link)
	if o.Scope.Source == toolkit.ScopeCompanyDefault {
		t.H2("Other recent guides (%d)", len(o.OtherGuides))
		rows := make([][]string, 0, len(o.OtherGuides))
		for _, g := range o.OtherGuides {
			rows = append(rows, []string{g.JobTitle, g.JobID, g.GuideID, g.JobUpdatedAt})
		}
		t.Table([]string{"Job", "positionId", "Guide id", "Job updated"}, rows, "None.")
		t.Line("Pass a positionId to see another job's guide.")
	}
	g := o.Guide
	if g == nil {
		t.Blank()
		if j.Status == string(models.JobStatusGenerating) {
			t.Line("The interview guide is still being generated.")
		} else {
			t.Line("This job has no interview guide (status %s).", j.Status)
		}
		return &t
	}
	t.H2("Intro")
	t.Line("%s", orNone(g.Intro))
	t.H2("Learning objectives")
	bullets(&t, g.LearningObjectives)
	t.H2("Skills")
	bullets(&t, g.Skills)
	t.H2("Questions (%d)", len(g.Questions))
	if len(g.Questions) == 0 {
		t.Line("None.")
	}
	for i, q := range g.Questions {
		t.Line("%d. %s", i+1, q.Text)
		details := []string{"source: " + q.Source}
		if q.Skill != nil {
			details = append(details, "skill: "+*q.Skill)
		}
		if len(q.Answers) > 0 {
			details = append(details, "answers: "+strings.Join(q.Answers, " | "))
		}
		if q.TagName != nil {
			tag := "tag: " + *q.TagName
			if q.TagInstructions != nil {
				tag += " (" + *q.TagInstructions + ")"
			}
			details = append(details, tag)
		}
		if q.Template != nil {
			details = append(details, "from template: "+q.Template.Name)
		}
		t.Line("   %s", strings.Join(details, "; "))
	}
	t.H2("Grading criteria (%d)", len(g.GradingCriteria))
	if len(g.GradingCriteria) == 0 {
		t.Line("None.")
	}
	for i, c := range g.GradingCriteria {
		line := fmt.Sprintf("%d. %s", i+1, c.Name)
		if c.Description != "" {
			line += ": " + c.Description
		}
		if c.Template != nil {
			line += " (from template: " + c.Template.Name + ")"
		}
		t.Line("%s", line)
	}
	t.H2("Outro")
	t.Line("%s", orNone(g.Outro))
	return &t
}

func bullets(t *toolkit.Text, items []string) {
	if len(items) == 0 {
		t.Line("None.")
		return
	}
	for _, s := range items {
		t.Line("- %s", s)
	}
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}
