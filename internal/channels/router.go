package channels

import (
	"context"
	"fmt"
	"io"
	"maps"

	"github.com/recruitd/recruitd/models"
)

// Messaging modes (Config.Mode).
const (
	ModeOutbox = "outbox"
	ModeLive   = "live"
)

// Config selects and configures the providers behind a Router.
type Config struct {
	Mode   string // ModeOutbox (also when empty) or ModeLive
	SMTP   SMTPConfig
	Twilio TwilioConfig
}

// Router picks the provider of each channel.
//
// In outbox mode every channel goes to the Outbox. In live mode e-mail goes to SMTP, which must
// be configured; SMS, WhatsApp and phone go to Twilio. Twilio may be left out entirely, and each
// sender number may be left out, which makes the channels that need it unavailable rather than
// failing construction: Provider and Send then return a permanent ErrUnavailable error naming
// the missing setting, and the caller can fall back to another channel. The outbox channel
// always goes to the Outbox.
type Router struct {
	providers   map[models.MessageChannel]Provider
	unavailable map[models.MessageChannel]error
}

// NewRouter builds the providers of cfg.Mode; out receives what the Outbox prints.
func NewRouter(cfg Config, out io.Writer) (*Router, error) {
	outbox := NewOutbox(out)
	r := &Router{
		providers:   map[models.MessageChannel]Provider{models.MessageChannelOutbox: outbox},
		unavailable: map[models.MessageChannel]error{},
	}
	phoneChannels := []models.MessageChannel{models.MessageChannelSMS, models.MessageChannelWhatsApp, models.MessageChannelPhone}
	switch cfg.Mode {
	case ModeOutbox, "":
		r.providers[models.MessageChannelEmail] = outbox
		for _, ch := range phoneChannels {
			r.providers[ch] = outbox
		}
		return r, nil
	case ModeLive:
	default:
		return nil, fmt.Errorf("messaging mode %q: want %s or %s", cfg.Mode, ModeOutbox, ModeLive)
	}

	smtp, err := NewSMTP(cfg.SMTP)
	if err != nil {
		return nil, fmt.Errorf("live messaging: %w", err)
	}
	r.providers[models.MessageChannelEmail] = smtp

	tc := cfg.Twilio
	if tc.AccountSID == "" && tc.AuthToken == "" && tc.From == "" && tc.WhatsAppFrom == "" {
		for _, ch := range phoneChannels {
			r.unavailable[ch] = fmt.Errorf("%s: %w: Twilio is not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM)", ch, ErrUnavailable)
		}
		return r, nil
	}
	twilio, err := NewTwilio(tc)
	if err != nil {
		return nil, fmt.Errorf("live messaging: %w", err)
	}
	for _, ch := range phoneChannels {
		if err := twilio.unavailable(ch); err != nil {
			r.unavailable[ch] = err
		} else {
			r.providers[ch] = twilio
		}
	}
	return r, nil
}

// Provider returns the provider of ch, or a permanent ErrUnavailable error saying why there is
// none.
func (r *Router) Provider(ch models.MessageChannel) (Provider, error) {
	if p, ok := r.providers[ch]; ok {
		return p, nil
	}
	if err, ok := r.unavailable[ch]; ok {
		return nil, permanent("router", err)
	}
	return nil, permanent("router", fmt.Errorf("%q: %w: unknown channel", ch, ErrUnavailable))
}

// Unavailable returns the channels without a provider and why, for a startup log line.
func (r *Router) Unavailable() map[models.MessageChannel]error {
	return maps.Clone(r.unavailable)
}

// Send sends m through the provider of m.Channel and returns that provider's name ("" when
// there is none) with the provider's result.
func (r *Router) Send(ctx context.Context, m Message) (Receipt, string, error) {
	p, err := r.Provider(m.Channel)
	if err != nil {
		return Receipt{}, "", err
	}
	rec, err := p.Send(ctx, m)
	return rec, p.Name(), err
}
