package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// HRSuiteCard is the HR-suite connection card (GET /v1/api/integrations/hrsuite).
type HRSuiteCard struct {
	Success    bool                  `json:"success"`
	Connection HRSuiteConnectionView `json:"connection"`
}

// HRSuiteConnectionView is the card's content. It never holds credentials or secrets.
type HRSuiteConnectionView struct {
	Provider      string                  `json:"provider"`
	State         models.IntegrationState `json:"state"`
	Label         string                  `json:"label"`
	Since         *time.Time              `json:"since"`
	IntegrationID *string                 `json:"integrationId"`
	LastSyncAt    *time.Time              `json:"lastSyncAt"`
	Reason        *string                 `json:"reason"`
	Counts        HRSuiteCounts           `json:"counts"`
}

// HRSuiteCounts are the card's job figures.
type HRSuiteCounts struct {
	JobsImported int `json:"jobsImported"`
	OpenJobs     int `json:"openJobs"`
	ClosedJobs   int `json:"closedJobs"`
}

// HRSuiteConnectResponse answers the Connect action.
type HRSuiteConnectResponse struct {
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
	errNotHRSuite = newError(http.StatusBadRequest, "NOT_HR_SUITE_ACCOUNT",
		"this company is not an HR-suite account; an operator enables it with recruitd company update --hr-suite")
	errNoAggregator = newError(http.StatusConflict, "AGGREGATOR_NOT_CONFIGURED",
		"the company has no aggregator credentials; an operator sets them with recruitd integrations connect --company <slug> --base-url … --api-key …")
	errAggregatorRefused = newError(http.StatusConflict, "AGGREGATOR_CREDENTIALS_REFUSED",
		"the aggregator refused the company's aggregator credentials; an operator must replace them")
	errAggregatorDown = &apiError{status: http.StatusServiceUnavailable, code: "TEMPORARILY_UNAVAILABLE",
		message: "the aggregator did not answer; retry after the Retry-After delay", retryAfter: 5}
	errAggregator = newError(http.StatusBadGateway, "AGGREGATOR_ERROR", "the aggregator refused to create a connect link")
)

func (s *server) getHRSuite(c *gin.Context) {
	co := company(c)
	ctx := c.Request.Context()
	view := HRSuiteConnectionView{Provider: "kombo", State: models.IntegrationNotConnected}
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
		view.Counts = HRSuiteCounts{JobsImported: counts.JobsImported, OpenJobs: counts.OpenJobs, ClosedJobs: counts.ClosedJobs}
	}
	view.Label = cardLabels[view.State]
	c.JSON(http.StatusOK, HRSuiteCard{Success: true, Connection: view})
}

func (s *server) connectHRSuite(c *gin.Context) {
	co := company(c)
	if !co.HRSuiteAccount {
		s.fail(c, errNotHRSuite)
		return
	}
	in, link, err := aggregator.Connect(c.Request.Context(), s.Store, s.Box, co, strings.TrimRight(s.Config.PublicBaseURL, "/")+"/webhook/aggregator")
	switch {
	case errors.Is(err, store.ErrNotFound):
		err = errNoAggregator
	case errors.Is(err, aggregator.ErrUnauthorized):
		err = errAggregatorRefused
	case errors.Is(err, aggregator.ErrTransient):
		err = errAggregatorDown
	case errors.Is(err, aggregator.ErrPermanent) || errors.Is(err, aggregator.ErrSetupPending):
		err = errAggregator
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, HRSuiteConnectResponse{Success: true, ConnectURL: link, State: in.State,
		Message: "Open connectUrl and authorise the connection; the card reads Syncing… until the first sync finishes, then Connected, and jobs import by themselves."})
}
