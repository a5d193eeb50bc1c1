package channels

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/mail"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	gomail "github.com/wneessen/go-mail"
	gosmtp "github.com/wneessen/go-mail/smtp"

	"github.com/recruitd/recruitd/models"
)

// SMTPConfig configures the SMTP provider. The names in parentheses in its errors are the
// environment variables of internal/config.
type SMTPConfig struct {
	Host     string
	Port     int    // 0: 25, 587 or 465 by TLS mode
	Username string // empty: no authentication
	Password string
	From     string        // "Name <address>" or a bare address
	TLS      string        // "none", "starttls" (the default: required, not opportunistic) or "tls" (implicit)
	Timeout  time.Duration // for connecting and for each SMTP command; 0: 15s
}

// String leaves out the password.
func (c SMTPConfig) String() string {
	return fmt.Sprintf("smtp://%s@%s:%d (tls %s, from %s)", c.Username, c.Host, c.Port, c.TLS, c.From)
}

// SMTP sends e-mail through an SMTP server, one connection per message.
type SMTP struct {
	host string
	from *mail.Address
	opts []gomail.Option
}

var _ Provider = (*SMTP)(nil)

// NewSMTP checks cfg and returns the provider; it does not connect.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, errors.New("SMTP.Host (SMTP_HOST) is not set")
	}
	if cfg.From == "" {
		return nil, errors.New("SMTP.From (SMTP_FROM) is not set")
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("SMTP.From (SMTP_FROM) %q: %w", cfg.From, err)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	opts := []gomail.Option{gomail.WithTimeout(timeout)}
	port := cfg.Port
	switch cfg.TLS {
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
		port = cmp.Or(port, 25)
	case "", "starttls":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		port = cmp.Or(port, 587)
	case "tls":
		opts = append(opts, gomail.WithSSL())
		port = cmp.Or(port, 465)
	default:
		return nil, fmt.Errorf("SMTP.TLS (SMTP_TLS) %q: want none, starttls or tls", cfg.TLS)
	}
	opts = append(opts, gomail.WithPort(port))
	if cfg.Username != "" {
		// PLAIN and LOGIN refuse to send the password over an unencrypted connection to anything
		// but localhost.
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	if _, err := gomail.NewClient(cfg.Host, opts...); err != nil {
		return nil, fmt.Errorf("SMTP settings: %w", err)
	}
	return &SMTP{host: cfg.Host, from: from, opts: opts}, nil
}

// Name returns "smtp".
func (s *SMTP) Name() string { return "smtp" }

func (s *SMTP) String() string { return "smtp(" + s.host + ")" }

// Send delivers m as a text e-mail, or multipart/alternative text and HTML when m.HTML is set.
// ProviderMessageID is the Message-ID header, angle brackets included. ctx bounds connecting;
// each SMTP command after that is bounded by SMTPConfig.Timeout.
func (s *SMTP) Send(ctx context.Context, m Message) (Receipt, error) {
	if m.Channel != models.MessageChannelEmail && m.Channel != "" {
		return Receipt{}, permanent(s.Name(), fmt.Errorf("send %s: %w: SMTP sends e-mail only", m.Channel, ErrUnavailable))
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return Receipt{}, permanent(s.Name(), fmt.Errorf("send email: %w: %w", ErrInvalidAddress, err))
	}
	if m.Text == "" && m.HTML == "" {
		return Receipt{}, permanent(s.Name(), errors.New("send email: empty message"))
	}

	msg := gomail.NewMsg()
	msg.FromMailAddress(s.from)
	msg.ToMailAddress(to)
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(uuid.NewString() + "@" + domain(s.from.Address))
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}

	client, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return Receipt{}, permanent(s.Name(), fmt.Errorf("send email: %w", err))
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return Receipt{}, smtpError(fmt.Errorf("send email: %w", err))
	}
	return Receipt{Provider: s.Name(), ProviderMessageID: msg.GetMessageID()}, nil
}

func domain(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 && i < len(addr)-1 {
		return addr[i+1:]
	}
	return "localhost"
}

// smtpError classifies err: 5xx replies (including authentication failures) and TLS or
// authentication settings the server cannot satisfy are permanent; 4xx replies and network
// errors are not.
func smtpError(err error) error {
	e := &Error{Provider: "smtp", Err: err}
	var sendErr *gomail.SendError
	var reply *textproto.Error
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &sendErr):
		if code := sendErr.ErrorCode(); code != 0 {
			e.Code = strconv.Itoa(code)
		}
		e.Permanent = !sendErr.IsTemp() && sendErr.ErrorCode() >= 500
	case errors.As(err, &reply):
		e.Code = strconv.Itoa(reply.Code)
		e.Permanent = reply.Code >= 500
	case errors.As(err, &certErr),
		errors.Is(err, gomail.ErrPlainAuthNotSupported),
		errors.Is(err, gomail.ErrLoginAuthNotSupported),
		errors.Is(err, gomail.ErrNoSupportedAuthDiscovered),
		errors.Is(err, gosmtp.ErrUnencrypted),
		errors.Is(err, gosmtp.ErrWrongHostname):
		e.Permanent = true
	}
	return e
}
