// Package idverify speaks Stripe Identity's API (docs/decisions.md): a government ID checked
// against a selfie on Stripe's hosted page. It creates a VerificationSession, which gives the
// provider's id and the hosted page's URL to send the candidate to, and it verifies and parses
// the signed webhook with the outcome. It never touches the store; internal/identity holds the
// rules.
//
// The wire shape (internal/idvsim serves the same, written independently from it):
//
//	POST {base}/v1/identity/verification_sessions   Authorization: Bearer <key>, Idempotency-Key: <reference>
//	  form: type=document, options[document][require_matching_selfie]=true,
//	        client_reference_id=<recruitd's verification uuid>, metadata[reference]=<the same>,
//	        return_url=<optional>
//	-> 200 {"id": "vs_…", "object": "identity.verification_session", "status": "requires_input",
//	        "url": "<hosted page>", "client_reference_id": "…", "metadata": {"reference": "…"}, …}
//	   refusals: {"error": {"type": "…", "code": "…", "message": "…"}}
//
// Webhooks carry a Stripe-Signature header (t=<unix>,v1=<hex HMAC-SHA256 of "t.body"> under the
// endpoint's secret); their body is described at ParseEvent. A VerificationSession has no expiry
// of its own at Stripe: recruitd keeps its own (IDV_TTL).
package idverify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// ProviderName is what identity_verifications.provider records for verifications created here.
const ProviderName = "stripe-identity"

// DefaultTimeout bounds one call to the provider.
const DefaultTimeout = 10 * time.Second

// Errors of Client calls. A call wraps exactly one of them, or returns a context error.
var (
	// ErrUnauthorized: the provider refused the API key. Retrying does not help.
	ErrUnauthorized = errors.New("the identity-verification provider refused the API key")
	// ErrTransient: a timeout, a connection failure, 429 or 5xx. Retry with backoff.
	ErrTransient = errors.New("the identity-verification provider is temporarily unavailable")
	// ErrPermanent: any other refusal, or an answer that cannot be read. Retrying does not help.
	ErrPermanent = errors.New("the identity-verification provider refused the request")
)

// Config is the provider account.
type Config struct {
	BaseURL string
	APIKey  string
	// HTTP may be nil: a client with DefaultTimeout.
	HTTP *http.Client
}

// Client creates verifications at the provider.
type Client struct {
	base   *url.URL
	apiKey string
	hc     *http.Client
}

// New returns a client for the account. It refuses a base URL that is not absolute http(s)
// and an empty API key.
func New(c Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(c.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("identity-verification base URL: %w", ErrPermanent)
	}
	if c.APIKey == "" {
		return nil, fmt.Errorf("identity-verification API key not configured: %w", ErrUnauthorized)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	return &Client{base: u, apiKey: c.APIKey, hc: hc}, nil
}

// CreateRequest asks for a verification. Reference is recruitd's id of the verification (the
// provider echoes it in its webhooks and takes it as the idempotency key, so a retried create
// returns the same verification); ExpiresAt is when the hosted page stops taking the check;
// ReturnURL, when set, is where the page sends the candidate afterwards.
type CreateRequest struct {
	Reference uuid.UUID
	ExpiresAt time.Time
	ReturnURL string
}

// Verification is a created verification: the provider's id and the hosted page.
type Verification struct {
	ID        string
	URL       string
	ExpiresAt time.Time
}

// maxIDLen bounds the provider's ids (verification and webhook).
const maxIDLen = 200

// maxURLLen bounds the hosted page's URL.
const maxURLLen = 2048

// Create creates a verification for r.Reference.
func (c *Client) Create(ctx context.Context, r CreateRequest) (Verification, error) {
	if r.Reference == uuid.Nil || r.ExpiresAt.IsZero() {
		return Verification{}, fmt.Errorf("create verification: reference and expiry are required: %w", ErrPermanent)
	}
	form := url.Values{"type": {"document"}, "options[document][require_matching_selfie]": {"true"},
		"client_reference_id": {r.Reference.String()}, "metadata[reference]": {r.Reference.String()}}
	if r.ReturnURL != "" {
		form.Set("return_url", r.ReturnURL)
	}
	var out struct {
		ID       string            `json:"id"`
		Object   string            `json:"object"`
		URL      string            `json:"url"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/identity/verification_sessions", r.Reference.String(), []byte(form.Encode()), &out); err != nil {
		return Verification{}, fmt.Errorf("create verification %s: %w", r.Reference, err)
	}
	if out.Object != "identity.verification_session" {
		return Verification{}, fmt.Errorf("create verification %s: the answer is not a verification session: %w", r.Reference, ErrPermanent)
	}
	if !validID(out.ID) || out.Metadata["reference"] != r.Reference.String() {
		return Verification{}, fmt.Errorf("create verification %s: the answer has no valid id or another reference: %w", r.Reference, ErrPermanent)
	}
	u, err := url.Parse(out.URL)
	if err != nil || len(out.URL) > maxURLLen || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Verification{}, fmt.Errorf("create verification %s: the hosted page is not an http(s) URL: %w", r.Reference, ErrPermanent)
	}
	return Verification{ID: out.ID, URL: out.URL, ExpiresAt: r.ExpiresAt.UTC()}, nil
}

// validID reports whether s is a usable provider id: 1 to maxIDLen printable ASCII characters.
func validID(s string) bool {
	if s == "" || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// do sends one request and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path, idempotencyKey string, body []byte, out any) error {
	u := *c.base
	u.Path += path
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %v", ErrTransient, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("%w: read answer: %v", ErrTransient, err)
	}
	if resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%w: decode answer: %v", ErrPermanent, err)
		}
		return nil
	}
	var refusal struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &refusal)
	code := refusal.Error.Code
	if len(code) > 64 || !utf8.ValidString(code) {
		code = ""
	}
	what := fmt.Sprintf("HTTP %d %q", resp.StatusCode, code)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w (%s)", ErrUnauthorized, what)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
		return fmt.Errorf("%w (%s)", ErrTransient, what)
	}
	return fmt.Errorf("%w (%s)", ErrPermanent, what)
}
