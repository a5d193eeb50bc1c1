package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver"
	rtemporal "github.com/recruitd/recruitd/temporal"
)

// components says which parts one process runs.
type components struct{ api, mcp, worker bool }

func serveCmd(e *env, which string) *cobra.Command {
	short := map[string]string{
		"api":    "Serve the REST API (API_ADDR)",
		"mcp":    "Serve the MCP tool server (MCP_ADDR)",
		"worker": "Run the Temporal worker (health and metrics on WORKER_METRICS_ADDR)",
	}[which]
	return &cobra.Command{
		Use:   which,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			log.Info("configuration", cfg.LogAttrs()...)
			comp := components{api: which == "api", mcp: which == "mcp", worker: which == "worker"}
			return serve(cmd.Context(), cfg, log, comp, nil)
		},
	}
}

// deps are the connections one process shares between its components.
type deps struct {
	store    *store.Store
	temporal client.Client
	registry *prometheus.Registry
	metrics  *httpmetrics.Recorder
	health   *health.Checker
	closers  []io.Closer
}

func connect(ctx context.Context, cfg *config.Config, log *slog.Logger) (*deps, error) {
	d := &deps{registry: prometheus.NewRegistry()}
	d.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d.metrics = httpmetrics.New(d.registry)
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns, log)
	if err != nil {
		return nil, err
	}
	d.store = st
	d.closers = append(d.closers, st)
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
// are the real ones.
type listeners struct{ api, mcp, worker net.Listener }

func (l *listeners) close() {
	for _, ln := range []net.Listener{l.api, l.mcp, l.worker} {
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
	if comp.worker && !comp.api && !comp.mcp {
		l.worker = bind(cfg.WorkerMetricsAddr)
	}
	if err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// serve runs the chosen components until ctx ends, then shuts them down gracefully. ready, when
// not nil, is called once everything listens and the worker has started; its error stops serve.
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger, comp components, ready func(*listeners, *deps) error) error {
	lns, err := listen(cfg, comp)
	if err != nil {
		return err
	}
	defer lns.close()
	d, err := connect(ctx, cfg, log)
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
			IdleTimeout:       120 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.With("listener", name).Handler(), slog.LevelWarn),
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
	if comp.api {
		start("api", lns.api, httpapi.NewServer(httpapi.Deps{
			Log: log, Config: cfg, Store: d.store, Temporal: d.temporal,
			Health: d.health, Metrics: d.metrics, Gatherer: d.registry,
		}))
	}
	if comp.mcp {
		start("mcp", lns.mcp, mcpserver.NewServer(mcpserver.Deps{
			Log: log, Config: cfg, Store: d.store, Health: d.health, Metrics: d.metrics, Gatherer: d.registry,
		}))
	}
	if lns.worker != nil {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /healthz", health.Live)
		mux.HandleFunc("GET /readyz", d.health.Ready)
		mux.Handle("GET /metrics", promhttp.HandlerFor(d.registry, promhttp.HandlerOpts{}))
		start("worker", lns.worker, d.metrics.Wrap("worker", mux))
	}
	if comp.worker {
		w := rtemporal.NewWorker(d.temporal, cfg.TemporalTaskQueue, &activities.Activities{Store: d.store, Log: log}, cfg.ShutdownTimeout)
		if err := w.Start(); err != nil {
			return fmt.Errorf("start worker: %w", err)
		}
		log.Info("worker started", "task_queue", cfg.TemporalTaskQueue, "namespace", cfg.TemporalNamespace)
		defer w.Stop()
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
	return g.Wait()
}

func stopServers(ctx context.Context, servers []*http.Server, log *slog.Logger) {
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("listener shutdown", "err", err)
		}
	}
}
