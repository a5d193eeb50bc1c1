package workflows

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
)

// ingestOptions: a delivery's ingest heartbeats after every chunk and launch batch, so a worker
// that dies mid-delivery is noticed within 20 s and the retry resumes after the last committed
// chunk.
func ingestOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
		},
	})
}

// HRSuiteDelivery ingests one stored delivery (activities.IngestHRSuiteDelivery): the row rules,
// bulk SQL per chunk of applications, and the applications' workflow starts, bounded in flight.
// Its history holds ids and counts only.
func HRSuiteDelivery(ctx workflow.Context, in kinds.HRSuiteDeliveryInput) (activities.HRSuiteIngestResult, error) {
	var a *activities.Activities
	var res activities.HRSuiteIngestResult
	err := workflow.ExecuteActivity(ingestOptions(ctx), a.IngestHRSuiteDelivery, activities.HRSuiteIngestInput{
		CompanyID: in.CompanyID, DeliveryID: in.DeliveryID,
	}).Get(ctx, &res)
	return res, err
}

// replayDeliveriesPerRun bounds a replay run's history; it continues as new after that many.
const replayDeliveriesPerRun = 200

// HRSuiteReplay reprocesses a replay's deliveries of one company, oldest first, under today's
// jobs and workflows, recording each as done with its counts (the replay's progress).
func HRSuiteReplay(ctx workflow.Context, in kinds.HRSuiteReplayInput) error {
	var a *activities.Activities
	var ids []uuid.UUID
	if err := workflow.ExecuteActivity(shortActivity(ctx), a.HRSuiteReplayDeliveries, in.CompanyID, in.ReplayID).Get(ctx, &ids); err != nil {
		return err
	}
	for i, id := range ids {
		if i == replayDeliveriesPerRun {
			return workflow.NewContinueAsNewError(ctx, HRSuiteReplay, in)
		}
		var res activities.HRSuiteIngestResult
		err := workflow.ExecuteActivity(ingestOptions(ctx), a.IngestHRSuiteDelivery, activities.HRSuiteIngestInput{
			CompanyID: in.CompanyID, DeliveryID: id, Replay: true,
		}).Get(ctx, &res)
		if err != nil {
			return err
		}
		err = workflow.ExecuteActivity(shortActivity(ctx), a.FinishHRSuiteReplayDelivery, activities.FinishReplayDeliveryInput{
			CompanyID: in.CompanyID, ReplayID: in.ReplayID, DeliveryID: id, Counts: res.Counts,
		}).Get(ctx, nil)
		if err != nil {
			return err
		}
	}
	return nil
}
