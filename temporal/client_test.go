package temporal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/recruitd/recruitd/internal/config"
)

func TestTLSConfig(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     config.Config
		wantTLS bool
		err     string
	}{
		{"plain", config.Config{}, false, ""},
		{"tls", config.Config{TemporalTLS: true}, true, ""},
		{"api key implies tls", config.Config{TemporalAPIKey: "k"}, true, ""},
		{"missing cert", config.Config{TemporalTLSCert: filepath.Join(dir, "nope.crt"), TemporalTLSKey: filepath.Join(dir, "nope.key")}, false, "client certificate"},
		{"bad CA", config.Config{TemporalTLS: true, TemporalTLSCA: notPEM}, false, "holds no PEM certificate"},
	}
	for _, tt := range tests {
		got, err := tlsConfig(&tt.cfg)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || (got != nil) != tt.wantTLS {
			t.Errorf("%s: tlsConfig = %v, %v; want TLS %v", tt.name, got, err, tt.wantTLS)
		}
	}
}

func TestSearchAttributesAreKeywords(t *testing.T) {
	names := map[string]bool{}
	for _, sa := range SearchAttributes() {
		if sa.GetValueType() != enumspb.INDEXED_VALUE_TYPE_KEYWORD || names[sa.GetName()] {
			t.Errorf("search attribute %s (%s): want a unique Keyword", sa.GetName(), sa.GetValueType())
		}
		names[sa.GetName()] = true
	}
	for _, want := range []string{"CompanySlug", "InterviewerId", "WorkflowTrigger", "Outcome", "ApplicationStatus"} {
		if !names[want] {
			t.Errorf("SearchAttributes() lacks %s", want)
		}
	}
}
