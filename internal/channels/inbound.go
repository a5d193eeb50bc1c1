package channels

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recruitd/recruitd/models"
)

// Twilio's Messaging webhooks: a candidate's inbound message and the status callbacks of the
// messages we sent. Both are form-encoded POSTs signed in X-Twilio-Signature.
//
// Verifying a webhook proves it came from Twilio for our account; it does not prove it is
// new: Twilio may post the same message again, and a captured request stays valid. The caller
// handles each MessageSid once (the store records the ids seen) and treats a status
// callback as one observation among several that may arrive twice, late or out of order
// (MessageStatus.Supersedes).

// TwilioSignatureHeader is the header Twilio signs its webhooks in.
const TwilioSignatureHeader = "X-Twilio-Signature"

// Limits on a webhook's form. Twilio's own bodies are a few kilobytes: an SMS body is at most
// 1600 characters, a WhatsApp body 4096.
const (
	MaxWebhookBody  = 64 << 10 // bytes of the form-encoded body
	MaxWebhookField = 16 << 10 // bytes of one decoded parameter value
	MaxWebhookName  = 128      // bytes of one parameter name
	MaxWebhookParts = 256      // parameters
	MaxInboundText  = 4096     // characters of an inbound Body
)

var (
	// ErrBadSignature means a webhook's X-Twilio-Signature is missing or does not match.
	ErrBadSignature = errors.New("bad Twilio signature")
	// ErrBadWebhook means a webhook's body is not a form Twilio would send: too large, not
	// form-encoded, not UTF-8, or missing or malformed fields.
	ErrBadWebhook = errors.New("malformed Twilio webhook")
)

// TwilioSignature is the X-Twilio-Signature of a POST of params to fullURL: base64 of the
// HMAC-SHA1, keyed by the auth token, of the URL followed by each parameter's name and value,
// sorted by name (and a name's several values sorted, as Twilio's own libraries do).
func TwilioSignature(authToken, fullURL string, params url.Values) string {
	m := hmac.New(sha1.New, []byte(authToken))
	m.Write([]byte(fullURL))
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		values := append([]string(nil), params[name]...)
		sort.Strings(values)
		for _, v := range values {
			m.Write([]byte(name))
			m.Write([]byte(v))
		}
	}
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// VerifyTwilioSignature checks signature against the POST of params to publicURL, the URL
// exactly as configured at Twilio (query string included). As Twilio defines it, the URL is
// also tried with the scheme's default port added (https 443, http 80) when it has none, and
// removed when it has it; no other rewriting is tried. Every parameter counts, whatever its
// name. An empty auth token verifies nothing.
func VerifyTwilioSignature(authToken, publicURL string, params url.Values, signature string) error {
	if authToken == "" || signature == "" {
		return ErrBadSignature
	}
	got, err := base64.StdEncoding.DecodeString(signature)
	if err != nil || len(got) != sha1.Size {
		return ErrBadSignature
	}
	ok := 0
	for _, u := range urlVariants(publicURL) {
		want, _ := base64.StdEncoding.DecodeString(TwilioSignature(authToken, u, params))
		ok |= subtle.ConstantTimeCompare(got, want)
	}
	if ok != 1 {
		return ErrBadSignature
	}
	return nil
}

// urlVariants returns u and u with its default port toggled, when u has an http or https
// scheme and its authority can be found; the rest of u is kept byte for byte.
func urlVariants(u string) []string {
	out := []string{u}
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return out
	}
	var port string
	switch strings.ToLower(scheme) {
	case "https":
		port = "443"
	case "http":
		port = "80"
	default:
		return out
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	userinfo := ""
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		userinfo, authority = authority[:at+1], authority[at+1:]
	}
	host, p, err := net.SplitHostPort(authority)
	switch {
	case err == nil && p == port:
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return append(out, scheme+"://"+userinfo+host+tail)
	case err == nil:
		return out // another port: only as given
	case authority == "":
		return out
	default:
		return append(out, scheme+"://"+userinfo+net.JoinHostPort(strings.Trim(authority, "[]"), port)+tail)
	}
}

// ParseTwilioForm decodes a webhook's form-encoded body within the limits above: valid UTF-8
// names and values, no NUL, no ';' separators, valid percent-encoding. Its errors wrap
// ErrBadWebhook.
func ParseTwilioForm(body []byte) (url.Values, error) {
	if len(body) > MaxWebhookBody {
		return nil, fmt.Errorf("%w: body over %d bytes", ErrBadWebhook, MaxWebhookBody)
	}
	if bytes.Count(body, []byte("&"))+1 > MaxWebhookParts {
		return nil, fmt.Errorf("%w: over %d parameters", ErrBadWebhook, MaxWebhookParts)
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("%w: not form-encoded", ErrBadWebhook)
	}
	for name, values := range form {
		if name == "" || len(name) > MaxWebhookName || !utf8.ValidString(name) || strings.ContainsRune(name, 0) {
			return nil, fmt.Errorf("%w: a parameter name is empty, too long or not UTF-8", ErrBadWebhook)
		}
		for _, v := range values {
			if len(v) > MaxWebhookField || !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
				return nil, fmt.Errorf("%w: parameter %s is too long or not UTF-8", ErrBadWebhook, strconv.Quote(name))
			}
		}
	}
	return form, nil
}

// ReadTwilioWebhook parses body and verifies the request's X-Twilio-Signature header against
// publicURL (VerifyTwilioSignature). The error is ErrBadSignature or wraps ErrBadWebhook.
func ReadTwilioWebhook(authToken, publicURL string, h http.Header, body []byte) (url.Values, error) {
	form, err := ParseTwilioForm(body)
	if err != nil {
		return nil, err
	}
	if err := VerifyTwilioSignature(authToken, publicURL, form, h.Get(TwilioSignatureHeader)); err != nil {
		return nil, err
	}
	return form, nil
}

// EmptyTwiML is the answer to a Messaging webhook that sends no reply in its response.
const EmptyTwiML = `<?xml version="1.0" encoding="UTF-8"?><Response></Response>`

// Inbound is a message a candidate sent to one of our numbers.
type Inbound struct {
	MessageSID string
	AccountSID string
	// Channel is sms, or whatsapp when the addresses carry the "whatsapp:" prefix.
	Channel models.MessageChannel
	From    string // the candidate, E.164, without "whatsapp:"
	To      string // our number, E.164 or a short code, without "whatsapp:"
	// Body is the text, at most MaxInboundText characters, with control characters other than
	// tab and newline removed.
	Body     string
	NumMedia int
	// A WhatsApp interactive reply: the payload and title of the reply button tapped, or the id
	// and title of the list row chosen. Empty otherwise.
	ButtonPayload string
	ButtonText    string
	ListID        string
	ListTitle     string
}

// ParseInbound reads an inbound message webhook's form (after ReadTwilioWebhook). Parameters
// it does not use are ignored. Its errors wrap ErrBadWebhook.
func ParseInbound(form url.Values) (Inbound, error) {
	var in Inbound
	var err error
	if in.MessageSID, err = one(form, "MessageSid", true); err != nil {
		return Inbound{}, err
	}
	if !isSID(in.MessageSID, "SM", "MM") {
		return Inbound{}, fmt.Errorf("%w: MessageSid is not a message SID", ErrBadWebhook)
	}
	if in.AccountSID, err = one(form, "AccountSid", true); err != nil {
		return Inbound{}, err
	}
	if !isSID(in.AccountSID, "AC") {
		return Inbound{}, fmt.Errorf("%w: AccountSid is not an account SID", ErrBadWebhook)
	}
	from, err := one(form, "From", true)
	if err != nil {
		return Inbound{}, err
	}
	to, err := one(form, "To", true)
	if err != nil {
		return Inbound{}, err
	}
	in.Channel, in.From, in.To, err = addresses(from, to)
	if err != nil {
		return Inbound{}, err
	}
	if !isE164(in.From) {
		return Inbound{}, fmt.Errorf("%w: From is not an E.164 number", ErrBadWebhook)
	}
	body, err := one(form, "Body", false)
	if err != nil {
		return Inbound{}, err
	}
	in.Body = cleanText(body)
	if utf8.RuneCountInString(in.Body) > MaxInboundText {
		return Inbound{}, fmt.Errorf("%w: Body over %d characters", ErrBadWebhook, MaxInboundText)
	}
	if n, err := one(form, "NumMedia", false); err != nil {
		return Inbound{}, err
	} else if n != "" {
		in.NumMedia, err = strconv.Atoi(n)
		if err != nil || in.NumMedia < 0 || in.NumMedia > 10 || len(n) > 2 {
			return Inbound{}, fmt.Errorf("%w: NumMedia is not 0 to 10", ErrBadWebhook)
		}
	}
	if in.Body == "" && in.NumMedia == 0 && form.Get("ButtonPayload") == "" && form.Get("ListId") == "" {
		return Inbound{}, fmt.Errorf("%w: no Body, media or interactive reply", ErrBadWebhook)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"ButtonPayload", &in.ButtonPayload}, {"ButtonText", &in.ButtonText}, {"ListId", &in.ListID}, {"ListTitle", &in.ListTitle}} {
		v, err := one(form, f.name, false)
		if err != nil {
			return Inbound{}, err
		}
		if v = cleanText(v); utf8.RuneCountInString(v) > 256 {
			return Inbound{}, fmt.Errorf("%w: %s over 256 characters", ErrBadWebhook, f.name)
		}
		*f.dst = v
	}
	return in, nil
}

// MessageStatus is a message's status at Twilio.
type MessageStatus string

// Twilio's message statuses. Those of an outbound message move forward from queued (or
// accepted, scheduled) through sending and sent to delivered and then read (WhatsApp), or end
// in undelivered, failed or canceled; received belongs to inbound messages.
const (
	StatusAccepted           MessageStatus = "accepted"
	StatusScheduled          MessageStatus = "scheduled"
	StatusQueued             MessageStatus = "queued"
	StatusSending            MessageStatus = "sending"
	StatusSent               MessageStatus = "sent"
	StatusDelivered          MessageStatus = "delivered"
	StatusRead               MessageStatus = "read"
	StatusUndelivered        MessageStatus = "undelivered"
	StatusFailed             MessageStatus = "failed"
	StatusCanceled           MessageStatus = "canceled"
	StatusPartiallyDelivered MessageStatus = "partially_delivered"
	StatusReceiving          MessageStatus = "receiving"
	StatusReceived           MessageStatus = "received"
)

// statusRank orders the statuses of an outbound message: a callback of a lower rank than the
// one recorded arrived late. The endings share the top rank with read, so none replaces
// another.
var statusRank = map[MessageStatus]int{
	StatusAccepted: 1, StatusScheduled: 1, StatusQueued: 2, StatusSending: 3, StatusSent: 4,
	StatusPartiallyDelivered: 5, StatusDelivered: 6, StatusRead: 7,
	StatusUndelivered: 7, StatusFailed: 7, StatusCanceled: 7,
	StatusReceiving: 1, StatusReceived: 2,
}

// Final reports whether s ends the message's delivery: delivered, read, undelivered, failed or
// canceled (delivered may still become read).
func (s MessageStatus) Final() bool { return statusRank[s] >= 6 }

// Failed reports whether s means the message did not reach the recipient.
func (s MessageStatus) Failed() bool {
	return s == StatusUndelivered || s == StatusFailed || s == StatusCanceled
}

// Supersedes reports whether a callback saying s should replace the recorded status prev:
// later in the message's life, and prev not an ending (delivered may become read). An unknown
// prev ("" included) is superseded by any known status.
func (s MessageStatus) Supersedes(prev MessageStatus) bool {
	rs, ok := statusRank[s]
	if !ok {
		return false
	}
	rp, known := statusRank[prev]
	if !known {
		return true
	}
	if prev == StatusDelivered {
		return s == StatusRead || s.Failed()
	}
	return rp < 7 && rs > rp
}

// StatusCallback is Twilio's report of one status of a message we sent.
type StatusCallback struct {
	MessageSID string
	AccountSID string
	Status     MessageStatus
	// ErrorCode is Twilio's error code when the message failed ("30003", "63016"), else "".
	ErrorCode string
	Channel   models.MessageChannel
	From, To  string // E.164 (or a short code), without "whatsapp:"; empty when Twilio left them out
}

// ParseStatusCallback reads a status callback's form (after ReadTwilioWebhook). Parameters it
// does not use are ignored. Its errors wrap ErrBadWebhook.
func ParseStatusCallback(form url.Values) (StatusCallback, error) {
	var cb StatusCallback
	var err error
	if cb.MessageSID, err = one(form, "MessageSid", true); err != nil {
		return StatusCallback{}, err
	}
	if !isSID(cb.MessageSID, "SM", "MM") {
		return StatusCallback{}, fmt.Errorf("%w: MessageSid is not a message SID", ErrBadWebhook)
	}
	if cb.AccountSID, err = one(form, "AccountSid", true); err != nil {
		return StatusCallback{}, err
	}
	if !isSID(cb.AccountSID, "AC") {
		return StatusCallback{}, fmt.Errorf("%w: AccountSid is not an account SID", ErrBadWebhook)
	}
	status, err := one(form, "MessageStatus", true)
	if err != nil {
		return StatusCallback{}, err
	}
	cb.Status = MessageStatus(status)
	if _, ok := statusRank[cb.Status]; !ok {
		return StatusCallback{}, fmt.Errorf("%w: unknown MessageStatus", ErrBadWebhook)
	}
	if cb.ErrorCode, err = one(form, "ErrorCode", false); err != nil {
		return StatusCallback{}, err
	}
	if cb.ErrorCode != "" && (len(cb.ErrorCode) > 6 || strings.Trim(cb.ErrorCode, "0123456789") != "") {
		return StatusCallback{}, fmt.Errorf("%w: ErrorCode is not a number", ErrBadWebhook)
	}
	from, err := one(form, "From", false)
	if err != nil {
		return StatusCallback{}, err
	}
	to, err := one(form, "To", false)
	if err != nil {
		return StatusCallback{}, err
	}
	cb.Channel = models.MessageChannelSMS
	if from != "" || to != "" {
		if cb.Channel, cb.From, cb.To, err = addresses(from, to); err != nil {
			return StatusCallback{}, err
		}
	}
	return cb, nil
}

// one returns the single value of name; a repeated name is malformed, a missing one too when
// required.
func one(form url.Values, name string, required bool) (string, error) {
	vs := form[name]
	switch {
	case len(vs) > 1:
		return "", fmt.Errorf("%w: %s repeated", ErrBadWebhook, name)
	case len(vs) == 0 || vs[0] == "":
		if required {
			return "", fmt.Errorf("%w: %s missing", ErrBadWebhook, name)
		}
		return "", nil
	}
	return vs[0], nil
}

// isSID reports whether s is a Twilio SID with one of the prefixes: two letters and 32 hex
// digits.
func isSID(s string, prefixes ...string) bool {
	if len(s) != 34 {
		return false
	}
	ok := false
	for _, p := range prefixes {
		ok = ok || s[:2] == p
	}
	for _, r := range s[2:] {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return ok
}

// addresses splits a webhook's From and To into the channel and bare numbers: both prefixed
// with "whatsapp:" or neither. The sender of an inbound message must be E.164; our side may
// also be a short code (3 to 8 digits).
func addresses(from, to string) (models.MessageChannel, string, string, error) {
	f, fw := strings.CutPrefix(from, "whatsapp:")
	t, tw := strings.CutPrefix(to, "whatsapp:")
	if fw != tw {
		return "", "", "", fmt.Errorf("%w: From and To are on different channels", ErrBadWebhook)
	}
	ch := models.MessageChannelSMS
	if fw {
		ch = models.MessageChannelWhatsApp
	}
	if !isE164(f) && !isShortCode(f) || !isE164(t) && !isShortCode(t) {
		return "", "", "", fmt.Errorf("%w: From or To is not a phone number", ErrBadWebhook)
	}
	return ch, f, t, nil
}

func isShortCode(s string) bool {
	return len(s) >= 3 && len(s) <= 8 && strings.Trim(s, "0123456789") == ""
}

// cleanText drops control characters other than tab and newline (a CR LF becomes LF) and
// trims surrounding space.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
			return -1
		}
		return r
	}, s))
}
