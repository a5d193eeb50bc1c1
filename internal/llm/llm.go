// Package llm is the one client of an OpenAI-compatible chat-completions endpoint
// (LLM_BASE_URL): one JSON-mode request per Complete call, with the reply's size bounded and its
// errors classified (StatusError for a non-2xx answer, OutputError for a 2xx answer that holds
// no usable content) and the API key redacted from everything they quote. Retries, timeouts and
// the parsing of the content belong to the callers (internal/generate, internal/interview).
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config configures New.
type Config struct {
	// BaseURL is the API base, such as https://api.openai.com/v1; requests go to
	// BaseURL + "/chat/completions".
	BaseURL string
	// APIKey is sent as "Authorization: Bearer"; when empty no Authorization header is sent.
	APIKey string
	Model  string
	// HTTPClient defaults to a new client.
	HTTPClient *http.Client
}

// Client sends chat-completions requests to one endpoint and model.
type Client struct {
	endpoint string
	apiKey   string
	model    string
	client   *http.Client
}

const (
	maxResponseBytes = 4 << 20
	errorSnippetLen  = 300
	outputSnippetLen = 200
)

// New checks c and returns the client. BaseURL must be an http(s) URL and Model set; the
// errors never quote the API key.
func New(c Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(c.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an http(s) URL", c.BaseURL)
	}
	if strings.TrimSpace(c.Model) == "" {
		return nil, errors.New("model is required")
	}
	cl := &Client{
		endpoint: strings.TrimRight(u.String(), "/") + "/chat/completions",
		apiKey:   c.APIKey, model: strings.TrimSpace(c.Model), client: c.HTTPClient,
	}
	if cl.client == nil {
		cl.client = &http.Client{}
	}
	return cl, nil
}

// Model is the model name sent with every request.
func (c *Client) Model() string { return c.model }

// Prompt is one request: a system and a user message.
type Prompt struct {
	System, User string
	Temperature  float64
	MaxTokens    int // 0: the endpoint's default
}

// Complete makes one chat-completions request in JSON mode and returns the first choice's
// message content, which is not blank. It honours ctx (the caller sets the timeout).
func (c *Client) Complete(ctx context.Context, p Prompt) (string, error) {
	body, err := json.Marshal(ChatRequest{
		Model: c.model, Temperature: p.Temperature, MaxTokens: p.MaxTokens,
		ResponseFormat: ResponseFormat{Type: "json_object"},
		Messages:       []Message{{Role: "system", Content: p.System}, {Role: "user", Content: p.User}},
	})
	if err != nil {
		return "", fmt.Errorf("encode chat request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("chat completions request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("chat completions: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return "", fmt.Errorf("chat completions: read response: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", &StatusError{
			Code: resp.StatusCode, Body: c.Redact(Snippet(string(data), errorSnippetLen)),
			RetryAfter: retryAfter(resp.Header.Get("Retry-After")),
		}
	}
	if len(data) > maxResponseBytes {
		return "", &OutputError{Err: fmt.Errorf("response larger than %d bytes", maxResponseBytes)}
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", c.OutputError(fmt.Errorf("invalid chat completions response: %w", err), string(data))
	}
	if len(cr.Choices) == 0 {
		return "", &OutputError{Err: errors.New("response has no choices")}
	}
	m := cr.Choices[0].Message
	if m.Refusal != "" {
		return "", c.OutputError(errors.New("model refused"), m.Refusal)
	}
	if strings.TrimSpace(m.Content) == "" {
		return "", &OutputError{Err: fmt.Errorf("empty message content (finish reason %q)", cr.Choices[0].FinishReason)}
	}
	return m.Content, nil
}

// Redact removes the API key from text quoted in errors.
func (c *Client) Redact(s string) string {
	if len(c.apiKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "[redacted]")
}

// OutputError returns err as an OutputError quoting the beginning of output, redacted.
func (c *Client) OutputError(err error, output string) *OutputError {
	return &OutputError{Err: err, Start: c.Redact(Snippet(output, outputSnippetLen))}
}

// StatusError is a non-2xx response. Body is its redacted beginning; RetryAfter is -1 when the
// Retry-After header is absent or unparsable.
type StatusError struct {
	Code       int
	Body       string
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("chat completions: HTTP %d", e.Code)
	}
	return fmt.Sprintf("chat completions: HTTP %d: %s", e.Code, e.Body)
}

// OutputError is a reply that is not usable: no content, or content its caller cannot parse.
// Start is the reply's redacted beginning, or "".
type OutputError struct {
	Err   error
	Start string
}

func (e *OutputError) Error() string {
	if e.Start == "" {
		return "model output: " + e.Err.Error()
	}
	return fmt.Sprintf("model output: %v (output starts %q)", e.Err, e.Start)
}

func (e *OutputError) Unwrap() error { return e.Err }

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

// Snippet returns the first n runes of s, trimmed, marked when cut.
func Snippet(s string, n int) string {
	s = strings.TrimSpace(s)
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// ChatRequest is the body Complete sends.
type ChatRequest struct {
	Model          string         `json:"model"`
	Messages       []Message      `json:"messages"`
	Temperature    float64        `json:"temperature"`
	MaxTokens      int            `json:"max_tokens,omitempty"`
	ResponseFormat ResponseFormat `json:"response_format"`
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ResponseFormat asks for JSON mode.
type ResponseFormat struct {
	Type string `json:"type"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}
