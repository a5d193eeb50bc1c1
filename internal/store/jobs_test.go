package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestJobAndGuideRoundTrips pins what createJob and a job's generation cost Postgres: the job
// with its start in one statement, the guide in one transaction of four round trips whatever
// its size (a fifth when it replaces one), with the waiting runs read in it.
func TestJobAndGuideRoundTrips(t *testing.T) {
	db := pgtest.New(t)
	pool, count := db.Counted(t)
	st, err := store.FromSQL(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	co := &models.Company{Slug: "acme", Name: "Acme", DefaultJobStatus: models.JobStatusPaused}
	if err := st.CreateCompany(ctx, co); err != nil {
		t.Fatal(err)
	}
	other := company(t, st, "globex")
	newJob := func(c *models.Company, ext string, opts models.GenerationOptions) (*models.Job, []string, error) {
		j := &models.Job{ID: uuid.New(), CompanyID: c.ID, ExternalID: ext, InterviewerID: c.Slug + "-" + ext, Description: "Go and Postgres",
			Status: models.JobStatusGenerating, IsOpen: true, GenerationOptions: models.NewJSON(opts)}
		start := kinds.JobGenerationStart(c.Slug, ext, j.InterviewerID, kinds.JobGenerationInput{CompanyID: c.ID, JobID: j.ID})
		count.Start()
		err := st.CreateJob(ctx, j, &start)
		return j, count.Stop(), err
	}
	j, sqls, err := newJob(co, "J-1", models.GenerationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sqls) != 1 {
		t.Errorf("CreateJob sent %d statements, want 1:\n%s", len(sqls), strings.Join(sqls, "\n"))
	}
	stored, err := st.Job(ctx, co.ID, j.ID)
	if err != nil || stored.Status != models.JobStatusGenerating || !stored.IsOpen || stored.GuideVersion != 1 || stored.Description != "Go and Postgres" {
		t.Fatalf("stored job = %+v, %v", stored, err)
	}
	ws, err := st.WorkflowStart(ctx, co.ID, kinds.JobGeneration.ID(co.Slug, "J-1"))
	if err != nil || ws.StartedAt != nil || ws.Kind != kinds.JobGeneration.Name {
		t.Fatalf("start row = %+v, %v", ws, err)
	}
	if _, _, err := newJob(co, "J-1", models.GenerationOptions{}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second J-1: err = %v, want ErrConflict", err)
	}
	if _, _, err := newJob(other, "J-1", models.GenerationOptions{}); err != nil {
		t.Errorf("globex's J-1: %v", err)
	}
	if err := st.WaitForJob(ctx, co.ID, j.ID, "invite/acme/one"); err != nil {
		t.Fatal(err)
	}

	skill, tag, instr := "Go", "seniority", "Tag senior or junior."
	g := store.GuideContent{Title: "Engineer", ExternalTitle: "Backend Engineer",
		Guide: models.InterviewGuide{Intro: "Hi", Outro: "Bye", Skills: models.StringArray{"Go", "SQL"}},
		Questions: []models.InterviewQuestion{
			{Text: "Tell us about Go.", Source: models.QuestionSourceGenerated, Skill: &skill},
			{Text: "Pick one.", Source: models.QuestionSourceStructured, Answers: models.StringArray{"a, b", `"c"`}, TagName: &tag, TagInstructions: &instr},
			{Text: "Anything else?", Source: models.QuestionSourceAdditional},
		},
		Criteria: []models.GradingCriterion{{Name: "Go", Description: "Knows Go"}, {Name: "SQL"}},
	}
	count.Start()
	saved, err := st.SaveGuide(ctx, co.ID, j.ID, g, 1, "")
	sqls = count.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if saved.Status != models.JobStatusPaused || !slices.Equal(saved.Waiters, []string{"invite/acme/one"}) {
		t.Errorf("saved = %+v, want the company default PAUSED and the waiting run", saved)
	}
	if len(sqls) != 4 {
		t.Errorf("SaveGuide sent %d statements, want 4:\n%s", len(sqls), strings.Join(sqls, "\n"))
	}
	view, err := st.Guide(ctx, co.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if view.Guide.Intro != "Hi" || view.Guide.Outro != "Bye" || !slices.Equal(view.Guide.Skills, models.StringArray{"Go", "SQL"}) ||
		view.Guide.LearningObjectives == nil || len(view.Guide.LearningObjectives) != 0 || view.Guide.Version != 1 {
		t.Errorf("guide = %+v", view.Guide)
	}
	if len(view.Questions) != 3 || len(view.Criteria) != 2 {
		t.Fatalf("guide has %d questions and %d criteria, want 3 and 2", len(view.Questions), len(view.Criteria))
	}
	q0, q1, q2 := view.Questions[0], view.Questions[1], view.Questions[2]
	if q0.Position != 1 || q0.Text != "Tell us about Go." || q0.Skill == nil || *q0.Skill != "Go" || q0.TagName != nil || len(q0.Answers) != 0 {
		t.Errorf("question 1 = %+v", q0)
	}
	if q1.Position != 2 || q1.Source != models.QuestionSourceStructured || !slices.Equal(q1.Answers, models.StringArray{"a, b", `"c"`}) ||
		q1.TagName == nil || *q1.TagName != tag || q1.TagInstructions == nil || *q1.TagInstructions != instr || q1.Skill != nil {
		t.Errorf("question 2 = %+v", q1)
	}
	if q2.Position != 3 || q2.Source != models.QuestionSourceAdditional {
		t.Errorf("question 3 = %+v", q2)
	}
	if c := view.Criteria[1]; c.Position != 2 || c.Name != "SQL" || c.Description != "" || view.Criteria[0].Description != "Knows Go" {
		t.Errorf("criteria = %+v", view.Criteria)
	}
	job, err := st.Job(ctx, co.ID, j.ID)
	if err != nil || job.Status != models.JobStatusPaused || job.Title != "Engineer" || job.ExternalTitle != "Backend Engineer" || job.GeneratedAt == nil {
		t.Errorf("generated job = %+v, %v", job, err)
	}

	// A repeat of the same version keeps the guide; a new version replaces it and keeps the status.
	if saved, err := st.SaveGuide(ctx, co.ID, j.ID, g, 1, ""); !errors.Is(err, store.ErrGuideCurrent) || saved.Status != models.JobStatusPaused {
		t.Errorf("repeat: %+v, %v; want ErrGuideCurrent with PAUSED", saved, err)
	}
	g2 := store.GuideContent{Title: "Engineer II", Guide: models.InterviewGuide{Intro: "Hello"},
		Questions: []models.InterviewQuestion{{Text: "Only one.", Source: models.QuestionSourceGenerated}}}
	count.Start()
	saved, err = st.SaveGuide(ctx, co.ID, j.ID, g2, 2, models.JobStatusActive)
	sqls = count.Stop()
	if err != nil || saved.Status != models.JobStatusPaused {
		t.Fatalf("version 2: %+v, %v", saved, err)
	}
	if len(sqls) != 5 {
		t.Errorf("SaveGuide replacing a guide sent %d statements, want 5:\n%s", len(sqls), strings.Join(sqls, "\n"))
	}
	if view, err := st.Guide(ctx, co.ID, j.ID); err != nil || view.Guide.Version != 2 || len(view.Questions) != 1 || len(view.Criteria) != 0 || view.Guide.Intro != "Hello" {
		t.Errorf("version 2 guide = %+v, %v", view, err)
	}

	// Options and defaults: active wins over the company default; a given default over the company's.
	for _, c := range []struct {
		ext    string
		opts   models.GenerationOptions
		def    models.JobStatus
		status models.JobStatus
	}{
		{"J-2", models.GenerationOptions{Active: new(true)}, "", models.JobStatusActive},
		{"J-3", models.GenerationOptions{Active: new(false)}, models.JobStatusActive, models.JobStatusPaused},
		{"J-4", models.GenerationOptions{}, models.JobStatusActive, models.JobStatusActive},
	} {
		j, _, err := newJob(co, c.ext, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := st.SaveGuide(ctx, co.ID, j.ID, store.GuideContent{Title: "T"}, 1, c.def)
		if err != nil || saved.Status != c.status || saved.Waiters != nil {
			t.Errorf("%s: %+v, %v; want %s and no waiters", c.ext, saved, err, c.status)
		}
	}

	// Another company's job is not found through acme, and a failed job takes no guide.
	if _, err := st.SaveGuide(ctx, other.ID, j.ID, g, 3, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("acme's job through globex: err = %v, want ErrNotFound", err)
	}
	failed, _, err := newJob(co, "J-5", models.GenerationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FailJob(ctx, co.ID, failed.ID, "no"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveGuide(ctx, co.ID, failed.ID, g, 1, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("failed job: err = %v, want ErrNotFound", err)
	}
}
