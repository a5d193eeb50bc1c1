// Package starter starts recruitd's workflows from committed start rows (internal/outbox), health
// checks and operator commands: the one place, with package workflows, that talks to Temporal to
// start a run, so the ID, search attributes and policies of a start are built once. It needs
// nothing of package workflows (it starts a kind's workflow type by name), so the outbox and the
// commands import it without the workflows' activities.
package starter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// Starter starts recruitd's workflows. It is the only code that builds start options: the task
// queue, the search attributes, and the ID policies that make a start idempotent (a running
// workflow with the ID is used as it is; a closed one is not run again), so a repeated start
// never runs the work twice. It starts a kind's workflow type by name with the row's input as
// it was committed, so it needs nothing of package workflows. Each kind starts on its own queue
// (kinds.Kind.Queue); callers give only the queues' common prefix.
type Starter struct {
	Client client.Client
	// QueuePrefix is TEMPORAL_TASK_QUEUE, the prefix of every queue's name (kinds.Queue.TaskQueue).
	QueuePrefix string
}

// ErrUnknownKind means a start names a kind this build does not know.
var ErrUnknownKind = errors.New("unknown workflow kind")

// Start starts ws's workflow, or finds it started (signal-with-start for a kind with
// SignalWithStart). The error is Temporal's (or the context's) when the start was not taken.
func (s Starter) Start(ctx context.Context, ws *models.WorkflowStart) error {
	k, opts, err := s.prepare(ws)
	if err != nil {
		return err
	}
	if k.SignalWithStart {
		return s.signalWithStart(ctx, k, opts, ws)
	}
	if _, err := s.Client.ExecuteWorkflow(ctx, opts, k.Workflow, input(ws.Input)); err != nil {
		return fmt.Errorf("start %s: %w", ws.WorkflowID, err)
	}
	return nil
}

// Signal sends ws's kind's signal (no payload) to the running workflow of ws's ID, or starts it
// with ws's input and the signal, also after a closed run. The reason for the signal is recorded
// in Postgres before it is sent, so the run finds it even if the signal is lost.
func (s Starter) Signal(ctx context.Context, ws *models.WorkflowStart) error {
	k, opts, err := s.prepare(ws)
	if err != nil {
		return err
	}
	if k.Signal == "" {
		return fmt.Errorf("signal %s: kind %s takes no signal", ws.WorkflowID, k.Name)
	}
	return s.signalWithStart(ctx, k, opts, ws)
}

// SignalRunning sends signal (no payload) to the running workflow of workflowID; a workflow that
// is not running is not an error (nothing waits for the signal there).
func (s Starter) SignalRunning(ctx context.Context, workflowID, signal string) error {
	err := s.Client.SignalWorkflow(ctx, workflowID, "", signal, nil)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("signal %s: %w", workflowID, err)
	}
	return nil
}

// Ping starts the one-activity round trip for a company; suffix makes its ID unique.
func (s Starter) Ping(ctx context.Context, companySlug, suffix string, companyID uuid.UUID) (client.WorkflowRun, error) {
	opts := s.options(kinds.Ping, kinds.Ping.ID(companySlug, suffix), kinds.CompanySlugKey.ValueSet(companySlug))
	opts.WorkflowRunTimeout = kinds.Ping.RunTimeout
	return s.Client.ExecuteWorkflow(ctx, opts, kinds.Ping.Workflow, companyID)
}

func (s Starter) prepare(ws *models.WorkflowStart) (kinds.Kind, client.StartWorkflowOptions, error) {
	k, ok := kinds.Named(ws.Kind)
	if !ok {
		return kinds.Kind{}, client.StartWorkflowOptions{}, fmt.Errorf("start %s: %w %q", ws.WorkflowID, ErrUnknownKind, ws.Kind)
	}
	if !json.Valid(ws.Input) { // refused before any connection: a row that is not JSON never starts
		return kinds.Kind{}, client.StartWorkflowOptions{}, fmt.Errorf("start %s: input is not JSON", ws.WorkflowID)
	}
	attrs := []temporal.SearchAttributeUpdate{kinds.CompanySlugKey.ValueSet(ws.CompanySlug)}
	for name, v := range ws.Attributes.V {
		attrs = append(attrs, temporal.NewSearchAttributeKeyKeyword(name).ValueSet(v))
	}
	opts := s.options(k, ws.WorkflowID, attrs...)
	opts.WorkflowRunTimeout = k.RunTimeout
	if ws.NotBefore != nil {
		// A signal-with-start of a workflow already running ignores it (and ends a delay that
		// workflow is in); a new one is created at once and takes its first task then.
		opts.StartDelay = max(time.Until(*ws.NotBefore), 0)
	}
	return k, opts, nil
}

// signalWithStart signals the running workflow of opts.ID with k.Signal (no payload), or starts
// it with ws's input and the signal. A closed run of the ID does not block a new one.
func (s Starter) signalWithStart(ctx context.Context, k kinds.Kind, opts client.StartWorkflowOptions, ws *models.WorkflowStart) error {
	opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	if _, err := s.Client.SignalWithStartWorkflow(ctx, opts.ID, k.Signal, nil, opts, k.Workflow, input(ws.Input)); err != nil {
		return fmt.Errorf("signal-with-start %s: %w", opts.ID, err)
	}
	return nil
}

func (s Starter) options(k kinds.Kind, id string, attrs ...temporal.SearchAttributeUpdate) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                k.TaskQueue(s.QueuePrefix),
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    temporal.NewSearchAttributes(attrs...),
	}
}

// input hands a committed row's JSON input to the SDK's JSON payload converter as it is: the
// workflow decodes it into its parameter, so the starter needs no Go type of it. (A plain
// []byte would be sent as binary, which a struct parameter cannot decode.)
type input json.RawMessage

// MarshalJSON returns the input as committed.
func (in input) MarshalJSON() ([]byte, error) { return in, nil }
