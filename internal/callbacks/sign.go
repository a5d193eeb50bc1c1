package callbacks

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// signingPrefix marks a Standard Webhooks secret whose key is base64 encoded.
const signingPrefix = "whsec_"

// Tolerance is how far webhook-timestamp may be from the receiver's clock, either way.
const Tolerance = 5 * time.Minute

// Errors of Verify. None of them carries a secret or a header value.
var (
	ErrNoSecret       = errors.New("callback or signing secret not configured")
	ErrMissingHeader  = errors.New("missing callback header")
	ErrCallbackSecret = errors.New("x-service-callback-secret does not match")
	ErrTimestamp      = errors.New("webhook-timestamp outside the tolerance")
	ErrSignature      = errors.New("no matching webhook-signature")
)

// Sign returns the Standard Webhooks signature "v1,<base64>" of body for webhookID at ts (unix
// seconds). The package doc says how signingSecret becomes the HMAC key.
func Sign(signingSecret, webhookID string, ts time.Time, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(signingKey(signingSecret), webhookID, ts.Unix(), body))
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
	id, tsText, sigs := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp"), h.Get("Webhook-Signature")
	for _, hv := range [][2]string{{"webhook-id", id}, {"webhook-timestamp", tsText}, {"webhook-signature", sigs}} {
		if hv[1] == "" {
			return fmt.Errorf("%w: %s", ErrMissingHeader, hv[0])
		}
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: not unix seconds", ErrTimestamp)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("%w: %s from now", ErrTimestamp, d.Round(time.Second))
	}
	want := mac(signingKey(signingSecret), id, ts, body)
	for _, sig := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrSignature
}

func mac(key []byte, id string, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write(strconv.AppendInt(nil, ts, 10))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// signingKey is the HMAC key of a signing secret: the base64 decoding of a "whsec_" secret, in
// any of the four alphabet and padding variants, else the secret's own bytes.
func signingKey(secret string) []byte {
	if enc, ok := strings.CutPrefix(secret, signingPrefix); ok && enc != "" {
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if key, err := e.DecodeString(enc); err == nil {
				return key
			}
		}
	}
	return []byte(secret)
}
