package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/bench/scenarios"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/runtimetune"
	"github.com/recruitd/recruitd/internal/seed"
)

func benchCmd(e *env) *cobra.Command {
	var o scenarios.Options
	var cpuProfile string
	long := "bench starts a throwaway Postgres cluster and in-memory Temporal dev server, runs api and worker in this process,\n" +
		"measures the floor (one-activity Ping workflows per second) and then the scenario, and prints ratios against that floor.\n"
	for _, s := range scenarios.All {
		long += fmt.Sprintf("\n%-9s%s", s.Name+":", strings.ReplaceAll(s.Help, "\n", "\n         "))
	}
	cmd := &cobra.Command{
		Use:       "bench " + strings.Join(scenarios.Names(), "|"),
		Short:     "Benchmark a scenario against an in-process api and worker on a throwaway Postgres and Temporal (make bench)",
		Long:      long,
		Args:      cobra.ExactArgs(1),
		ValidArgs: scenarios.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := scenarios.Find(args[0])
			if err != nil {
				return err
			}
			env, err := e.benchEnv()
			if err != nil {
				return err
			}
			runtimetune.ShareCoresProcess() // api and worker run beside the bench's Postgres and Temporal
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			return s.Run(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run (api and worker, in this process) to this file (go tool pprof)")
	f.Float64Var(&o.Rate, "rate", 100, "requests per second in the latency phase (issue 32's accept targets are at 100)")
	f.DurationVar(&o.Duration, "duration", 30*time.Second, "length of the latency phase (the partner scenario's spec asks for 60s)")
	f.IntVar(&o.Burst, "burst", 300, "workflows (floor) and jobs or submissions (throughput) per burst")
	f.IntVar(&o.Concurrency, "concurrency", 20, "calls in flight during bursts")
	f.IntVar(&o.Candidates, "candidates", 1_000_000, "mcp: candidates of the bench company")
	f.IntVar(&o.CandidatesPerJob, "candidates-per-job", 0, fmt.Sprintf("mcp: one job per this many candidates in the seed (0: the seed's %d); 50 gives 1M candidates the 20,000 jobs of 10M", seed.DefaultCandidatesPerJob))
	f.IntSliceVar(&o.Sizes, "sizes", nil, "mcp: candidate counts to run one after the other (each its own kept cluster), e.g. 100000,1000000,3000000; prints each tool's growth")
	f.IntVar(&o.Iterations, "iterations", 40, "mcp: measured calls per tool")
	f.StringVar(&o.Dir, "dir", ".bench", "mcp: folder of the kept Postgres cluster")
	f.BoolVar(&o.Explain, "explain", false, "mcp: log every statement's plan (auto_explain, slower calls) and print each tool's rows read and pages touched per call, and their growth between sizes")
	f.IntVar(&o.Interviews, "interviews", 200, "interview: candidates taking their interviews at once")
	f.IntVar(&o.Expiring, "expiring", 1000, "interview: sessions with a one-minute expiry")
	f.DurationVar(&o.Think, "think", 5*time.Second, "interview: a candidate's pause between screens in the latency phase (jittered by half)")
	return cmd
}

// benchEnv gives the scenarios what lives in this command: the throwaway stack, api and worker
// served in this process, and the seed command.
func (e *env) benchEnv() (scenarios.Env, error) {
	cfg, _, err := e.load()
	if err != nil {
		return scenarios.Env{}, err
	}
	if cfg.EncryptionKey == "" {
		if cfg.EncryptionKey, err = newEncryptionKey(); err != nil {
			return scenarios.Env{}, err
		}
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return scenarios.Env{
		Config: cfg, Log: log, Out: e.stdout,
		Stack: func(ctx context.Context) (*scenarios.Stack, error) {
			s, err := startThrowawayStack(ctx, log, cfg.TemporalNamespace, false)
			if err != nil {
				return nil, err
			}
			return &scenarios.Stack{Postgres: s.pg, TemporalAddress: s.temporal.Address(), Stop: s.stop}, nil
		},
		Serve: func(ctx context.Context, cfg *config.Config, ready func(string, client.Client, scenarios.Pools)) error {
			cfg.APIMetricsAddr = "127.0.0.1:0" // nobody scrapes a bench; any free port
			return serve(ctx, cfg, log, io.Discard, components{api: true, worker: true}, func(l *listeners, d *deps) error {
				ready("http://"+l.api.Addr().String(), d.temporal, scenarios.Pools{API: d.store.SQL(), Worker: d.worker.SQL()})
				return nil
			})
		},
		Seed: func(ctx context.Context, cfg *config.Config, databaseURL string, candidates, perJob int) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			args := []string{"seed", "demo", "--companies", "1", "--candidates", strconv.Itoa(candidates)}
			if perJob != 0 {
				args = append(args, "--candidates-per-job", strconv.Itoa(perJob))
			}
			c := exec.CommandContext(ctx, self, args...)
			c.Env = append(os.Environ(), "DATABASE_URL="+databaseURL, "RECRUITD_ENCRYPTION_KEY="+cfg.EncryptionKey, "RECRUITD_DEMO_API_KEY=")
			c.Stdout, c.Stderr = e.stdout, e.stderr
			return c.Run()
		},
	}, nil
}
