package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/internal/bench/scenarios"
	"github.com/recruitd/recruitd/internal/devstack"
	rtemporal "github.com/recruitd/recruitd/temporal"
)

// throwawayStack is a private Postgres cluster and an in-memory Temporal dev server on free
// ports, for tests and benchmarks.
type throwawayStack struct {
	dir      string
	pg       *devstack.Postgres
	temporal *devstack.Temporal
}

// startThrowawayStack starts both side by side; stop removes everything.
// Its Postgres tracks statements (devstack.TrackStatements) when track is set or
// RECRUITD_BENCH_STATEMENTS is.
func startThrowawayStack(ctx context.Context, log *slog.Logger, namespace string, track bool) (*throwawayStack, error) {
	dir, err := devstack.ScratchDir("recruitd-stack-") // tmpfs when available: test databases clone in ~12 ms
	if err != nil {
		return nil, err
	}
	s := &throwawayStack{dir: dir}
	root, err := devstack.RepoRoot()
	if err != nil {
		s.stop(ctx)
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		o := devstack.PostgresOptions{Dir: filepath.Join(dir, "postgres"), Fast: true, Log: log}
		if track || os.Getenv(scenarios.StatementsEnv) != "" {
			o.Settings = devstack.TrackStatements()
		}
		pg, err := devstack.StartPostgres(gctx, o)
		s.pg = pg
		return err
	})
	g.Go(func() error {
		cli, err := devstack.FindTemporalCLI(root)
		if err != nil {
			return err
		}
		t, err := devstack.StartTemporal(gctx, devstack.TemporalOptions{
			CLI: cli, Headless: true, Namespace: namespace,
			SearchAttributes: rtemporal.SearchAttributes(), LogFile: filepath.Join(dir, "temporal.log"), Log: log,
		})
		s.temporal = t
		return err
	})
	if err := g.Wait(); err != nil {
		s.stop(ctx)
		return nil, err
	}
	return s, nil
}

func (s *throwawayStack) stop(ctx context.Context) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if s.temporal != nil {
		_ = s.temporal.Stop(stopCtx)
	}
	if s.pg != nil {
		_ = s.pg.Destroy(stopCtx)
	}
	os.RemoveAll(s.dir)
}

func stackCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "stack -- COMMAND [ARG...]",
		Short: "Run a command against a throwaway Postgres cluster and Temporal dev server (make test uses it)",
		Long: "stack starts a fresh private Postgres cluster and an in-memory Temporal dev server on free ports, runs COMMAND with\n" +
			"TEST_DATABASE_URL, TEST_TEMPORAL_ADDRESS, DATABASE_URL and TEMPORAL_ADDRESS pointing at them, then stops both and\n" +
			"removes their files. Its exit status is COMMAND's. The cluster loads pg_stat_statements (with planning counts): some\n" +
			"tests count how often Postgres plans a statement.",
		Example: "  recruitd stack -- go test ./...",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			s, err := startThrowawayStack(ctx, log, cfg.TemporalNamespace, true) // tests count plans
			if err != nil {
				return err
			}
			defer s.stop(ctx)
			c := exec.CommandContext(ctx, args[0], args[1:]...)
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, e.stdout, e.stderr
			c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
			c.WaitDelay = 30 * time.Second
			c.Env = append(os.Environ(),
				"TEST_DATABASE_URL="+s.pg.URL("postgres"), "DATABASE_URL="+s.pg.URL("postgres"),
				"TEST_TEMPORAL_ADDRESS="+s.temporal.Address(), "TEMPORAL_ADDRESS="+s.temporal.Address(),
				"TEST_TEMPORAL_NAMESPACE="+cfg.TemporalNamespace,
			)
			log.Info("stack ready", "postgres", s.pg.URL("postgres"), "temporal", s.temporal.Address(), "command", args)
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			return nil
		},
	}
}
