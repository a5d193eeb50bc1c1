package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/internal/docsearch"
	"github.com/recruitd/recruitd/internal/runtimetune"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/migrations"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

// devCandidates is the candidates per company of recruitd dev's demo data.
const devCandidates = 2000

func devCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "dev",
		Short: "Run the whole service locally: private Postgres, Temporal dev server with Web UI, api, mcp and worker",
		Long: "dev creates (or reuses) a private Postgres cluster and a Temporal dev server under DEV_DIR, migrates, seeds the demo\n" +
			"tenant and runs api, mcp and worker in one process. Set DATABASE_URL or TEMPORAL_ADDRESS to use an external service\n" +
			"instead. Ctrl-C stops everything it started.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDev(cmd.Context(), e)
		},
	}
}

// devServices are the processes dev started itself, and how to start each again.
type devServices struct {
	pg           *devstack.Postgres
	temporal     *devstack.Temporal
	temporalUI   string
	pgOpts       devstack.PostgresOptions
	temporalOpts devstack.TemporalOptions
}

// supervise restarts Postgres or Temporal when one dies, and stops the stack (stop, with the
// reason) when one keeps dying or cannot be restarted (budget: devstack.Supervisor).
func (s *devServices) supervise(ctx context.Context, log *slog.Logger, stop context.CancelCauseFunc) {
	sv := &devstack.Supervisor{Log: log, GiveUp: stop}
	if s.pg != nil {
		go sv.Watch(ctx, "postgres", s.pg.Exited(), func(ctx context.Context) (<-chan struct{}, error) {
			pg, err := s.pg.Restart(ctx, s.pgOpts) // waits for the dead server's leftover processes
			if err != nil {
				return nil, err
			}
			s.pg = pg
			return pg.Exited(), nil
		})
	}
	if s.temporal != nil {
		go sv.Watch(ctx, "temporal", s.temporal.Exited(), func(ctx context.Context) (<-chan struct{}, error) {
			t, err := devstack.StartTemporal(ctx, s.temporalOpts)
			if err != nil {
				return nil, err
			}
			s.temporal = t
			return t.Exited(), nil
		})
	}
}

func (s *devServices) stop(log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.temporal != nil {
		if err := s.temporal.Stop(ctx); err != nil {
			log.Error("stop temporal", "err", err)
		}
	}
	if s.pg != nil {
		if err := s.pg.Stop(ctx); err != nil {
			log.Error("stop postgres", "err", err)
		}
	}
}

func runDev(parent context.Context, e *env) error {
	begin := time.Now()
	runtimetune.ShareCoresProcess() // api, mcp and worker run beside the stack's Postgres and Temporal
	ctx, stop := context.WithCancelCause(parent)
	defer stop(nil)
	cfg, log, err := e.load()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(cfg.DevDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if cfg.EncryptionKey == "" {
		if cfg.EncryptionKey, err = readOrCreate(filepath.Join(dir, "encryption.key"), newEncryptionKey); err != nil {
			return err
		}
	}
	demoKey := cfg.DemoAPIKey
	if demoKey == "" {
		if demoKey, err = readOrCreate(filepath.Join(dir, "demo-api-key"), apikey.Generate); err != nil {
			return err
		}
	}
	atsKey, err := readOrCreate(filepath.Join(dir, "demo-ats-api-key"), apikey.Generate)
	if err != nil {
		return err
	}
	log.Info("configuration", cfg.LogAttrs()...)

	svc := &devServices{}
	defer func() {
		stop(nil) // first: the supervisor must not restart what is being stopped
		svc.stop(log)
	}()
	if err := startDevServices(ctx, e, cfg, log, dir, svc); err != nil {
		return err
	}
	svc.supervise(ctx, log, stop)
	if cfg.MessagingMode == "" {
		cfg.MessagingMode = "outbox" // print invitations instead of sending them
	}
	cfg.CallbackAllowPrivate = e.allowPrivateCallbacks(cfg, true) // the demo partner's callback sink is on loopback
	sim, err := startSimulator(ctx, log, e.stdout)
	if err != nil {
		return err
	}
	defer sim.close()
	agg, err := startAggsim(log)
	if err != nil {
		return err
	}
	defer agg.close()
	idv, err := startIdvsim(cfg, log)
	if err != nil {
		return err
	}
	defer idv.close()
	tw, err := startTwiliosim(cfg, log)
	if err != nil {
		return err
	}
	defer tw.close()
	issuer, stopIDP, err := startDevIDP(e, cfg, log)
	if err != nil {
		return err
	}
	defer stopIDP()
	demo, atsDemo, err := prepareDatabase(ctx, cfg, log, demoKey, atsKey, sim)
	if err != nil {
		return err
	}
	err = serve(ctx, cfg, log, e.stdout, components{api: true, mcp: true, worker: true}, func(l *listeners, d *deps) error {
		took, err := pingWorker(ctx, d.temporal, cfg.TemporalTaskQueue, demo)
		if err != nil {
			return err
		}
		log.Info("worker self-check passed", "workflow", "Ping", "duration_ms", took.Milliseconds())
		hrErr := connectDemoIntegration(ctx, cfg, d.store, demo, agg, nil)
		if hrErr != nil {
			log.Warn("demo HR-suite connection", "err", hrErr)
		}
		atsSeed := aggsimDemoATS()
		atsErr := connectDemoIntegration(ctx, cfg, d.store, atsDemo, agg, &atsSeed)
		if atsErr != nil {
			log.Warn("demo ATS connection", "company", atsDemo.Slug, "err", atsErr)
		}
		if hrErr == nil {
			if err := awaitDemoImport(ctx, d.store, demo, 20*time.Second); err != nil {
				log.Warn("demo HR-suite jobs not imported yet; HR-suite deliveries naming them are skipped until they are", "err", err)
			}
		}
		if atsErr == nil {
			if err := awaitDemoSync(ctx, d.store, atsDemo, atsSeed, 30*time.Second); err != nil {
				log.Warn("demo ATS applications not synced yet; they are invited once they are", "company", atsDemo.Slug, "err", err)
			}
		}
		ui := "(external Temporal at " + cfg.TemporalAddress + "; see its own Web UI)"
		if svc.temporal != nil {
			ui = svc.temporal.UIURL()
		}
		apiURL := displayURL(l.api.Addr())
		fmt.Fprintf(e.stdout, "\nrecruitd dev is ready (%.1fs)\n", time.Since(begin).Seconds())
		fmt.Fprintf(e.stdout, "  REST API:     %s\n", apiURL)
		fmt.Fprintf(e.stdout, "  MCP server:   %s/mcp\n", displayURL(l.mcp.Addr()))
		fmt.Fprintf(e.stdout, "  Temporal UI:  %s\n", ui)
		fmt.Fprintf(e.stdout, "  Metrics:      %s/metrics   (a private listener; never on the REST or MCP port)\n", displayURL(l.metrics.Addr()))
		fmt.Fprintf(e.stdout, "  ATS simulator (demo tenant, ATS-A): %s   partner callbacks are printed here\n", sim.url)
		fmt.Fprintf(e.stdout, "  Aggregator simulator (demo's HR suite, %s's ATS): %s   controls under /sim/ (recruitd aggsim --help)\n", atsDemo.Slug, agg.url)
		fmt.Fprint(e.stdout, idv.line())
		fmt.Fprint(e.stdout, tw.line())
		fmt.Fprintf(e.stdout, "%s API key: %s   (%s, its ATS connected through the aggregator)\n", atsDemo.Slug, atsKey, atsDemo.Name)
		fmt.Fprintf(e.stdout, "demo API key: %s\n", demoKey)
		fmt.Fprintf(e.stdout, "\nTry:  curl -H 'X-API-Key: %s' %s/v1/api/company\n", demoKey, apiURL)
		fmt.Fprintf(e.stdout, "\nTake an interview as a candidate: invite yourself, then open the interviewLink it answers in a browser\n")
		fmt.Fprintf(e.stdout, "      curl -X POST -H 'X-API-Key: %s' -H 'Content-Type: application/json' -d '{\"interviewerId\":\"%s-1001\",\"candidate\":{\"firstName\":\"Sam\",\"email\":\"sam@example.com\"}}' %s/v1/api/inviteCandidate\n", demoKey, demo.Slug, apiURL)
		fmt.Fprintf(e.stdout, "      (%s/interview/<token>; then: bin/recruitd sessions show --session <sessionId> --transcript, and GET %s/v1/api/sessions/<sessionId>/report)\n\n", cfg.InterviewBaseURL, apiURL)
		fmt.Fprintf(e.stdout, "      curl -X POST -H 'X-API-Key: %s' -H 'Content-Type: application/json' -d '{\"atsApplicantId\":\"1001\",\"atsJobId\":\"5001\"}' %s/v2/api/partner-applications\n", demoKey, apiURL)
		fmt.Fprintf(e.stdout, "            (the callback prints below with its interviewLink; the session's run interview/%s/<sessionId> is listed in the Temporal UI, held until the first reminder, and opening the link wakes it)\n", demo.Slug)
		fmt.Fprintf(e.stdout, "      curl -H 'X-API-Key: %s' %s/v1/api/integrations/hrsuite   (the HR-suite card)\n", demoKey, apiURL)
		fmt.Fprintf(e.stdout, "      curl -X POST -H 'x-api-key: %s' -H 'Content-Type: application/json' --data @docs/examples/hrsuite-delivery.json %s/webhook/hrsuite\n", demoKey, apiURL)
		fmt.Fprintf(e.stdout, "            (an HR-suite delivery: Ada's job 6001 is imported and she is invited below; Grace's REQ-7000 is not)\n")
		db := "DATABASE_URL=<your DATABASE_URL>"
		if svc.pg != nil {
			db = "DATABASE_URL='" + cfg.DatabaseURL + "'"
		}
		fmt.Fprintf(e.stdout, "      %s bin/recruitd hrsuite deliveries list --company %s   (then: hrsuite replay --company %s --dry-run)\n", db, demo.Slug, demo.Slug)
		printATSTour(e.stdout, apiURL, agg.url, db, atsDemo.Slug, atsKey)
		printSignIn(e.stdout, displayURL(l.mcp.Addr()), issuer)
		fmt.Fprintln(e.stdout, "Ctrl-C stops everything.")
		fmt.Fprintln(e.stdout)
		return nil
	})
	if cause := context.Cause(ctx); parent.Err() == nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // a service kept dying
	}
	return err
}

// startDevServices starts Postgres and Temporal side by side, unless DATABASE_URL or
// TEMPORAL_ADDRESS point at external ones.
func startDevServices(ctx context.Context, e *env, cfg *config.Config, log *slog.Logger, dir string, svc *devServices) error {
	g, gctx := errgroup.WithContext(ctx)
	if e.getenv("DATABASE_URL") == "" {
		g.Go(func() error {
			svc.pgOpts = devstack.PostgresOptions{Dir: filepath.Join(dir, "postgres"), Port: cfg.DevPostgresPort, Log: log}
			pg, err := devstack.StartPostgres(gctx, svc.pgOpts)
			if err != nil {
				return err
			}
			svc.pg = pg
			if err := pg.EnsureDatabase(gctx, "recruitd"); err != nil {
				return err
			}
			cfg.DatabaseURL = pg.URL("recruitd")
			return nil
		})
	}
	if e.getenv("TEMPORAL_ADDRESS") == "" {
		g.Go(func() error {
			root, err := devstack.RepoRoot()
			if err != nil {
				root, _ = os.Getwd()
			}
			cli, err := devstack.InstallTemporalCLI(gctx, root, e.stderr)
			if err != nil {
				return err
			}
			svc.temporalOpts = devstack.TemporalOptions{
				CLI: cli, Port: cfg.DevTemporalPort, UIPort: cfg.DevTemporalUIPort,
				DBFile: filepath.Join(dir, "temporal.db"), Namespace: cfg.TemporalNamespace,
				SearchAttributes: rtemporal.SearchAttributes(), LogFile: filepath.Join(dir, "temporal.log"), Log: log,
			}
			t, err := devstack.StartTemporal(gctx, svc.temporalOpts)
			if err != nil {
				return err
			}
			svc.temporal = t
			cfg.TemporalAddress = t.Address()
			return nil
		})
	}
	return g.Wait()
}

// prepareDatabase migrates and seeds the demo tenant (an HR suite, with ATS-A for partner
// applications) and the demo ATS company (seed.DemoATS), returning both.
func prepareDatabase(ctx context.Context, cfg *config.Config, log *slog.Logger, demoKey, atsKey string, sim *devSimulator) (demo, atsDemo *models.Company, err error) {
	st, err := store.Open(ctx, cfg.DatabaseURL, 2, log)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if _, err := migrations.Up(ctx, st.SQL(), log); err != nil {
		return nil, nil, err
	}
	if _, err := docsearch.Sync(ctx, st.SQL(), docs.FS); err != nil {
		return nil, nil, fmt.Errorf("index the documentation: %w", err)
	}
	res, err := seed.Demo(ctx, st, demoKey)
	if err != nil {
		return nil, nil, fmt.Errorf("seed demo tenant: %w", err)
	}
	// Enough candidates, sessions and integrity rows for every MCP tool to have something to say;
	// skipped once the data exists. (recruitd seed demo --candidates N makes more.)
	if _, err := seed.Scale(ctx, st, seed.ScaleOptions{Companies: 2, Candidates: devCandidates, SessionsPerCandidate: 3, Seed: 1, APIKey: demoKey}); err != nil {
		return nil, nil, fmt.Errorf("seed demo data: %w", err)
	}
	b, err := box(cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := seed.DemoIntegrations(ctx, st, b, res.Company, demoKey, sim.credentials(), sim.url+"/dev/partner-callbacks"); err != nil {
		return nil, nil, fmt.Errorf("demo integrations: %w", err)
	}
	if _, err := devidp.EnsureDemoUsers(ctx, st, res.Company.Slug); err != nil {
		return nil, nil, fmt.Errorf("demo users: %w", err)
	}
	// After Scale: the demo users' second company stays the generated one.
	ats, err := seed.DemoATS(ctx, st, atsKey)
	if err != nil {
		return nil, nil, fmt.Errorf("seed demo ATS company: %w", err)
	}
	log.Info("demo tenant ready", "company", res.Company.Slug, "company_created", res.CompanyCreated, "key_created", res.KeyCreated)
	log.Info("demo ATS company ready", "company", ats.Company.Slug, "company_created", ats.CompanyCreated, "key_created", ats.KeyCreated)
	return res.Company, ats.Company, nil
}

// pingWorker runs the Ping workflow for the demo company: Temporal, the worker and Postgres all
// answer before the URLs are announced.
func pingWorker(ctx context.Context, tc client.Client, queue string, c *models.Company) (time.Duration, error) {
	begin := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	run, err := starter.Starter{Client: tc, QueuePrefix: queue}.Ping(ctx, c.Slug, "dev-"+begin.UTC().Format("20060102T150405.000"), c.ID)
	if err != nil {
		return 0, fmt.Errorf("worker self-check: start ping: %w", err)
	}
	if err := run.Get(ctx, nil); err != nil {
		return 0, fmt.Errorf("worker self-check: %w", err)
	}
	return time.Since(begin), nil
}

// readOrCreate returns the trimmed content of path, creating it with gen() (mode 0600) when absent.
func readOrCreate(path string, gen func() (string, error)) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	v, err := gen()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(v+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return v, nil
}

func newEncryptionKey() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// displayURL turns a bound address into a URL a person can open.
func displayURL(a net.Addr) string {
	host, port, _ := net.SplitHostPort(a.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// printATSTour prints the ATS path of the demo ATS company (slug, key): its synced applications
// and their invitations, the interview, the report, the decision and the note written back, and
// an assessment link pushed for an application. db is the DATABASE_URL assignment of the
// operator commands, agg the aggregator simulator's URL.
func printATSTour(w io.Writer, apiURL, agg, db, slug, key string) {
	fmt.Fprintf(w, "\nThe ATS path (%s: its ATS connected through the aggregator; its jobs imported, its candidates and applications synced\n", slug)
	fmt.Fprintf(w, "and invited by 'New Application from ATS' once, at the first start: Maya's invitation, her link in it, is the 'outbox · email →\n")
	fmt.Fprintf(w, "maya.lopez@example.com' printed here then; rm -rf .dev starts over)\n")
	fmt.Fprintf(w, "      curl -H 'X-API-Key: %s' %s/v1/api/integrations/hrsuite   (the card: Connected)\n", key, apiURL)
	fmt.Fprintf(w, "      %s bin/recruitd applications list --company %s   (ATS ids, candidates, sessions)\n", db, slug)
	fmt.Fprintf(w, "      open Maya's interview link, take the interview; then, with her session id:\n")
	fmt.Fprintf(w, "      curl -H 'X-API-Key: %s' %s/v1/api/sessions/<sessionId>/report\n", key, apiURL)
	fmt.Fprintf(w, "      curl -X PUT -H 'X-API-Key: %s' -H 'Content-Type: application/json' -d '{\"decision\":\"ACCEPTED\",\"note\":\"Great with patients\"}' %s/v1/api/sessions/<sessionId>/decision\n", key, apiURL)
	fmt.Fprintf(w, "      %s bin/recruitd ats writes list --company %s   (the report note and the stage, as recruitd wrote them)\n", db, slug)
	fmt.Fprintf(w, "      curl %s/sim/writes   (what the ATS received: note, result link, stage)\n", agg)
	fmt.Fprintf(w, "      curl -X POST -H 'X-API-Key: %s' -H 'Content-Type: application/json' -d '{\"applicationId\":\"70001\",\"assessmentUrl\":\"https://assess.example.com/t/maya-70001\"}' %s/v2/api/assessment-links\n", key, apiURL)
	fmt.Fprintf(w, "            (an assessment link for Maya's ATS application 70001: sent to her, printed in the outbox)\n\n")
}
