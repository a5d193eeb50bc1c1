package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Kombo is the Client of Kombo's API (and of internal/aggsim, which speaks its shape): bearer
// API key, X-Integration-Id per integration, {"status": "success", "data": …} envelopes and
// {"status": "error", "error": {"code": …}} refusals.
type Kombo struct {
	base   *url.URL
	apiKey string
	hc     *http.Client
}

var _ Client = (*Kombo)(nil)

// DefaultTimeout bounds one call to the aggregator.
const DefaultTimeout = 15 * time.Second

// NewKombo returns a client for the credentials (FieldBaseURL, FieldAPIKey). hc may be nil
// (a client with DefaultTimeout).
func NewKombo(creds map[string]string, hc *http.Client) (*Kombo, error) {
	u, err := url.Parse(strings.TrimRight(creds[FieldBaseURL], "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("aggregator base URL: %w", ErrPermanent)
	}
	if creds[FieldAPIKey] == "" {
		return nil, fmt.Errorf("aggregator API key not configured: %w", ErrUnauthorized)
	}
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	return &Kombo{base: u, apiKey: creds[FieldAPIKey], hc: hc}, nil
}

// CreateLink implements Client (POST /v1/connect/create-link).
func (k *Kombo) CreateLink(ctx context.Context, r LinkRequest) (string, error) {
	body, _ := json.Marshal(map[string]string{
		"end_user_origin_id": r.OriginID, "end_user_organization_name": r.OrganizationName,
		"end_user_email": r.Email, "integration_category": "ATS",
		"webhook_url": r.WebhookURL, "webhook_secret": r.WebhookSecret,
	})
	var out struct {
		Link string `json:"link"`
	}
	if err := k.do(ctx, http.MethodPost, "/v1/connect/create-link", nil, "", body, &out); err != nil {
		return "", fmt.Errorf("create connect link: %w", err)
	}
	if out.Link == "" {
		return "", fmt.Errorf("create connect link: no link: %w", ErrPermanent)
	}
	return out.Link, nil
}

type wireJob struct {
	ID              string     `json:"id"`
	RemoteID        *string    `json:"remote_id"`
	Name            *string    `json:"name"`
	Description     *string    `json:"description"`
	Status          *string    `json:"status"`
	RemoteCreatedAt *time.Time `json:"remote_created_at"`
	ChangedAt       time.Time  `json:"changed_at"`
	RemoteDeletedAt *time.Time `json:"remote_deleted_at"`
	Location        *struct {
		City    *string `json:"city"`
		Country *string `json:"country"`
		Raw     *string `json:"raw"`
	} `json:"location"`
}

// ListJobs implements Client (GET /v1/ats/jobs, deleted jobs included so that the import can
// close them).
func (k *Kombo) ListJobs(ctx context.Context, integrationID string, q JobQuery) (JobPage, error) {
	v := url.Values{"include_deleted": {"true"}}
	if !q.UpdatedAfter.IsZero() {
		v.Set("updated_after", q.UpdatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	if q.PageSize > 0 {
		v.Set("page_size", strconv.Itoa(q.PageSize))
	}
	var out struct {
		Next    *string   `json:"next"`
		Results []wireJob `json:"results"`
	}
	if err := k.do(ctx, http.MethodGet, "/v1/ats/jobs", v, integrationID, nil, &out); err != nil {
		return JobPage{}, fmt.Errorf("list jobs of %s: %w", integrationID, err)
	}
	page := JobPage{Jobs: make([]Job, 0, len(out.Results))}
	if out.Next != nil {
		page.Next = *out.Next
	}
	for _, w := range out.Results {
		if w.ID == "" {
			return JobPage{}, fmt.Errorf("list jobs of %s: a job without id: %w", integrationID, ErrPermanent)
		}
		j := Job{ID: w.ID, RemoteID: str(w.RemoteID), Name: str(w.Name), Description: str(w.Description),
			Status: strings.ToUpper(str(w.Status)), RemoteCreatedAt: w.RemoteCreatedAt, ChangedAt: w.ChangedAt, RemoteDeletedAt: w.RemoteDeletedAt}
		if l := w.Location; l != nil {
			j.Location = str(l.Raw)
			if j.Location == "" {
				j.Location = strings.Trim(str(l.City)+", "+str(l.Country), ", ")
			}
		}
		page.Jobs = append(page.Jobs, j)
	}
	return page, nil
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// do sends one request and decodes the success envelope's data into out.
func (k *Kombo) do(ctx context.Context, method, path string, q url.Values, integrationID string, body []byte, out any) error {
	return k.doKeyed(ctx, method, path, q, integrationID, "", body, out)
}

// doKeyed is do with an Idempotency-Key header when key is not empty.
func (k *Kombo) doKeyed(ctx context.Context, method, path string, q url.Values, integrationID, key string, body []byte, out any) error {
	u := *k.base
	u.Path += path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	req.Header.Set("Authorization", "Bearer "+k.apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if integrationID != "" {
		req.Header.Set("X-Integration-Id", integrationID)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %v", ErrTransient, err) // timeouts, refused and dropped connections
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("%w: read answer: %v", ErrTransient, err)
	}
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode/100 == 2 && env.Status == "success" {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return fmt.Errorf("%w: decode answer: %v", ErrPermanent, err)
		}
		return nil
	}
	code := ""
	if env.Error != nil {
		code = env.Error.Code
	}
	return classify(resp.StatusCode, code)
}

// classify maps a refusal to the package's errors. Kombo's codes come first: a setup sync still
// running is not a failure, and an integration that lost its authorisation is not transient.
func classify(status int, code string) error {
	what := fmt.Sprintf("HTTP %d %s", status, code)
	switch {
	case code == "INTEGRATION.SETUP_SYNC_PENDING" || code == "INTEGRATION.SETUP_INCOMPLETE":
		return fmt.Errorf("%w (%s)", ErrSetupPending, what)
	case strings.HasPrefix(code, "INTEGRATION.") && (strings.Contains(code, "AUTH") || strings.Contains(code, "INACTIVE") || strings.Contains(code, "INVALID")):
		return fmt.Errorf("%w (%s)", ErrUnauthorized, what)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%w (%s)", ErrUnauthorized, what)
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		return fmt.Errorf("%w (%s)", ErrTransient, what)
	}
	return fmt.Errorf("%w (%s)", ErrPermanent, what)
}
