package outbox

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// batchInFlight bounds the starts all LaunchMany calls of a Launcher have in flight at once:
// several deliveries or import pages launching together share it, so together they do not
// push Temporal past the start timeout.
const batchInFlight = 16

// LaunchMany starts committed rows, at most batchInFlight at a time across the Launcher, and
// marks those taken in one update. Rows not taken stay pending (not refused: no caller was told
// anything) for a repeat and the reconciler; the error is the first failure.
func (l *Launcher) LaunchMany(ctx context.Context, rows []models.WorkflowStart) error {
	l.semOnce.Do(func() { l.sem = make(chan struct{}, batchInFlight) })
	var (
		mu      sync.Mutex
		started []uuid.UUID
		first   error
		failed  int
		wg      sync.WaitGroup
		sem     = l.sem
	)
	for i := range rows {
		ws := &rows[i]
		if ws.StartedAt != nil {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			sctx, cancel := context.WithTimeout(ctx, l.timeout())
			err := l.Starter.Start(sctx, ws)
			cancel()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if failed++; first == nil {
					first = err
				}
				return
			}
			started = append(started, ws.ID)
		}()
	}
	wg.Wait()
	if err := l.Store.MarkStartedMany(context.WithoutCancel(ctx), started); err != nil {
		l.Log.WarnContext(ctx, "workflow starts not recorded", "count", len(started), "err", err)
	}
	if first != nil {
		return fmt.Errorf("%w: %d of %d starts not taken, the first: %v", ErrUnavailable, failed, len(rows), first)
	}
	return nil
}

// ImportStarts gives the job import, the HR-suite ingest and held assessment links (package
// activities, which cannot import workflows) the start functions of their runs ('New Job from
// ATS', 'New Applications via Webhook', an assessment link's delivery) and a launcher for them.
type ImportStarts struct{ L *Launcher }

// NewJob implements activities.Starts.
func (s ImportStarts) NewJob(slug string, companyID, jobID uuid.UUID, atsJobID, interviewerID string) models.WorkflowStart {
	return workflows.NewJobStart(slug, companyID, jobID, atsJobID, interviewerID)
}

// Launch implements activities.Starts.
func (s ImportStarts) Launch(ctx context.Context, rows []models.WorkflowStart) error {
	return s.L.LaunchMany(ctx, rows)
}

// NewApplication implements activities.HRSuiteStarts.
func (s ImportStarts) NewApplication(slug string, companyID, jobID, candidateID, applicationID uuid.UUID, interviewerID string) models.WorkflowStart {
	return workflows.NewApplicationStart(slug, companyID, jobID, candidateID, applicationID, interviewerID)
}

// AssessmentLink implements activities.AssessmentStarts.
func (s ImportStarts) AssessmentLink(slug string, companyID, applicationID uuid.UUID) models.WorkflowStart {
	return workflows.AssessmentLinkStart(slug, workflows.AssessmentLinkInput{CompanyID: companyID, ApplicationID: applicationID})
}
