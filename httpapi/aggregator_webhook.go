package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// AggregatorWebhookResponse acknowledges an aggregator webhook.
type AggregatorWebhookResponse struct {
	Success   bool   `json:"success"`
	Duplicate bool   `json:"duplicate"`
	Outcome   string `json:"outcome"`
}

var errBadSignature = newError(http.StatusUnauthorized, "INVALID_SIGNATURE",
	"the delivery is not signed by a known integration (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature)")

// signalTimeout bounds the signal of the job import, so a delivery answers within seconds while
// Temporal is down (503: the aggregator redelivers).
const signalTimeout = 2 * time.Second

// aggregatorWebhook takes an aggregator delivery: it finds the integration the event names,
// verifies the Standard Webhooks signature with that integration's secret (401 and nothing
// stored otherwise), records the event once per id and applies it in one transaction, then
// starts or signals the company's job import.
func (s *server) aggregatorWebhook(c *gin.Context) {
	ctx := c.Request.Context()
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.fail(c, jsonError(err))
		return
	}
	ev, signedAt, integ, err := s.verifyAggregatorEvent(c, body)
	if err != nil {
		s.AggregatorMetrics.Webhook("unverified", "rejected")
		s.fail(c, err)
		return
	}
	co, err := s.Store.Company(ctx, integ.CompanyID)
	if err != nil {
		s.fail(c, err)
		return
	}
	rec := store.AggregatorEvent{ID: ev.ID, Type: ev.Type, IntegrationID: ev.IntegrationID, State: ev.State,
		SetupStatus: ev.SetupStatus, Body: body, SignedAt: signedAt}
	if ev.Type == aggregator.EventIntegrationStateChanged {
		rec.Card, rec.Reason = aggregator.Card(ev.State, ev.SetupStatus)
	}
	res, err := s.Store.RecordAggregatorEvent(ctx, co.ID, rec, workflows.JobImportStart(co.Slug, co.ID))
	if err != nil {
		s.fail(c, err)
		return
	}
	s.AggregatorMetrics.Webhook(ev.Type, res.Outcome)
	if res.ImportStart != nil {
		if err := s.Launcher.Launch(ctx, res.ImportStart); err != nil {
			s.fail(c, err)
			return
		}
	}
	if res.State == models.IntegrationConnected && (res.BecameConnected || ev.Type == aggregator.EventDataChanged && ev.Touches("ats_jobs")) {
		sctx, cancel := context.WithTimeout(ctx, signalTimeout)
		start := workflows.JobImportStart(co.Slug, co.ID)
		err := s.Launcher.Starter.Signal(sctx, &start)
		cancel()
		if err != nil {
			s.Log.WarnContext(ctx, "job import not signalled; the aggregator redelivers", "company", co.Slug, "event_id", ev.ID, "err", err)
			s.fail(c, errUnavailable)
			return
		}
	}
	c.JSON(http.StatusOK, AggregatorWebhookResponse{Success: true, Duplicate: res.Duplicate, Outcome: res.Outcome})
}

// verifyAggregatorEvent parses the body and checks its signature against the secret of the
// integration it names. Every failure is the same 401, so a caller learns nothing about which
// integrations exist.
func (s *server) verifyAggregatorEvent(c *gin.Context, body []byte) (aggregator.Event, time.Time, *models.AggregatorIntegration, error) {
	ctx := c.Request.Context()
	ev, err := aggregator.ParseEvent(body)
	if err != nil {
		return ev, time.Time{}, nil, errBadSignature
	}
	integ, err := s.Store.IntegrationForEvent(ctx, ev.IntegrationID, ev.OriginID)
	if errors.Is(err, store.ErrNotFound) {
		return ev, time.Time{}, nil, errBadSignature
	}
	if err != nil {
		return ev, time.Time{}, nil, err
	}
	_, secret, err := store.OpenAggregatorSecrets(s.Box, integ)
	if err != nil {
		return ev, time.Time{}, nil, err
	}
	signedAt, err := aggregator.VerifySignature(c.Request.Header, body, secret, time.Now())
	if err != nil {
		s.Log.WarnContext(ctx, "aggregator webhook refused", "request_id", requestID(c), "reason", err)
		return ev, time.Time{}, nil, errBadSignature
	}
	return ev, signedAt, integ, nil
}
