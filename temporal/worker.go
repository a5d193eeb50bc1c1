package temporal

import (
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/workflows"
)

// Register registers every workflow and activity on r. It is the only place that does, so a
// worker in production, in `recruitd dev` and in tests runs the same code. The workflows are
// workflows.Functions, each under its type name, which is what a kind's Workflow names.
func Register(r worker.Registry, acts *activities.Activities) {
	for name, fn := range workflows.Functions() {
		r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
	}
	r.RegisterActivity(acts)
}

// NewWorker returns a worker on queue (TEMPORAL_TASK_QUEUE) with everything registered.
// On Stop, running activities get stopTimeout to finish.
func NewWorker(c client.Client, queue string, acts *activities.Activities, stopTimeout time.Duration) worker.Worker {
	w := worker.New(c, queue, worker.Options{WorkerStopTimeout: stopTimeout})
	Register(w, acts)
	return w
}
