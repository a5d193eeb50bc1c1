package temporal

import (
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
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

// Workers are one Temporal worker per task queue a process serves, each with everything
// registered: which kinds a queue carries is the kinds table's business, and a run started
// before the queues were split (on the default queue) finds every activity there.
type Workers struct {
	// TaskQueues are the Temporal task queues served, in the order of the queues asked for.
	TaskQueues []string
	workers    []worker.Worker
	stopOnce   sync.Once
}

// Pollers per task queue. Temporal splits a task queue into partitions (four by default), and a
// task that lands in a partition no poller is waiting on waits in its backlog: forwarding to the
// root partition takes one task at a time per partition, and a poller parked on another,
// empty partition returns only after its long poll's minute. With the SDK's two workflow-task
// pollers, which alternate between the worker's sticky queue and the normal one, a burst of new
// runs (200 interviews completing at once in `bench interview`) left a few first workflow tasks
// there for a minute (completion -> transcript final p99 1m2s where p50 was 2 s). A poller for
// each partition, and as many again for the sticky queue, keeps every partition polled.
const (
	workflowTaskPollers = 8
	activityTaskPollers = 4
)

// NewWorkers returns a worker for each of queues under prefix (TEMPORAL_TASK_QUEUE), each running
// at most slots activities and slots local activities at once (0: the SDK's default). On Stop,
// running activities get stopTimeout to finish.
func NewWorkers(c client.Client, prefix string, queues []kinds.Queue, acts *activities.Activities, slots int, stopTimeout time.Duration) *Workers {
	ws := &Workers{}
	for _, q := range queues {
		name := q.TaskQueue(prefix)
		w := worker.New(c, name, worker.Options{WorkerStopTimeout: stopTimeout,
			MaxConcurrentActivityExecutionSize: slots, MaxConcurrentLocalActivityExecutionSize: slots,
			MaxConcurrentWorkflowTaskPollers: workflowTaskPollers, MaxConcurrentActivityTaskPollers: activityTaskPollers})
		Register(w, acts)
		ws.TaskQueues = append(ws.TaskQueues, name)
		ws.workers = append(ws.workers, w)
	}
	return ws
}

// NewWorker returns workers on every queue under prefix, what a process serving all the work
// (recruitd dev, the tests) runs.
func NewWorker(c client.Client, prefix string, acts *activities.Activities, stopTimeout time.Duration) *Workers {
	return NewWorkers(c, prefix, kinds.Queues, acts, 0, stopTimeout)
}

// Start starts every worker; if one does not start, those started are stopped.
func (ws *Workers) Start() error {
	for i, w := range ws.workers {
		if err := w.Start(); err != nil {
			for _, started := range ws.workers[:i] {
				started.Stop()
			}
			return fmt.Errorf("worker on task queue %s: %w", ws.TaskQueues[i], err)
		}
	}
	return nil
}

// Stop stops every worker at once (each gives its running activities the stop timeout); a
// second Stop does nothing.
func (ws *Workers) Stop() {
	ws.stopOnce.Do(func() {
		var wg sync.WaitGroup
		for _, w := range ws.workers {
			wg.Add(1)
			go func() { defer wg.Done(); w.Stop() }()
		}
		wg.Wait()
	})
}
