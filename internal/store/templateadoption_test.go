package store_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestSaveGuideMarksTemplateAdoption follows the guide's writer, job generation's SaveGuide:
// a guide with a question or criterion copied from a template marks its job
// (jobs.guide_from_template, migration 00067) and counts it in guide_template_jobs, which
// listTemplates reads; a new version without one takes both back; the rollups stay exact.
func TestSaveGuideMarksTemplateAdoption(t *testing.T) {
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	co := company(t, st, "acme")
	var tpl uuid.UUID
	if err := db.SQL.QueryRowContext(ctx, `INSERT INTO templates (company_id, type, name, content) VALUES ($1, 'interviewGuide', 'Behavioral', '{}')
		RETURNING id`, co.ID).Scan(&tpl); err != nil {
		t.Fatal(err)
	}
	j := &models.Job{ID: uuid.New(), CompanyID: co.ID, ExternalID: "J-1", InterviewerID: "acme-J-1", Description: "Go",
		Status: models.JobStatusGenerating, IsOpen: true}
	start := kinds.JobGenerationStart(co.Slug, "J-1", j.InterviewerID, kinds.JobGenerationInput{CompanyID: co.ID, JobID: j.ID})
	if err := st.CreateJob(ctx, j, &start); err != nil {
		t.Fatal(err)
	}
	guide := func(questionTpl, criterionTpl *uuid.UUID) store.GuideContent {
		return store.GuideContent{Title: "Engineer", Guide: models.InterviewGuide{Intro: "Hi"},
			Questions: []models.InterviewQuestion{
				{Text: "Tell us about Go.", Source: models.QuestionSourceGenerated},
				{Text: "A conflict you resolved?", Source: models.QuestionSourceAdditional, TemplateID: questionTpl},
			},
			Criteria: []models.GradingCriterion{{Name: "Go", TemplateID: criterionTpl}}}
	}
	want := func(when string, marked bool) {
		t.Helper()
		var got bool
		var counted int64
		if err := db.SQL.QueryRowContext(ctx, `SELECT guide_from_template,
				(SELECT coalesce(sum(jobs), 0) FROM guide_template_jobs WHERE company_id = $1 AND status = 'ACTIVE' AND NOT is_deleted)
			FROM jobs WHERE company_id = $1 AND id = $2`, co.ID, j.ID).Scan(&got, &counted); err != nil {
			t.Fatal(err)
		}
		if wantN := map[bool]int64{true: 1}[marked]; got != marked || counted != wantN {
			t.Errorf("%s: job marked %v, active jobs counted %d; want %v and %d", when, got, counted, marked, wantN)
		}
		if err := rollup.Check(ctx, db.SQL, co.ID); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	for i, step := range []struct {
		when                string
		question, criterion *uuid.UUID
		marked              bool
	}{
		{"generated with a template's question", &tpl, nil, true},
		{"version 2 without templates", nil, nil, false},
		{"version 3 with a template's criterion", nil, &tpl, true},
	} {
		if _, err := st.SaveGuide(ctx, co.ID, j.ID, guide(step.question, step.criterion), i+1, models.JobStatusActive); err != nil {
			t.Fatalf("%s: %v", step.when, err)
		}
		want(step.when, step.marked)
	}
}
