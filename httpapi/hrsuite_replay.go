package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/models"
)

// The support endpoints of stored HR-suite deliveries (/v1/support/hrsuite), behind a platform
// admin's support token (authenticateSupport): list and show deliveries, plan and run replays.

// filterError maps the feature's filter errors to 400 INVALID_FILTER, naming what is wrong.
func filterError(err error) error {
	if errors.Is(err, hrsuite.ErrInvalid) {
		return newError(http.StatusBadRequest, "INVALID_FILTER", strings.TrimPrefix(err.Error(), hrsuite.ErrInvalid.Error()+": "))
	}
	return err
}

func queryFilter(c *gin.Context) hrsuite.FilterInput {
	return hrsuite.FilterInput{Company: c.Query("company"), From: c.Query("from"), To: c.Query("to"), Outcome: c.Query("outcome")}
}

// listHRSuiteDeliveries is GET /v1/support/hrsuite/deliveries?company=&from=&to=&outcome=&limit=.
func (s *server) listHRSuiteDeliveries(c *gin.Context) {
	f, err := hrsuite.ParseFilter(queryFilter(c))
	if err != nil {
		s.fail(c, filterError(err))
		return
	}
	limit := 50
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			s.fail(c, newError(http.StatusBadRequest, "INVALID_FILTER", "limit must be a number from 1 to 1000"))
			return
		}
		limit = n
	}
	list, err := s.hrsuite().List(c.Request.Context(), f, limit)
	if err != nil {
		s.fail(c, filterError(err))
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "deliveries": list})
}

// getHRSuiteDelivery is GET /v1/support/hrsuite/deliveries/:deliveryId?outcome=: the delivery
// and its row outcomes (ids and outcomes; never the rows' names or contact cells).
func (s *server) getHRSuiteDelivery(c *gin.Context) {
	id, err := uuid.Parse(c.Param("deliveryId"))
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_FILTER", "deliveryId must be a UUID"))
		return
	}
	f, err := hrsuite.ParseFilter(hrsuite.FilterInput{Outcome: c.Query("outcome")})
	if err != nil {
		s.fail(c, filterError(err))
		return
	}
	d, err := s.hrsuite().Show(c.Request.Context(), id, f.Outcome)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "delivery": d})
}

// ReplayRequest is the body of POST /v1/support/hrsuite/replays: one delivery, or a filter.
type ReplayRequest struct {
	DeliveryID string `json:"deliveryId"`
	Company    string `json:"company"`
	From       string `json:"from"`
	To         string `json:"to"`
	Outcome    string `json:"outcome"`
	DryRun     bool   `json:"dryRun"`
}

// replayHRSuite is POST /v1/support/hrsuite/replays. A dry run answers 200 with what would be
// reprocessed; a replay answers 202 with its id, followed with GET .../replays/:replayId.
func (s *server) replayHRSuite(c *gin.Context) {
	var req ReplayRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	f, err := hrsuite.ParseFilter(hrsuite.FilterInput{DeliveryID: req.DeliveryID, Company: req.Company, From: req.From, To: req.To, Outcome: req.Outcome})
	if err != nil {
		s.fail(c, filterError(err))
		return
	}
	if f == (models.HRSuiteFilter{}) {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_FILTER", "name a deliveryId or at least one of company, from, to, outcome"))
		return
	}
	ctx := c.Request.Context()
	if req.DryRun {
		plan, err := s.hrsuite().Plan(ctx, f)
		if err != nil {
			s.fail(c, filterError(err))
			return
		}
		c.JSON(http.StatusOK, gin.H{"success": true, "dryRun": true, "plan": plan})
		return
	}
	u := supportUser(c)
	r, err := s.hrsuite().Replay(ctx, f, u.Email)
	if err != nil {
		s.fail(c, filterError(err))
		return
	}
	s.Log.InfoContext(ctx, "hr-suite replay requested", "request_id", requestID(c), "replay_id", r.ID, "by_user", u.ID, "deliveries", r.Deliveries)
	c.JSON(http.StatusAccepted, gin.H{"success": true, "replay": r})
}

// getHRSuiteReplay is GET /v1/support/hrsuite/replays/:replayId: the replay's record and progress.
func (s *server) getHRSuiteReplay(c *gin.Context) {
	id, err := uuid.Parse(c.Param("replayId"))
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_FILTER", "replayId must be a UUID"))
		return
	}
	r, err := s.hrsuite().ReplayStatus(c.Request.Context(), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "replay": r})
}
