// Package jobs is the home of jobs created through the API (POST /v1/api/createJob): the job's
// interviewer id, its first status and openness, its recording with the start of its interview
// generation, a retry's answer after a start that was not taken, and the launch after the
// commit. The entrance (httpapi/jobs.go) checks the request's shape and maps ErrDuplicate
// through its error table; the generation is workflows/jobs.go with its activity in
// activities/jobs.go.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Interviewers creates jobs, each with the interviewer generated for it. cmd/recruitd wires it.
type Interviewers struct {
	Store    *store.Store
	Launcher *outbox.Launcher
}

// ErrDuplicate: the company has a job with the external id, whose creation is not one to
// resume.
var ErrDuplicate = errors.New("a job with this external id exists")

// NewJob is a job whose fields have their shapes checked: the company's external id (safe in
// interviewer ids, URLs and workflow ids), the description (not blank), the titles and the
// generation's options.
type NewJob struct {
	Company              *models.Company
	ExternalID           string
	Title, ExternalTitle string
	Description          string
	Options              models.GenerationOptions
}

// InterviewerID is the interviewer id of the company's job with the external id.
func InterviewerID(co *models.Company, externalID string) string { return co.Slug + "-" + externalID }

// Create records the job, GENERATING and open, with the start of its interview generation in one
// transaction, and launches it. A repeat of a creation whose start Temporal did not take (a retry
// after a 503 or a crash) takes that start now and is answered as the first would have been;
// any other job with the external id is ErrDuplicate. A start Temporal does not take is
// outbox.ErrUnavailable.
func (i *Interviewers) Create(ctx context.Context, n NewJob) (*models.Job, error) {
	co := n.Company
	job := &models.Job{
		ID: uuid.New(), CompanyID: co.ID, ExternalID: n.ExternalID, InterviewerID: InterviewerID(co, n.ExternalID),
		Title: n.Title, ExternalTitle: n.ExternalTitle, Description: strings.TrimSpace(n.Description),
		Status: models.JobStatusGenerating, IsOpen: true, GenerationOptions: models.NewJSON(n.Options),
	}
	start := kinds.JobGenerationStart(co.Slug, n.ExternalID, job.InterviewerID, kinds.JobGenerationInput{CompanyID: co.ID, JobID: job.ID})
	err := i.Store.CreateJob(ctx, job, &start)
	if errors.Is(err, store.ErrConflict) {
		prev, perr := i.Store.WorkflowStart(ctx, co.ID, start.WorkflowID)
		if perr != nil || !i.Launcher.Resumable(prev) {
			return nil, ErrDuplicate
		}
		start, err = *prev, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create job: %w", err)
	}
	if err := i.Launcher.Accept(ctx, &start); err != nil {
		return nil, err
	}
	return job, nil
}
