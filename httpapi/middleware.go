package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/jsontext"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

const (
	ctxRequestID = "recruitd.request_id"
	ctxCompany   = "recruitd.company"
	ctxAPIKey    = "recruitd.api_key"
)

// observe assigns the request id, records metrics and writes one access-log line per request.
func (s *server) observe(c *gin.Context) {
	rid := c.GetHeader("X-Request-ID")
	if !wellFormedRequestID(rid) {
		rid = uuid.NewString()
	}
	c.Set(ctxRequestID, rid)
	c.Header("X-Request-ID", rid)
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	done := s.Metrics.Start("api", c.Request.Method)
	begin := time.Now()
	c.Next()
	status := c.Writer.Status()
	done(c.FullPath(), status)
	attrs := []any{"request_id", rid, "method", c.Request.Method, "route", c.FullPath(),
		"status", status, "duration_ms", time.Since(begin).Milliseconds()}
	if co, ok := c.Get(ctxCompany); ok {
		attrs = append(attrs, "company", co.(*models.Company).Slug)
	}
	s.Log.InfoContext(c.Request.Context(), "http request", attrs...)
}

// boundDatabase bounds the request's database work (store.Bounded, DB_REQUEST_TIMEOUT): a hung
// Postgres is answered 503 with Retry-After within the bound, never after the hang.
func (s *server) boundDatabase(c *gin.Context) {
	c.Request = c.Request.WithContext(store.Bounded(c.Request.Context(), s.Config.DBRequestTimeout))
	c.Next()
}

// wellFormedRequestID reports whether a client's X-Request-ID may be kept: 1 to 64 characters of
// A-Z, a-z, 0-9 and . _ : - (UUIDs, ULIDs, "req-123", trace ids). Anything else is replaced, so
// what is echoed and logged is never the client's markup, spaces or lookalike characters.
func wellFormedRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '.' || b == '_' || b == ':' || b == '-') {
			return false
		}
	}
	return true
}

// recover turns a panic into a logged 500 without internals in the response.
func (s *server) recover(c *gin.Context) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.fail(c, panicError{p})
		}
	}()
	c.Next()
}

type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }

// cleanParams refuses path and query parameters that Postgres could not store (NUL, bytes that
// are not UTF-8), naming the parameter, before any handler reads them.
func (s *server) cleanParams(c *gin.Context) {
	for _, p := range c.Params {
		if err := jsontext.String(p.Key, p.Value); err != nil {
			s.fail(c, invalidText(err.(*jsontext.Problem)))
			return
		}
	}
	for k, vs := range c.Request.URL.Query() {
		for _, v := range append(vs, k) {
			if err := jsontext.String(k, v); err != nil {
				s.fail(c, invalidText(err.(*jsontext.Problem)))
				return
			}
		}
	}
	c.Next()
}

// limitBody bounds every request body to MAX_BODY_BYTES, and HR-suite deliveries to
// HRSUITE_MAX_BODY_BYTES (the candidate page's forms to a far smaller bound of their own). A body declared larger (Content-Length) gets 413 at once, before
// authentication and before any of it is read; a longer streamed one is cut off at the bound.
func (s *server) limitBody(c *gin.Context) {
	if strings.HasPrefix(c.Request.URL.Path, "/interview/") {
		c.Next() // the candidate page bounds its forms itself and answers in HTML (readInterviewForm)
		return
	}
	if c.Request.Body != nil {
		limit := s.Config.MaxBodyBytes
		if c.Request.URL.Path == hrsuitePath {
			limit = s.Config.HRSuiteMaxBody
		}
		if c.Request.ContentLength > limit {
			c.Header("Connection", "close") // else net/http would read up to 256 KB of the body first
			if c.Request.URL.Path == hrsuitePath {
				s.fail(c, deliveryTooLarge(limit))
			} else {
				s.fail(c, errTooLarge)
			}
			return
		}
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	}
	c.Next()
}

// deliveryTooLarge is the 413 of an HR-suite delivery over limit bytes: it names the limit and
// asks for a split.
func deliveryTooLarge(limit int64) error {
	return newError(http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE",
		"the delivery is larger than "+itoa(limit)+" bytes; split the report into several deliveries")
}

// authenticate resolves X-API-Key (any header-name case) to the caller's company. A valid key
// is served whatever other clients of its address did; a key over its request rate gets 429.
// Failures are refused through refuse.
func (s *server) authenticate(c *gin.Context) {
	key := c.GetHeader("X-API-Key")
	if key == "" {
		s.fail(c, errMissingKey)
		return
	}
	company, k, err := s.Store.Authenticate(c.Request.Context(), key)
	if errors.Is(err, store.ErrUnknownKey) || errors.Is(err, store.ErrRevokedKey) {
		s.refuse(c, err)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	if ok, wait := s.keyLimits.Allow(c.Request.Context(), k.ID.String()); !ok {
		s.fail(c, tooMany("RATE_LIMITED", "too many requests with this API key; retry after the Retry-After delay", wait))
		return
	}
	if k.LastUsedAt == nil || time.Since(*k.LastUsedAt) > time.Minute {
		err := s.Store.TouchAPIKey(c.Request.Context(), company.ID, k.ID, time.Now().UTC())
		if store.Unavailable(c.Request.Context(), err) {
			s.fail(c, err)
			return
		}
		if err != nil {
			s.Log.WarnContext(c.Request.Context(), "api key last-used not recorded", "request_id", requestID(c), "err", err)
		}
	}
	c.Set(ctxCompany, company)
	c.Set(ctxAPIKey, k)
	c.Next()
}

// refuse answers a credential that failed (unknown, revoked, malformed): err's 401 while the
// client IP has failures left in its budget (AUTH_FAILURE_LIMIT), each failure spending one, and
// 429 once it is spent. Only failures consult the budget: a valid credential from the same
// address is answered as if no one had failed, and a missing one guesses nothing and spends
// nothing.
func (s *server) refuse(c *gin.Context, err error) {
	ip := clientip.Of(c.Request, s.proxies) // the peer, unless a trusted proxy: forwarded-for headers are the client's to forge
	if ok, wait := s.authFailures.Allow(c.Request.Context(), ip); !ok {
		s.fail(c, tooMany("AUTH_RATE_LIMITED", "too many failed authentications from this address; retry after the Retry-After delay", wait))
		return
	}
	s.fail(c, err)
}

// require lets through only keys that have scope: 403 INSUFFICIENT_SCOPE otherwise.
func (s *server) require(scope models.Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !callerKey(c).Has(scope) {
			s.fail(c, newError(http.StatusForbidden, "INSUFFICIENT_SCOPE",
				"this API key lacks the "+string(scope)+" scope; ask the company for a key with it (recruitd apikey create --scope "+string(scope)+")"))
			return
		}
		c.Next()
	}
}

// tooMany is a 429 answer whose Retry-After covers wait.
func tooMany(code, message string, wait time.Duration) *apiError {
	return &apiError{status: http.StatusTooManyRequests, code: code, message: message, retryAfter: max(1, int(math.Ceil(wait.Seconds())))}
}

func requestID(c *gin.Context) string { return c.GetString(ctxRequestID) }

// company is the authenticated caller's company; only valid behind authenticate.
func company(c *gin.Context) *models.Company { return c.MustGet(ctxCompany).(*models.Company) }

// callerKey is the API key the caller authenticated with; only valid behind authenticate.
func callerKey(c *gin.Context) *models.APIKey { return c.MustGet(ctxAPIKey).(*models.APIKey) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
