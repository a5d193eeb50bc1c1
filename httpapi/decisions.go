package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/atswrite"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// DecisionRequest is the body of PUT /v1/api/sessions/{sessionId}/decision.
type DecisionRequest struct {
	Decision string `json:"decision"`
	Note     string `json:"note"`
}

// DecisionResponse answers it: the recorded decision and, when the company's pair for it is
// written to the ATS, the write's id and status (docs/ats.md, "Write-back"). Changed is false
// when the decision was the session's already: nothing was queued, and ATSWrite is the write
// the earlier request queued.
type DecisionResponse struct {
	Success   bool            `json:"success"`
	SessionID uuid.UUID       `json:"sessionId"`
	Decision  models.Decision `json:"decision"`
	Changed   bool            `json:"changed"`
	// ATSWrite is the queued write, or null with ATSWriteSkipped saying why none was queued.
	ATSWrite        *DecisionWrite `json:"atsWrite"`
	ATSWriteSkipped string         `json:"atsWriteSkipped,omitempty"`
}

// DecisionWrite is the write a decision queued.
type DecisionWrite struct {
	ID     uuid.UUID `json:"id"`
	Status string    `json:"status"`
	Field  string    `json:"field"`
	Value  string    `json:"value"`
}

var (
	errBadDecision = newError(http.StatusBadRequest, "INVALID_FIELD", "decision must be one of NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED")
	errBadNote     = newError(http.StatusBadRequest, "INVALID_FIELD", "note holds a control character (other than tab and line breaks) or bytes that are not UTF-8")
)

// SessionStatusError is the error body of an answer about a session's status
// (SESSION_NOT_ENDED, REPORT_NOT_AVAILABLE): the spec's shape and the session's status.
type SessionStatusError struct {
	ErrorBody
	SessionStatus models.SessionStatus `json:"sessionStatus"`
}

// failStatus answers 409 with code and the session's status.
func failStatus(c *gin.Context, code, message string, status models.SessionStatus) {
	c.AbortWithStatusJSON(http.StatusConflict, SessionStatusError{ErrorBody: ErrorBody{Message: message, Code: code}, SessionStatus: status})
}

func (s *server) putSessionDecision(c *gin.Context) {
	id, err := uuid.Parse(c.Param("sessionId"))
	if err != nil {
		s.fail(c, errNoSession)
		return
	}
	var req DecisionRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	d, err := models.ParseDecision(req.Decision)
	if err != nil {
		s.fail(c, errBadDecision)
		return
	}
	co := company(c)
	w := &atswrite.Writes{Store: s.Store, Launcher: s.Launcher, Box: s.Box, Links: s.Config.Links(), Log: s.Log}
	res, err := w.Decide(c.Request.Context(), co, id, d, req.Note, uuid.Nil)
	var open *atswrite.SessionOpenError
	switch {
	case errors.As(err, &open):
		failStatus(c, "SESSION_NOT_ENDED", "the session is "+string(open.Status)+": a decision is taken once the interview has ended", open.Status)
		return
	case errors.Is(err, store.ErrNotFound):
		s.fail(c, errNoSession)
		return
	case errors.Is(err, atswrite.ErrInvalidNote):
		s.fail(c, errBadNote)
		return
	case err != nil:
		s.fail(c, err)
		return
	}
	out := DecisionResponse{Success: true, SessionID: id, Decision: res.Session.Decision, Changed: res.Changed, ATSWriteSkipped: res.Skipped}
	if res.Write != nil {
		out.ATSWrite = &DecisionWrite{ID: res.Write.ID, Status: res.Write.Status, Field: res.Write.Field, Value: res.Write.Value}
	}
	c.JSON(http.StatusOK, out)
}
