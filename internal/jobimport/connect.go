package jobimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// ErrNotConfigured means the company has no aggregator credentials; the message says how an
// operator sets them.
var ErrNotConfigured = errors.New("the company has no aggregator credentials (recruitd integrations connect --base-url … --api-key …)")

// Connect is the Connect action of the integration card, shared by the API and `recruitd
// integrations connect`: it asks the company's aggregator for a connect link whose integration
// reports to webhookURL, signed with the integration's secret (created on the first Connect,
// kept on later ones), and records the link. The error is ErrNotConfigured when the company
// has no aggregator credentials, else one of package aggregator's errors.
func (in *Integrations) Connect(ctx context.Context, co *models.Company, webhookURL string) (*models.AggregatorIntegration, string, error) {
	integ, err := in.Store.AggregatorIntegration(ctx, co.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", ErrNotConfigured
	}
	if err != nil {
		return nil, "", err
	}
	creds, secret, err := store.OpenAggregatorSecrets(in.Box, integ)
	if err != nil {
		return nil, "", err
	}
	if secret == "" {
		if secret, err = aggregator.NewWebhookSecret(); err != nil {
			return nil, "", fmt.Errorf("webhook secret: %w", err)
		}
	}
	client, err := aggregator.NewKombo(creds, nil)
	if err != nil {
		return nil, "", err
	}
	link, err := client.CreateLink(ctx, aggregator.LinkRequest{OriginID: co.ID.String(), OrganizationName: co.Name, WebhookURL: webhookURL, WebhookSecret: secret})
	if err != nil {
		return nil, "", err
	}
	if err := in.Store.SaveConnectLink(ctx, co.ID, in.Box, link, secret); errors.Is(err, store.ErrNotFound) {
		return nil, "", ErrNotConfigured
	} else if err != nil {
		return nil, "", err
	}
	return integ, link, nil
}
