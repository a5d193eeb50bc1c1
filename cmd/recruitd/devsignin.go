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

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/devidp"
)

// devIDPClientID is the tool server's client id at recruitd dev's local identity provider.
const devIDPClientID = "recruitd-mcp"

// startDevIDP starts the local OpenID provider on DEV_IDP_PORT and points the tool server's
// OIDC_* settings at it, unless OIDC_ISSUER names another provider. stop shuts it down; issuer
// is empty when an external provider is used.
func startDevIDP(e *env, cfg *config.Config, log *slog.Logger) (issuer string, stop func(), err error) {
	if e.getenv("OIDC_ISSUER") != "" {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.DevIDPPort)))
	if err != nil {
		return "", nil, fmt.Errorf("local identity provider: listen on port %d (DEV_IDP_PORT): %w", cfg.DevIDPPort, err)
	}
	secret, err := apikey.Generate()
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	issuer = "http://" + ln.Addr().String()
	cfg.OIDCIssuer, cfg.OIDCClientID, cfg.OIDCClientSecret = issuer, devIDPClientID, secret
	h := devidp.New(issuer, devidp.Client{ID: devIDPClientID, Secret: secret, RedirectURIs: []string{cfg.MCPBaseURL + "/oauth/callback"}},
		devidp.DemoIdentities())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("local identity provider", "err", err)
		}
	}()
	return issuer, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// printSignIn tells how to sign in to the tool server with OAuth in recruitd dev.
func printSignIn(out io.Writer, mcpURL, issuer string) {
	if issuer == "" {
		fmt.Fprintf(out, "MCP OAuth sign-in: through OIDC_ISSUER\n")
		return
	}
	fmt.Fprintf(out, "MCP OAuth sign-in (local identity provider %s, password %q for every account):\n", issuer, devidp.Password)
	for _, id := range devidp.DemoIdentities() {
		fmt.Fprintf(out, "  %-30s %s\n", id.Email, id.Note)
	}
	fmt.Fprintf(out, "  try: npx @modelcontextprotocol/inspector   (Streamable HTTP, URL %s/mcp, no token: it signs in)\n", mcpURL)
}
