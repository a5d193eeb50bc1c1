package activities

import (
	"context"
	"time"

	"github.com/google/uuid"

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

// SyncApplications runs one application pass of a company whose ATS is connected through the
// aggregator: pages of applications with their candidates, each page written in one transaction
// with the 'New Application from ATS' starts of the applications it created (when the company's
// trigger is saved and enabled), then launched. A full pass then closes the applications it did
// not see. Nothing is written to the ATS.
func (a *Activities) SyncApplications(ctx context.Context, in SyncInput) (SyncResult, error) {
	var res SyncResult
	pass, err := a.openAggregatorPass(ctx, in.CompanyID, "synced applications")
	switch {
	case err != nil:
		return res, err
	case !jobimport.SyncsApplications(pass.co):
		return res, nil
	case pass.State != "":
		return SyncResult{State: pass.State}, nil
	case pass.refused != nil:
		return a.syncRefused(ctx, in.CompanyID, pass.refused)
	}
	co, integ := pass.co, pass.integ
	fire, err := a.Store.EnabledTrigger(ctx, co.ID, models.TriggerNewApplicationATS)
	if err != nil {
		return res, err
	}
	// Starts a crashed attempt committed but did not launch.
	if err := a.Launcher.LaunchPending(ctx, co.ID, kinds.ATSApplication.Name, 1000, nil); err != nil {
		return res, err
	}

	p := resumePass[store.SyncCounts](ctx)
	q := aggregator.ApplicationQuery{PageSize: importPageSize}
	if !in.Full && integ.ApplicationCursor != nil {
		q.UpdatedAfter = integ.ApplicationCursor.Add(-cursorOverlap)
	}
	log := a.Log.With("company", co.Slug, "full", in.Full)
	var refused error
	err = p.pages(ctx, func(cursor string) (string, time.Time, error) {
		q.Cursor = cursor
		page, err := pass.client.ListApplications(ctx, *integ.IntegrationID, q)
		if err != nil {
			refused = err
			return "", time.Time{}, err
		}
		counts, starts, maxSeen, err := jobimport.SyncApplicationPage(ctx, a.Store, co, page.Applications, p.Began, fire)
		if err != nil {
			return "", time.Time{}, err
		}
		if err := a.Launcher.LaunchMany(ctx, starts); err != nil {
			log.WarnContext(ctx, "ats-application runs not started; the next pass or the reconciler starts them", "err", err)
		}
		p.Counts.Created += counts.Created
		p.Counts.Updated += counts.Updated
		p.Counts.Closed += counts.Closed
		p.Counts.Skipped += counts.Skipped
		a.ImportMetrics.synced(counts)
		if (p.Pages+1)%20 == 0 {
			log.InfoContext(ctx, "application sync progress", "pages", p.Pages+1, "created", p.Counts.Created, "updated", p.Counts.Updated,
				"closed", p.Counts.Closed, "skipped", p.Counts.Skipped)
		}
		return page.Next, maxSeen, nil
	})
	if refused != nil {
		return a.syncRefused(ctx, in.CompanyID, refused)
	}
	if err != nil {
		return res, err
	}
	if err := a.Launcher.LaunchPending(ctx, co.ID, kinds.ATSApplication.Name, 1000, nil); err != nil {
		log.WarnContext(ctx, "ats-application runs not started; the next pass or the reconciler starts them", "err", err)
	}
	closed, pending, err := a.Store.FinishApplicationSync(ctx, in.CompanyID, p.Began, p.cursor(), in.Full)
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
