package idverify

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/webhooksig"
	"github.com/recruitd/recruitd/models"
)

// Stripe Identity's event types (docs/decisions.md): a VerificationSession verified, one that
// needs the candidate again after a failed check (its last_error says why), and one canceled.
// Other types (created, processing, redacted) parse and are ignored by the receiver.
const (
	EventVerified      = "identity.verification_session.verified"
	EventRequiresInput = "identity.verification_session.requires_input"
	EventCanceled      = "identity.verification_session.canceled"
)

// SignatureHeader is Stripe's signature header: t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=...].
const SignatureHeader = "Stripe-Signature"

// MaxBody is the largest webhook body ParseEvent reads.
const MaxBody = 64 << 10

// MaxReasonLen bounds a failure reason, in characters (identity_daily keys on its first 500).
const MaxReasonLen = 500

// Errors of VerifyWebhook and ParseEvent. None carries a secret, a header value or the body.
var (
	// ErrSignature: the header is missing or malformed, its timestamp is outside
	// webhooksig.Tolerance, no v1 signature matches, or no secret is configured.
	ErrSignature = errors.New("the delivery is not signed by the identity-verification provider")
	// ErrBadEvent: a signed body that is not an identity-verification event.
	ErrBadEvent = errors.New("invalid identity-verification event")
)

// Event is a parsed webhook event about one VerificationSession.
type Event struct {
	// ID is the event's id (evt_...): the same on every retry of one delivery.
	ID   string
	Type string
	// VerificationID is the provider's id of the session (vs_...), Reference recruitd's own
	// (metadata.reference, which Create set).
	VerificationID string
	Reference      uuid.UUID
	Status         string
	// FailureReason is last_error's reason (or its code) of a requires_input event, cleaned.
	FailureReason string
}

// Outcome is the status the event concludes the verification with; false for events that
// conclude nothing.
func (e Event) Outcome() (models.IdentityStatus, bool) {
	switch e.Type {
	case EventVerified:
		return models.IdentityStatusVerified, true
	case EventRequiresInput, EventCanceled:
		return models.IdentityStatusFailed, true
	}
	return "", false
}

// Delivery is a verified webhook delivery: its event id (the replay key) and signed time.
type Delivery struct {
	ID       string
	SignedAt time.Time
	Event    Event
}

// VerifyWebhook checks the Stripe-Signature header against secret (the endpoint's signing
// secret, used as given) over "<t>.<body>", with t within webhooksig.Tolerance of now, and
// parses the event.
func VerifyWebhook(h http.Header, body []byte, secret string, now time.Time) (Delivery, error) {
	if secret == "" {
		return Delivery{}, fmt.Errorf("%w: no webhook secret configured", ErrSignature)
	}
	ts, sigs, err := parseSignatureHeader(h.Get(SignatureHeader))
	if err != nil {
		return Delivery{}, err
	}
	signedAt := time.Unix(ts, 0)
	if d := now.Sub(signedAt); d > webhooksig.Tolerance || d < -webhooksig.Tolerance {
		return Delivery{}, fmt.Errorf("%w: timestamp outside the tolerance", ErrSignature)
	}
	want := signatureOf(secret, ts, body)
	ok := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			ok = true
		}
	}
	if !ok {
		return Delivery{}, fmt.Errorf("%w: no v1 signature matches", ErrSignature)
	}
	ev, err := ParseEvent(body)
	if err != nil {
		return Delivery{}, err
	}
	return Delivery{ID: ev.ID, SignedAt: signedAt.UTC(), Event: ev}, nil
}

// Sign is the Stripe-Signature header value of body signed with secret at ts.
func Sign(secret string, ts int64, body []byte) string {
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(signatureOf(secret, ts, body))
}

func signatureOf(secret string, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// parseSignatureHeader reads t and the v1 signatures (at most 8, 32 bytes each); other schemes
// (v0) are ignored.
func parseSignatureHeader(v string) (int64, [][]byte, error) {
	if v == "" || len(v) > 1024 {
		return 0, nil, fmt.Errorf("%w: no %s header", ErrSignature, SignatureHeader)
	}
	var ts int64 = -1
	var sigs [][]byte
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return 0, nil, fmt.Errorf("%w: malformed %s header", ErrSignature, SignatureHeader)
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 || ts != -1 {
				return 0, nil, fmt.Errorf("%w: malformed timestamp", ErrSignature)
			}
			ts = n
		case "v1":
			b, err := hex.DecodeString(val)
			if err != nil || len(b) != sha256.Size || len(sigs) == 8 {
				return 0, nil, fmt.Errorf("%w: malformed v1 signature", ErrSignature)
			}
			sigs = append(sigs, b)
		}
	}
	if ts == -1 || len(sigs) == 0 {
		return 0, nil, fmt.Errorf("%w: no timestamp or no v1 signature", ErrSignature)
	}
	return ts, sigs, nil
}

// wireEvent is Stripe's event envelope around a VerificationSession.
type wireEvent struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	Type   string `json:"type"`
	Data   *struct {
		Object *struct {
			ID                string            `json:"id"`
			Object            string            `json:"object"`
			Status            string            `json:"status"`
			ClientReferenceID *string           `json:"client_reference_id"`
			Metadata          map[string]string `json:"metadata"`
			LastError         *struct {
				Code   *string `json:"code"`
				Reason *string `json:"reason"`
			} `json:"last_error"`
		} `json:"object"`
	} `json:"data"`
}

// ParseEvent parses and bounds a webhook body: a Stripe event of a VerificationSession
// (object identity.verification_session) with recruitd's reference in its metadata. Unknown
// fields are allowed (Stripe adds fields without notice); the outcome's status must agree with
// its type.
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
	if !validID(w.ID) || w.Object != "event" {
		return Event{}, fmt.Errorf("%w: not an event with an id", ErrBadEvent)
	}
	if w.Type == "" || len(w.Type) > 100 || !validID(w.Type) {
		return Event{}, fmt.Errorf("%w: type is missing or not 1 to 100 printable characters", ErrBadEvent)
	}
	if w.Data == nil || w.Data.Object == nil || w.Data.Object.Object != "identity.verification_session" {
		return Event{}, fmt.Errorf("%w: data.object is not a verification session", ErrBadEvent)
	}
	o := w.Data.Object
	if !validID(o.ID) {
		return Event{}, fmt.Errorf("%w: data.object.id is missing or not 1 to %d printable characters", ErrBadEvent, maxIDLen)
	}
	raw := o.Metadata["reference"]
	ref, err := uuid.Parse(raw)
	if err != nil || ref == uuid.Nil || len(raw) != 36 {
		return Event{}, fmt.Errorf("%w: data.object.metadata.reference is not a UUID", ErrBadEvent)
	}
	if o.ClientReferenceID != nil && *o.ClientReferenceID != raw {
		return Event{}, fmt.Errorf("%w: client_reference_id and metadata.reference differ", ErrBadEvent)
	}
	if len(o.Status) > 100 || !utf8.ValidString(o.Status) {
		return Event{}, fmt.Errorf("%w: data.object.status is too long", ErrBadEvent)
	}
	ev := Event{ID: w.ID, Type: w.Type, VerificationID: o.ID, Reference: ref, Status: o.Status}
	want := map[string]string{EventVerified: "verified", EventRequiresInput: "requires_input", EventCanceled: "canceled"}[w.Type]
	if want != "" && o.Status != want {
		return Event{}, fmt.Errorf("%w: %s with status other than %s", ErrBadEvent, w.Type, want)
	}
	switch w.Type {
	case EventRequiresInput:
		if e := o.LastError; e != nil {
			switch {
			case e.Reason != nil && CleanReason(*e.Reason) != "":
				ev.FailureReason = CleanReason(*e.Reason)
			case e.Code != nil:
				ev.FailureReason = CleanReason(*e.Code)
			}
		}
	case EventCanceled:
		ev.FailureReason = "canceled"
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
