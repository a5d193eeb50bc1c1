package temporaltest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/internal/kinds"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func greet(ctx context.Context, name string) (string, error) {
	return "hello " + name, nil
}

func greetWorkflow(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var out string
	err := workflow.ExecuteActivity(ctx, greet, name).Get(ctx, &out)
	return out, err
}

func TestWorkflowWithActivity(t *testing.T) {
	c := New(t).Client(t)
	queue := TaskQueue(t)
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(greetWorkflow)
	w.RegisterActivity(greet)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    "temporaltest/" + queue,
		TaskQueue:             queue,
		TypedSearchAttributes: sdktemporal.NewSearchAttributes(kinds.CompanySlugKey.ValueSet("acme")),
	}, greetWorkflow, "recruitd")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := run.Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got != "hello recruitd" {
		t.Errorf("greetWorkflow(%q) = %q, want %q", "recruitd", got, "hello recruitd")
	}
	desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()["CompanySlug"]; !ok {
		t.Errorf("workflow has no CompanySlug search attribute")
	}
}

func TestTaskQueueUniqueAndReadable(t *testing.T) {
	a, b := TaskQueue(t), TaskQueue(t)
	if a == b {
		t.Errorf("TaskQueue returned %q twice", a)
	}
	if !strings.HasPrefix(a, t.Name()+"-") {
		t.Errorf("TaskQueue(t) = %q, want prefix %q", a, t.Name()+"-")
	}
}
