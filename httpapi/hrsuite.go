package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows"
)

// HRSuiteDeliveryResponse answers a stored delivery: its id (support finds it by this), how
// many rows it holds, and, for a body identical to an earlier delivery, that delivery's id (the
// repeat is stored and changes nothing else). Rows are processed asynchronously.
type HRSuiteDeliveryResponse struct {
	Success     bool       `json:"success"`
	DeliveryID  uuid.UUID  `json:"deliveryId"`
	Rows        int        `json:"rows"`
	DuplicateOf *uuid.UUID `json:"duplicateOf,omitempty"`
}

var errNotArray = newError(http.StatusBadRequest, "NOT_A_JSON_ARRAY", "the body must be one JSON array of report rows")

// hrsuitePath is the webhook's path: its body limit is HRSUITE_MAX_BODY_BYTES.
const hrsuitePath = "/webhook/hrsuite"

// hrsuiteWebhook stores a delivery before anything else, in one transaction with the start of
// its ingest, then starts the ingest and answers 200: the rows are processed asynchronously
// (workflows.HRSuiteDelivery). When Temporal does not take the start, the stored delivery still
// answers 200: its start stays in the outbox and the reconciler starts it, since the HR suite
// needs nothing back from the processing and a retry would only store a duplicate.
func (s *server) hrsuiteWebhook(c *gin.Context) {
	received := time.Now().UTC()
	co := company(c)
	if !co.HRSuiteAccount {
		s.fail(c, errNotHRSuite)
		return
	}
	body, err := readJSONBody(c)
	switch {
	case errors.Is(err, errTooLarge):
		s.fail(c, deliveryTooLarge(s.Config.HRSuiteMaxBody))
		return
	case err != nil:
		s.fail(c, err)
		return
	}
	rows, err := hrsuite.Count(body)
	if err != nil {
		s.fail(c, errNotArray)
		return
	}
	ctx := c.Request.Context()
	key := callerKey(c)
	rec, err := s.Store.StoreHRSuiteDelivery(ctx, &models.HRSuiteDelivery{
		CompanyID: co.ID, ReceivedAt: received, Body: body, RowCount: rows, APIKeyID: &key.ID, RequestID: requestID(c),
	}, func(id uuid.UUID) models.WorkflowStart {
		return workflows.HRSuiteDeliveryStart(co.Slug, workflows.HRSuiteDeliveryInput{CompanyID: co.ID, DeliveryID: id})
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	log := s.Log.With("request_id", requestID(c), "company", co.Slug, "delivery_id", rec.Delivery.ID, "rows", rows)
	if rec.Start != nil {
		if err := s.Launcher.LaunchMany(ctx, []models.WorkflowStart{*rec.Start}); err != nil {
			log.WarnContext(ctx, "hr-suite delivery stored; its ingest starts when Temporal is back (reconciler)", "err", err)
		}
		log.InfoContext(ctx, "hr-suite delivery stored")
	} else {
		log.InfoContext(ctx, "hr-suite delivery repeats an earlier body; stored as a duplicate", "first_delivery_id", *rec.Delivery.DuplicateOf)
	}
	c.JSON(http.StatusOK, HRSuiteDeliveryResponse{Success: true, DeliveryID: rec.Delivery.ID, Rows: rows, DuplicateOf: rec.Delivery.DuplicateOf})
}
