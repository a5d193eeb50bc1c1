// Package idverify talks to a hosted identity-verification provider (a government ID checked
// against a selfie, on the provider's own page): it creates a verification, which gives the
// provider's id and the hosted page's URL to send the candidate to, and it verifies and parses
// the provider's signed webhook with the outcome. It never touches the store; internal/identity
// holds the rules.
//
// The wire shape (internal/idvsim serves the same, written independently from it):
//
//	POST {base}/v1/verifications   Authorization: Bearer <key>, Idempotency-Key: <reference>
//	  {"reference": "<recruitd's verification uuid>", "expires_at": "<RFC 3339>", "return_url": "<optional>"}
//	-> 201 (200 for a repeated Idempotency-Key)
//	  {"id": "<provider id>", "url": "<hosted page>", "status": "pending", "reference": "…", "expires_at": "…"}
//	   refusals: {"error": {"code": "…", "message": "…"}}
//
// Webhooks are Standard Webhooks deliveries (internal/webhooksig) signed with one secret for the
// whole account; their body is described at ParseEvent.
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
const ProviderName = "hosted-idv"

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
	req := map[string]string{"reference": r.Reference.String(), "expires_at": r.ExpiresAt.UTC().Format(time.RFC3339)}
	if r.ReturnURL != "" {
		req["return_url"] = r.ReturnURL
	}
	body, _ := json.Marshal(req)
	var out struct {
		ID        string    `json:"id"`
		URL       string    `json:"url"`
		Reference string    `json:"reference"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/verifications", r.Reference.String(), body, &out); err != nil {
		return Verification{}, fmt.Errorf("create verification %s: %w", r.Reference, err)
	}
	if !validID(out.ID) || out.Reference != r.Reference.String() {
		return Verification{}, fmt.Errorf("create verification %s: the answer has no valid id or another reference: %w", r.Reference, ErrPermanent)
	}
	u, err := url.Parse(out.URL)
	if err != nil || len(out.URL) > maxURLLen || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Verification{}, fmt.Errorf("create verification %s: the hosted page is not an http(s) URL: %w", r.Reference, ErrPermanent)
	}
	v := Verification{ID: out.ID, URL: out.URL, ExpiresAt: out.ExpiresAt.UTC()}
	if v.ExpiresAt.IsZero() {
		v.ExpiresAt = r.ExpiresAt.UTC()
	}
	return v, nil
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
	req.Header.Set("Content-Type", "application/json")
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
