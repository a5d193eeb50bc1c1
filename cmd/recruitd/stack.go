package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/internal/devstack"
	rtemporal "github.com/recruitd/recruitd/temporal"
)

func stackCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "stack -- COMMAND [ARG...]",
		Short: "Run a command against a throwaway Postgres cluster and Temporal dev server (make test uses it)",
		Long: "stack starts a fresh private Postgres cluster and an in-memory Temporal dev server on free ports, runs COMMAND with\n" +
			"TEST_DATABASE_URL, TEST_TEMPORAL_ADDRESS, DATABASE_URL and TEMPORAL_ADDRESS pointing at them, then stops both and\n" +
			"removes their files. Its exit status is COMMAND's.",
		Example: "  recruitd stack -- go test ./...",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			dir, err := devstack.ScratchDir("recruitd-stack-") // tmpfs when available: test databases clone in ~12 ms
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			root, err := devstack.RepoRoot()
			if err != nil {
				return err
			}
			var pg *devstack.Postgres
			var tmp *devstack.Temporal
			defer func() {
				stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				defer cancel()
				if tmp != nil {
					_ = tmp.Stop(stopCtx)
				}
				if pg != nil {
					_ = pg.Destroy(stopCtx)
				}
			}()
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error {
				port, err := devstack.FreePort()
				if err != nil {
					return err
				}
				pg, err = devstack.StartPostgres(gctx, devstack.PostgresOptions{Dir: dir + "/postgres", Port: port, Fast: true, Log: log})
				return err
			})
			g.Go(func() error {
				cli, err := devstack.FindTemporalCLI(root)
				if err != nil {
					return err
				}
				port, err := devstack.FreePort()
				if err != nil {
					return err
				}
				ui, err := devstack.FreePort()
				if err != nil {
					return err
				}
				tmp, err = devstack.StartTemporal(gctx, devstack.TemporalOptions{
					CLI: cli, Port: port, UIPort: ui, Headless: true, Namespace: cfg.TemporalNamespace,
					SearchAttributes: rtemporal.SearchAttributes(), LogFile: dir + "/temporal.log", Log: log,
				})
				return err
			})
			if err := g.Wait(); err != nil {
				return err
			}
			c := exec.CommandContext(ctx, args[0], args[1:]...)
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, e.stdout, e.stderr
			c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
			c.WaitDelay = 30 * time.Second
			c.Env = append(os.Environ(),
				"TEST_DATABASE_URL="+pg.URL("postgres"), "DATABASE_URL="+pg.URL("postgres"),
				"TEST_TEMPORAL_ADDRESS="+tmp.Address(), "TEMPORAL_ADDRESS="+tmp.Address(),
				"TEST_TEMPORAL_NAMESPACE="+cfg.TemporalNamespace,
			)
			log.Info("stack ready", "postgres", pg.URL("postgres"), "temporal", tmp.Address(), "command", args)
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			return nil
		},
	}
}
