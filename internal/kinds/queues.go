package kinds

import (
	"fmt"
	"slices"
	"strings"
)

// Queue is one of recruitd's task queues: the kinds on a queue share its workers, so work of one
// queue never waits behind another's backlog. A kind's run, its activities and its child runs
// are all on its queue (activities and children default to their workflow's queue). Every
// worker registers every workflow and activity, so a worker serves whichever queues it is told
// to (`recruitd worker --queues`, WORKER_QUEUES).
type Queue string

// The queues. Default keeps the task queue's bare name (TEMPORAL_TASK_QUEUE), which is where
// every run started before the queues were split lives: a worker serving Default finishes them.
const (
	// QueueDefault: customer flows (invitations, partner applications and their callbacks,
	// applications, ATS write-backs) and the health check's ping.
	QueueDefault Queue = "default"
	// QueueInterview: what a candidate in an interview waits for: the session's lifecycle
	// (reminders, expiry, the report after completion) and assessment-link deliveries.
	QueueInterview Queue = "interview"
	// QueueIngest: bulk work an outside system sends: job imports and application syncs, HR-suite
	// deliveries and replays, the generation of jobs' interview guides and the imported jobs'
	// 'New Job from ATS' runs (an import of 10,000 jobs starts 20,000 of them).
	QueueIngest Queue = "ingest"
)

// Queues lists every queue, Default first.
var Queues = []Queue{QueueDefault, QueueInterview, QueueIngest}

// TaskQueue is q's Temporal task queue under prefix (TEMPORAL_TASK_QUEUE): the prefix itself for
// Default, prefix-q for the others.
func (q Queue) TaskQueue(prefix string) string {
	if q == QueueDefault || q == "" {
		return prefix
	}
	return prefix + "-" + string(q)
}

// TaskQueue is the Temporal task queue of k's runs under prefix.
func (k Kind) TaskQueue(prefix string) string { return k.Queue.TaskQueue(prefix) }

// ParseQueues reads a comma-separated list of queue names (WORKER_QUEUES, --queues): empty or
// "all" is every queue. Each queue is listed once, in Queues' order.
func ParseQueues(s string) ([]Queue, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return slices.Clone(Queues), nil
	}
	want := map[Queue]bool{}
	for _, part := range strings.Split(s, ",") {
		q := Queue(strings.TrimSpace(part))
		if !slices.Contains(Queues, q) {
			return nil, fmt.Errorf("unknown task queue %q (known: %s, or all)", part, queueNames())
		}
		want[q] = true
	}
	var out []Queue
	for _, q := range Queues {
		if want[q] {
			out = append(out, q)
		}
	}
	return out, nil
}

func queueNames() string {
	names := make([]string, len(Queues))
	for i, q := range Queues {
		names[i] = string(q)
	}
	return strings.Join(names, ", ")
}
