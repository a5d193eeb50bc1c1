package mcpserver

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHTTPSOnly(t *testing.T) {
	proxies, err := trustedProxies("10.0.0.0/8, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	tests := []struct {
		name        string
		publicHTTPS bool
		peer, proto string
		tls         bool
		path        string
		status      int
		hsts        bool
	}{
		{"tls", true, "203.0.113.5:4000", "", true, "/mcp", 200, true},
		{"trusted proxy says https", true, "10.1.2.3:4000", "https", false, "/mcp", 200, true},
		{"trusted single address", true, "192.0.2.7:4000", "https", false, "/oauth/token", 200, true},
		{"untrusted peer forges the header", true, "203.0.113.5:4000", "https", false, "/mcp", 421, false},
		{"plain http from the internet", true, "203.0.113.5:4000", "", false, "/oauth/authorize", 421, false},
		{"plain http from loopback (make dev, tests)", true, "127.0.0.1:4000", "", false, "/mcp", 200, false},
		{"probe over http", true, "203.0.113.5:4000", "", false, "/healthz", 200, false},
		{"http public address (development)", false, "203.0.113.5:4000", "", false, "/mcp", 200, false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodPost, tt.path, nil)
		r.RemoteAddr = tt.peer
		if tt.proto != "" {
			r.Header.Set("X-Forwarded-Proto", tt.proto)
		}
		if tt.tls {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		httpsOnly(tt.publicHTTPS, proxies, ok).ServeHTTP(w, r)
		if w.Code != tt.status || (w.Header().Get("Strict-Transport-Security") != "") != tt.hsts {
			t.Errorf("%s: status %d, HSTS %q; want %d, HSTS %v", tt.name, w.Code, w.Header().Get("Strict-Transport-Security"), tt.status, tt.hsts)
		}
	}
	if _, err := trustedProxies("10.0.0.0/33"); err == nil {
		t.Error("trustedProxies(10.0.0.0/33) accepted")
	}
}

// TestHSTSOverRealTLS: a TLS connection to the tool server's handler gets HSTS.
func TestHSTSOverRealTLS(t *testing.T) {
	srv := httptest.NewTLSServer(httpsOnly(true, nil, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Strict-Transport-Security"); got != hsts {
		t.Errorf("Strict-Transport-Security = %q, want %q", got, hsts)
	}
}

// TestDeclaredBodyOverLimit: on every route of the tool server, a request whose Content-Length
// declares a body over MAX_BODY_BYTES gets 413 at once, before any of the body is sent.
func TestDeclaredBodyOverLimit(t *testing.T) {
	f := newFixture(t) // MAX_BODY_BYTES=65536
	for _, path := range []string{"/mcp", "/oauth/token", "/oauth/register"} {
		c, err := net.Dial("tcp", f.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		// The head only: a server that waits for the body never answers.
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: mcp.test\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 65537\r\n\r\n", path, f.acmeKey)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("POST %s declaring 65537 bytes: no answer before the body (%v)", path, err)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"error":"request_too_large"`) {
			t.Errorf("POST %s declaring 65537 bytes = %d %s, want 413 request_too_large", path, res.StatusCode, body)
		}
	}
}

// TestNoMetricsOnTheToolServer: the tool server's listener never serves /metrics, not even to a
// loopback client (a TLS front on the same host is one); the process serves them privately.
func TestNoMetricsOnTheToolServer(t *testing.T) {
	f := newFixture(t)
	resp, err := http.Get(f.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "go_goroutines") {
		t.Errorf("GET /metrics from loopback = %d %.80s, want 404", resp.StatusCode, body)
	}
}
