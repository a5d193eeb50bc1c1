package temporal

import (
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/workflows"
)

// Register registers every workflow and activity on r. It is the only place that does, so a
// worker in production, in `recruitd dev` and in tests runs the same code.
func Register(r worker.Registry, acts *activities.Activities) {
	r.RegisterWorkflow(workflows.Ping)
	r.RegisterWorkflow(workflows.JobGeneration)
	r.RegisterWorkflow(workflows.CustomerFlow)
	r.RegisterWorkflow(workflows.PartnerApplication)
	r.RegisterWorkflow(workflows.DeliverCallback)
	r.RegisterWorkflow(workflows.JobImport)
	r.RegisterWorkflow(workflows.AssessmentLinkDelivery)
	r.RegisterWorkflow(workflows.AssessmentLinkHold)
	r.RegisterWorkflow(workflows.HRSuiteDelivery)
	r.RegisterWorkflow(workflows.HRSuiteReplay)
	r.RegisterActivity(acts)
}

// NewWorker returns a worker on queue (TEMPORAL_TASK_QUEUE) with everything registered.
// On Stop, running activities get stopTimeout to finish.
func NewWorker(c client.Client, queue string, acts *activities.Activities, stopTimeout time.Duration) worker.Worker {
	w := worker.New(c, queue, worker.Options{WorkerStopTimeout: stopTimeout})
	Register(w, acts)
	return w
}
