package activities

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/internal/store"
)

// HRSuiteIngestInput names a stored delivery to (re)process. Replay marks a support replay (for
// logs and metrics; the processing is the same).
type HRSuiteIngestInput struct {
	CompanyID  uuid.UUID
	DeliveryID uuid.UUID
	Replay     bool
}

// HRSuiteIngestResult counts a processing: rows by outcome (invalid ones as invalid:<reason>),
// applications in the delivery, and runs started. Nothing personal.
type HRSuiteIngestResult = hrsuite.IngestResult

// IngestHRSuiteDelivery runs the feature's ingest of a stored delivery (hrsuite.Ingest), chunk
// by chunk, heartbeating the chunks committed: a retried attempt (a worker died) resumes after
// the last one, and first launches the runs its predecessor committed but did not.
func (a *Activities) IngestHRSuiteDelivery(ctx context.Context, in HRSuiteIngestInput) (HRSuiteIngestResult, error) {
	if a.Launcher == nil {
		return HRSuiteIngestResult{}, temporal.NewNonRetryableApplicationError("the worker has no start launcher for HR-suite applications", ErrTypePermanent, nil)
	}
	req := hrsuite.IngestRequest{CompanyID: in.CompanyID, DeliveryID: in.DeliveryID, Replay: in.Replay, Retry: activity.GetInfo(ctx).Attempt > 1}
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &req.Done)
	}
	d := &hrsuite.Deliveries{Store: a.Store, Launcher: a.Launcher, Log: a.Log, Metrics: a.HRSuiteMetrics}
	res, err := d.Ingest(ctx, req, func(done int) { activity.RecordHeartbeat(ctx, done) })
	switch {
	case errors.Is(err, hrsuitereport.ErrNotArray):
		// The webhook stores only arrays; a body that does not parse cannot start to.
		return res, temporal.NewNonRetryableApplicationError("stored delivery is not a JSON array", ErrTypePermanent, err)
	case err != nil:
		return res, permanentIfMissing(err)
	}
	return res, nil
}

// HRSuiteReplayDeliveries lists the company's deliveries of a replay not reprocessed yet.
func (a *Activities) HRSuiteReplayDeliveries(ctx context.Context, companyID, replayID uuid.UUID) ([]uuid.UUID, error) {
	return a.Store.HRSuiteReplayDeliveries(ctx, companyID, replayID)
}

// FinishReplayDeliveryInput records one reprocessed delivery of a replay with its counts.
type FinishReplayDeliveryInput struct {
	CompanyID, ReplayID, DeliveryID uuid.UUID
	Counts                          map[string]int
}

// FinishHRSuiteReplayDelivery records a replay's progress.
func (a *Activities) FinishHRSuiteReplayDelivery(ctx context.Context, in FinishReplayDeliveryInput) error {
	err := a.Store.FinishHRSuiteReplayDelivery(ctx, in.CompanyID, in.ReplayID, in.DeliveryID, in.Counts)
	if errors.Is(err, store.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	return err
}
