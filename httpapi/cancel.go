package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// CancelSessionRequest is the body of POST /v1/api/sessions/{sessionId}/cancel.
type CancelSessionRequest struct {
	Reason string `json:"reason"`
}

// CancelSessionResponse answers it, the same for a repeated cancel: the session as cancelled,
// when, and the reason it was first cancelled with (null for a cancellation recruitd made).
type CancelSessionResponse struct {
	Success     bool                 `json:"success"`
	SessionID   uuid.UUID            `json:"sessionId"`
	Status      models.SessionStatus `json:"status"`
	CancelledAt *time.Time           `json:"cancelledAt"`
	Reason      *string              `json:"reason"`
}

func (s *server) cancelSession(c *gin.Context) {
	id, err := uuid.Parse(c.Param("sessionId"))
	if err != nil {
		s.fail(c, errNoSession)
		return
	}
	var req CancelSessionRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	l := &interview.Lifecycle{Store: s.Store, Launcher: s.Launcher}
	ch, err := l.Cancel(c.Request.Context(), company(c), id, interview.Cancellation{By: store.CancelledByAPI, Reason: req.Reason})
	if errors.Is(err, store.ErrNotFound) {
		s.fail(c, errNoSession)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	if ch.LaunchErr != nil {
		// Committed: the reconciler tells the session's run later.
		s.Log.WarnContext(c.Request.Context(), "cancelled session's run not told yet", "request_id", requestID(c), "session_id", id, "err", ch.LaunchErr)
	}
	var at *time.Time
	if ch.Session.EndedAt != nil {
		t := ch.Session.EndedAt.UTC()
		at = &t
	}
	c.JSON(http.StatusOK, CancelSessionResponse{Success: true, SessionID: id, Status: ch.Session.Status, CancelledAt: at, Reason: ch.Session.CancelReason})
}
