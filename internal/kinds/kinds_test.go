package kinds_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/workflows"
	"github.com/recruitd/recruitd/workflows/starter"
)

// TestEveryKindIsRegistered fails when a kind names a workflow type the worker does not register
// (temporal.Register registers workflows.Functions), or a registered name is not its function's.
func TestEveryKindIsRegistered(t *testing.T) {
	fns := workflows.Functions()
	for _, k := range append(kinds.All, kinds.Ping) {
		fn, ok := fns[k.Workflow]
		if !ok {
			t.Errorf("kind %s: workflow %s is not in workflows.Functions, so no worker runs it", k.Name, k.Workflow)
			continue
		}
		if got := funcName(fn); got != k.Workflow {
			t.Errorf("kind %s: workflow type %s is registered with function %s", k.Name, k.Workflow, got)
		}
	}
}

func funcName(fn any) string {
	full := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return full[strings.LastIndex(full, ".")+1:]
}

func TestTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range kinds.All {
		if k.Name == "" || strings.Contains(k.Name, "/") || seen[k.Name] {
			t.Errorf("kind %q: want a unique name without a slash", k.Name)
		}
		seen[k.Name] = true
		if k.SignalWithStart && k.Signal == "" {
			t.Errorf("kind %s: signal-with-start without a signal", k.Name)
		}
		if got, ok := kinds.Named(k.Name); !ok || !reflect.DeepEqual(got, k) {
			t.Errorf("Named(%q) = %+v, %v", k.Name, got, ok)
		}
	}
	if _, ok := kinds.Named("ping"); ok {
		t.Error("Named(ping) found an outbox kind; ping is started only by Starter.Ping")
	}
}

func TestStart(t *testing.T) {
	company := uuid.New()
	ws := kinds.NewJob.Start(company, "acme", "job-7", kinds.FlowInput{CompanyID: company}, "acme-job-7", "New Job from ATS")
	if ws.WorkflowID != "new-job/acme/job-7" || ws.Kind != "new-job" || ws.CompanySlug != "acme" || ws.CompanyID != company {
		t.Errorf("NewJob.Start = %+v", ws)
	}
	want := map[string]string{"InterviewerId": "acme-job-7", "WorkflowTrigger": "New Job from ATS"}
	if !reflect.DeepEqual(ws.Attributes.V, want) {
		t.Errorf("NewJob.Start attributes = %v, want %v", ws.Attributes.V, want)
	}
	if got := kinds.JobImport.ID("acme", ""); got != "job-import/acme" {
		t.Errorf("JobImport.ID(acme) = %q, want job-import/acme", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Start with a missing search attribute value did not panic")
		}
	}()
	kinds.Invite.Start(company, "acme", "s", kinds.FlowInput{}, "only-one")
}

// TestStarterRefusesWhatItCannotStart: an unknown kind, and an input that is not JSON, are
// refused before anything reaches Temporal (here an address with no server).
func TestStarterRefusesWhatItCannotStart(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := starter.Starter{Client: c, QueuePrefix: "q"}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	unknown := kinds.JobImport.Start(uuid.New(), "acme", "", map[string]int{})
	unknown.Kind = "no-such-kind"
	if err := s.Start(ctx, &unknown); !errors.Is(err, starter.ErrUnknownKind) {
		t.Errorf("Start(unknown kind) = %v, want ErrUnknownKind", err)
	}
	bad := kinds.JobImport.Start(uuid.New(), "acme", "", map[string]int{})
	bad.Input = []byte(`{"CompanyID":`)
	if err := s.Start(ctx, &bad); err == nil || !strings.Contains(err.Error(), "input is not JSON") {
		t.Errorf("Start(input not JSON) = %v, want it refused as not JSON", err)
	}
}
