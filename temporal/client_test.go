package temporal

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

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

// TestDialCompression: TEMPORAL_COMPRESSION=none sends Temporal uncompressed requests (the SDK
// gzips them by default); gzip keeps the SDK's compression.
func TestDialCompression(t *testing.T) {
	for _, mode := range []string{"none", "gzip"} {
		seen := make(chan string, 16)
		srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			method, _ := grpc.MethodFromServerStream(stream)
			if s, ok := grpc.ServerTransportStreamFromContext(stream.Context()).(interface{ RecvCompress() string }); ok {
				seen <- method + " " + s.RecvCompress()
			}
			switch {
			case strings.HasSuffix(method, "/GetSystemInfo"):
				if err := stream.RecvMsg(&workflowservice.GetSystemInfoRequest{}); err != nil {
					return err
				}
				return stream.SendMsg(&workflowservice.GetSystemInfoResponse{})
			case strings.HasSuffix(method, "/Check"):
				if err := stream.RecvMsg(&healthpb.HealthCheckRequest{}); err != nil {
					return err
				}
				return stream.SendMsg(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING})
			}
			return status.Error(codes.Unimplemented, method)
		}))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = srv.Serve(ln) }()
		cfg := &config.Config{TemporalAddress: ln.Addr().String(), TemporalNamespace: "default", TemporalCompression: mode}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := Dial(ctx, cfg, slog.New(slog.DiscardHandler), nil)
		cancel()
		if err != nil {
			srv.Stop()
			t.Fatalf("%s: dial: %v", mode, err)
		}
		c.Close()
		srv.Stop()
		close(seen)
		want := map[string]string{"none": "", "gzip": "gzip"}[mode]
		var got []string
		for s := range seen {
			if strings.Contains(s, "GetSystemInfo") {
				got = append(got, s)
				if !strings.HasSuffix(s, " "+want) {
					t.Errorf("TEMPORAL_COMPRESSION=%s: Temporal received %q, want encoding %q", mode, s, want)
				}
			}
		}
		if len(got) == 0 {
			t.Errorf("TEMPORAL_COMPRESSION=%s: no GetSystemInfo request reached the server", mode)
		}
	}
}
