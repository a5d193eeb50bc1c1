package ats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/recruitd/recruitd/models"
)

// sharedTransport pools connections across clients: the caller builds a Client per request
// (credentials differ per company), and a Transport per Client would never reuse a connection.
var sharedTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 8
	return t
}()

// conn sends the authenticated GETs of one client. It holds the credentials only inside
// auth, and prints as its ATS type and host, so that logging a Client shows no secret.
type conn struct {
	atsType models.ATSType
	base    *url.URL
	client  *http.Client
	timeout time.Duration
	auth    func(*http.Request)
}

func newConn(t models.ATSType, base *url.URL, c Config, auth func(*http.Request)) *conn {
	hc := &http.Client{Transport: sharedTransport}
	if c.HTTPClient != nil {
		cp := *c.HTTPClient
		hc = &cp
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &conn{atsType: t, base: base, client: hc, timeout: timeout, auth: auth}
}

// String describes the client without its credentials.
func (c *conn) String() string { return fmt.Sprintf("ats.Client(%s %s)", c.atsType, c.base.Host) }

// GoString is String, so that %#v shows no credentials either.
func (c *conn) GoString() string { return c.String() }

// get sends GET base/segments...?query and returns the body of a 200. op names the record in
// errors ("ATS-A job submission 1001"); every error wraps one sentinel of this package.
func (c *conn) get(ctx context.Context, op string, query url.Values, segments ...string) ([]byte, error) {
	u := c.base.JoinPath(segments...)
	u.RawQuery = query.Encode()
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", op, ErrMisconfigured, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "recruitd-ats/1")
	c.auth(req)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused, then classify.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, statusError(op, resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, c.transportError(ctx, op, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%s: %w: body larger than %d bytes", op, ErrBadResponse, maxBody)
	}
	return body, nil
}

// transportError classifies an error of sending a request or reading its body: always
// ErrUnavailable, also wrapping the caller's context error when that ended the request.
// The url.Error around err is dropped: op already names the record, and the URL adds nothing.
func (c *conn) transportError(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, ctxErr)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w: no answer within %s", op, ErrUnavailable, c.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s: %w: %v", op, ErrUnavailable, err)
}

// statusError classifies a non-200 answer. A 404 counts as "not found" only with a JSON body,
// the way the ATS APIs answer for unknown records: an HTML or plain-text 404 comes from a proxy
// or a wrong baseUrl, and reporting it as final would turn an outage into a permanent 404.
func statusError(op string, resp *http.Response) error {
	code := resp.StatusCode
	switch {
	case code == http.StatusNotFound && isJSON(resp.Header.Get("Content-Type")):
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	case code == http.StatusNotFound:
		return fmt.Errorf("%s: %w: status 404 without a JSON body (a proxy or a wrong baseUrl, not the ATS API)", op, ErrUnavailable)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("%s: %w (status %d)", op, ErrAuth, code)
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return fmt.Errorf("%s: %w: status %d", op, ErrUnavailable, code)
	case code >= 300 && code < 400:
		return fmt.Errorf("%s: %w: status %d, redirects are not followed (check baseUrl)", op, ErrBadResponse, code)
	default:
		return fmt.Errorf("%s: %w: status %d", op, ErrBadResponse, code)
	}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
