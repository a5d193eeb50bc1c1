// Package aggregator connects recruitd to an HR suite or an ATS through an integration aggregator
// (Kombo today): it asks for a connect link, lists the jobs (and an ATS's applications with their
// candidates) page by page, parses and verifies the aggregator's webhooks, and maps the
// aggregator's integration states onto the connection card.
//
// Client is small on purpose: a second aggregator (Merge.dev: linked accounts, COMPLETE /
// INCOMPLETE / RELINK_NEEDED) implements the same three calls, and its states map through Card.
// Writer writes results back to an ATS (never to an HR suite: that connection is read-only).
package aggregator

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/recruitd/recruitd/models"
)

// Client is what recruitd asks of an integration aggregator.
type Client interface {
	// CreateLink returns the URL where the company authorises the connection.
	CreateLink(ctx context.Context, r LinkRequest) (string, error)
	// ListJobs returns one page of the integration's jobs. ErrSetupPending until the first sync
	// has finished.
	ListJobs(ctx context.Context, integrationID string, q JobQuery) (JobPage, error)
	// ListApplications returns one page of the integration's applications, each with its
	// candidate, for companies whose applications come through the aggregator (an HR suite's
	// come by webhook). ErrSetupPending until the first sync has finished.
	ListApplications(ctx context.Context, integrationID string, q ApplicationQuery) (ApplicationPage, error)
}

// LinkRequest asks for a connect link. OriginID is recruitd's company id: the aggregator
// echoes it in its webhooks so the first event finds the company. WebhookURL and WebhookSecret
// say where and how the integration's events are signed and sent.
type LinkRequest struct {
	OriginID, OrganizationName, Email string
	WebhookURL, WebhookSecret         string
}

// JobQuery selects a page: jobs changed after UpdatedAfter (zero: all), from Cursor (the
// previous page's Next).
type JobQuery struct {
	UpdatedAfter time.Time
	Cursor       string
	PageSize     int
}

// JobPage is one page of jobs and the cursor of the next ("" on the last).
type JobPage struct {
	Jobs []Job
	Next string
}

// Job is an HR-suite job as the aggregator reports it. RemoteID is the suite's own job id (the
// HR-suite webhook's "Job Req Id"); ID is the aggregator's.
type Job struct {
	ID, RemoteID, Name, Description, Location string
	// Status is the suite's status (OPEN, CLOSED, DRAFT, ARCHIVED); Open only for OPEN.
	Status          string
	RemoteCreatedAt *time.Time
	ChangedAt       time.Time
	RemoteDeletedAt *time.Time
}

// ExternalID is the id the service job carries: the suite's own id, else the aggregator's.
func (j Job) ExternalID() string {
	if j.RemoteID != "" {
		return j.RemoteID
	}
	return j.ID
}

// Open reports whether the job takes applications: OPEN and not deleted.
func (j Job) Open() bool { return j.Status == "OPEN" && j.RemoteDeletedAt == nil }

// Errors of Client calls. A Client wraps exactly one of them, or returns a context error.
var (
	// ErrSetupPending: the integration's first sync has not finished; try again later.
	ErrSetupPending = errors.New("the aggregator's first sync has not finished")
	// ErrUnauthorized: the aggregator refused our credentials or the integration needs new
	// authorisation. Retrying does not help; the card goes to needs_attention.
	ErrUnauthorized = errors.New("the aggregator refused the credentials or the integration needs new authorisation")
	// ErrTransient: a timeout, a connection failure, 429 or 5xx. Retry with backoff.
	ErrTransient = errors.New("the aggregator is temporarily unavailable")
	// ErrPermanent: any other refusal (a 4xx, an answer we cannot read). Retrying does not help.
	ErrPermanent = errors.New("the aggregator refused the request")
)

// Credentials fields of a company's aggregator connection (sealed at rest).
const (
	FieldBaseURL = "baseUrl"
	FieldAPIKey  = "apiKey"
)

// NewWebhookSecret returns a fresh Standard Webhooks secret ("whsec_" and 32 random bytes).
func NewWebhookSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b), nil
}

// Card maps what the aggregator says of an integration onto the connection card, with the
// reason shown when it needs attention. remote is Kombo's state (ACTIVE, INVALID, INACTIVE) or
// Merge's linked-account status (COMPLETE, INCOMPLETE, RELINK_NEEDED); setup is Kombo's
// setup_status (INCOMPLETE, FINAL_SYNC_PENDING, COMPLETED), empty for Merge.
func Card(remote, setup string) (models.IntegrationState, string) {
	switch remote {
	case "INVALID", "RELINK_NEEDED":
		return models.IntegrationNeedsAttention, "the HR suite needs new authorisation: connect again"
	case "INACTIVE":
		return models.IntegrationNeedsAttention, "the integration is inactive at the aggregator: connect again"
	case "ACTIVE":
		if setup == "COMPLETED" {
			return models.IntegrationConnected, ""
		}
		return models.IntegrationSyncing, ""
	case "COMPLETE":
		return models.IntegrationConnected, ""
	}
	return models.IntegrationSyncing, ""
}
