package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/assessments"
	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/headerguard"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/invite"
	"github.com/recruitd/recruitd/internal/jobs"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/partners"
	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/mcpserver"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

// components says which parts one process runs.
type components struct{ api, mcp, worker bool }

func serveCmd(e *env, which string) *cobra.Command {
	short := map[string]string{
		"api":    "Serve the REST API (API_ADDR; metrics on API_METRICS_ADDR)",
		"mcp":    "Serve the MCP tool server (MCP_ADDR; metrics on MCP_METRICS_ADDR)",
		"worker": "Run the Temporal worker (health and metrics on WORKER_METRICS_ADDR)",
	}[which]
	var queues string
	cmd := &cobra.Command{
		Use:   which,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("queues") {
				if _, err := kinds.ParseQueues(queues); err != nil {
					return fmt.Errorf("--queues: %w", err)
				}
				cfg.WorkerQueues = queues
			}
			log.Info("configuration", cfg.LogAttrs()...)
			comp := components{api: which == "api", mcp: which == "mcp", worker: which == "worker"}
			if comp.api || comp.worker {
				if err := cfg.RequireMessagingMode(); err != nil {
					return err
				}
			}
			if comp.mcp {
				if err := cfg.RequireMCPHTTPS(); err != nil {
					return err
				}
			}
			return serve(cmd.Context(), cfg, log, e.stdout, comp, nil)
		},
	}
	if which == "worker" {
		cmd.Flags().StringVar(&queues, "queues", "", "comma-separated task queues to serve (default, interview, ingest) or all; overrides WORKER_QUEUES")
	}
	return cmd
}

// deps are the connections one process shares between its components. store is the pool of
// the components that answer requests (api, mcp); worker is the worker's own pool when the
// process also answers requests, so that a backlog of activities, each holding a connection,
// never makes a request wait for one (worker is store in a process that runs only the worker).
type deps struct {
	store    *store.Store
	worker   *store.Store
	temporal client.Client
	registry *prometheus.Registry
	metrics  *httpmetrics.Recorder
	health   *health.Checker
	closers  []io.Closer
}

// connect opens Postgres (a second pool for the worker when the process also serves requests:
// workerPool) and, when withTemporal, the Temporal client; the tool server alone reads Postgres
// only.
func connect(ctx context.Context, cfg *config.Config, log *slog.Logger, withTemporal, workerPool bool, settings map[string]string) (*deps, error) {
	d := &deps{registry: prometheus.NewRegistry()}
	d.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d.metrics = httpmetrics.New(d.registry)
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns, log, settings)
	if err != nil {
		return nil, err
	}
	d.store, d.worker = st, st
	// The pool's saturation: go_sql_in_use_connections against go_sql_max_open_connections, and
	// go_sql_wait_duration_seconds_total, by db_name (docs/operations.md).
	d.registry.MustRegister(collectors.NewDBStatsCollector(st.SQL(), "recruitd"))
	d.closers = append(d.closers, st)
	if workerPool {
		// No statement_timeout: the worker's passes run longer than a request's.
		w, err := store.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns, log)
		if err != nil {
			d.close()
			return nil, err
		}
		d.worker = w
		d.registry.MustRegister(collectors.NewDBStatsCollector(w.SQL(), "recruitd-worker"))
		d.closers = append(d.closers, w)
	}
	if !withTemporal {
		d.health = health.New(3*time.Second, map[string]health.Check{"postgres": st.Ping})
		return d, nil
	}
	mh, mcloser := rtemporal.NewMetricsHandler(d.registry, log)
	d.closers = append(d.closers, mcloser)
	tc, err := rtemporal.Dial(ctx, cfg, log, mh)
	if err != nil {
		d.close()
		return nil, err
	}
	d.temporal = tc
	d.health = health.New(3*time.Second, map[string]health.Check{
		"postgres": st.Ping,
		"temporal": rtemporal.HealthCheck(tc),
	})
	return d, nil
}

func (d *deps) close() {
	if d.temporal != nil {
		d.temporal.Close()
	}
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i].Close()
	}
}

// listeners are bound before anything is announced, so ":0" addresses work and the printed URLs
// are the real ones. metrics is the process's private listener (/metrics and the probes).
type listeners struct{ api, mcp, metrics net.Listener }

func (l *listeners) close() {
	for _, ln := range []net.Listener{l.api, l.mcp, l.metrics} {
		if ln != nil {
			ln.Close()
		}
	}
}

func listen(cfg *config.Config, comp components) (*listeners, error) {
	l := &listeners{}
	var err error
	bind := func(addr string) net.Listener {
		if err != nil {
			return nil
		}
		var ln net.Listener
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			err = fmt.Errorf("listen on %s: %w", addr, err)
		}
		return ln
	}
	if comp.api {
		l.api = bind(cfg.APIAddr)
	}
	if comp.mcp {
		l.mcp = bind(cfg.MCPAddr)
	}
	l.metrics = bind(metricsAddr(cfg, comp))
	if err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// metricsAddr is where a process serves its metrics: the setting of its first component, so a
// process running several (recruitd dev) has one metrics listener, at API_METRICS_ADDR.
func metricsAddr(cfg *config.Config, comp components) string {
	switch {
	case comp.api:
		return cfg.APIMetricsAddr
	case comp.mcp:
		return cfg.MCPMetricsAddr
	}
	return cfg.WorkerMetricsAddr
}

// serve runs the chosen components until ctx ends, then shuts them down gracefully. ready, when
// not nil, is called once everything listens and the worker has started; its error stops serve.
// out receives what the outbox channel prints.
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger, out io.Writer, comp components, ready func(*listeners, *deps) error) error {
	lns, err := listen(cfg, comp)
	if err != nil {
		return err
	}
	defer lns.close()
	var settings map[string]string
	switch {
	case !comp.api && !comp.worker:
		settings = mcpserver.PostgresSettings(cfg)
	case comp.api && !comp.mcp:
		// The API's statements are bounded by DB_REQUEST_TIMEOUT on the client; Postgres stops
		// the work of one the client gave up on (the worker, whose passes run longer, has none:
		// in a process that runs both it has a pool of its own).
		settings = map[string]string{"statement_timeout": strconv.FormatInt(cfg.DBRequestTimeout.Milliseconds(), 10)}
	}
	d, err := connect(ctx, cfg, log, comp.api || comp.worker, comp.worker && (comp.api || comp.mcp), settings)
	if err != nil {
		return err
	}
	defer d.close()

	g, gctx := errgroup.WithContext(ctx)
	var servers []*http.Server
	start := func(name string, ln net.Listener, h http.Handler) {
		srv := &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			// No answer runs unbounded: tool calls end within MCP_TOOL_TIMEOUT (at most 110 s) and every
			// request's database and Temporal calls have their own shorter limits.
			WriteTimeout: 2 * time.Minute,
			IdleTimeout:  120 * time.Second,
			ErrorLog:     slog.NewLogLogger(log.With("listener", name).Handler(), slog.LevelWarn),
		}
		servers = append(servers, srv)
		log.Info("listening", "listener", name, "addr", ln.Addr().String())
		g.Go(func() error {
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("%s listener: %w", name, err)
			}
			return nil
		})
	}
	sealed, err := box(cfg)
	if err != nil && (comp.api || comp.worker) {
		return err
	}
	var launcher, workerLauncher *outbox.Launcher
	if d.temporal != nil {
		launcher = &outbox.Launcher{Store: d.store, Starter: starter.Starter{Client: d.temporal, QueuePrefix: cfg.TemporalTaskQueue}, Log: log}
		workerLauncher = &outbox.Launcher{Store: d.worker, Starter: launcher.Starter, Log: log}
	}
	if comp.api {
		interviewer, err := interview.NewInterviewer(interview.Config{
			BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel, Timeout: cfg.LLMTimeout, Log: log,
		})
		if err != nil {
			return err
		}
		var signals interview.Launcher // nil when no Temporal is configured: transitions wait for the reconciler
		if launcher != nil {
			signals = launcher
		}
		// A request net/http refuses before any handler (a control character in X-API-Key, say)
		// gets the API's JSON error, not Go's plain text; the api listener is plain TCP.
		interviews := &interview.Sessions{Store: d.store, Interviewer: interviewer, Launcher: signals, Log: log,
			Signals: &integrity.Service{Store: d.store}}
		start("api", headerguard.Wrap(lns.api), httpapi.NewServer(httpapi.Deps{
			Log: log, Config: cfg, Store: d.store, Launcher: launcher,
			Health: d.health, Metrics: d.metrics, Gatherer: d.registry, Box: sealed,
			Partners:          &partners.Applications{Store: d.store, Launcher: launcher, Box: sealed, ATSTimeout: cfg.ATSTimeout},
			Invitations:       &invite.Invitations{Store: d.store, Launcher: launcher, Log: log},
			Assessments:       &assessments.Links{Store: d.store, Launcher: launcher, Log: log, Metrics: assessments.NewMetrics(d.registry)},
			Jobs:              &jobs.Interviewers{Store: d.store, Launcher: launcher},
			AggregatorMetrics: aggregator.NewMetrics(d.registry),
			Interviews:        interviews,
			Threads:           &thread.Threads{Store: d.store, Interviews: interviews, Timings: &integrity.Service{Store: d.store}, Log: log},
		}))
	}
	if comp.mcp {
		h, err := mcpserver.NewServer(mcpserver.Deps{
			Log: log, Config: cfg, Store: d.store, Health: d.health, Metrics: d.metrics,
			ToolMetrics: toolkit.NewMetrics(d.registry),
		})
		if err != nil {
			return err
		}
		ln, err := mcpserver.TLSListener(cfg, lns.mcp)
		if err != nil {
			return err
		}
		if cfg.MCPTLSCert == "" {
			// The same on the tool server's plain TCP (behind a TLS front, or local), in its own
			// error shape; under its own TLS the guard would see only ciphertext.
			ln = headerguard.WrapOAuth(ln)
		}
		start("mcp", ln, h)
		g.Go(func() error { mcpserver.SweepOAuth(gctx, d.store, log); return nil }) // expired OAuth tokens and codes
	}
	// Metrics never go on the public listeners (a TLS front on the same host would serve them).
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", health.Live)
	mux.HandleFunc("GET /readyz", d.health.Ready)
	mux.Handle("GET /metrics", httpmetrics.Guard(cfg.MetricsToken, promhttp.HandlerFor(d.registry, promhttp.HandlerOpts{})))
	start("metrics", lns.metrics, d.metrics.Wrap("metrics", mux))
	if comp.worker {
		acts, err := newActivities(cfg, log, d.worker, out)
		if err != nil {
			return err
		}
		acts.Box, acts.Metrics = sealed, activities.NewMetrics(d.registry)
		acts.Launcher = workerLauncher
		acts.ImportMetrics, acts.HRSuiteMetrics = activities.NewImportMetrics(d.registry), hrsuite.NewMetrics(d.registry)
		acts.FullPassEvery = cfg.AggregatorFullPass
		queues, err := kinds.ParseQueues(cfg.WorkerQueues)
		if err != nil {
			return fmt.Errorf("WORKER_QUEUES: %w", err)
		}
		w := rtemporal.NewWorkers(d.temporal, cfg.TemporalTaskQueue, queues, acts, workerSlots(cfg, comp), cfg.ShutdownTimeout)
		if err := w.Start(); err != nil {
			return fmt.Errorf("start worker: %w", err)
		}
		log.Info("worker started", "task_queues", w.TaskQueues, "namespace", cfg.TemporalNamespace)
		defer w.Stop()
		// Starts that a crash between commit and start left behind: the worker's process picks
		// them up (see internal/outbox).
		g.Go(func() error {
			workerLauncher.Run(gctx, 15*time.Second)
			return nil
		})
		// The rollup deltas that session, candidate, job and evaluation changes append (migrations
		// 00050, 00056, 00059 and 00061).
		g.Go(func() error {
			rollup.FoldLoop(gctx, d.worker.SQL(), rollup.FoldEvery, log)
			return nil
		})
	}
	if ready != nil {
		if err := ready(lns, d); err != nil {
			stopServers(context.WithoutCancel(ctx), servers, log)
			return err
		}
	}

	<-gctx.Done()
	log.Info("shutting down", "grace", cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	stopServers(shutdownCtx, servers, log)
	if launcher != nil {
		// Starts accepted requests handed to the background are taken before the process ends,
		// rather than by the reconciler's pass after the grace period.
		if err := launcher.Wait(shutdownCtx); err != nil {
			log.Warn("accepted workflow starts still in flight at shutdown; the reconciler takes them", "err", err)
		}
	}
	return g.Wait()
}

// workerSlots is how many activities, and how many local activities, each of the worker's
// queues runs at once: WORKER_SLOTS, or, unset, the SDK's default in a process that runs only the
// worker and the worker pool's size (DB_MAX_CONNS) in one that also answers requests, where a
// backlog beyond it would only queue for the pool and take the requests' CPU.
func workerSlots(cfg *config.Config, comp components) int {
	if cfg.WorkerSlots == 0 && (comp.api || comp.mcp) {
		return cfg.DBMaxConns
	}
	return cfg.WorkerSlots
}

func stopServers(ctx context.Context, servers []*http.Server, log *slog.Logger) {
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("listener shutdown", "err", err)
		}
	}
}

// newActivities builds the worker's activity dependencies: the interview generator (the local one
// unless LLM_BASE_URL is set) and the messaging channels (outbox or live).
func newActivities(cfg *config.Config, log *slog.Logger, st *store.Store, out io.Writer) (*activities.Activities, error) {
	var gen generate.Generator = generate.NewLocal()
	if cfg.LLMBaseURL != "" {
		llm, err := generate.NewOpenAI(generate.OpenAIConfig{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel, Timeout: cfg.LLMTimeout})
		if err != nil {
			return nil, err
		}
		gen = llm
	}
	router, err := channels.NewRouter(channels.Config{
		Mode: cfg.MessagingMode,
		SMTP: channels.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword, From: cfg.SMTPFrom, TLS: cfg.SMTPTLS},
		Twilio: channels.TwilioConfig{BaseURL: cfg.TwilioBaseURL, AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
			From: cfg.TwilioFrom, WhatsAppFrom: cfg.TwilioWhatsAppFrom, StatusCallback: twilioStatusURL(cfg)},
	}, out)
	if err != nil {
		return nil, fmt.Errorf("messaging: %w", err)
	}
	for ch, why := range router.Unavailable() {
		log.Warn("messaging channel unavailable", "channel", ch, "reason", why)
	}
	opts := callbacks.Options{UserAgent: "recruitd-callbacks/1"}
	if cfg.CallbackAllowPrivate {
		opts.AllowedNets, opts.AllowHTTP = callbacks.PrivateNets(), true
		log.Warn(privateCallbacksWarning)
	}
	ev, err := report.NewEvaluator(report.Config{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel, Timeout: cfg.LLMTimeout, Log: log})
	if err != nil {
		return nil, err
	}
	log.Info("worker dependencies", "generator", fmt.Sprintf("%T", gen), "evaluator", fmt.Sprintf("%T", ev), "messaging_mode", cfg.MessagingMode)
	return &activities.Activities{Store: st, Log: log, Generator: gen, Evaluator: ev, Channels: router, WhatsAppTemplates: cfg.WhatsAppTemplates(), Links: cfg.Links(), Sender: callbacks.NewSender(opts)}, nil
}
