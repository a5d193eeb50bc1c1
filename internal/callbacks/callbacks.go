package callbacks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"
)

// Payload is the callback body.
type Payload struct {
	ApplicationID string `json:"applicationId"`
	Status        string `json:"status"` // invited | not_eligible | error
	InterviewLink string `json:"interviewLink,omitempty"`
	Reason        string `json:"reason,omitempty"`
}

// Target is where and how a callback is sent.
type Target struct {
	URL            string
	CallbackSecret string // sent verbatim as x-service-callback-secret
	SigningSecret  string // Standard Webhooks signing secret; see the package doc for the key
}

// Attempt is the record of one delivery attempt, for the caller to store. It never holds a
// secret.
type Attempt struct {
	Number   int
	At       time.Time // start of the attempt, by Options.Now
	Duration time.Duration
	// StatusCode is the HTTP status of the answer, 0 when there was none.
	StatusCode int
	// ErrorClass is "" when delivered, else one of the Class constants.
	ErrorClass string
	// ResponseBody is the start of the answer's body: at most 4 KiB, valid UTF-8 without NUL
	// (so it fits a Postgres text column), with echoed secrets redacted.
	ResponseBody string
	// RetryAfter is the Retry-After of a 429 or 503 answer (seconds or HTTP-date), capped at
	// 24 h; 0 when absent, unparsable or in the past.
	RetryAfter time.Duration
}

// Error classes of an Attempt.
const (
	ClassTimeout       = "timeout"        // the attempt's deadline passed before an answer
	ClassConnection    = "connection"     // refused, reset, or any other transport failure
	ClassDNS           = "dns"            // the host name did not resolve
	ClassTLS           = "tls"            // handshake or certificate failure
	ClassCanceled      = "canceled"       // the caller's context was canceled
	ClassSSRFBlocked   = "ssrf_blocked"   // the destination address is not allowed
	ClassInvalidURL    = "invalid_url"    // not an absolute http(s) URL without userinfo
	ClassInvalidTarget = "invalid_target" // empty or unsendable secret or webhook id
	ClassRedirect      = "redirect"       // 3xx; not followed
	ClassGone          = "gone"           // 410
	ClassHTTP429       = "http_429"
	ClassHTTP4xx       = "http_4xx"   // any other 4xx
	ClassHTTP5xx       = "http_5xx"   // 5xx
	ClassHTTPOther     = "http_other" // a status outside 200-599
)

// Outcome is what the caller does after an attempt. The zero value is Retry, so a forgotten
// assignment never reads as delivered.
type Outcome int

const (
	// Retry: try again after NextDelay, unless the schedule is over.
	Retry Outcome = iota
	// Delivered: the receiver answered 2xx; stop.
	Delivered
	// GiveUp: no retry can succeed (410, invalid URL, refused IP literal, unusable target).
	GiveUp
)

func (o Outcome) String() string {
	switch o {
	case Retry:
		return "retry"
	case Delivered:
		return "delivered"
	case GiveUp:
		return "give_up"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// Options configures a Sender.
type Options struct {
	// Timeout bounds one attempt, from dialing to the end of reading the answer; 0 means 10 s.
	Timeout time.Duration
	// AllowedNets are ranges the SSRF guard would refuse but may be dialed anyway (dev and
	// tests: see PrivateNets). Default none.
	AllowedNets []netip.Prefix
	// AllowHTTP lets callbacks go to http URLs (dev and tests). Otherwise only https is used:
	// the callback secret and interview links must not travel in clear.
	AllowHTTP bool
	// UserAgent is sent as user-agent; "" means "recruitd-callbacks".
	UserAgent string
	// Now is the clock of webhook-timestamp, Attempt.At and HTTP-date Retry-After; nil means
	// time.Now. Attempt.Duration is always measured on the real clock.
	Now func() time.Time
}

// Sender delivers callbacks. It is safe for concurrent use and reuses connections.
type Sender struct {
	client    *http.Client
	timeout   time.Duration
	userAgent string
	now       func() time.Time
	allowHTTP bool
}

const (
	defaultTimeout   = 10 * time.Second
	defaultUserAgent = "recruitd-callbacks"
	keepBody         = 4 << 10  // bytes of the answer kept in Attempt.ResponseBody
	drainBody        = 64 << 10 // bytes of the answer read at most, so the connection can be reused
	maxRetryAfter    = 24 * time.Hour
	redacted         = "[redacted]"
)

// PrivateNets are the ranges a development stack or a test needs to reach: IPv4 loopback,
// RFC 1918, CGNAT (100.64.0.0/10), IPv6 loopback and unique-local. Link-local (169.254.0.0/16,
// fe80::/10) stays refused, so cloud metadata endpoints are never reachable even when these
// are allowed.
func PrivateNets() []netip.Prefix {
	return []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("fc00::/7"),
	}
}

// NewSender returns a Sender with its own HTTP client: no proxy, no redirects, dialing through
// the SSRF guard.
func NewSender(o Options) *Sender {
	var v4, v6 []netip.Prefix
	for _, p := range o.AllowedNets {
		if p.Addr().Is4() {
			v4 = append(v4, p.Masked())
		} else {
			v6 = append(v6, p.Masked())
		}
	}
	guard := ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...))
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: guard.Safe}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    timeout,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	s := &Sender{
		client: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		timeout:   timeout,
		userAgent: o.UserAgent,
		now:       o.Now,
		allowHTTP: o.AllowHTTP,
	}
	if s.userAgent == "" {
		s.userAgent = defaultUserAgent
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Deliver makes one attempt (number is recorded as Attempt.Number) of the callback identified by
// webhookID, which must be the same on every attempt of one callback: it is the receiver's
// deduplication key. The outcome tells the caller whether to stop or to retry after NextDelay.
func (s *Sender) Deliver(ctx context.Context, t Target, webhookID string, p Payload, number int) (Attempt, Outcome) {
	start := time.Now()
	at, outcome := s.deliver(ctx, t, webhookID, p, Attempt{Number: number, At: s.now()})
	at.Duration = time.Since(start)
	return at, outcome
}

func (s *Sender) deliver(ctx context.Context, t Target, webhookID string, p Payload, at Attempt) (Attempt, Outcome) {
	u, err := CheckURL(t.URL, s.allowHTTP)
	if err != nil {
		at.ErrorClass = ClassInvalidURL
		return at, GiveUp
	}
	if !headerValue(t.CallbackSecret) || !headerValue(t.SigningSecret) || !headerValue(webhookID) {
		at.ErrorClass = ClassInvalidTarget
		return at, GiveUp
	}
	body, err := encode(p)
	if err != nil {
		at.ErrorClass = ClassInvalidTarget
		return at, GiveUp
	}

	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		at.ErrorClass = ClassInvalidURL
		return at, GiveUp
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set("X-Service-Callback-Secret", t.CallbackSecret)
	req.Header.Set("Webhook-Id", webhookID)
	req.Header.Set("Webhook-Timestamp", strconv.FormatInt(at.At.Unix(), 10))
	req.Header.Set("Webhook-Signature", Sign(t.SigningSecret, webhookID, at.At, body))

	resp, err := s.client.Do(req)
	if err != nil {
		at.ErrorClass = classify(ctx, err)
		if at.ErrorClass == ClassSSRFBlocked && fixedAddress(u.Hostname()) {
			return at, GiveUp
		}
		return at, Retry
	}
	at.StatusCode = resp.StatusCode
	at.ResponseBody = readBody(resp.Body, t)
	resp.Body.Close()

	code := resp.StatusCode
	switch {
	case code >= 200 && code <= 299:
		return at, Delivered
	case code >= 300 && code <= 399:
		at.ErrorClass = ClassRedirect
	case code == http.StatusGone:
		at.ErrorClass = ClassGone
		return at, GiveUp
	case code == http.StatusTooManyRequests:
		at.ErrorClass = ClassHTTP429
		at.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), at.At)
	case code >= 400 && code <= 499:
		at.ErrorClass = ClassHTTP4xx
	case code >= 500 && code <= 599:
		at.ErrorClass = ClassHTTP5xx
		if code == http.StatusServiceUnavailable {
			at.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), at.At)
		}
	default:
		at.ErrorClass = ClassHTTPOther
	}
	return at, Retry
}

var errInvalidURL = errors.New("invalid callback URL")

// CheckURL accepts absolute https URLs (and http ones when allowHTTP) with a host and without
// userinfo. Its errors leave the URL out: a query string may carry a token.
func CheckURL(raw string, allowHTTP bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errInvalidURL
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "https" && (u.Scheme != "http" || !allowHTTP)) || u.User != nil || u.Opaque != "" || u.Hostname() == "" {
		return nil, errInvalidURL
	}
	return u, nil
}

// fixedAddress reports whether host names its address for good: an IP literal or localhost
// (RFC 6761). Any other name may resolve elsewhere later.
func fixedAddress(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// headerValue reports whether v is non-empty printable ASCII, so it can be sent as a header
// value unchanged.
func headerValue(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// encode is json.Marshal without HTML escaping, so an interview link's "&" stays readable.
func encode(p Payload) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// classify names a transport error. ctx is the attempt's context.
func classify(ctx context.Context, err error) string {
	var (
		dnsErr  *net.DNSError
		netErr  net.Error
		certErr *tls.CertificateVerificationError
		alert   tls.AlertError
		recErr  tls.RecordHeaderError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort),
		errors.Is(err, ssrf.ErrProhibitedNetwork), errors.Is(err, ssrf.ErrInvalidHostPort):
		return ClassSSRFBlocked
	case errors.Is(err, context.Canceled) && ctx.Err() == context.Canceled:
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return ClassTimeout
	case errors.As(err, &dnsErr):
		return ClassDNS
	case errors.As(err, &certErr), errors.As(err, &alert), errors.As(err, &recErr),
		errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid):
		return ClassTLS
	}
	return ClassConnection
}

// readBody reads at most drainBody bytes of an answer and returns its start, redacted and
// cleaned for storage. Read errors are ignored: the status code already decided the attempt.
func readBody(r io.Reader, t Target) string {
	secrets := []string{t.CallbackSecret, t.SigningSecret, strings.TrimPrefix(t.SigningSecret, "whsec_")}
	// Read past keepBody by the longest secret, so one straddling the cut is still redacted.
	want := keepBody + utf8.UTFMax
	for _, sec := range secrets {
		want = max(want, keepBody+len(sec))
	}
	want = min(want, drainBody)
	buf := make([]byte, want)
	n, _ := io.ReadFull(r, buf)
	io.Copy(io.Discard, io.LimitReader(r, int64(drainBody-n)))

	s := string(buf[:n])
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	if len(s) > keepBody {
		cut := keepBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// retryAfter parses a Retry-After value, delay-seconds or HTTP-date, relative to now.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil {
		if secs >= uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	d := when.Sub(now)
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}
