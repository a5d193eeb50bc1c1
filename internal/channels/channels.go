// Package channels sends candidate messages by e-mail (SMTP), SMS, WhatsApp and phone call
// (a Twilio-compatible API), or records them in a developer outbox instead.
//
// It makes one attempt per Send. Retries, fallback to another channel and storing the message
// are the caller's: IsPermanent tells it whether another attempt through the same provider can
// succeed.
package channels

import (
	"cmp"
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/models"
)

// Message is one outbound message.
type Message struct {
	Channel models.MessageChannel
	To      string // e-mail address, or E.164 phone number
	Subject string // e-mail only
	Text    string // plain text: the SMS or WhatsApp body, the e-mail text part, what a call says
	HTML    string // optional e-mail HTML part
	// TemplateID, on WhatsApp (or SMS), sends an approved content template instead of free
	// text (Twilio: ContentSid), with TemplateVariables filling its placeholders ("1": "Ada").
	// WhatsApp takes only templates outside the 24-hour window. Text is then what the template
	// says, for records and the outbox.
	TemplateID        string
	TemplateVariables map[string]string
	// StatusCallback, when set, is the URL the provider posts this message's delivery statuses
	// to (Twilio: StatusCallback).
	StatusCallback string
}

// Receipt identifies a sent message at its provider.
type Receipt struct {
	Provider          string
	ProviderMessageID string
}

// Provider sends messages through one service. Send makes a single attempt; its errors are
// *Error values.
type Provider interface {
	Name() string
	Send(ctx context.Context, m Message) (Receipt, error)
}

var (
	// ErrInvalidAddress marks a recipient the provider cannot deliver to: a malformed e-mail
	// address or phone number, or one the provider rejected as such.
	ErrInvalidAddress = errors.New("invalid recipient address")
	// ErrUnavailable marks a channel this process is not configured to send through.
	ErrUnavailable = errors.New("channel unavailable")
)

// Error is a failed send, classified for the caller's retry decision.
type Error struct {
	Provider string // the provider's Name, or "router" when no provider was found
	// Permanent is true when sending the same message through the same provider again would
	// fail the same way: a bad address, a rejection other than rate limiting, bad credentials,
	// a channel that is not configured.
	Permanent bool
	// Code is the provider's own error code when it gave one: the SMTP reply code ("550"),
	// the Twilio error code ("21211") or else the HTTP status.
	Code string
	Err  error
}

func (e *Error) Error() string { return e.Provider + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// IsPermanent reports whether err, or an error it wraps, is an *Error marked permanent. Any
// other error (a cancelled context among them) is worth retrying.
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Permanent
}

func permanent(provider string, err error) error {
	return &Error{Provider: provider, Permanent: true, Err: err}
}

// Address returns the contact that channel ch sends to, given a candidate's e-mail address and
// E.164 phone number; ok is false (and the address empty) when the candidate has none usable.
// SMS needs a number that can receive texts (phone.CanReceiveSMS); the outbox takes the e-mail
// address, or else the phone number.
func Address(ch models.MessageChannel, email, phoneE164 string) (addr string, ok bool) {
	email, phoneE164 = strings.TrimSpace(email), strings.TrimSpace(phoneE164)
	switch ch {
	case models.MessageChannelEmail:
		addr = email
	case models.MessageChannelSMS:
		if phone.CanReceiveSMS(phoneE164) {
			addr = phoneE164
		}
	case models.MessageChannelWhatsApp, models.MessageChannelPhone:
		addr = phoneE164
	case models.MessageChannelOutbox:
		addr = cmp.Or(email, phoneE164)
	}
	return addr, addr != ""
}

// addressLike matches what a provider's error text may quote of a recipient: e-mail addresses
// and runs of seven or more digits (phone numbers, with their usual separators).
var addressLike = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+|\+?\(?\d[\d ()./-]{5,}\d`)

// Redacted is err's text for logs, with addresses and phone numbers replaced: a provider's
// error may quote the recipient ("unsubscribed recipient +14155550101").
func Redacted(err error) string {
	if err == nil {
		return ""
	}
	return addressLike.ReplaceAllStringFunc(err.Error(), func(m string) string {
		digits := 0
		for _, r := range m {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if !strings.Contains(m, "@") && digits < 7 {
			return m
		}
		return "[redacted]"
	})
}
