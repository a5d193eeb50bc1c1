package httpapi

import (
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/idverify"
)

// The identity-verification provider's webhook (internal/identity): POST /webhook/idverify,
// authenticated by its Standard Webhooks signature under IDV_WEBHOOK_SECRET.

var (
	errIDVSignature = newError(http.StatusUnauthorized, "INVALID_SIGNATURE",
		"the delivery is not signed by the identity-verification provider (Standard Webhooks: webhook-id, webhook-timestamp within 5 minutes, webhook-signature)")
	errIDVEvent    = newError(http.StatusBadRequest, "INVALID_WEBHOOK", "the delivery is not an identity-verification event")
	errIDVUnknown  = newError(http.StatusNotFound, "VERIFICATION_NOT_FOUND", "no identity verification matches the delivery's id and reference")
	errIDVReplayed = newError(http.StatusConflict, "WEBHOOK_REPLAYED", "a delivery with this webhook-id was received before; nothing was applied again")
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
