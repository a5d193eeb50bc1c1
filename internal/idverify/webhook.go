package idverify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/webhooksig"
	"github.com/recruitd/recruitd/models"
)

// Webhook event types that carry an outcome. Other types parse and are ignored by the receiver.
const (
	EventVerified = "verification.verified"
	EventFailed   = "verification.failed"
)

// MaxBody is the largest webhook body ParseEvent reads.
const MaxBody = 64 << 10

// MaxReasonLen bounds a failure reason, in characters (identity_daily keys on its first 500).
const MaxReasonLen = 500

// Errors of VerifyWebhook and ParseEvent. None carries a secret, a header value or the body.
var (
	// ErrSignature: a header is missing, the timestamp is outside webhooksig.Tolerance, no
	// signature matches, or no secret is configured. It wraps the webhooksig error.
	ErrSignature = errors.New("the delivery is not signed by the identity-verification provider")
	// ErrBadEvent: a signed body that is not an identity-verification event.
	ErrBadEvent = errors.New("invalid identity-verification event")
)

// Event is a provider webhook, reduced to what recruitd acts on.
type Event struct {
	Type string
	// VerificationID is the provider's id; Reference recruitd's, as given at creation.
	VerificationID string
	Reference      uuid.UUID
	// Status is the provider's status of the verification ("verified", "failed", …).
	Status string
	// FailureReason is the cleaned reason of a failure ("" when none was given).
	FailureReason string
}

// Outcome is the identity status the event concludes with, and false for an event that
// concludes nothing (another type).
func (e Event) Outcome() (models.IdentityStatus, bool) {
	switch e.Type {
	case EventVerified:
		return models.IdentityStatusVerified, true
	case EventFailed:
		return models.IdentityStatusFailed, true
	}
	return "", false
}

// Delivery is a verified webhook delivery: its webhook-id (the same on every retry), the signed
// timestamp and the event.
type Delivery struct {
	ID       string
	SignedAt time.Time
	Event    Event
}

// VerifyWebhook checks a Standard Webhooks delivery under the account's secret (webhook-id,
// webhook-timestamp within webhooksig.Tolerance of now, a matching v1 signature of the raw
// body) and then parses the body. Errors wrap ErrSignature or ErrBadEvent.
func VerifyWebhook(h http.Header, body []byte, secret string, now time.Time) (Delivery, error) {
	if secret == "" {
		return Delivery{}, fmt.Errorf("%w: no webhook secret configured", ErrSignature)
	}
	ts, err := webhooksig.Verify(h, body, secret, now)
	if err != nil {
		return Delivery{}, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	id := h.Get("Webhook-Id")
	if !validID(id) {
		return Delivery{}, fmt.Errorf("%w: webhook-id is not 1 to %d printable characters", ErrBadEvent, maxIDLen)
	}
	ev, err := ParseEvent(body)
	if err != nil {
		return Delivery{}, err
	}
	return Delivery{ID: id, SignedAt: ts.UTC(), Event: ev}, nil
}

type wireEvent struct {
	Type string `json:"type"`
	Data *struct {
		ID            string  `json:"id"`
		Reference     string  `json:"reference"`
		Status        string  `json:"status"`
		FailureReason *string `json:"failure_reason"`
	} `json:"data"`
}

// ParseEvent reads a webhook body (untrusted: it is parsed only after its signature matched,
// but it is still bounded and checked):
//
//	{"type": "verification.verified" | "verification.failed" | <other>, "created_at": "…",
//	 "data": {"id": "<provider id>", "reference": "<uuid>", "status": "verified" | "failed",
//	          "failure_reason": "<text, failures only>"}}
//
// At most MaxBody bytes holding one JSON object; type of 1 to 100 printable ASCII characters;
// data.id of 1 to 200; data.reference a UUID; for the two outcome types a status that agrees
// with the type. A failure reason is cleaned: control characters become spaces, runs of white
// space one space, trimmed, cut to MaxReasonLen characters. Unknown fields are ignored.
func ParseEvent(body []byte) (Event, error) {
	if len(body) > MaxBody {
		return Event{}, fmt.Errorf("%w: body over %d bytes", ErrBadEvent, MaxBody)
	}
	if !utf8.Valid(body) {
		return Event{}, fmt.Errorf("%w: body is not UTF-8", ErrBadEvent)
	}
	var w wireEvent
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return Event{}, fmt.Errorf("%w: not a JSON object of the expected shape", ErrBadEvent)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("%w: more than one JSON value", ErrBadEvent)
	}
	if w.Type == "" || len(w.Type) > 100 || !validID(w.Type) {
		return Event{}, fmt.Errorf("%w: type is missing or not 1 to 100 printable characters", ErrBadEvent)
	}
	if w.Data == nil {
		return Event{}, fmt.Errorf("%w: no data", ErrBadEvent)
	}
	if !validID(w.Data.ID) {
		return Event{}, fmt.Errorf("%w: data.id is missing or not 1 to %d printable characters", ErrBadEvent, maxIDLen)
	}
	ref, err := uuid.Parse(w.Data.Reference)
	if err != nil || ref == uuid.Nil || len(w.Data.Reference) != 36 {
		return Event{}, fmt.Errorf("%w: data.reference is not a UUID", ErrBadEvent)
	}
	if len(w.Data.Status) > 100 || !utf8.ValidString(w.Data.Status) {
		return Event{}, fmt.Errorf("%w: data.status is too long", ErrBadEvent)
	}
	ev := Event{Type: w.Type, VerificationID: w.Data.ID, Reference: ref, Status: w.Data.Status}
	switch w.Type {
	case EventVerified:
		if w.Data.Status != "verified" {
			return Event{}, fmt.Errorf("%w: %s with status other than verified", ErrBadEvent, w.Type)
		}
	case EventFailed:
		if w.Data.Status != "failed" {
			return Event{}, fmt.Errorf("%w: %s with status other than failed", ErrBadEvent, w.Type)
		}
		if w.Data.FailureReason != nil {
			ev.FailureReason = CleanReason(*w.Data.FailureReason)
		}
	}
	return ev, nil
}

// CleanReason turns a provider's failure reason into text that is safe to store and show:
// invalid UTF-8 and control characters become spaces, runs of white space one space, the result
// is trimmed and cut to MaxReasonLen characters.
func CleanReason(s string) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range strings.ToValidUTF8(s, " ") {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if n == MaxReasonLen {
			break
		}
		if space {
			if n+1 == MaxReasonLen {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
