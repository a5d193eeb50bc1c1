package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// SessionReportResponse answers GET /v1/api/sessions/{sessionId}/report: the report of a
// completed interview (docs/reports.md).
type SessionReportResponse struct {
	Success bool           `json:"success"`
	Report  *report.Report `json:"report"`
}

var (
	errNoSession     = newError(http.StatusNotFound, "SESSION_NOT_FOUND", "no session with this id in your company")
	errReportPending = newError(http.StatusNotFound, "REPORT_NOT_READY", "this session has no report yet: it is made once the interview is completed; ask again later")
)

func (s *server) getSessionReport(c *gin.Context) {
	id, err := uuid.Parse(c.Param("sessionId"))
	if err != nil {
		s.fail(c, errNoSession)
		return
	}
	co := company(c)
	ctx := c.Request.Context()
	r, err := report.Read(ctx, s.Store, co.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		sess, serr := s.Store.Session(ctx, co.ID, id)
		switch {
		case errors.Is(serr, store.ErrNotFound):
			s.fail(c, errNoSession)
		case serr != nil:
			s.fail(c, serr)
		case noReport(sess.Status):
			failStatus(c, "REPORT_NOT_AVAILABLE", "this session is "+string(sess.Status)+": it has no report and will not get one", sess.Status)
		default:
			s.fail(c, errReportPending)
		}
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, SessionReportResponse{Success: true, Report: r})
}

// noReport reports whether a session in status st never gets a report: it ended without a
// completed interview.
func noReport(st models.SessionStatus) bool {
	switch st {
	case models.SessionStatusCancelled, models.SessionStatusDeclined, models.SessionStatusExpired, models.SessionStatusIncomplete:
		return true
	}
	return false
}
