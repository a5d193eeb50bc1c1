package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/runtimetune"
)

// TemporalCLIModule is the `go install` target of the Temporal CLI. Later versions cannot be
// installed with `go install` (their go.mod has replace directives).
const TemporalCLIModule = "github.com/temporalio/cli/cmd/temporal@v1.5.1"

// FindTemporalCLI returns the Temporal CLI to run: $TEMPORAL_CLI, else repoRoot/bin/temporal, else
// `temporal` on the PATH.
func FindTemporalCLI(repoRoot string) (string, error) {
	if p := os.Getenv("TEMPORAL_CLI"); p != "" {
		if !isExecutable(p) {
			return "", fmt.Errorf("TEMPORAL_CLI=%s is not an executable file", p)
		}
		return p, nil
	}
	if repoRoot != "" {
		if p := filepath.Join(repoRoot, "bin", "temporal"); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("temporal CLI not found in %s: run `make bin/temporal` (go install %s)",
		filepath.Join(repoRoot, "bin"), TemporalCLIModule)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// InstallTemporalCLI returns the CLI FindTemporalCLI finds, building it into repoRoot/bin first
// when there is none (about four minutes cold on two cores). The go command's output goes to out,
// package by package, so the wait shows progress.
func InstallTemporalCLI(ctx context.Context, repoRoot string, out io.Writer) (string, error) {
	if p, err := FindTemporalCLI(repoRoot); err == nil {
		return p, nil
	}
	gobin := filepath.Join(repoRoot, "bin")
	fmt.Fprintf(out, "building the Temporal CLI into %s (go install %s); this takes a few minutes the first time\n", gobin, TemporalCLIModule)
	cmd := exec.CommandContext(ctx, "go", "install", "-v", TemporalCLIModule)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install %s: %w", TemporalCLIModule, err)
	}
	p := filepath.Join(gobin, "temporal")
	if !isExecutable(p) {
		return "", fmt.Errorf("go install %s: %s missing afterwards", TemporalCLIModule, p)
	}
	return p, nil
}

// TemporalOptions configures StartTemporal.
type TemporalOptions struct {
	// CLI is the temporal binary; "" means FindTemporalCLI(RepoRoot()).
	CLI string
	// Port is the frontend gRPC port and UIPort the Web UI's, both on 127.0.0.1; 0 picks a free one.
	Port, UIPort int
	// DBFile is the SQLite file that keeps state across restarts; "" keeps everything in memory.
	DBFile string
	// Headless disables the Web UI.
	Headless bool
	// Namespace is created at launch (default "default").
	Namespace string
	// SearchAttributes are registered on Namespace, usually temporal.SearchAttributes(): the
	// SDK's typed keys, so devstack needs nothing of the worker and the worker nothing of devstack.
	SearchAttributes []sdktemporal.SearchAttributeKey
	// LogFile receives the server's output (appended); "" discards it, keeping the tail for errors.
	LogFile string
	Log     *slog.Logger
}

// Temporal is a running Temporal dev server (`temporal server start-dev`).
type Temporal struct {
	address   string
	uiURL     string
	namespace string
	proc      *child
	log       *slog.Logger

	stopOnce sync.Once
	stopErr  error
}

// StartTemporal starts the dev server and returns once the frontend answers and Namespace holds
// every search attribute.
//
// start-dev registers --search-attribute values only when it creates a namespace, so with a DB
// file from an earlier run new attributes would be silently missing; those are registered
// through the operator service.
func StartTemporal(ctx context.Context, o TemporalOptions) (*Temporal, error) {
	began := time.Now()
	log := orDiscard(o.Log)
	if o.CLI == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		if o.CLI, err = FindTemporalCLI(root); err != nil {
			return nil, err
		}
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	attrs := make(map[string]enumspb.IndexedValueType, len(o.SearchAttributes))
	for _, sa := range o.SearchAttributes {
		attrs[sa.GetName()] = sa.GetValueType()
	}
	// A server that exits while it starts is started again (on new ports, where we choose them):
	// the dev server binds more ports than the ones we give it (its other services' gRPC, its
	// HTTP and metrics ports), each taken from the kernel's ephemeral range a moment before it
	// binds it, where a process starting beside it may take the same one.
	for attempt := 1; ; attempt++ {
		t, crashed, err := startTemporalOnce(ctx, o, attrs, log)
		if err == nil {
			log.Info("temporal ready", "address", t.address, "ui", t.uiURL, "namespace", o.Namespace,
				"db", o.DBFile, "pid", t.proc.pid, "duration", time.Since(began).Round(time.Millisecond))
			return t, nil
		}
		if !crashed || attempt == startAttempts || ctx.Err() != nil {
			return nil, err
		}
		log.Warn("temporal exited while starting; starting it again", "attempt", attempt, "err", err)
	}
}

// startAttempts is how many times StartTemporal starts a server that exits while it starts.
const startAttempts = 3

// startTemporalOnce starts one dev server and waits for it; crashed reports that the server
// exited before it was ready (the error then holds the first and last lines of its output).
func startTemporalOnce(ctx context.Context, o TemporalOptions, attrs map[string]enumspb.IndexedValueType, log *slog.Logger) (_ *Temporal, crashed bool, err error) {
	// A port we choose comes from the kernel's ephemeral range, where an outgoing connection
	// (Postgres starting beside us, say) may take it before the server binds it: a busy one is
	// chosen again, a few times. A port the caller gave is checked once.
	chosePort, choseUI := o.Port == 0, o.UIPort == 0 && !o.Headless
	for attempt := 1; ; attempt++ {
		if chosePort {
			if o.Port, err = FreePort(); err != nil {
				return nil, false, fmt.Errorf("start temporal: %w", err)
			}
		}
		if choseUI {
			if o.UIPort, err = FreePort(); err != nil {
				return nil, false, fmt.Errorf("start temporal: %w", err)
			}
		}
		// A server already on the port would answer our readiness checks while ours fails to bind.
		ports := []int{o.Port}
		if !o.Headless {
			ports = append(ports, o.UIPort)
		}
		port, busy := portsBusy(ports)
		if busy == nil {
			break
		}
		if ours := port == o.Port && chosePort || port == o.UIPort && choseUI; !ours || attempt == 5 {
			return nil, false, fmt.Errorf("start temporal: %w", busy)
		}
		log.Info("a port chosen for temporal was taken meanwhile; choosing again", "err", busy)
	}
	args := []string{"server", "start-dev",
		"--ip", "127.0.0.1",
		"--port", strconv.Itoa(o.Port),
		"--log-level", "warn",
		// One partition per task queue. Partitions spread a queue over matching hosts, and a
		// dev server is one host; with the default four, a task left in a partition's backlog
		// after a burst waits until a poller polls that partition, and idle pollers park for a
		// minute on whichever partition they picked (docs/decisions.md).
		"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
	}
	if o.Headless {
		args = append(args, "--headless")
	} else {
		args = append(args, "--ui-port", strconv.Itoa(o.UIPort))
	}
	if o.DBFile != "" {
		args = append(args, "--db-filename", o.DBFile)
	}
	if o.Namespace != "default" { // start-dev always creates "default"
		args = append(args, "--namespace", o.Namespace)
	}
	for _, sa := range o.SearchAttributes {
		args = append(args, "--search-attribute", sa.GetName()+"="+sa.GetValueType().String())
	}

	tail := &tailBuffer{max: 16 << 10}
	var out io.Writer = tail
	var logFile *os.File
	if o.LogFile != "" {
		if logFile, err = os.OpenFile(o.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			return nil, false, fmt.Errorf("start temporal: %w", err)
		}
		// The output goes through a pipe that exec copies into out. The file must stay open until
		// the server exits: once a copy fails, exec closes the pipe and the server's next log
		// line kills it with SIGPIPE.
		out = io.MultiWriter(logFile, tail)
	}
	cmd := exec.Command(o.CLI, args...)
	cmd.Env = runtimetune.ChildEnv(os.Environ()) // the dev server is a Go program too
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	// The dev server is one process with nothing on disk that SIGKILL could corrupt beyond what
	// SQLite recovers from.
	proc, err := startChild(cmd, syscall.SIGKILL)
	if err != nil {
		if logFile != nil {
			logFile.Close()
		}
		return nil, false, fmt.Errorf("start temporal: %w", err)
	}
	if logFile != nil {
		go func() {
			<-proc.done
			logFile.Close()
		}()
	}
	t := &Temporal{
		address:   fmt.Sprintf("127.0.0.1:%d", o.Port),
		namespace: o.Namespace,
		proc:      proc,
		log:       log,
	}
	if !o.Headless {
		t.uiURL = fmt.Sprintf("http://127.0.0.1:%d", o.UIPort)
	}
	if err := t.waitReady(ctx, attrs, 60*time.Second); err != nil {
		exited := t.proc.exited()
		_ = t.Stop(context.Background())
		if exited {
			return nil, true, fmt.Errorf("%w\n%s", err, tail.String())
		}
		return nil, false, err
	}
	return t, false, nil
}

// QuietLogger is a Temporal SDK logger that drops everything.
func QuietLogger() tlog.Logger {
	return tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))
}

func (t *Temporal) waitReady(ctx context.Context, attrs map[string]enumspb.IndexedValueType, timeout time.Duration) error {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("not ready after %s", timeout))
	defer cancel()
	var last error // the latest check's failure, for the timeout message
	pause := func() error {
		select {
		case <-t.proc.done:
			return fmt.Errorf("start temporal: exited during startup (%v)", t.proc.err)
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("start temporal: %w (last check: %v)", context.Cause(ctx), last)
			}
			return fmt.Errorf("start temporal: %w", context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
			return nil
		}
	}

	var c client.Client
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, 2*time.Second)
		var err error
		c, err = client.DialContext(attempt, client.Options{HostPort: t.address, Namespace: t.namespace, Logger: QuietLogger()})
		cancelAttempt()
		if err == nil {
			break
		}
		last = err
		if err := pause(); err != nil {
			return err
		}
	}
	defer c.Close()

	registered := false
	for {
		missing, err := t.missingAttributes(ctx, c, attrs)
		var conflict *attributeConflict
		if errors.As(err, &conflict) {
			return fmt.Errorf("start temporal: %w", err)
		}
		if err == nil && len(missing) == 0 {
			return nil
		}
		last = err
		if err == nil {
			last = fmt.Errorf("search attributes missing: %v", slices.Sorted(maps.Keys(missing)))
		}
		// The namespace exists but lacks attributes: a DB file from an earlier run.
		if err == nil && !registered {
			t.log.Info("registering search attributes", "namespace", t.namespace, "names", slices.Sorted(maps.Keys(missing)))
			_, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
				Namespace:        t.namespace,
				SearchAttributes: missing,
			})
			var exists *serviceerror.AlreadyExists
			if err != nil && !errors.As(err, &exists) {
				return fmt.Errorf("start temporal: register search attributes: %w", err)
			}
			registered = true
		}
		if err := pause(); err != nil {
			return err
		}
	}
}

// missingAttributes returns the attributes Namespace lacks; an error means the namespace is not
// ready yet.
func (t *Temporal) missingAttributes(ctx context.Context, c client.Client, attrs map[string]enumspb.IndexedValueType) (map[string]enumspb.IndexedValueType, error) {
	if _, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: t.namespace}); err != nil {
		return nil, err
	}
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: t.namespace})
	if err != nil {
		return nil, err
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, want := range attrs {
		got, ok := resp.GetCustomAttributes()[name]
		switch {
		case !ok:
			missing[name] = want
		case got != want:
			return nil, &attributeConflict{namespace: t.namespace, name: name, got: got, want: want}
		}
	}
	return missing, nil
}

// attributeConflict is a search attribute registered with another type than we need.
type attributeConflict struct {
	namespace, name string
	got, want       enumspb.IndexedValueType
}

func (e *attributeConflict) Error() string {
	return fmt.Sprintf("search attribute %s in namespace %s is %s, want %s", e.name, e.namespace, e.got, e.want)
}

// Address is the frontend's host:port.
func (t *Temporal) Address() string { return t.address }

// UIURL is the Web UI's base URL, "" when headless.
func (t *Temporal) UIURL() string { return t.uiURL }

// Namespace is the namespace created at launch.
func (t *Temporal) Namespace() string { return t.namespace }

// PID is the dev server's process id.
func (t *Temporal) PID() int { return t.proc.pid }

// Stop shuts the dev server down (SIGTERM, then SIGKILL to its process group after a timeout or
// when ctx ends). Safe to call more than once.
func (t *Temporal) Stop(ctx context.Context) error {
	t.stopOnce.Do(func() {
		if err := t.proc.stop(ctx, []stopStep{{sig: syscall.SIGTERM, wait: 10 * time.Second}}); err != nil {
			t.stopErr = fmt.Errorf("stop temporal: %w", err)
			return
		}
		t.log.Info("temporal stopped", "address", t.address)
	})
	return t.stopErr
}

// portsBusy reports the first of ports that cannot be listened on at 127.0.0.1 and why; a nil
// error when none is busy.
func portsBusy(ports []int) (int, error) {
	for _, port := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return port, fmt.Errorf("port %d is in use: %w", port, err)
		}
		l.Close()
	}
	return 0, nil
}
