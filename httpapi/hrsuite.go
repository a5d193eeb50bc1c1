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

var errNotHRSuite = newError(http.StatusBadRequest, "NOT_HR_SUITE_ACCOUNT",
	"this company is not an HR-suite account; an operator enables it with recruitd company update --hr-suite")

// requireHRSuiteAccount lets through only the companies an operator made HR-suite accounts: the
// HR-suite webhook and the integration card's Connect are theirs.
func (s *server) requireHRSuiteAccount(c *gin.Context) {
	if !company(c).HRSuiteAccount {
		s.fail(c, errNotHRSuite)
		return
	}
	c.Next()
}

func (s *server) hrsuite() *hrsuite.Deliveries {
	return &hrsuite.Deliveries{Store: s.Store, Launcher: s.Launcher, Log: s.Log}
}

// hrsuiteWebhook is POST /webhook/hrsuite: the feature stores the delivery with the start of its
// ingest and starts it (hrsuite.Receive); the answer is 200 once the delivery is stored, whatever
// Temporal did. A company already at its storage quota is answered before its body is read.
func (s *server) hrsuiteWebhook(c *gin.Context) {
	received := time.Now().UTC()
	co := company(c)
	ctx := c.Request.Context()
	if err := s.hrsuite().Admit(ctx, co, s.Config.HRSuiteQuota); err != nil {
		s.failHRSuite(c, co, err)
		return
	}
	body, err := readJSONBody(c)
	if errors.Is(err, errTooLarge) {
		err = deliveryTooLarge(s.Config.HRSuiteMaxBody)
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	key := callerKey(c)
	rec, err := s.hrsuite().Receive(ctx, co, hrsuite.Delivery{Body: body, ReceivedAt: received, APIKeyID: &key.ID, RequestID: requestID(c)}, s.Config.HRSuiteQuota)
	if err != nil {
		s.failHRSuite(c, co, err)
		return
	}
	d := rec.Delivery
	c.JSON(http.StatusOK, HRSuiteDeliveryResponse{Success: true, DeliveryID: d.ID, Rows: d.RowCount, DuplicateOf: d.DuplicateOf})
}

// failHRSuite answers a delivery over the company's storage quota with refuseOverQuota, any
// other error through the error table.
func (s *server) failHRSuite(c *gin.Context, co *models.Company, err error) {
	var over *store.StorageQuotaError
	if errors.As(err, &over) {
		s.refuseOverQuota(c, co, over)
		return
	}
	s.fail(c, err)
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
