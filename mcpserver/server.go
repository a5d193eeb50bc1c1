// Package mcpserver is the read-only MCP tool server (JSON-RPC 2.0 over Streamable HTTP,
// stateless, JSON responses), built on the official go-sdk. It reads Postgres only.
package mcpserver

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// Deps are the server's collaborators, wired in cmd/recruitd.
type Deps struct {
	Log      *slog.Logger
	Config   *config.Config
	Store    *store.Store
	Health   *health.Checker
	Metrics  *httpmetrics.Recorder
	Gatherer prometheus.Gatherer
	// ToolMetrics may be nil (no per-tool metrics).
	ToolMetrics *toolkit.Metrics
}

// Register adds every tool family to s; the one list of the server's tools.
func Register(s *mcp.Server, env *toolkit.Env) {
	registerCompanies(s, env)
}

// Version is reported in the MCP initialize result.
const Version = "0.1.0"

// NewServer returns the tool server's handler: /mcp, the OAuth protected-resource metadata, and
// the probes.
func NewServer(d Deps) http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "recruitd", Title: "recruitd tool server", Version: Version}, &mcp.ServerOptions{
		Instructions: "Read-only questions about a hiring company's candidates, jobs, interviews, integrity checks, features, ATS connection and templates. " +
			"Every tool takes an optional companyId; call listCompanies to see which companies you may query.",
		Logger: d.Log.With("component", "mcp"),
	})
	env := &toolkit.Env{Store: d.Store, Links: links.New(d.Config.AppURL), Log: d.Log.With("component", "mcp"), Metrics: d.ToolMetrics}
	Register(srv, env)
	transport := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       d.Log.With("component", "mcp"),
	})

	base := strings.TrimSuffix(d.Config.MCPBaseURL, "/")
	prm := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               base + "/mcp",
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "recruitd tool server",
	})
	a := &authenticator{store: d.Store, log: d.Log, realm: base, metadataURL: base + "/.well-known/oauth-protected-resource"}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", health.Live)
	mux.HandleFunc("GET /readyz", d.Health.Ready)
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.Gatherer, promhttp.HandlerOpts{}))
	mux.Handle("GET /.well-known/oauth-protected-resource", prm)
	mux.Handle("GET /.well-known/oauth-protected-resource/mcp", prm)
	mux.Handle("/mcp", limitBody(d.Config.MaxBodyBytes, a.require(transport)))
	return d.Metrics.Wrap("mcp", mux)
}

func limitBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}
