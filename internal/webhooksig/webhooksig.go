// Package webhooksig signs and verifies Standard Webhooks deliveries (webhook-id,
// webhook-timestamp, webhook-signature: "v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>").
// It is a leaf: the partner callbacks sign with it and the aggregator's webhook verifies with it,
// so neither adapter imports the other.
//
// A secret of the form "whsec_<base64>" is the Standard Webhooks serialisation: the HMAC key is
// the base64 decoding of the part after the prefix (standard or URL alphabet, padded or not). Any
// other string, including a "whsec_" one that does not decode, is used as the key as it is.
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far webhook-timestamp may be from the receiver's clock, either way.
const Tolerance = 5 * time.Minute

const secretPrefix = "whsec_"

// Errors of Verify. None of them carries a secret or a header value.
var (
	ErrMissingHeader = errors.New("missing header")
	ErrTimestamp     = errors.New("webhook-timestamp outside the tolerance")
	ErrSignature     = errors.New("no matching webhook-signature")
)

// Sign returns the signature "v1,<base64>" of body for webhookID at ts (unix seconds).
func Sign(secret, webhookID string, ts time.Time, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(Key(secret), webhookID, ts.Unix(), body))
}

// Verify checks h's webhook-id, webhook-timestamp (within Tolerance of now) and that one of the
// space-separated v1 signatures in webhook-signature matches body, which must be the raw request
// body, under secret; comparisons take constant time. It returns the signed timestamp. The error
// wraps one of the Err variables above.
func Verify(h http.Header, body []byte, secret string, now time.Time) (time.Time, error) {
	id, tsText, sigs := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp"), h.Get("Webhook-Signature")
	for _, hv := range [][2]string{{"webhook-id", id}, {"webhook-timestamp", tsText}, {"webhook-signature", sigs}} {
		if hv[1] == "" {
			return time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, hv[0])
		}
	}
	sec, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: not unix seconds", ErrTimestamp)
	}
	ts := time.Unix(sec, 0)
	if d := now.Sub(ts); d > Tolerance || d < -Tolerance {
		return time.Time{}, fmt.Errorf("%w: %s from now", ErrTimestamp, d.Round(time.Second))
	}
	want := mac(Key(secret), id, sec, body)
	for _, sig := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return ts, nil
		}
	}
	return time.Time{}, ErrSignature
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

// Key is the HMAC key of a secret: the base64 decoding of a "whsec_" secret, in any of the four
// alphabet and padding variants, else the secret's own bytes.
func Key(secret string) []byte {
	if enc, ok := strings.CutPrefix(secret, secretPrefix); ok && enc != "" {
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if key, err := e.DecodeString(enc); err == nil {
				return key
			}
		}
	}
	return []byte(secret)
}
