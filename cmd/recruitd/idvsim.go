package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/idvsim"
)

// idvsimAPIKey is the identity-verification simulator's API key in dev and, unless IDV_API_KEY
// is set, in `recruitd idvsim`.
const idvsimAPIKey = "idvsim-api-key"

func idvsimCmd(e *env) *cobra.Command {
	var addr, webhookURL string
	cmd := &cobra.Command{
		Use:   "idvsim",
		Short: "Serve the identity-verification provider simulator: create verifications, a hosted page to pass or fail them, signed webhooks",
		Long: "idvsim speaks Stripe Identity: POST /v1/identity/verification_sessions (bearer IDV_API_KEY, default \"" + idvsimAPIKey + "\"),\n" +
			"the hosted page /verify/{token} where a verification is passed or failed with a reason, and Stripe events of the outcome, signed\n" +
			"(Stripe-Signature) with\n" +
			"IDV_WEBHOOK_SECRET (generated and printed when unset), retried with backoff; controls under /sim/ (verifications,\n" +
			"deliveries, verifications/{id}/pass, /fail?reason=, /redeliver). Point recruitd at it with IDV_BASE_URL.\n" +
			"`recruitd dev` runs one in-process unless IDV_BASE_URL is set.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := e.load()
			if err != nil {
				return err
			}
			key, secret := cfg.IDVAPIKey, cfg.IDVWebhookSecret
			if key == "" {
				key = idvsimAPIKey
			}
			if secret == "" {
				if secret, err = newIDVSecret(); err != nil {
					return err
				}
			}
			if webhookURL == "" {
				webhookURL = strings.TrimRight(cfg.PublicBaseURL, "/") + "/webhook/idverify"
			}
			sim := idvsim.New(idvsim.Options{APIKey: key, WebhookURL: webhookURL, WebhookSecret: secret})
			fmt.Fprintf(e.stdout, "identity-verification simulator on http://%s (API key %q), webhooks to %s\n", addr, key, webhookURL)
			if cfg.IDVWebhookSecret == "" {
				fmt.Fprintf(e.stdout, "webhook secret (set IDV_WEBHOOK_SECRET to it for recruitd): %s\n", secret)
			}
			return idvsim.ListenAndServe(cmd.Context(), addr, sim)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8092", "listen address")
	cmd.Flags().StringVar(&webhookURL, "webhook-url", "", "where outcomes are posted (default: PUBLIC_BASE_URL/webhook/idverify)")
	return cmd
}

// newIDVSecret returns a fresh webhook signing secret (whsec_ and random text, as Stripe's).
func newIDVSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b), nil
}

// startIdvsim serves the simulator on a loopback port, delivering to the API's webhook, and
// points cfg's IDV_* settings at it (a fresh webhook secret unless one is set). With IDV_BASE_URL
// set it starts nothing.
func startIdvsim(cfg *config.Config, log *slog.Logger) (*devSim[*idvsim.Server], error) {
	if cfg.IDVBaseURL != "" {
		return nil, nil
	}
	if cfg.IDVWebhookSecret == "" {
		secret, err := newIDVSecret()
		if err != nil {
			return nil, err
		}
		cfg.IDVWebhookSecret = secret
	}
	const what = "identity-verification simulator"
	ln, url, err := listenDevSim(what)
	if err != nil {
		return nil, err
	}
	sim := idvsim.New(idvsim.Options{APIKey: idvsimAPIKey, WebhookSecret: cfg.IDVWebhookSecret,
		WebhookURL: strings.TrimRight(cfg.PublicBaseURL, "/") + "/webhook/idverify"})
	d := &devSim[*idvsim.Server]{url: url, sim: sim,
		about: "  ID-verification simulator: " + url + "   hosted pages pass or fail a verification; controls under /sim/ (recruitd idvsim --help)\n"}
	cfg.IDVBaseURL, cfg.IDVAPIKey = d.url, idvsimAPIKey
	d.serve(ln, what, log)
	return d, nil
}
