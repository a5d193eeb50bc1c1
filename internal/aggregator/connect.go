package aggregator

import (
	"context"
	"fmt"

	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Connect is the Connect action of the HR-suite card, shared by the API and `recruitd
// integrations connect`: it asks the company's aggregator for a connect link whose integration
// reports to webhookURL, signed with the integration's secret (created on the first Connect,
// kept on later ones), and records the link. The error wraps store.ErrNotFound when the company
// has no aggregator credentials, else one of this package's errors.
func Connect(ctx context.Context, st *store.Store, box *secretbox.Box, co *models.Company, webhookURL string) (*models.AggregatorIntegration, string, error) {
	in, err := st.AggregatorIntegration(ctx, co.ID)
	if err != nil {
		return nil, "", err
	}
	creds, secret, err := store.OpenAggregatorSecrets(box, in)
	if err != nil {
		return nil, "", err
	}
	if secret == "" {
		if secret, err = NewWebhookSecret(); err != nil {
			return nil, "", fmt.Errorf("webhook secret: %w", err)
		}
	}
	client, err := NewKombo(creds, nil)
	if err != nil {
		return nil, "", err
	}
	link, err := client.CreateLink(ctx, LinkRequest{OriginID: co.ID.String(), OrganizationName: co.Name, WebhookURL: webhookURL, WebhookSecret: secret})
	if err != nil {
		return nil, "", err
	}
	if err := st.SaveConnectLink(ctx, co.ID, box, link, secret); err != nil {
		return nil, "", err
	}
	return in, link, nil
}
