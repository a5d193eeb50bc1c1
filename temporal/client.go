// Package temporal is recruitd's Temporal plumbing: dialing the server from configuration, the
// slog bridge, Prometheus metrics for the SDK, task queue names, typed search attributes, and the
// one function that registers every workflow and activity on a worker.
package temporal

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/recruitd/recruitd/internal/config"
)

// Dial connects to the Temporal frontend named by cfg and checks that it answers.
// metrics may be nil.
func Dial(ctx context.Context, cfg *config.Config, log *slog.Logger, metrics client.MetricsHandler) (client.Client, error) {
	opts := client.Options{
		HostPort:       cfg.TemporalAddress,
		Namespace:      cfg.TemporalNamespace,
		Logger:         NewLogger(log),
		MetricsHandler: metrics,
	}
	tlsCfg, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	opts.ConnectionOptions.TLS = tlsCfg
	opts.ConnectionOptions.DialOptions = ReconnectOptions()
	if cfg.TemporalCompression == "none" {
		// The SDK gzips every request by default, and the server answers in kind: CPU on both
		// sides for each task, for bytes a local network carries anyway.
		opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
	if cfg.TemporalAPIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.TemporalAPIKey)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("dial temporal %s (namespace %s): %w", cfg.TemporalAddress, cfg.TemporalNamespace, err)
	}
	return c, nil
}

func tlsConfig(cfg *config.Config) (*tls.Config, error) {
	if !cfg.TemporalTLS && cfg.TemporalAPIKey == "" && cfg.TemporalTLSCert == "" {
		return nil, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TemporalTLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TemporalTLSCert, cfg.TemporalTLSKey)
		if err != nil {
			return nil, fmt.Errorf("load temporal client certificate: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	if cfg.TemporalTLSCA != "" {
		pem, err := os.ReadFile(cfg.TemporalTLSCA)
		if err != nil {
			return nil, fmt.Errorf("read temporal CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("temporal CA %s holds no PEM certificate", cfg.TemporalTLSCA)
		}
		t.RootCAs = pool
	}
	return t, nil
}

// ReconnectOptions make a client reconnect to a frontend that came back within about a second
// (the SDK's default backoff grows to 10 s, so requests would be refused for that long after an
// outage ended).
func ReconnectOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
		MinConnectTimeout: 2 * time.Second,
	})}
}

// NewLogger bridges slog to the SDK's logger; SDK lines carry component=temporal.
func NewLogger(log *slog.Logger) sdklog.Logger {
	return sdklog.NewStructuredLogger(log.With("component", "temporal"))
}

// HealthCheck reports whether the Temporal frontend answers, for /readyz.
func HealthCheck(c client.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}
}
