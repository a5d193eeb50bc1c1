package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/httpapi/interviewpage"
	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/idverify"
)

// The identity-verification provider's webhook (internal/identity): POST /webhook/idverify,
// authenticated by its Standard Webhooks signature under IDV_WEBHOOK_SECRET.

var (
	errIDVSignature = newError(http.StatusUnauthorized, "INVALID_SIGNATURE",
		"the delivery is not signed by the identity-verification provider (Standard Webhooks: webhook-id, webhook-timestamp within 5 minutes, webhook-signature)")
	errIDVEvent   = newError(http.StatusBadRequest, "INVALID_WEBHOOK", "the delivery is not an identity-verification event")
	errIDVUnknown = newError(http.StatusNotFound, "VERIFICATION_NOT_FOUND", "no identity verification matches the delivery's id and reference")
)

// IdentityWebhookResponse acknowledges an identity-verification webhook.
type IdentityWebhookResponse struct {
	Success bool   `json:"success"`
	Status  string `json:"status"`
	Outcome string `json:"outcome"`
}

// identity is the feature for the provider account of the IDV_* settings (the interview page
// starts verifications through it too).
func (s *server) identity() *identity.Verifications {
	return identity.New(s.Store, identity.Settings{BaseURL: s.Config.IDVBaseURL, APIKey: s.Config.IDVAPIKey,
		WebhookSecret: s.Config.IDVWebhookSecret, TTL: s.Config.IDVTTL}, s.Log)
}

// idverifyWebhook is POST /webhook/idverify: the feature verifies the signature and applies the
// outcome to the verification the delivery names.
func (s *server) idverifyWebhook(c *gin.Context) {
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, idverify.MaxBody+1))
	if err != nil {
		s.fail(c, jsonError(err))
		return
	}
	if len(body) > idverify.MaxBody {
		s.fail(c, errTooLarge)
		return
	}
	res, err := s.identity().ReceiveWebhook(c.Request.Context(), c.Request.Header, body, requestID(c))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, IdentityWebhookResponse{Success: true, Status: string(res.Status), Outcome: res.Outcome})
}

// getIdentityReturn is GET /interview/identity-return/{id}: the single-use address the provider
// sends the candidate back to. The first visit redirects to the interview page; a used or
// unknown id gets the page's unknown screen (404), so the address is worth nothing once used.
func (s *server) getIdentityReturn(c *gin.Context) {
	token, err := s.identity().ClaimReturn(c.Request.Context(), c.Param("token"))
	switch {
	case errors.Is(err, identity.ErrUnknownReturn):
		s.renderPage(c, http.StatusNotFound, interviewpage.Data{Screen: interviewpage.ScreenUnknown})
	case err != nil:
		s.Log.ErrorContext(c.Request.Context(), "identity return failed", "request_id", requestID(c), "err", err)
		s.renderPage(c, http.StatusInternalServerError, interviewpage.Data{Screen: interviewpage.ScreenFailed})
	default:
		c.Redirect(http.StatusSeeOther, "/interview/"+url.PathEscape(token))
	}
}
