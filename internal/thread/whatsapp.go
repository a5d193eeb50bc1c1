package thread

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// WindowLength is WhatsApp's customer-service window: free-form messages go only within this
// long after the candidate's last message in the thread (our own messages do not extend it).
const WindowLength = 24 * time.Hour

// ErrOutsideWindow marks a free-form WhatsApp message refused before the provider was called,
// because the candidate's last message is older than WindowLength (or there was none). At
// Twilio it would fail with error 63016.
var ErrOutsideWindow = errors.New("free-form WhatsApp message outside the 24-hour window")

// InWindow reports whether a free-form WhatsApp message may go at now, given when the candidate
// last wrote (ok false: never).
func InWindow(lastInbound time.Time, ok bool, now time.Time) bool {
	return ok && !now.Before(lastInbound.Add(-time.Minute)) && now.Sub(lastInbound) < WindowLength
}

// Admit decides, before the provider is called, whether m may be sent at now: anything but a
// free-form WhatsApp message may; that one only inside the thread's window (the company's
// thread with m.To). A refusal is a permanent *channels.Error wrapping ErrOutsideWindow, so the
// caller records the message failed and never attempts it.
func Admit(ctx context.Context, st *store.Store, companyID uuid.UUID, m channels.Message, now time.Time) error {
	if m.Channel != models.MessageChannelWhatsApp || m.TemplateID != "" {
		return nil
	}
	last, ok, err := st.LastInbound(ctx, companyID, string(models.MessageChannelWhatsApp), m.To)
	if err != nil {
		return err
	}
	if InWindow(last, ok, now) {
		return nil
	}
	return &channels.Error{Provider: "thread", Permanent: true, Code: "outside_window", Err: fmt.Errorf("send whatsapp: %w", ErrOutsideWindow)}
}

// WhatsAppTemplate is the template message of key to a WhatsApp number, with its variables (in
// the template's order) and, as Text, what the candidate reads. ids gives the provider's id of
// the template; nil means conversation.DevTemplateIDs.
func WhatsAppTemplate(ids conversation.TemplateIDs, key conversation.TemplateKey, to string, values ...string) channels.Message {
	if ids == nil {
		ids = conversation.DevTemplateIDs
	}
	vars := conversation.TemplateVars(values...)
	return channels.Message{
		Channel: models.MessageChannelWhatsApp, To: to, TemplateID: ids[key], TemplateVariables: vars,
		Text: conversation.RenderTemplate(conversation.TemplateBodies[key], vars),
	}
}

// whatsAppLimit is the characters of one WhatsApp message sent through Twilio.
const whatsAppLimit = 1600

// whatsAppMessages is a text (a question, with its choices numbered) as WhatsApp messages: one,
// unless it is over whatsAppLimit, then split at sentence boundaries like an SMS.
func whatsAppMessages(text string, choices []string) []string {
	if len(choices) > 0 {
		// Reply buttons (up to 3) and lists (up to 10, conversation.WhatsAppChoices) are content
		// a TwiML reply cannot carry: the numbered text goes, and a button's payload or a row's
		// id (the number) answers like a typed number (docs/decisions.md).
		text = conversation.NumberedOptions(text, choices)
	}
	if len([]rune(text)) <= whatsAppLimit {
		return []string{text}
	}
	return conversation.Split(text, conversation.DefaultMaxParts)
}

// Initiated reports whether a message recruitd starts on ch (an invitation, a reminder, a
// nudge) waits for the end of the candidate's quiet hours: texts and calls do, e-mail does not.
// A reply to the candidate's own message is not initiated and goes at once.
func Initiated(ch models.MessageChannel) bool {
	return ch == models.MessageChannelSMS || ch == models.MessageChannelWhatsApp || ch == models.MessageChannelPhone
}
