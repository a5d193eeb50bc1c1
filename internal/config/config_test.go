package config

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatalf("Load(defaults) = %v", err)
	}
	if c.APIAddr != "127.0.0.1:8080" || c.MCPAddr != "127.0.0.1:8081" || c.MaxBodyBytes != 1<<20 || c.ShutdownTimeout != 15*time.Second {
		t.Errorf("defaults = %+v", c)
	}
}

func TestLoadOverrides(t *testing.T) {
	c, err := Load(env(map[string]string{"API_ADDR": "0.0.0.0:9000", "TEMPORAL_TLS": "true", "DB_MAX_CONNS": "7", "SHUTDOWN_TIMEOUT": "2m"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.APIAddr != "0.0.0.0:9000" || !c.TemporalTLS || c.DBMaxConns != 7 || c.ShutdownTimeout != 2*time.Minute {
		t.Errorf("overrides not applied: %+v", c)
	}
}

func TestLoadRejectsBadValuesTogether(t *testing.T) {
	_, err := Load(env(map[string]string{
		"API_ADDR":                "8080",
		"DB_MAX_CONNS":            "many",
		"LOG_LEVEL":               "loud",
		"RECRUITD_ENCRYPTION_KEY": "c2hvcnQ=",
		"RECRUITD_DEMO_API_KEY":   "short",
		"DATABASE_URL":            "mysql://u:hunter2@db/x",
	}))
	if err == nil {
		t.Fatal("Load accepted invalid values")
	}
	// Parse errors come first; fix them and the validation errors show.
	if !strings.Contains(err.Error(), "DB_MAX_CONNS") {
		t.Errorf("error %q does not name DB_MAX_CONNS", err)
	}
	_, err = Load(env(map[string]string{
		"API_ADDR":                "8080",
		"LOG_LEVEL":               "loud",
		"RECRUITD_ENCRYPTION_KEY": "c2hvcnQ=",
		"RECRUITD_DEMO_API_KEY":   "short",
		"DATABASE_URL":            "mysql://u:hunter2@db/x",
		"WORKER_SLOTS":            "-1",
		"TEMPORAL_COMPRESSION":    "zstd",
	}))
	if err == nil {
		t.Fatal("Load accepted invalid values")
	}
	for _, name := range []string{"API_ADDR", "LOG_LEVEL", "RECRUITD_ENCRYPTION_KEY", "RECRUITD_DEMO_API_KEY", "DATABASE_URL", "WORKER_SLOTS", "TEMPORAL_COMPRESSION"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %q leaks a password", err)
	}
}

func TestDemoKeyIsKeyText(t *testing.T) {
	for key, ok := range map[string]bool{"rk_aaaaaaaaaaaaaaaaaaaaaaaa": true, "rk_aaaaaaaaa aaaaaaaaaaaaaaa": false, "rk_aaaaaaaaaéaaaaaaaaaaaaaa": false, "rk_short": false} {
		if _, err := Load(env(map[string]string{"RECRUITD_DEMO_API_KEY": key})); (err == nil) != ok {
			t.Errorf("RECRUITD_DEMO_API_KEY=%q: %v, want accepted %v", key, err, ok)
		}
	}
}

func TestLogAttrsMaskSecrets(t *testing.T) {
	c, err := Load(env(map[string]string{
		"DATABASE_URL":            "postgres://app:hunter2@db:5432/recruitd",
		"RECRUITD_ENCRYPTION_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"TEMPORAL_API_KEY":        "tk-secret-value",
	}))
	if err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprint(c.LogAttrs()...)
	for _, secret := range []string{"hunter2", "AAAAAAAAAAAA", "tk-secret-value"} {
		if strings.Contains(out, secret) {
			t.Errorf("LogAttrs() = %s, leaks %q", out, secret)
		}
	}
	if !strings.Contains(out, "postgres://app:xxxxx@db:5432/recruitd") {
		t.Errorf("LogAttrs() = %s, want the database URL with its password redacted", out)
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain-secret", "****"},
		{"postgres://app:hunter2@db:5432/recruitd?sslmode=disable", "postgres://app:xxxxx@db:5432/recruitd?sslmode=disable"},
		{"postgres://db/recruitd?password=hunter2&sslmode=require", "postgres://db/recruitd?password=****&sslmode=require"},
		{"postgres://db/recruitd?sslmode=verify-full&sslkey=/k&PGPASSWORD=x", "postgres://db/recruitd?PGPASSWORD=****&sslkey=****&sslmode=verify-full"},
		{"https://api.example.com/v1?api_key=abc#token=xyz", "https://api.example.com/v1?api_key=****"},
	}
	for _, tt := range tests {
		if got := mask(tt.in); got != tt.want {
			t.Errorf("mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRequireMessagingMode(t *testing.T) {
	c, err := Load(env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RequireMessagingMode(); err == nil || !strings.Contains(err.Error(), "MESSAGING_MODE is not set") {
		t.Errorf("RequireMessagingMode() with no MESSAGING_MODE = %v, want a clear error", err)
	}
	c.MessagingMode = "live"
	if err := c.RequireMessagingMode(); err != nil {
		t.Errorf("RequireMessagingMode(live) = %v", err)
	}
}

// TestREADMEDocumentsEveryVariable keeps the README's configuration table and Vars() in step.
func TestREADMEDocumentsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, v := range Vars() {
		row := "| `" + v.Name + "` |"
		if !strings.Contains(readme, row) {
			t.Errorf("README.md has no configuration row for %s", v.Name)
			continue
		}
		if v.Default != "" && !strings.Contains(readme, row+" `"+v.Default+"` |") {
			t.Errorf("README.md row for %s does not show its default %q", v.Name, v.Default)
		}
	}
}

// TestBaseURLsFollowListenAddresses: unset PUBLIC_BASE_URL and MCP_BASE_URL name the listen
// addresses, so the WWW-Authenticate realm and the metadata advertise where the server listens.
func TestBaseURLsFollowListenAddresses(t *testing.T) {
	for _, tc := range []struct {
		env              map[string]string
		wantAPI, wantMCP string
	}{
		{nil, "http://127.0.0.1:8080", "http://127.0.0.1:8081"},
		{map[string]string{"MCP_ADDR": "127.0.0.1:18081", "API_ADDR": "127.0.0.1:18080"}, "http://127.0.0.1:18080", "http://127.0.0.1:18081"},
		{map[string]string{"MCP_ADDR": "0.0.0.0:9001", "API_ADDR": ":9000"}, "http://localhost:9000", "http://localhost:9001"},
		{map[string]string{"MCP_ADDR": "[::]:9001", "API_ADDR": "[::1]:9000"}, "http://[::1]:9000", "http://localhost:9001"},
		{map[string]string{"MCP_ADDR": "mcp.internal:9001"}, "http://127.0.0.1:8080", "http://mcp.internal:9001"},
		{map[string]string{"MCP_ADDR": "127.0.0.1:18081", "MCP_BASE_URL": "https://mcp.example.com", "PUBLIC_BASE_URL": "https://api.example.com"},
			"https://api.example.com", "https://mcp.example.com"},
	} {
		c, err := Load(env(tc.env))
		if err != nil {
			t.Fatalf("Load(%v) = %v", tc.env, err)
		}
		if c.PublicBaseURL != tc.wantAPI || c.MCPBaseURL != tc.wantMCP {
			t.Errorf("Load(%v) base URLs = %q, %q; want %q, %q", tc.env, c.PublicBaseURL, c.MCPBaseURL, tc.wantAPI, tc.wantMCP)
		}
	}
}

// TestRequireMCPHTTPS: an http:// MCP_BASE_URL is refused unless MCP_ADDR is loopback only, and
// the message names what to set.
func TestRequireMCPHTTPS(t *testing.T) {
	for _, tt := range []struct {
		addr, base string
		ok         bool
	}{
		{"127.0.0.1:8081", "", true},
		{"[::1]:8081", "", true},
		{"localhost:8081", "http://mcp.internal:8081", true},
		{"127.0.0.2:0", "", true},
		{"0.0.0.0:8081", "", false},
		{":8081", "", false},
		{"10.1.2.3:8081", "http://10.1.2.3:8081", false},
		{"mcp.internal:8081", "", false},
		{"0.0.0.0:8081", "https://mcp.example.com", true},
		{"10.1.2.3:8081", "https://mcp.example.com", true},
	} {
		cfg, err := Load(func(k string) string { return map[string]string{"MCP_ADDR": tt.addr, "MCP_BASE_URL": tt.base}[k] })
		if err != nil {
			t.Fatal(err)
		}
		err = cfg.RequireMCPHTTPS()
		if tt.ok != (err == nil) {
			t.Errorf("MCP_ADDR %s, MCP_BASE_URL %q: %v; want allowed %v", tt.addr, tt.base, err, tt.ok)
		}
		if err != nil {
			for _, want := range []string{"HTTPS only", "https://", "MCP_TLS_CERT", "MCP_TRUSTED_PROXIES", "loopback"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not mention %s", err, want)
				}
			}
		}
	}
}
