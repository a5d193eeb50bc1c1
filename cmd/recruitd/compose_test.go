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
	"github.com/recruitd/recruitd/internal/kinds"
	rtemporal "github.com/recruitd/recruitd/temporal"
)

type composeFile struct {
	Services map[string]struct {
		Image       string         `yaml:"image"`
		Build       any            `yaml:"build"`
		Command     any            `yaml:"command"`
		Ports       []string       `yaml:"ports"`
		Environment map[string]any `yaml:"environment"`
		DependsOn   any            `yaml:"depends_on"`
		Deploy      struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"deploy"`
		Networks map[string]struct {
			IPv4 string `yaml:"ipv4_address"`
		} `yaml:"networks"`
		Configs []struct {
			Source string `yaml:"source"`
			Target string `yaml:"target"`
		} `yaml:"configs"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
	Configs map[string]struct {
		Content string `yaml:"content"`
	} `yaml:"configs"`
}

// dependsOn is a service's depends_on: the condition per dependency ("service_started" for the
// short list form).
func dependsOn(v any) map[string]string {
	out := map[string]string{}
	switch d := v.(type) {
	case []any:
		for _, s := range d {
			out[fmt.Sprint(s)] = "service_started"
		}
	case map[string]any:
		for k, c := range d {
			m, _ := c.(map[string]any)
			out[k] = fmt.Sprint(m["condition"])
		}
	}
	return out
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
	want := []string{"api", "lb", "mcp", "migrate", "postgres", "temporal", "temporal-setup", "temporal-ui", "worker", "worker-ingest"}
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
	// Published on loopback only: the TLS front on the host reaches lb, nothing else does; each
	// replica's metrics listener is a port of its own (one of its service's range), which lb
	// does not forward.
	ports := map[string][]string{"api": {"127.0.0.1:9470-9479:9465"}, "mcp": {"127.0.0.1:9480-9489:9466"},
		"worker": {"127.0.0.1:9490-9494:9464"}, "worker-ingest": {"127.0.0.1:9495-9499:9464"}}
	// The workers are kept apart by task queue, and together serve every queue.
	commands := map[string][]string{"migrate": {"migrate"}, "api": {"api"}, "mcp": {"mcp"},
		"worker": {"worker", "--queues", "interview,default"}, "worker-ingest": {"worker", "--queues", "ingest"}}
	served := map[kinds.Queue]bool{}
	for _, svc := range []string{"migrate", "api", "mcp", "worker", "worker-ingest"} {
		s := f.Services[svc]
		if s.Build == nil {
			t.Errorf("%s is not built from the Dockerfile", svc)
		}
		cmd := toStrings(s.Command)
		if !slices.Equal(cmd, commands[svc]) || !subcommands[cmd[0]] {
			t.Errorf("%s command = %v, want %v, a recruitd subcommand", svc, cmd, commands[svc])
		}
		if len(cmd) == 3 {
			qs, err := kinds.ParseQueues(cmd[2])
			if err != nil {
				t.Errorf("%s serves %q: %v", svc, cmd[2], err)
			}
			for _, q := range qs {
				served[q] = true
			}
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
		if !slices.Equal(s.Ports, ports[svc]) {
			t.Errorf("%s ports = %v, want %v", svc, s.Ports, ports[svc])
		}
	}

	// A fleet: several replicas of each kind, each replica with a metrics port of its range.
	for _, q := range kinds.Queues {
		if !served[q] {
			t.Errorf("no worker serves the %s queue", q)
		}
	}
	replicas := map[string]int{"api": 3, "mcp": 2, "worker": 2, "worker-ingest": 1}
	for svc, n := range replicas {
		if got := f.Services[svc].Deploy.Replicas; got != n {
			t.Errorf("%s replicas = %d, want %d", svc, got, n)
		}
		for _, p := range f.Services[svc].Ports {
			var lo, hi, container int
			if _, err := fmt.Sscanf(p, "127.0.0.1:%d-%d:%d", &lo, &hi, &container); err != nil || hi-lo+1 < n {
				t.Errorf("%s publishes %q: want a loopback port range with room for its %d replicas", svc, p, n)
			}
		}
	}
	// lb is the replicas' one entrance: the front's ports, on the address the proxies list trusts,
	// forwarding to every replica of api and mcp with the client's address and scheme.
	lb := f.Services["lb"]
	if !strings.HasPrefix(lb.Image, "nginx:") || strings.HasSuffix(lb.Image, ":latest") {
		t.Errorf("lb image = %q, want a pinned nginx image", lb.Image)
	}
	if !slices.Equal(lb.Ports, []string{"127.0.0.1:8080:8080", "127.0.0.1:8081:8081"}) {
		t.Errorf("lb ports = %v, want 8080 and 8081 on the host's loopback", lb.Ports)
	}
	for _, svc := range []string{"api", "mcp", "worker", "worker-ingest", "migrate"} {
		if len(f.Services[svc].Ports) > 0 && slices.ContainsFunc(f.Services[svc].Ports, func(p string) bool { return strings.Contains(p, ":808") }) {
			t.Errorf("%s publishes %v: only lb reaches the api and mcp listeners", svc, f.Services[svc].Ports)
		}
	}
	lbIP := lb.Networks["default"].IPv4
	trusted := composeDefault(fmt.Sprint(f.Services["api"].Environment["MCP_TRUSTED_PROXIES"]))
	if lbIP == "" || !slices.Contains(strings.Split(trusted, ","), lbIP) || !slices.Contains(strings.Split(trusted, ","), "172.30.0.1") {
		t.Errorf("MCP_TRUSTED_PROXIES = %q, want lb's address %q and the front's gateway", trusted, lbIP)
	}
	if mcpTrusted := composeDefault(fmt.Sprint(f.Services["mcp"].Environment["MCP_TRUSTED_PROXIES"])); mcpTrusted != trusted {
		t.Errorf("mcp trusts %q and api %q, want the same proxies", mcpTrusted, trusted)
	}
	if len(lb.Configs) != 1 || lb.Configs[0].Target != "/etc/nginx/nginx.conf" {
		t.Fatalf("lb configs = %v, want its nginx.conf", lb.Configs)
	}
	conf := f.Configs[lb.Configs[0].Source].Content
	for _, want := range []string{"server api:8080 resolve", "server mcp:8081 resolve", "resolver 127.0.0.11", "listen 8080", "listen 8081",
		"X-Forwarded-For $proxy_add_x_forwarded_for", "X-Forwarded-Proto $http_x_forwarded_proto", "proxy_next_upstream error timeout"} {
		if !strings.Contains(strings.ReplaceAll(conf, "$$", "$"), want) {
			t.Errorf("lb's nginx.conf lacks %q", want)
		}
	}
	if f.Services["api"].Environment["API_ADDR"] != "0.0.0.0:8080" || f.Services["mcp"].Environment["MCP_ADDR"] != "0.0.0.0:8081" {
		t.Error("api and mcp must listen on all interfaces inside their containers")
	}
	if f.Services["api"].Environment["API_METRICS_ADDR"] != "0.0.0.0:9465" || f.Services["mcp"].Environment["MCP_METRICS_ADDR"] != "0.0.0.0:9466" ||
		f.Services["worker"].Environment["WORKER_METRICS_ADDR"] != "0.0.0.0:9464" || f.Services["worker-ingest"].Environment["WORKER_METRICS_ADDR"] != "0.0.0.0:9464" {
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
		"lb":             {"api": "service_started", "mcp": "service_started"},
		"temporal":       {"postgres": "service_healthy"},
		"temporal-ui":    {"temporal": "service_healthy"},
		"temporal-setup": {"temporal": "service_healthy"},
		"migrate":        {"postgres": "service_healthy"},
		"api":            {"migrate": "service_completed_successfully", "temporal": "service_healthy"},
		"mcp":            {"migrate": "service_completed_successfully", "temporal": "service_healthy"},
		"worker":         {"migrate": "service_completed_successfully", "temporal-setup": "service_completed_successfully"},
		"worker-ingest":  {"migrate": "service_completed_successfully", "temporal-setup": "service_completed_successfully"},
	}
	for svc, want := range deps {
		for dep, cond := range want {
			if got := dependsOn(f.Services[svc].DependsOn)[dep]; got != cond {
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

	// docs/operations.md names the services as they are here, every one of them.
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	for _, svc := range want {
		if !named[svc] {
			t.Errorf("docs/operations.md's table of services lacks %s", svc)
		}
	}
	for svc := range named {
		if !slices.Contains(want, svc) {
			t.Errorf("docs/operations.md names a service %s that docker-compose.yml lacks", svc)
		}
	}
	for svc, n := range replicas {
		if !regexp.MustCompile("(?m)^\\| `" + svc + "` \\| " + fmt.Sprint(n) + " \\|").Match(doc) {
			t.Errorf("docs/operations.md does not give %s's %d replicas", svc, n)
		}
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

// TestSearchAttributesRegistered checks that docker-compose.yml's temporal-setup and the README's
// production loop register every search attribute the kinds table uses: a namespace missing one
// refuses the starts that carry it.
func TestSearchAttributesRegistered(t *testing.T) {
	loop := regexp.MustCompile(`for a in ([A-Za-z ]+); do`)
	for _, file := range []string{"../../docker-compose.yml", "../../README.md"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := loop.FindSubmatch(raw)
		if m == nil {
			t.Errorf("%s has no loop registering the search attributes", file)
			continue
		}
		names := strings.Fields(string(m[1]))
		for _, k := range kinds.SearchAttributeKeys() {
			if !slices.Contains(names, k.GetName()) {
				t.Errorf("%s does not register the search attribute %s (registers %v)", file, k.GetName(), names)
			}
		}
	}
}
