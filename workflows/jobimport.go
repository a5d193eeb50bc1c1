package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
)

// Default cadence of JobImport.
const (
	DefaultFullPassEvery = 6 * time.Hour
	importRetryWait      = 30 * time.Second
	passesPerRun         = 100
)

// JobImport keeps a company's jobs in step with its HR suite or ATS through the aggregator, and
// an ATS's candidates and applications too. It runs a pass (activities.ImportJobs, then for an
// ATS activities.SyncApplications) whenever data-changed signals arrive, again at once when a
// request was recorded during a pass, and a full pass every FullEvery (a durable timer; the
// worker's AGGREGATOR_FULL_PASS_EVERY once a pass reports it) that catches changes and
// deletions no webhook announced. Signals arriving during a pass coalesce into one next pass.
// Its history holds only counts; it continues as new after passesPerRun passes.
func JobImport(ctx workflow.Context, in kinds.JobImportInput) error {
	var a *activities.Activities
	every := in.FullEvery
	if every <= 0 {
		every = DefaultFullPassEvery
	}
	pass := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 10, NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
		},
	})
	signals := workflow.GetSignalChannel(ctx, kinds.JobImport.Signal)
	full := in.Full
	lastFull := workflow.Now(ctx)
	for range passesPerRun {
		for signals.ReceiveAsync(nil) {
		}
		setImportState(ctx, "importing")
		var res activities.ImportResult
		err := workflow.ExecuteActivity(pass, a.ImportJobs, activities.ImportInput{CompanyID: in.CompanyID, Full: full}).Get(ctx, &res)
		// Histories recorded before applications synced have no SyncApplications in their
		// results, so they replay without this step.
		if err == nil && res.State == "" && res.SyncApplications {
			var sync activities.SyncResult
			err = workflow.ExecuteActivity(pass, a.SyncApplications, activities.SyncInput{CompanyID: in.CompanyID, Full: full}).Get(ctx, &sync)
			res.State, res.Pending = sync.State, res.Pending || sync.Pending
		}
		if err == nil && res.FullEvery > 0 {
			every = res.FullEvery
		}
		wait := every - workflow.Now(ctx).Sub(lastFull)
		switch {
		case err != nil:
			workflow.GetLogger(ctx).Warn("import pass failed", "company_id", in.CompanyID, "err", err)
			setImportState(ctx, "failed")
			wait = min(wait, importRetryWait)
		case res.State != "":
			setImportState(ctx, res.State) // waiting_for_sync, needs_attention: a signal resumes
		default:
			setImportState(ctx, "idle")
			if full {
				lastFull, wait = workflow.Now(ctx), every
			}
			if res.Pending {
				full = false
				continue
			}
		}
		full = false
		if wait <= 0 {
			full = true
			continue
		}
		timerCtx, cancel := workflow.WithCancel(ctx)
		timedOut := false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
		sel.AddFuture(workflow.NewTimer(timerCtx, wait), func(workflow.Future) { timedOut = true })
		sel.Select(ctx)
		cancel()
		full = timedOut && workflow.Now(ctx).Sub(lastFull) >= every
	}
	for signals.ReceiveAsync(nil) {
	}
	return workflow.NewContinueAsNewError(ctx, JobImport, kinds.JobImportInput{CompanyID: in.CompanyID, Full: full, FullEvery: every})
}

// setImportState records the import's state for filtering in the Temporal UI; failing to record
// it must not fail the run.
func setImportState(ctx workflow.Context, state string) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, kinds.ImportStateKey.ValueSet(state)); err != nil {
		workflow.GetLogger(ctx).Warn("search attribute not recorded", "err", err)
	}
}
