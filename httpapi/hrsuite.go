package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
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
	ctx := c.Request.Context()
	// A company already at its quota is answered before its body is read.
	used, err := s.Store.HRSuiteStorageUsed(ctx, co.ID)
	if err != nil {
		s.fail(c, err)
		return
	}
	if used >= s.Config.HRSuiteQuota {
		s.refuseOverQuota(c, co, &store.StorageQuotaError{Used: used, Quota: s.Config.HRSuiteQuota})
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
	key := callerKey(c)
	rec, err := s.Store.StoreHRSuiteDelivery(ctx, &models.HRSuiteDelivery{
		CompanyID: co.ID, ReceivedAt: received, Body: body, RowCount: rows, APIKeyID: &key.ID, RequestID: requestID(c),
	}, s.Config.HRSuiteQuota, func(id uuid.UUID) models.WorkflowStart {
		return workflows.HRSuiteDeliveryStart(co.Slug, workflows.HRSuiteDeliveryInput{CompanyID: co.ID, DeliveryID: id})
	})
	var over *store.StorageQuotaError
	if errors.As(err, &over) {
		s.refuseOverQuota(c, co, over)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	log := s.Log.With("request_id", requestID(c), "company", co.Slug, "delivery_id", rec.Delivery.ID, "rows", rows)
	if rec.Start != nil {
		if err := s.Launcher.LaunchMany(ctx, []models.WorkflowStart{*rec.Start}); err != nil {
			log.WarnContext(ctx, "hr-suite delivery stored; its ingest starts when Temporal is back (reconciler)", "err", err)
		}
		log.InfoContext(ctx, "hr-suite delivery stored", "body_bytes", rec.Delivery.BodyBytes, "stored_bytes", rec.Delivery.StoredBytes)
	} else {
		log.InfoContext(ctx, "hr-suite delivery repeats an earlier body; stored as a duplicate", "first_delivery_id", *rec.Delivery.DuplicateOf)
	}
	c.JSON(http.StatusOK, HRSuiteDeliveryResponse{Success: true, DeliveryID: rec.Delivery.ID, Rows: rows, DuplicateOf: rec.Delivery.DuplicateOf})
}

// quotaRetryAfter is the Retry-After of a delivery over the storage quota: the retention frees
// space at most hourly (the reconciler's prune).
const quotaRetryAfter = time.Hour

// refuseOverQuota answers 429 STORAGE_QUOTA_EXCEEDED: nothing was stored. The message says how
// full the company's storage is and how it empties, never what the body held.
func (s *server) refuseOverQuota(c *gin.Context, co *models.Company, e *store.StorageQuotaError) {
	s.Log.WarnContext(c.Request.Context(), "hr-suite delivery refused: storage quota exceeded", "request_id", requestID(c),
		"company", co.Slug, "used_bytes", e.Used, "quota_bytes", e.Quota)
	s.fail(c, tooMany("STORAGE_QUOTA_EXCEEDED", fmt.Sprintf("the company's stored HR-suite deliveries use %d of its %d bytes (HRSUITE_STORAGE_QUOTA_BYTES); "+
		"nothing was stored. Deliveries whose rows all have final outcomes are deleted %d days after; deliveries with unknown_job or no_trigger "+
		"rows are kept until a replay settles them. Send again later, or ask support to replay or raise the quota",
		e.Used, e.Quota, int(outbox.HRSuiteRetention.Hours()/24)), quotaRetryAfter))
}
