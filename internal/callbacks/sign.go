package callbacks

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/recruitd/recruitd/internal/webhooksig"
)

// Tolerance is how far webhook-timestamp may be from the receiver's clock, either way.
const Tolerance = webhooksig.Tolerance

// Errors of Verify. None of them carries a secret or a header value.
var (
	ErrNoSecret       = errors.New("callback or signing secret not configured")
	ErrMissingHeader  = webhooksig.ErrMissingHeader
	ErrCallbackSecret = errors.New("x-service-callback-secret does not match")
	ErrTimestamp      = webhooksig.ErrTimestamp
	ErrSignature      = webhooksig.ErrSignature
)

// Sign returns the Standard Webhooks signature "v1,<base64>" of body for webhookID at ts (unix
// seconds). The package doc says how signingSecret becomes the HMAC key.
func Sign(signingSecret, webhookID string, ts time.Time, body []byte) string {
	return webhooksig.Sign(signingSecret, webhookID, ts, body)
}

// Verify is the receiver's check of a callback, in this order: both secrets are configured; the
// x-service-callback-secret header equals callbackSecret; webhook-id, webhook-timestamp and
// webhook-signature are present; the timestamp is within Tolerance of now; and one of the
// space-separated v1 signatures matches body, which must be the raw request body. Comparisons
// take constant time. The error wraps one of the Err variables above.
func Verify(h http.Header, body []byte, callbackSecret, signingSecret string, now time.Time) error {
	if callbackSecret == "" || signingSecret == "" {
		return ErrNoSecret
	}
	got := h.Get("X-Service-Callback-Secret")
	if got == "" {
		return fmt.Errorf("%w: x-service-callback-secret", ErrMissingHeader)
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(callbackSecret)) != 1 {
		return ErrCallbackSecret
	}
	_, err := webhooksig.Verify(h, body, signingSecret, now)
	return err
}
