// Package mcpserver is the read-only MCP tool server (JSON-RPC 2.0 over Streamable HTTP,
// stateless, JSON responses), built on the official go-sdk. It reads Postgres only.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/oauth"
	"github.com/recruitd/recruitd/internal/ratelimit"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/jobtools"
	"github.com/recruitd/recruitd/mcpserver/searchtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// PostgresSettings are the run-time parameters of the tool server's connections. Its statements
// are short aggregates, so JIT compilation (tens of milliseconds per statement) costs more than
// it saves, hash aggregates over a job's or a window's sessions should not spill to disk, and
// every statement is planned for its arguments: the best plan for a window depends on its width
// (an index range for a day, a scan for a year), and a cached generic plan would keep one for all.
// statement_timeout is the tool-call bound (MCP_TOOL_TIMEOUT), for the statements outside a tool
// call (authentication); inside one, toolkit bounds them by what remains of the call.
func PostgresSettings(cfg *config.Config) map[string]string {
	return map[string]string{
		"jit": "off", "work_mem": "64MB", "plan_cache_mode": "force_custom_plan",
		"statement_timeout": strconv.FormatInt(cfg.MCPToolTimeout.Milliseconds(), 10),
	}
}

// Deps are the server's collaborators, wired in cmd/recruitd.
type Deps struct {
	Log     *slog.Logger
	Config  *config.Config
	Store   *store.Store
	Health  *health.Checker
	Metrics *httpmetrics.Recorder
	// ToolMetrics may be nil (no per-tool metrics).
	ToolMetrics *toolkit.Metrics
}

// Register adds every tool family to s; the one list of the server's tools.
func Register(s *mcp.Server, env *toolkit.Env) {
	registerCompanies(s, env)
	searchtools.Register(s, env)
	jobtools.Register(s, env)
	interviewtools.Register(s, env)
}

// Version is reported in the MCP initialize result.
const Version = "0.1.0"

// NewServer returns the tool server's handler: /mcp (API keys and OAuth access tokens), the OAuth
// protected-resource metadata, the authorisation server (internal/oauth), and the probes.
func NewServer(d Deps) (http.Handler, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "recruitd", Title: "recruitd tool server", Version: Version}, &mcp.ServerOptions{
		Instructions: "Read-only questions about a hiring company's candidates, jobs, interviews, integrity checks, features, ATS connection and templates. " +
			"Every tool takes an optional companyId; call listCompanies to see which companies you may query.",
		Logger: d.Log.With("component", "mcp"),
	})
	env := &toolkit.Env{Store: d.Store, Links: d.Config.Links(), Log: d.Log.With("component", "mcp"), Metrics: d.ToolMetrics,
		ToolTimeout: d.Config.MCPToolTimeout}
	Register(srv, env)
	transport := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// Tool handlers are also tied to the request by toolkit.WithRequest for older protocols.
		PropagateRequestCancellation: true,
		Logger:                       d.Log.With("component", "mcp"),
	})

	base := baseURL(strings.TrimSuffix(d.Config.MCPBaseURL, "/"))
	prm := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               base(r) + "/mcp",
			AuthorizationServers:   []string{base(r)},
			ScopesSupported:        []string{oauth.Scope},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "recruitd tool server",
		}).ServeHTTP(w, r)
	})
	proxies, err := trustedProxies(d.Config.MCPTrustedProxies)
	if err != nil {
		return nil, err
	}
	// The limits are fleet-wide: every replica on the database spends from the same buckets.
	var counter ratelimit.Counter
	if d.Store != nil {
		counter = d.Store
	}
	limits := ratelimit.NewShared(counter, d.Log)
	as := oauth.New(oauth.Options{
		TrustedProxies: proxies,
		Store:          d.Store, Log: d.Log.With("component", "oauth"), Base: base,
		Issuer: d.Config.OIDCIssuer, ClientID: d.Config.OIDCClientID, ClientSecret: d.Config.OIDCClientSecret,
		Registrations: limits.Limit("oauth-registration", d.Config.OAuthRegistrationLimit, d.Config.OAuthRegistrationBurst),
	})
	a := &authenticator{store: d.Store, oauth: as, log: d.Log, base: base,
		keyLimits:    limits.Limit("mcp-key", d.Config.APIRateLimit, d.Config.APIRateBurst),
		authFailures: limits.Limit("mcp-auth-failure", d.Config.AuthFailureLimit, d.Config.AuthFailureBurst),
		// A call's lease outlives the longest call (MCP_TOOL_TIMEOUT) and the time to answer it.
		calls:   limits.CallSlots("mcp-calls", d.Config.MCPMaxConcurrentCalls, d.Config.MCPToolTimeout+15*time.Second),
		proxies: proxies,
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", health.Live)
	mux.HandleFunc("GET /readyz", d.Health.Ready)
	mux.Handle("GET /.well-known/oauth-protected-resource", prm)
	mux.Handle("GET /.well-known/oauth-protected-resource/mcp", prm)
	as.Register(mux)
	origins, err := allowedOrigins(d.Config.MCPBaseURL, d.Config.MCPAllowedOrigins)
	if err != nil {
		return nil, err
	}
	mux.Handle("/mcp", checkOrigin(origins, limitBody(d.Config.MaxBodyBytes, batches(a.require, jsonrpcErrors(transport)))))
	publicHTTPS := strings.HasPrefix(d.Config.MCPBaseURL, "https://")
	return d.Metrics.Wrap("mcp", httpmetrics.SecurityHeaders(httpsOnly(publicHTTPS, proxies, refuseDeclaredOver(d.Config.MaxBodyBytes, mux)))), nil
}

// SweepOAuth deletes, every oauth.SweepInterval until ctx ends, what the authorisation server no
// longer needs: expired tokens, finished sign-ins and unredeemed codes, expired pending
// authorisations and registered clients that never signed in (oauth.Sweep). The process serving
// the tool server runs it; the counts are logged.
func SweepOAuth(ctx context.Context, st *store.Store, log *slog.Logger) {
	oauth.Sweep(ctx, st, log.With("component", "oauth"), oauth.SweepInterval)
}

// baseURL returns the tool server's base address ({mcp_url}) of a request: the configured one
// (MCP_BASE_URL, which follows MCP_ADDR when unset), or, when its port is 0 (MCP_ADDR asked for
// any free port), http:// and the address the request arrived at, so the challenge and the
// metadata name the port really bound.
func baseURL(configured string) func(*http.Request) string {
	if u, err := url.Parse(configured); err != nil || u.Port() != "0" {
		return func(*http.Request) string { return configured }
	}
	return func(r *http.Request) string {
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			return config.ListenURL(a.String())
		}
		return configured
	}
}

// limitBody cuts off a streamed /mcp body longer than n bytes (a declared one never gets here:
// refuseDeclaredOver).
func limitBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}

// allowedOrigins is the set of browser origins that may call /mcp: the tool server's own
// (from MCP_BASE_URL) and the configured extra ones.
func allowedOrigins(base, extra string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, o := range append([]string{base}, strings.Split(extra, ",")...) {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("MCP_ALLOWED_ORIGINS: %q is not an origin (scheme://host[:port])", o)
		}
		set[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return set, nil
}

// checkOrigin answers 403 to a request whose Origin header is not allowed (the MCP transport's
// DNS-rebinding defence); requests without Origin come from non-browser clients and pass.
func checkOrigin(allowed map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !allowed[strings.ToLower(o)] {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "forbidden", "error_description": "origin " + o + " is not allowed; see MCP_ALLOWED_ORIGINS"})
			return
		}
		next.ServeHTTP(w, r)
	})
}
