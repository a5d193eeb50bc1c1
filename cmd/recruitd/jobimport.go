package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/store"
)

// integrationsCmd is the job import's operator command: the Connect action of a company's
// integration card (internal/jobimport).
func integrationsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "integrations", Short: "The HR-suite or ATS connection through the integration aggregator"}
	var slug, baseURL, apiKey string
	connect := &cobra.Command{
		Use:   "connect",
		Short: "Start the Connect action of a company's integration card and print the aggregator's connect URL",
		Long: "connect asks the company's aggregator for a connect link (the same as POST /v1/api/integrations/hrsuite/connect)\n" +
			"and prints it; the company authorises there. --base-url and --api-key first store (sealed) the company's aggregator\n" +
			"credentials. The aggregator's webhooks go to PUBLIC_BASE_URL/webhook/aggregator.",
		Example: "  recruitd integrations connect --company acme --base-url https://api.kombo.dev --api-key ...",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (baseURL == "") != (apiKey == "") {
				return fmt.Errorf("--base-url and --api-key go together")
			}
			return e.withStore(cmd.Context(), func(cfg *config.Config, _ *slog.Logger, st *store.Store) error {
				ctx := cmd.Context()
				sealed, err := box(cfg)
				if err != nil {
					return fmt.Errorf("connect needs RECRUITD_ENCRYPTION_KEY: %w", err)
				}
				co, err := st.CompanyBySlug(ctx, slug)
				if err != nil {
					return err
				}
				if !jobimport.MayConnect(co) {
					return fmt.Errorf("company %s is neither an HR-suite account nor has an ATS type (recruitd company create --hr-suite or --ats-type)", slug)
				}
				if baseURL != "" {
					creds := map[string]string{aggregator.FieldBaseURL: baseURL, aggregator.FieldAPIKey: apiKey}
					if err := st.SetAggregatorCredentials(ctx, co.ID, sealed, creds); err != nil {
						return err
					}
				}
				integrations := &jobimport.Integrations{Store: st, Box: sealed}
				in, link, err := integrations.Connect(ctx, co, strings.TrimRight(cfg.PublicBaseURL, "/")+"/webhook/aggregator")
				if err != nil {
					return fmt.Errorf("connect %s: %w", slug, err)
				}
				fmt.Fprintf(e.stdout, "card: %s\nopen to authorise: %s\n", in.State, link)
				return nil
			})
		},
	}
	f := connect.Flags()
	f.StringVar(&slug, "company", "", "the company's slug (required)")
	f.StringVar(&baseURL, "base-url", "", "the aggregator's API base URL (stored sealed with --api-key)")
	f.StringVar(&apiKey, "api-key", "", "the aggregator's API key for this company")
	_ = connect.MarkFlagRequired("company")
	cmd.AddCommand(connect)
	return cmd
}
