package jobtools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// maxGuideSuggestions bounds the jobs suggested when getInterviewGuideDetails has no job.
const maxGuideSuggestions = 10

func registerGuide(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getInterviewGuideDetails",
		Title: "Interview guide of a job",
		Description: "The interview guide (script) of one job: intro and outro, learning objectives, skills assessed, every " +
			"question in order (text, skill, source: generated from the job description / additional / structured, allowed " +
			"answers and report tag for structured questions, the template it was copied from) and the grading criteria.\n" +
			"Uses the job currently open in the client (job context) when no positionId is given. Without either it returns " +
			"an error listing recent jobs with guides, so you can pass one's id as positionId (getJobDetails with jobName " +
			"also finds a job's id).",
		InputSchema: toolkit.InputSchema[GuideInput](nil),
	}, guideDetails)
}

// GuideInput are getInterviewGuideDetails' arguments.
type GuideInput struct {
	PositionID string `json:"positionId,omitempty" jsonschema:"the job UUID; defaults to the job open in the client"`
	toolkit.CompanyArg
}

// GuideOutput is getInterviewGuideDetails' structured result.
type GuideOutput struct {
	Scope    scope      `json:"scope" jsonschema:"the job and how it was chosen (positionId or jobContext)"`
	HasGuide bool       `json:"hasGuide" jsonschema:"false while the guide is being generated or when generation failed"`
	Guide    *guideBody `json:"guide" jsonschema:"null when hasGuide is false"`
	toolkit.Notices
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
	var id *uuid.UUID
	kind := "jobContext"
	if p := strings.TrimSpace(in.PositionID); p != "" {
		pid, err := parseJobID("positionId", p)
		if err != nil {
			return out, nil, err
		}
		id, kind = &pid, "positionId"
	} else {
		var err error
		if id, err = call.JobContext(ctx); err != nil {
			return out, nil, err
		}
		if id == nil {
			return out, nil, noJobError(ctx, call)
		}
	}
	job, ok, err := loadJobRef(ctx, call, *id)
	if err != nil {
		return out, nil, err
	}
	if !ok {
		return out, nil, toolkit.Errorf("positionId %s is not a job of this company; getJobsSummary lists job ids", id)
	}
	out.Scope = scope{Kind: kind, Job: &job}
	if out.Guide, err = loadGuide(ctx, call, *id); err != nil {
		return out, nil, err
	}
	out.HasGuide = out.Guide != nil
	return out, guideText(&out), nil
}

// noJobError is the tool error for a call without a job: it lists recent jobs with guides.
func noJobError(ctx context.Context, call *toolkit.Call) error {
	var list []string
	err := collect(ctx, call.Env.Store.SQL(), `
		SELECT j.id, j.title FROM interview_guides g
		JOIN jobs j ON j.company_id = $1 AND j.id = g.job_id
		WHERE g.company_id = $1 AND NOT j.is_deleted
		ORDER BY g.created_at DESC, g.id LIMIT $2`, []any{call.Company.ID, maxGuideSuggestions}, func(r *sql.Rows) error {
		var id uuid.UUID
		var title string
		if err := r.Scan(&id, &title); err != nil {
			return err
		}
		list = append(list, fmt.Sprintf("%q (positionId %s)", title, id))
		return nil
	})
	if err != nil {
		return err
	}
	msg := "no job given: pass positionId (a job UUID) or open a job in the client."
	if len(list) == 0 {
		return toolkit.Errorf("%s This company has no interview guides yet.", msg)
	}
	return toolkit.Errorf("%s Most recent jobs with interview guides: %s", msg, strings.Join(list, "; "))
}

func loadGuide(ctx context.Context, call *toolkit.Call, jobID uuid.UUID) (*guideBody, error) {
	db := call.Env.Store.SQL()
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
		q.Skill, q.TagName, q.TagInstructions, q.Answers = optStr(skill), optStr(tag), optStr(instr), nonNil(answers)
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
	t.H1("Interview guide: %s", j.Title)
	src := map[string]string{"positionId": "positionId", "jobContext": "the job open in the client"}[o.Scope.Kind]
	t.KV("Job id", j.ID, "Chosen by", src, "Status", j.Status, "Deleted", yesNo(j.Deleted), "Link", j.Link)
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
