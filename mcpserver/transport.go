package mcpserver

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/config"
)

// hsts is the Strict-Transport-Security value sent on every https response.
const hsts = "max-age=31536000; includeSubDomains"

// httpsOnly enforces rule 5 (HTTPS only, with HSTS). A request is secure when it arrived over TLS,
// or through a trusted proxy (MCP_TRUSTED_PROXIES) that says X-Forwarded-Proto: https; the header
// from anyone else is ignored. Secure responses carry HSTS. When the public address (MCP_BASE_URL)
// is https, plain http is refused (421 with a pointer to https) except from loopback peers
// (local development and health checks on the host) and for the probes.
func httpsOnly(publicHTTPS bool, trusted []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer := clientip.Peer(r)
		secure := r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") && clientip.Trusted(peer, trusted)
		if secure {
			w.Header().Set("Strict-Transport-Security", hsts)
		} else if publicHTTPS && !peer.IsLoopback() && !isProbe(r.URL.Path) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMisdirectedRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "https_required", "error_description": "the tool server accepts https only"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseDeclaredOver answers 413 at once, before authentication and before reading any of it, to
// a request on any route of the tool server whose Content-Length declares a body over n bytes
// (MAX_BODY_BYTES); routes bound their bodies further themselves.
func refuseDeclaredOver(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			w.Header().Set("Connection", "close") // else net/http would read up to 256 KB of the body first
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "request_too_large", "error_description": fmt.Sprintf("the body exceeds %d bytes", n)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isProbe(path string) bool { return path == "/healthz" || path == "/readyz" }

// trustedProxies parses MCP_TRUSTED_PROXIES (clientip.ParseTrusted).
func trustedProxies(raw string) ([]netip.Prefix, error) {
	ps, err := clientip.ParseTrusted(raw)
	if err != nil {
		return nil, fmt.Errorf("MCP_TRUSTED_PROXIES: %w", err)
	}
	return ps, nil
}

// TLSListener wraps ln in TLS with MCP_TLS_CERT and MCP_TLS_KEY, or returns ln unchanged when
// they are unset: the tool server terminates TLS itself (TLS 1.2 or later).
func TLSListener(cfg *config.Config, ln net.Listener) (net.Listener, error) {
	if cfg.MCPTLSCert == "" {
		return ln, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.MCPTLSCert, cfg.MCPTLSKey)
	if err != nil {
		return nil, fmt.Errorf("MCP_TLS_CERT/MCP_TLS_KEY: %w", err)
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}), nil
}
