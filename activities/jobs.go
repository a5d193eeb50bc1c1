package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// GenerateResult is the job's status after GenerateGuide.
type GenerateResult struct {
	Status string
}

// GenerateGuide generates and stores the job's interview guide and activates or pauses the job
// (its createJob `active`, else the company default). It is idempotent: a job that is no longer
// GENERATING is left alone. The job was committed before the run started; a job deleted since
// is a permanent error.
func (a *Activities) GenerateGuide(ctx context.Context, companyID, jobID uuid.UUID) (GenerateResult, error) {
	begin := time.Now()
	job, err := a.Store.Job(ctx, companyID, jobID)
	if err != nil {
		return GenerateResult{}, permanentIfMissing(err)
	}
	if job.Status != models.JobStatusGenerating {
		return GenerateResult{Status: string(job.Status)}, nil
	}
	company, err := a.Store.Company(ctx, companyID)
	if err != nil {
		return GenerateResult{}, err
	}
	opts := job.GenerationOptions.V
	req := generate.Request{
		Title: job.Title, Description: job.Description, AdditionalContext: opts.AdditionalGenerationContext,
		AdditionalQuestions: opts.AdditionalQuestions, IntelligentlyOrder: opts.IntelligentlyOrderQuestions,
	}
	for _, q := range opts.StructuredAdditionalQuestions {
		req.StructuredQuestions = append(req.StructuredQuestions, generate.StructuredQuestion{
			Question: q.Question, Answers: q.Answers, TagName: q.TagName, TagInstructions: q.TagInstructions,
		})
	}
	g, err := a.Generator.Generate(ctx, req)
	if err != nil {
		if generate.IsPermanent(err) {
			return GenerateResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
		}
		return GenerateResult{}, fmt.Errorf("generate interview for %s: %w", job.InterviewerID, err)
	}

	status := company.DefaultJobStatus
	if opts.Active != nil {
		status = models.JobStatusPaused
		if *opts.Active {
			status = models.JobStatusActive
		}
	}
	if err := a.Store.SaveGuide(ctx, companyID, jobID, guideContent(job, g), status); err != nil {
		return GenerateResult{}, permanentIfMissing(err)
	}
	a.Log.InfoContext(ctx, "interview generated", "company", company.Slug, "interviewer_id", job.InterviewerID,
		"status", status, "questions", len(g.Questions), "duration_ms", time.Since(begin).Milliseconds())
	return GenerateResult{Status: string(status)}, nil
}

func guideContent(job *models.Job, g *generate.Guide) store.GuideContent {
	title := job.Title
	if title == "" {
		title = g.Title
	}
	external := job.ExternalTitle
	if external == "" {
		external = title
	}
	c := store.GuideContent{
		Title: title, ExternalTitle: external,
		Guide: models.InterviewGuide{Skills: g.Skills, Intro: g.Intro, Outro: g.Outro, LearningObjectives: g.LearningObjectives},
	}
	for _, q := range g.Questions {
		iq := models.InterviewQuestion{Text: q.Text, Source: models.QuestionSource(q.Source), Answers: q.Answers}
		iq.Skill, iq.TagName, iq.TagInstructions = optional(q.Skill), optional(q.TagName), optional(q.TagInstructions)
		c.Questions = append(c.Questions, iq)
	}
	for _, cr := range g.Criteria {
		c.Criteria = append(c.Criteria, models.GradingCriterion{Name: cr.Name, Description: cr.Description})
	}
	return c
}

// FailJob records that the job's generation failed for good.
func (a *Activities) FailJob(ctx context.Context, companyID, jobID uuid.UUID, reason string) error {
	a.Log.WarnContext(ctx, "interview generation failed", "job_id", jobID, "reason", reason)
	return a.Store.FailJob(ctx, companyID, jobID, reason)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
