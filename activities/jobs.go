package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// GenerateResult is the job's status after GenerateGuide.
type GenerateResult struct {
	Status string
}

// GenerateGuide generates and stores the job's interview guide. A GENERATING job is activated
// or paused (its createJob `active`, a flow's set_status meanwhile, else the company default);
// an ACTIVE or PAUSED job whose description has a newer version than its guide (an import
// brought a changed description) gets a new guide version and keeps its status, while sessions
// already started keep their plan. Otherwise the job is left alone, so a retried or repeated run
// does nothing twice. After storing a guide it wakes the flows whose invitations wait for the
// job. The job was committed before the run started; a job deleted since is a permanent error.
func (a *Activities) GenerateGuide(ctx context.Context, companyID, jobID uuid.UUID) (GenerateResult, error) {
	begin := time.Now()
	job, err := a.Store.Job(ctx, companyID, jobID)
	if err != nil {
		return GenerateResult{}, permanentIfMissing(err)
	}
	switch job.Status {
	case models.JobStatusGenerating:
	case models.JobStatusActive, models.JobStatusPaused:
		g, err := a.Store.Guide(ctx, companyID, jobID)
		if err == nil && g.Guide.Version >= job.GuideVersion {
			return GenerateResult{Status: string(job.Status)}, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return GenerateResult{}, err
		}
	default:
		return GenerateResult{Status: string(job.Status)}, nil
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
	// The company's default status is read with the job's lock, and the waiting runs with the
	// guide's write: one transaction of four round trips stores the guide.
	saved, err := a.Store.SaveGuide(ctx, companyID, jobID, guideContent(job, g), job.GuideVersion, "")
	if errors.Is(err, store.ErrGuideCurrent) {
		return GenerateResult{Status: string(saved.Status)}, nil
	}
	if err != nil {
		return GenerateResult{}, permanentIfMissing(err)
	}
	a.Log.InfoContext(ctx, "interview generated", "company_id", companyID, "interviewer_id", job.InterviewerID,
		"status", saved.Status, "version", job.GuideVersion, "questions", len(g.Questions), "duration_ms", time.Since(begin).Milliseconds())
	a.wakeJobWaiters(ctx, saved.Waiters)
	return GenerateResult{Status: string(saved.Status)}, nil
}

// wakeJobWaiters signals the flow runs (ids) whose invitations wait for the job's interview.
// Best effort: a run that misses the signal looks again on its own timer.
func (a *Activities) wakeJobWaiters(ctx context.Context, ids []string) {
	if a.Launcher == nil {
		return
	}
	for _, id := range ids {
		if err := a.Launcher.Starter.SignalRunning(ctx, id, kinds.JobReadySignal); err != nil {
			a.Log.WarnContext(ctx, "waiting invitation not woken; its run looks again on its own", "workflow_id", id, "err", err)
		}
	}
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
