package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/atswrite"
	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/invite"
	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/jobs"
	"github.com/recruitd/recruitd/internal/jsontext"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/partners"
	"github.com/recruitd/recruitd/internal/store"
)

// ErrorBody is the spec's error shape, used by every non-2xx response.
type ErrorBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// apiError is an error that knows its response. Handlers return these for input problems; the
// message is shown to the caller, so it must hold no internals.
type apiError struct {
	status     int
	code       string
	message    string
	retryAfter int // seconds; sent as Retry-After when set
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func newError(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

var (
	errMissingKey  = newError(http.StatusUnauthorized, "MISSING_API_KEY", "missing API key: send it in the X-API-Key header")
	errInvalidKey  = newError(http.StatusUnauthorized, "INVALID_API_KEY", "invalid API key")
	errRevokedKey  = newError(http.StatusUnauthorized, "INVALID_API_KEY", "API key has been revoked")
	errNoRoute     = newError(http.StatusNotFound, "NOT_FOUND", "no such endpoint")
	errNoMethod    = newError(http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed on this endpoint")
	errTooLarge    = newError(http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE", "request body too large")
	errContentType = newError(http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json")
	errInternal    = newError(http.StatusInternalServerError, "INTERNAL_ERROR", "internal error")
	errUnavailable = &apiError{status: http.StatusServiceUnavailable, code: "TEMPORARILY_UNAVAILABLE",
		message: "the service could not start processing this request; retry the same request after the Retry-After delay", retryAfter: 5}
	errDatabaseDown = &apiError{status: http.StatusServiceUnavailable, code: "SERVICE_UNAVAILABLE",
		message: "the service's database is unavailable for the moment; retry the same request after the Retry-After delay", retryAfter: 5}
)

// errorTable maps sentinel errors from lower layers to responses. Anything not here, and not an
// *apiError, is an internal error: logged with the request id, never shown. A row whose
// response has no message answers with the Detail of the error (a detailed error in its chain),
// which the feature wrote for the caller.
var errorTable = []struct {
	target error
	resp   *apiError
}{
	{partners.ErrMissingFields, newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "")},
	{partners.ErrInvalidField, newError(http.StatusBadRequest, "INVALID_FIELD", "")},
	{partners.ErrNoCallbackEndpoint, newError(http.StatusConflict, "NO_CALLBACK_ENDPOINT", "this API key is not bound to a partner with a callback endpoint; ask the company to register your callback URL and bind your key (recruitd partners add, apikey create --partner)")},
	{partners.ErrOtherPartner, newError(http.StatusConflict, "SUBMITTED_BY_ANOTHER_PARTNER", "this applicant was submitted by another partner; only that partner receives its status and callbacks")},
	{partners.ErrJobMismatch, newError(http.StatusUnprocessableEntity, "ID_MISMATCH", "atsJobId does not match the applicant record")},
	{partners.ErrCandidateMismatch, newError(http.StatusUnprocessableEntity, "ID_MISMATCH", "atsCandidateId does not match the applicant record")},
	{partners.ErrUnsupportedATS, newError(http.StatusUnprocessableEntity, "UNSUPPORTED_ATS", "the company's ATS does not support partner applications")},
	{partners.ErrJobNotFound, newError(http.StatusNotFound, "JOB_NOT_FOUND", "no job of this company matches the ATS job id")},
	{partners.ErrJobClosed, newError(http.StatusConflict, "JOB_CLOSED", "the job is closed or not active")},
	{partners.ErrNoPartnerTrigger, newError(http.StatusConflict, "NO_PARTNER_TRIGGER", "the job's workflow has no enabled partner_application trigger")},
	{partners.ErrApplicantNotFound, newError(http.StatusNotFound, "APPLICANT_NOT_FOUND", "the applicant or candidate does not exist in the ATS")},
	{partners.ErrATSUnavailable, &apiError{status: http.StatusServiceUnavailable, code: "ATS_UNAVAILABLE",
		message: "the ATS did not answer in time or failed; retry with backoff", retryAfter: 30}},
	{invite.ErrNoContact, newError(http.StatusBadRequest, "NO_USABLE_CONTACT", "the candidate has no e-mail address or phone number that the chosen channels can reach")},
	{invite.ErrInterviewerNotFound, errNoInterviewer},
	{invite.ErrJobNotActive, newError(http.StatusConflict, "JOB_NOT_ACTIVE", "the job is not active or is closed; candidates can be invited only to ACTIVE, open jobs")},
	{jobs.ErrDuplicate, newError(http.StatusBadRequest, "DUPLICATE_EXTERNAL_JOB_ID", "a job with this externalJobId already exists in your company")},
	{interview.ErrReasonMissing, newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "")},
	{interview.ErrReasonTooLong, newError(http.StatusBadRequest, "INVALID_FIELD", "")},
	{interview.ErrReasonNotText, newError(http.StatusBadRequest, "INVALID_FIELD", "")},
	{interview.ErrSessionEnded, newError(http.StatusConflict, "SESSION_ENDED", "")},
	{atswrite.ErrNoteTooLong, newError(http.StatusBadRequest, "INVALID_FIELD", "note is longer than 2000 bytes")},
	{store.ErrUnknownKey, errInvalidKey},
	{store.ErrRevokedKey, errRevokedKey},
	{store.ErrNotFound, newError(http.StatusNotFound, "NOT_FOUND", "not found")},
	{store.ErrConflict, newError(http.StatusConflict, "CONFLICT", "already exists")},
	{outbox.ErrUnavailable, errUnavailable},
	{hrsuitereport.ErrNotArray, errNotArray},
	{jobimport.ErrBadSignature, errBadSignature},
	{jobimport.ErrNotConfigured, errNoAggregator},
	{aggregator.ErrUnauthorized, errAggregatorRefused},
	{aggregator.ErrTransient, errAggregatorDown},
	{aggregator.ErrPermanent, errAggregator},
	{aggregator.ErrSetupPending, errAggregator},
	{identity.ErrBadSignature, errIDVSignature},
	{identity.ErrBadEvent, errIDVEvent},
	{identity.ErrUnknownVerification, errIDVUnknown},
}

// detailed is an error whose Detail is written for the caller: which fields, and why.
type detailed interface{ Detail() string }

func classify(err error) (*apiError, bool) {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae, true
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errTooLarge, true
	}
	for _, row := range errorTable {
		if !errors.Is(err, row.target) {
			continue
		}
		if row.resp.message != "" {
			return row.resp, true
		}
		msg := row.target.Error()
		var d detailed
		if errors.As(err, &d) {
			msg = d.Detail()
		}
		return &apiError{status: row.resp.status, code: row.resp.code, message: msg, retryAfter: row.resp.retryAfter}, true
	}
	if store.IsUnavailable(err) {
		return errDatabaseDown, true
	}
	return errInternal, false
}

// fail answers c with err's response and aborts the chain.
func (s *server) fail(c *gin.Context, err error) {
	resp, known := classify(err)
	if !known && store.Unavailable(c.Request.Context(), err) {
		resp, known = errDatabaseDown, true
	}
	if resp == errDatabaseDown {
		s.Log.WarnContext(c.Request.Context(), "database unavailable", "request_id", requestID(c), "route", c.FullPath(), "err", err)
	}
	msg := resp.message
	if !known {
		rid := requestID(c)
		s.Log.ErrorContext(c.Request.Context(), "request failed", "request_id", rid, "route", c.FullPath(), "err", err)
		msg = "internal error (request id " + rid + ")"
	}
	if resp.retryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(resp.retryAfter))
	}
	c.AbortWithStatusJSON(resp.status, ErrorBody{Success: false, Message: msg, Code: resp.code})
}

// readJSONBody reads a JSON request body: 415 unless the media type is JSON (compared
// case-insensitively, RFC 9110 8.3.1), the body-limit and read errors as jsonError maps them.
func readJSONBody(c *gin.Context) ([]byte, error) {
	ct := strings.ToLower(c.ContentType())
	if ct != "application/json" && !strings.HasSuffix(ct, "+json") {
		return nil, errContentType
	}
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		return nil, jsonError(err)
	}
	return body, nil
}

// decodeJSON reads the request body into v: JSON only, one value, bounded by the body limit.
func decodeJSON(c *gin.Context, v any) error {
	body, err := readJSONBody(c)
	if err != nil {
		return err
	}
	if err := checkBody(c.Request.Context(), body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return newError(http.StatusBadRequest, "INVALID_JSON", "request body holds more than one JSON value")
	}
	return nil
}

// errTooDeep answers a body nested deeper than jsontext.MaxDepth.
var errTooDeep = newError(http.StatusBadRequest, "JSON_TOO_DEEP",
	"the body nests objects and arrays more than "+itoa(jsontext.MaxDepth)+" levels deep; "+itoa(jsontext.MaxDepth)+" is the limit")

// errGone answers a request whose client left while its body was checked; no one reads it.
var errGone = newError(499, "CLIENT_CLOSED_REQUEST", "the client closed the request")

// checkBody applies the edge's JSON rules (internal/jsontext) to a request body before any
// decoder sees it: text Postgres cannot store, a name repeated in one object and nesting deeper
// than jsontext.MaxDepth are refused, naming the field or the limit. A body that is not JSON
// passes: the caller's decoder says where it breaks. The walk stops when the request ends.
func checkBody(ctx context.Context, body []byte) error {
	return bodyError(ctx, jsontext.CheckContext(ctx, body))
}

// bodyError is the response to an error of jsontext.CheckContext; nil for none.
func bodyError(ctx context.Context, err error) error {
	var bad *jsontext.Problem
	var rep *jsontext.Repeated
	switch {
	case err == nil, errors.Is(err, jsontext.ErrSyntax):
		return nil
	case errors.As(err, &bad):
		return invalidText(bad)
	case errors.As(err, &rep):
		return newError(http.StatusBadRequest, "REPEATED_FIELD", rep.Error()+": each name may appear once in an object")
	case errors.Is(err, jsontext.ErrTooDeep):
		return errTooDeep
	case ctx.Err() != nil:
		return errGone
	}
	return fmt.Errorf("check the request body: %w", err)
}

// invalidText is the 400 of a value Postgres cannot store.
func invalidText(p *jsontext.Problem) error {
	return newError(http.StatusBadRequest, "INVALID_FIELD", p.Error()+": text may not hold NUL characters or bytes that are not UTF-8")
}

func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return errTooLarge
	case errors.Is(err, io.EOF):
		return newError(http.StatusBadRequest, "INVALID_JSON", "request body is empty")
	case errors.As(err, &syn):
		return newError(http.StatusBadRequest, "INVALID_JSON", "malformed JSON at byte "+itoa(syn.Offset))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return newError(http.StatusBadRequest, "INVALID_JSON", "field "+field+" must be "+jsonKind(typ.Type.Kind()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newError(http.StatusBadRequest, "INVALID_JSON", "malformed JSON: unexpected end of body")
	}
	return newError(http.StatusBadRequest, "INVALID_JSON", "malformed JSON")
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "of another type"
}
