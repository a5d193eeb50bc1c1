// Package temporaltest gives tests a real Temporal server: TEST_TEMPORAL_ADDRESS when set (`make
// test` starts one dev server per run and exports it), else an in-memory dev server started once
// per test process with this project's search attributes.
package temporaltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/temporal"
)

// Server is a Temporal frontend and the namespace tests use.
type Server struct {
	Address   string
	Namespace string
}

var (
	privateOnce sync.Once
	private     *devstack.Temporal
	privateErr  error
)

// New returns the test process's Temporal server, starting a private dev server on first use
// unless TEST_TEMPORAL_ADDRESS (and TEST_TEMPORAL_NAMESPACE, default "default") name one.
func New(t testing.TB) *Server {
	t.Helper()
	if addr := os.Getenv("TEST_TEMPORAL_ADDRESS"); addr != "" {
		ns := os.Getenv("TEST_TEMPORAL_NAMESPACE")
		if ns == "" {
			ns = "default"
		}
		return &Server{Address: addr, Namespace: ns}
	}
	privateOnce.Do(func() { private, privateErr = start() })
	if privateErr != nil {
		t.Fatalf("temporaltest: %v", privateErr)
	}
	return &Server{Address: private.Address(), Namespace: private.Namespace()}
}

func start() (*devstack.Temporal, error) {
	root, err := devstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	cli, err := devstack.FindTemporalCLI(root)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := devstack.StartTemporal(ctx, devstack.TemporalOptions{
		CLI:              cli,
		Headless:         true,
		SearchAttributes: temporal.SearchAttributes(),
	})
	if err != nil {
		return nil, fmt.Errorf("start a private Temporal dev server (or set TEST_TEMPORAL_ADDRESS to a running one): %w", err)
	}
	return srv, nil
}

// Client dials the server with a logger that drops everything, and closes the client when the
// test ends.
func (s *Server) Client(t testing.TB) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{
		HostPort:          s.Address,
		Namespace:         s.Namespace,
		Logger:            devstack.QuietLogger(),
		ConnectionOptions: client.ConnectionOptions{DialOptions: temporal.ReconnectOptions()},
	})
	if err != nil {
		t.Fatalf("temporaltest: dial %s: %v", s.Address, err)
	}
	t.Cleanup(c.Close)
	return c
}

// TaskQueue returns a task queue name unique to this test, readable in the Web UI:
// the test name and a random suffix.
func TaskQueue(t testing.TB) string {
	suffix := make([]byte, 4)
	rand.Read(suffix)
	name := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return '_'
		}
		return r
	}, t.Name())
	return name + "-" + hex.EncodeToString(suffix)
}

// Main runs the tests, then stops the private dev server if this process started one. Use it
// from TestMain: `func TestMain(m *testing.M) { os.Exit(temporaltest.Main(m)) }`. Without it the
// server still dies with the test process (parent-death signal).
func Main(m *testing.M) int {
	code := m.Run()
	if private != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := private.Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "temporaltest: %v\n", err)
		}
	}
	return code
}
