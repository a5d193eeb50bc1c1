package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/recruitd/recruitd/internal/config"
	rtemporal "github.com/recruitd/recruitd/temporal"
)

type composeFile struct {
	Services map[string]struct {
		Image       string         `yaml:"image"`
		Build       any            `yaml:"build"`
		Command     any            `yaml:"command"`
		Ports       []string       `yaml:"ports"`
		Environment map[string]any `yaml:"environment"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// TestComposeFile checks docker-compose.yml without a Docker engine: the services, their images,
// ports, settings and start order, and that recruitd services run real subcommands with known
// configuration variables.
func TestComposeFile(t *testing.T) {
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.Unmarshal(raw, &f); err != nil { // yaml.v3 resolves the x-recruitd anchors and merges
		t.Fatalf("docker-compose.yml: %v", err)
	}
	want := []string{"api", "mcp", "migrate", "postgres", "temporal", "temporal-setup", "temporal-ui", "worker"}
	var got []string
	for name := range f.Services {
		got = append(got, name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("services = %v, want %v", got, want)
	}

	images := map[string]string{"postgres": "postgres:", "temporal": "temporalio/auto-setup:", "temporal-ui": "temporalio/ui:", "temporal-setup": "temporalio/admin-tools:"}
	for svc, prefix := range images {
		if !strings.HasPrefix(f.Services[svc].Image, prefix) || strings.HasSuffix(f.Services[svc].Image, ":latest") {
			t.Errorf("%s image = %q, want a pinned %s image", svc, f.Services[svc].Image, prefix)
		}
	}
	if env := f.Services["temporal"].Environment; env["DB"] != "postgres12" || env["POSTGRES_SEEDS"] != "postgres" {
		t.Errorf("temporal is not backed by the postgres service: %v", env)
	}

	known := map[string]bool{}
	for _, v := range config.Vars() {
		known[v.Name] = true
	}
	subcommands := map[string]bool{}
	for _, c := range (&env{getenv: os.Getenv}).commands() {
		subcommands[c.Name()] = true
	}
	// Published on loopback only: the TLS front on the host reaches api and mcp, nothing else does;
	// each process's metrics listener is a port of its own, which the front does not forward.
	ports := map[string][]string{"api": {"127.0.0.1:8080:8080", "127.0.0.1:9465:9465"}, "mcp": {"127.0.0.1:8081:8081", "127.0.0.1:9466:9466"},
		"worker": {"127.0.0.1:9464:9464"}}
	for _, svc := range []string{"migrate", "api", "mcp", "worker"} {
		s := f.Services[svc]
		if s.Build == nil {
			t.Errorf("%s is not built from the Dockerfile", svc)
		}
		cmd, _ := s.Command.([]any)
		if len(cmd) != 1 || !subcommands[cmd[0].(string)] || cmd[0] != svc {
			t.Errorf("%s command = %v, want [%s], a recruitd subcommand", svc, s.Command, svc)
		}
		for k := range s.Environment {
			if !known[k] {
				t.Errorf("%s sets %s, which recruitd does not read", svc, k)
			}
		}
		for _, k := range []string{"DATABASE_URL", "TEMPORAL_ADDRESS", "RECRUITD_ENCRYPTION_KEY"} {
			if s.Environment[k] == nil {
				t.Errorf("%s lacks %s", svc, k)
			}
		}
		for _, p := range ports[svc] {
			if !slices.Contains(s.Ports, p) {
				t.Errorf("%s ports = %v, want %s", svc, s.Ports, p)
			}
		}
	}
	if f.Services["api"].Environment["API_ADDR"] != "0.0.0.0:8080" || f.Services["mcp"].Environment["MCP_ADDR"] != "0.0.0.0:8081" {
		t.Error("api and mcp must listen on all interfaces inside their containers")
	}
	if f.Services["api"].Environment["API_METRICS_ADDR"] != "0.0.0.0:9465" || f.Services["mcp"].Environment["MCP_METRICS_ADDR"] != "0.0.0.0:9466" ||
		f.Services["worker"].Environment["WORKER_METRICS_ADDR"] != "0.0.0.0:9464" {
		t.Error("every process's metrics listener must listen on all interfaces inside its container, on its published port")
	}

	// The tool server listens on 0.0.0.0 in its container, so it starts only with an https://
	// MCP_BASE_URL: the file has no http default, it makes the operator set one.
	mcpEnv := map[string]string{}
	for k, v := range f.Services["mcp"].Environment {
		mcpEnv[k] = composeDefault(fmt.Sprint(v))
	}
	if cfg, err := config.Load(func(k string) string { return mcpEnv[k] }); err != nil {
		t.Errorf("mcp configuration: %v", err)
	} else if err := cfg.RequireMCPHTTPS(); err != nil {
		if raw := fmt.Sprint(f.Services["mcp"].Environment["MCP_BASE_URL"]); !strings.HasPrefix(raw, "${MCP_BASE_URL:?") || !strings.Contains(raw, "https://") {
			t.Errorf("mcp would refuse to start (%v) and MCP_BASE_URL = %q does not require an https:// address", err, raw)
		}
	}

	deps := map[string]map[string]string{
		"temporal":       {"postgres": "service_healthy"},
		"temporal-ui":    {"temporal": "service_healthy"},
		"temporal-setup": {"temporal": "service_healthy"},
		"migrate":        {"postgres": "service_healthy"},
		"api":            {"migrate": "service_completed_successfully", "temporal": "service_healthy"},
		"mcp":            {"migrate": "service_completed_successfully", "temporal": "service_healthy"},
		"worker":         {"migrate": "service_completed_successfully", "temporal-setup": "service_completed_successfully"},
	}
	for svc, want := range deps {
		for dep, cond := range want {
			if got := f.Services[svc].DependsOn[dep].Condition; got != cond {
				t.Errorf("%s depends_on %s: condition %q, want %q", svc, dep, got, cond)
			}
		}
	}

	setup := strings.Join(toStrings(f.Services["temporal-setup"].Command), " ")
	for _, sa := range rtemporal.SearchAttributes() {
		if !strings.Contains(setup, sa.GetName()) {
			t.Errorf("temporal-setup does not register search attribute %s", sa.GetName())
		}
	}
	if _, ok := f.Volumes["pgdata"]; !ok {
		t.Error("postgres data is not on a named volume")
	}
}

// composeDefault is what Compose substitutes for a value when its variables are unset: the
// default of ${VAR:-default}, nothing for ${VAR} or ${VAR:?message} (which Compose refuses).
func composeDefault(v string) string {
	return composeVar.ReplaceAllStringFunc(v, func(m string) string {
		if _, def, ok := strings.Cut(m[2:len(m)-1], ":-"); ok {
			return def
		}
		return ""
	})
}

var composeVar = regexp.MustCompile(`\$\{[^}]*\}`)

func toStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, s := range l {
			out = append(out, s.(string))
		}
	}
	return out
}
