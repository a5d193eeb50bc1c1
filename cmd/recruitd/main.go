// Command recruitd is the one binary of the recruiting interview service: the REST API, the MCP
// tool server, the Temporal worker, the local development stack and the operator commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/runtimetune"
)

func main() {
	runtimetune.ApplyProcess()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "recruitd:", err)
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() > 0 {
			os.Exit(exit.ExitCode()) // recruitd stack passes on its command's status
		}
		os.Exit(1)
	}
}

// env is what every command needs from the process: settings and where to write.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := &env{getenv: getenv, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "recruitd",
		Short:         "Recruiting interview service: REST API, MCP tool server, Temporal worker and operator tools",
		Long:          "recruitd runs the recruiting interview service. Configuration comes from environment variables (see README.md, \"Configuration\").",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args[1:])
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(e.commands()...)
	return root.ExecuteContext(ctx)
}

func (e *env) commands() []*cobra.Command {
	return []*cobra.Command{
		devCmd(e), serveCmd(e, "api"), serveCmd(e, "mcp"), serveCmd(e, "worker"),
		migrateCmd(e), seedCmd(e), companyCmd(e), apikeyCmd(e), flowsCmd(e), partnersCmd(e), callbacksCmd(e), applicationsCmd(e), atssimCmd(e), aggsimCmd(e), idvsimCmd(e), twiliosimCmd(e), integrationsCmd(e), stackCmd(e), benchCmd(e), rollupsCmd(e), usersCmd(e), hrsuiteCmd(e), supportCmd(e),
		integrityCmd(e), sessionsCmd(e), atsCmd(e),
	}
}

// load reads and validates the configuration and builds the process logger.
func (e *env) load() (*config.Config, *slog.Logger, error) {
	cfg, err := config.Load(e.getenv)
	if err != nil {
		return nil, nil, err
	}
	return cfg, newLogger(cfg, e.stderr), nil
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	level, _ := cfg.SlogLevel()
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
