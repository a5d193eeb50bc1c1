package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// The job import's entrances (internal/jobimport): the integration card and its Connect action
// (GET /v1/api/integrations/hrsuite and .../connect, paths the spec fixes) and the aggregator's
// webhook (POST /webhook/aggregator).

// IntegrationCard is the integration card (GET /v1/api/integrations/hrsuite).
type IntegrationCard struct {
	Success    bool            `json:"success"`
	Connection IntegrationView `json:"connection"`
}

// IntegrationView is the card's content. It never holds credentials or secrets.
type IntegrationView struct {
	Provider      string                  `json:"provider"`
	State         models.IntegrationState `json:"state"`
	Label         string                  `json:"label"`
	Since         *time.Time              `json:"since"`
	IntegrationID *string                 `json:"integrationId"`
	LastSyncAt    *time.Time              `json:"lastSyncAt"`
	Reason        *string                 `json:"reason"`
	Counts        IntegrationCounts       `json:"counts"`
}

// IntegrationCounts are the card's job figures.
type IntegrationCounts struct {
	JobsImported int `json:"jobsImported"`
	OpenJobs     int `json:"openJobs"`
	ClosedJobs   int `json:"closedJobs"`
}

// IntegrationConnectResponse answers the Connect action.
type IntegrationConnectResponse struct {
	Success    bool                    `json:"success"`
	ConnectURL string                  `json:"connectUrl"`
	State      models.IntegrationState `json:"state"`
	Message    string                  `json:"message"`
}

// cardLabels are the card's labels as the product shows them.
var cardLabels = map[models.IntegrationState]string{
	models.IntegrationNotConnected:   "Not connected",
	models.IntegrationSyncing:        "Syncing…",
	models.IntegrationConnected:      "Connected",
	models.IntegrationNeedsAttention: "Needs attention",
}

var (
	errNoAggregator = newError(http.StatusConflict, "AGGREGATOR_NOT_CONFIGURED",
		"the company has no aggregator credentials; an operator sets them with recruitd integrations connect --company <slug> --base-url … --api-key …")
	errAggregatorRefused = newError(http.StatusConflict, "AGGREGATOR_CREDENTIALS_REFUSED",
		"the aggregator refused the company's aggregator credentials; an operator must replace them")
	errAggregatorDown = &apiError{status: http.StatusServiceUnavailable, code: "TEMPORARILY_UNAVAILABLE",
		message: "the aggregator did not answer; retry after the Retry-After delay", retryAfter: 5}
	errAggregator   = newError(http.StatusBadGateway, "AGGREGATOR_ERROR", "the aggregator refused to create a connect link")
	errBadSignature = newError(http.StatusUnauthorized, "INVALID_SIGNATURE",
		"the delivery is not signed by a known integration (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature)")
)

var errNoAggregatorAccount = newError(http.StatusBadRequest, "NOT_HR_SUITE_ACCOUNT",
	"this company is neither an HR-suite account nor has an ATS type; an operator creates it with --hr-suite or --ats-type to connect it through the aggregator")

// requireAggregatorAccount lets through the companies that may connect through the aggregator
// (jobimport.MayConnect).
func (s *server) requireAggregatorAccount(c *gin.Context) {
	if !jobimport.MayConnect(company(c)) {
		s.fail(c, errNoAggregatorAccount)
		return
	}
	c.Next()
}

func (s *server) integrations() *jobimport.Integrations {
	return &jobimport.Integrations{Store: s.Store, Box: s.Box, Launcher: s.Launcher, Log: s.Log, Metrics: s.AggregatorMetrics}
}

// getIntegration is GET /v1/api/integrations/hrsuite: the card.
func (s *server) getIntegration(c *gin.Context) {
	co := company(c)
	ctx := c.Request.Context()
	view := IntegrationView{Provider: "kombo", State: models.IntegrationNotConnected}
	in, err := s.Store.AggregatorIntegration(ctx, co.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		s.fail(c, err)
		return
	default:
		since := in.StateSince.UTC()
		view.Provider, view.State, view.Since, view.IntegrationID, view.LastSyncAt, view.Reason =
			in.Provider, in.State, &since, in.IntegrationID, in.LastSyncAt, in.Reason
		counts, err := s.Store.AggregatorJobCounts(ctx, co.ID)
		if err != nil {
			s.fail(c, err)
			return
		}
		view.Counts = IntegrationCounts{JobsImported: counts.JobsImported, OpenJobs: counts.OpenJobs, ClosedJobs: counts.ClosedJobs}
	}
	view.Label = cardLabels[view.State]
	c.JSON(http.StatusOK, IntegrationCard{Success: true, Connection: view})
}

// connectIntegration is POST /v1/api/integrations/hrsuite/connect, for HR-suite accounts and
// companies with an ATS.
func (s *server) connectIntegration(c *gin.Context) {
	in, link, err := s.integrations().Connect(c.Request.Context(), company(c), strings.TrimRight(s.Config.PublicBaseURL, "/")+"/webhook/aggregator")
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, IntegrationConnectResponse{Success: true, ConnectURL: link, State: in.State,
		Message: connectMessage(company(c))})
}

// AggregatorWebhookResponse acknowledges an aggregator webhook.
type AggregatorWebhookResponse struct {
	Success   bool   `json:"success"`
	Duplicate bool   `json:"duplicate"`
	Outcome   string `json:"outcome"`
}

// aggregatorWebhook is POST /webhook/aggregator, authenticated by its signature: the feature
// verifies it, records and applies the event, and starts or signals the company's job import.
func (s *server) aggregatorWebhook(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.fail(c, jsonError(err))
		return
	}
	res, err := s.integrations().ReceiveEvent(c.Request.Context(), c.Request.Header, body, requestID(c))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, AggregatorWebhookResponse{Success: true, Duplicate: res.Duplicate, Outcome: res.Outcome})
}

// connectMessage says what happens after the Connect action.
func connectMessage(co *models.Company) string {
	if jobimport.SyncsApplications(co) {
		return "Open connectUrl and authorise the connection; the card reads Syncing… until the first sync finishes, then Connected, and jobs, candidates and applications sync by themselves."
	}
	return "Open connectUrl and authorise the connection; the card reads Syncing… until the first sync finishes, then Connected, and jobs import by themselves."
}
