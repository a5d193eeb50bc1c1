package activities

import (
	"context"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// SyncInput asks for one application pass of a company's import; Full lists every application
// instead of those changed since the stored cursor.
type SyncInput struct {
	CompanyID uuid.UUID
	Full      bool
}

// SyncResult counts what an application pass did; State and Pending as ImportResult's.
type SyncResult struct {
	Created, Updated, Closed, Skipped, Pages int
	Pending                                  bool
	State                                    string
}

// syncProgress is the heartbeat of an application pass: a retried attempt resumes from the page
// after the last one committed, with the pass's start (what a full pass compares records with).
type syncProgress struct {
	Began    time.Time
	Cursor   string
	MaxSeen  time.Time
	Counts   store.SyncCounts
	Pages    int
	HasPages bool
}

// SyncApplications runs one application pass of a company whose ATS is connected through the
// aggregator: pages of applications with their candidates, each page written in one transaction
// with the 'New Application from ATS' starts of the applications it created (when the company's
// trigger is saved and enabled), then launched. A full pass then closes the applications it did
// not see. Nothing is written to the ATS.
func (a *Activities) SyncApplications(ctx context.Context, in SyncInput) (SyncResult, error) {
	var res SyncResult
	if a.Launcher == nil {
		return res, temporal.NewNonRetryableApplicationError("the worker has no start launcher for synced applications", ErrTypePermanent, nil)
	}
	co, err := a.Store.Company(ctx, in.CompanyID)
	if err != nil {
		return res, permanentIfMissing(err)
	}
	if !jobimport.SyncsApplications(co) {
		return res, nil
	}
	integ, err := a.Store.AggregatorIntegration(ctx, in.CompanyID)
	if err != nil {
		return res, permanentIfMissing(err)
	}
	switch {
	case integ.State == models.IntegrationNeedsAttention:
		res.State = "needs_attention"
		return res, nil
	case integ.State != models.IntegrationConnected || integ.IntegrationID == nil:
		res.State = "waiting_for_sync"
		return res, nil
	}
	creds, _, err := store.OpenAggregatorSecrets(a.Box, integ)
	if err != nil {
		return res, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	client, err := aggregator.NewKombo(creds, nil)
	if err != nil {
		return a.syncRefused(ctx, in.CompanyID, err)
	}
	fire, err := a.Store.EnabledTrigger(ctx, co.ID, models.TriggerNewApplicationATS)
	if err != nil {
		return res, err
	}
	// Starts a crashed attempt committed but did not launch.
	if err := a.Launcher.LaunchPending(ctx, co.ID, kinds.ATSApplication.Name, 1000, nil); err != nil {
		return res, err
	}

	p := syncProgress{Began: time.Now().UTC()}
	if activity.HasHeartbeatDetails(ctx) {
		if err := activity.GetHeartbeatDetails(ctx, &p); err != nil {
			p = syncProgress{Began: time.Now().UTC()}
		}
	}
	q := aggregator.ApplicationQuery{PageSize: importPageSize, Cursor: p.Cursor}
	if !in.Full && integ.ApplicationCursor != nil {
		q.UpdatedAfter = integ.ApplicationCursor.Add(-cursorOverlap)
	}
	log := a.Log.With("company", co.Slug, "full", in.Full)
	for {
		if p.HasPages && p.Cursor == "" {
			break // a resumed attempt whose last page was committed
		}
		page, err := client.ListApplications(ctx, *integ.IntegrationID, q)
		if err != nil {
			return a.syncRefused(ctx, in.CompanyID, err)
		}
		counts, starts, maxSeen, err := jobimport.SyncApplicationPage(ctx, a.Store, co, page.Applications, p.Began, fire)
		if err != nil {
			return res, err
		}
		if err := a.Launcher.LaunchMany(ctx, starts); err != nil {
			log.WarnContext(ctx, "ats-application runs not started; the next pass or the reconciler starts them", "err", err)
		}
		p.Counts.Created += counts.Created
		p.Counts.Updated += counts.Updated
		p.Counts.Closed += counts.Closed
		p.Counts.Skipped += counts.Skipped
		p.Pages++
		if maxSeen.After(p.MaxSeen) {
			p.MaxSeen = maxSeen
		}
		p.Cursor, p.HasPages = page.Next, true
		q.Cursor = page.Next
		activity.RecordHeartbeat(ctx, p)
		a.ImportMetrics.synced(counts)
		if p.Pages%20 == 0 {
			log.InfoContext(ctx, "application sync progress", "pages", p.Pages, "created", p.Counts.Created, "updated", p.Counts.Updated,
				"closed", p.Counts.Closed, "skipped", p.Counts.Skipped)
		}
		if page.Next == "" {
			break
		}
	}
	if err := a.Launcher.LaunchPending(ctx, co.ID, kinds.ATSApplication.Name, 1000, nil); err != nil {
		log.WarnContext(ctx, "ats-application runs not started; the next pass or the reconciler starts them", "err", err)
	}
	var cursor *time.Time
	if !p.MaxSeen.IsZero() {
		cursor = &p.MaxSeen
	}
	closed, pending, err := a.Store.FinishApplicationSync(ctx, in.CompanyID, p.Began, cursor, in.Full)
	if err != nil {
		return res, err
	}
	p.Counts.Closed += closed
	a.ImportMetrics.synced(store.SyncCounts{Closed: closed})
	if !p.MaxSeen.IsZero() {
		a.ImportMetrics.syncLag(time.Since(p.MaxSeen))
	}
	log.InfoContext(ctx, "application sync pass done", "pages", p.Pages, "created", p.Counts.Created, "updated", p.Counts.Updated,
		"closed", p.Counts.Closed, "skipped", p.Counts.Skipped, "took_ms", time.Since(p.Began).Milliseconds())
	return SyncResult{Created: p.Counts.Created, Updated: p.Counts.Updated, Closed: p.Counts.Closed, Skipped: p.Counts.Skipped,
		Pages: p.Pages, Pending: pending}, nil
}

// syncRefused is importRefused for an application pass.
func (a *Activities) syncRefused(ctx context.Context, companyID uuid.UUID, err error) (SyncResult, error) {
	r, err := a.importRefused(ctx, companyID, err)
	return SyncResult{State: r.State}, err
}
