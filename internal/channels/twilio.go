package channels

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/recruitd/recruitd/models"
)

// TwilioConfig configures the Twilio provider. The names in parentheses in its errors are the
// environment variables of internal/config.
type TwilioConfig struct {
	BaseURL      string // "" means https://api.twilio.com; tests and the simulator point it elsewhere
	AccountSID   string
	AuthToken    string
	From         string        // E.164 sender of SMS and calls; empty: neither is available
	WhatsAppFrom string        // E.164 WhatsApp sender, without "whatsapp:"; empty: WhatsApp is unavailable
	Timeout      time.Duration // per request, response included; 0: 15s
	HTTPClient   *http.Client  // nil: a client of its own
	// StatusCallback is where Twilio reports the delivery of the texts sent (a message's own
	// StatusCallback wins); empty: no reports. Calls report nothing.
	StatusCallback string
}

// String leaves out the auth token.
func (c TwilioConfig) String() string {
	return fmt.Sprintf("twilio %s account %s (from %q, whatsapp from %q)", c.BaseURL, c.AccountSID, c.From, c.WhatsAppFrom)
}

// Twilio sends SMS and WhatsApp messages and places voice calls through the Twilio REST API
// (2010-04-01 Messages and Calls resources), or anything that speaks it.
type Twilio struct {
	base    string
	sid     string
	token   string
	from    string
	waFrom  string
	timeout time.Duration
	client  *http.Client
	status  string
}

var _ Provider = (*Twilio)(nil)

// maxResponse bounds how much of a response body Send reads.
const maxResponse = 64 << 10

// NewTwilio checks cfg and returns the provider; it does not connect.
func NewTwilio(cfg TwilioConfig) (*Twilio, error) {
	if cfg.AccountSID == "" {
		return nil, errors.New("Twilio.AccountSID (TWILIO_ACCOUNT_SID) is not set")
	}
	if cfg.AuthToken == "" {
		return nil, errors.New("Twilio.AuthToken (TWILIO_AUTH_TOKEN) is not set")
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = "https://api.twilio.com"
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("Twilio.BaseURL (TWILIO_BASE_URL) %q: want an http or https URL", cfg.BaseURL)
	}
	t := &Twilio{
		base:    base,
		sid:     cfg.AccountSID,
		token:   cfg.AuthToken,
		from:    cfg.From,
		waFrom:  strings.TrimPrefix(cfg.WhatsAppFrom, "whatsapp:"),
		timeout: cfg.Timeout,
		client:  cfg.HTTPClient,
		status:  cfg.StatusCallback,
	}
	if t.timeout <= 0 {
		t.timeout = 15 * time.Second
	}
	if t.client == nil {
		t.client = &http.Client{}
	}
	return t, nil
}

// Name returns "twilio".
func (t *Twilio) Name() string { return "twilio" }

func (t *Twilio) String() string { return "twilio(" + t.base + ", account " + t.sid + ")" }

// unavailable returns why t cannot send on ch, or nil.
func (t *Twilio) unavailable(ch models.MessageChannel) error {
	switch ch {
	case models.MessageChannelSMS, models.MessageChannelPhone:
		if t.from == "" {
			return fmt.Errorf("%s: %w: Twilio.From (TWILIO_FROM) is not set", ch, ErrUnavailable)
		}
	case models.MessageChannelWhatsApp:
		if t.waFrom == "" {
			return fmt.Errorf("%s: %w: Twilio.WhatsAppFrom (TWILIO_WHATSAPP_FROM) is not set", ch, ErrUnavailable)
		}
	default:
		return fmt.Errorf("%s: %w: Twilio sends sms, whatsapp and phone only", ch, ErrUnavailable)
	}
	return nil
}

// Send sends an SMS or WhatsApp message (Messages resource: Body, or ContentSid and
// ContentVariables for a template) or places a call that reads m.Text aloud (Calls resource,
// inline TwiML); m.StatusCallback becomes the request's StatusCallback. m.To is an E.164
// number; a "whatsapp:" prefix is accepted. ProviderMessageID is the message or call SID.
//
// A 2xx response without a readable SID is a permanent error: the provider probably acted on
// the request, and retrying could reach the candidate twice.
func (t *Twilio) Send(ctx context.Context, m Message) (Receipt, error) {
	if err := t.unavailable(m.Channel); err != nil {
		return Receipt{}, permanent(t.Name(), fmt.Errorf("send %w", err))
	}
	to := strings.TrimPrefix(m.To, "whatsapp:")
	if !isE164(to) {
		return Receipt{}, permanent(t.Name(), fmt.Errorf("send %s: %w: want an E.164 number", m.Channel, ErrInvalidAddress))
	}
	if strings.TrimSpace(m.Text) == "" && m.TemplateID == "" {
		return Receipt{}, permanent(t.Name(), fmt.Errorf("send %s: empty message", m.Channel))
	}
	if m.TemplateID != "" && m.Channel == models.MessageChannelPhone {
		return Receipt{}, permanent(t.Name(), fmt.Errorf("send %s: a call cannot take a content template", m.Channel))
	}
	form := url.Values{}
	resource := "Messages.json"
	switch m.Channel {
	case models.MessageChannelSMS:
		form.Set("To", to)
		form.Set("From", t.from)
	case models.MessageChannelWhatsApp:
		form.Set("To", "whatsapp:"+to)
		form.Set("From", "whatsapp:"+t.waFrom)
	case models.MessageChannelPhone:
		resource = "Calls.json"
		form.Set("To", to)
		form.Set("From", t.from)
		form.Set("Twiml", sayTwiML(m.Text))
	}
	if m.Channel != models.MessageChannelPhone {
		if m.TemplateID != "" {
			form.Set("ContentSid", m.TemplateID)
			if len(m.TemplateVariables) > 0 {
				vars, err := json.Marshal(m.TemplateVariables)
				if err != nil {
					return Receipt{}, permanent(t.Name(), fmt.Errorf("send %s: template variables: %w", m.Channel, err))
				}
				form.Set("ContentVariables", string(vars))
			}
		} else {
			form.Set("Body", m.Text)
		}
	}
	switch {
	case m.StatusCallback != "":
		form.Set("StatusCallback", m.StatusCallback)
	case t.status != "" && m.Channel != models.MessageChannelPhone:
		form.Set("StatusCallback", t.status)
	}
	sid, err := t.post(ctx, resource, form)
	if err != nil {
		err.Err = fmt.Errorf("send %s: %w", m.Channel, err.Err)
		return Receipt{}, err
	}
	return Receipt{Provider: t.Name(), ProviderMessageID: sid}, nil
}

// sayTwiML returns TwiML that reads text aloud.
func sayTwiML(text string) string {
	var b strings.Builder
	b.WriteString("<Response><Say>")
	_ = xml.EscapeText(&b, []byte(text)) // a strings.Builder does not fail
	b.WriteString("</Say></Response>")
	return b.String()
}

// isE164 reports whether s has the shape of an E.164 number: + and 8 to 15 digits, the first
// not 0. Whether the number exists is the provider's call.
func isE164(s string) bool {
	if len(s) < 9 || len(s) > 16 || s[0] != '+' || s[1] == '0' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// twilioError is the body of a Twilio error response.
type twilioError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Twilio error codes that mean the recipient number is unusable.
var invalidToCodes = map[int]bool{
	21211: true, // invalid 'To' phone number
	21614: true, // 'To' number is not a valid mobile number
}

// post sends form to resource under the account and returns the created resource's SID.
func (t *Twilio) post(ctx context.Context, resource string, form url.Values) (string, *Error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	endpoint := t.base + "/2010-04-01/Accounts/" + url.PathEscape(t.sid) + "/" + resource
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", &Error{Provider: t.Name(), Permanent: true, Err: err}
	}
	req.SetBasicAuth(t.sid, t.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return "", &Error{Provider: t.Name(), Err: err}
	}
	defer resp.Body.Close()
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxResponse))

	status := resp.StatusCode
	if status >= 200 && status < 300 {
		var created struct {
			SID string `json:"sid"`
		}
		if readErr != nil {
			return "", &Error{Provider: t.Name(), Permanent: true, Err: fmt.Errorf("HTTP %d, reading response: %w", status, readErr)}
		}
		if err := json.Unmarshal(body, &created); err != nil || created.SID == "" {
			return "", &Error{Provider: t.Name(), Permanent: true, Err: fmt.Errorf("HTTP %d but no readable sid in the response", status)}
		}
		return created.SID, nil
	}

	e := &Error{
		Provider: t.Name(),
		Code:     strconv.Itoa(status),
		// 408 and 429 ask the client to come back later; other 4xx will fail again.
		Permanent: status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests,
	}
	var te twilioError
	if json.Unmarshal(body, &te) == nil && (te.Code != 0 || te.Message != "") {
		msg := t.redact(te.Message)
		if te.Code != 0 {
			e.Code = strconv.Itoa(te.Code)
		}
		detail := fmt.Sprintf("HTTP %d", status)
		if te.Code != 0 {
			detail += fmt.Sprintf(", Twilio error %d", te.Code)
		}
		if invalidToCodes[te.Code] {
			e.Err = fmt.Errorf("%w: %s (%s)", ErrInvalidAddress, msg, detail)
		} else {
			e.Err = fmt.Errorf("%s (%s)", msg, detail)
		}
		return "", e
	}
	snippet := []byte(strings.TrimSpace(t.redact(string(body))))
	e.Err = fmt.Errorf("HTTP %d: %q", status, bytes.ToValidUTF8(snippet[:min(len(snippet), 200)], nil))
	return "", e
}

// redact removes the auth token, alone or inside a basic authorization value, from text the
// server sent: a server may echo a request back.
func (t *Twilio) redact(s string) string {
	basic := base64.StdEncoding.EncodeToString([]byte(t.sid + ":" + t.token))
	return strings.NewReplacer(basic, "[redacted]", t.token, "[redacted]").Replace(s)
}
