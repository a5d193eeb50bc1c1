// Package ats reads applicant records from a company's applicant tracking system (ATS) for the
// partner-applications endpoint. Each supported ATS type has a read-only JSON-over-HTTP client
// behind the one-method Client interface; errors are classified into sentinels so that the
// caller can tell a final "does not exist" (404) from a transient outage (5xx).
package ats

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recruitd/recruitd/models"
)

// Applicant is what the partner-applications endpoint needs from an ATS applicant record. The
// ids are positive decimal integers without leading zeros.
type Applicant struct {
	// ApplicantID is the ATS applicant entity id the partner sent: a job-submission id
	// (ATS-A), an opportunity-resource id (ATS-B) or the candidate id of a person-on-job
	// record (ATS-C).
	ApplicantID string
	// JobID is the ATS job id the record belongs to.
	JobID string
	// CandidateID is the ATS candidate (person) id.
	CandidateID string

	FirstName, LastName, Email, Phone string
}

// Lookup names one applicant record.
type Lookup struct {
	ApplicantID string
	// JobID may be empty for ATS-A and ATS-B, where the job is derived from the record; there a
	// given JobID is validated but not sent, and the caller cross-checks it against
	// Applicant.JobID. ATS-C requires it (see RequiresJobID).
	JobID string
}

// Client reads applicant records from one company's ATS.
type Client interface {
	// Applicant fetches the record l names with one GET, without retrying: the caller decides
	// whether and when to retry an ErrUnavailable.
	Applicant(ctx context.Context, l Lookup) (*Applicant, error)
}

// The errors of this package; an error returned by a Client wraps exactly one of them, so
// errors.Is tells the caller which status to answer.
var (
	// ErrNotFound means the ATS says the applicant, candidate or job does not exist: final (404).
	ErrNotFound = errors.New("ats: record not found")
	// ErrUnavailable means the ATS did not answer usefully in time: timeouts, network errors,
	// 429, 5xx, redirects, and 404s that do not come from the ATS API (5xx, retryable).
	ErrUnavailable = errors.New("ats: unavailable")
	// ErrAuth means the ATS rejected the company's credentials (401, 403): a 5xx for the
	// partner and an operator alert, never a 404.
	ErrAuth = errors.New("ats: credentials rejected")
	// ErrBadResponse means the ATS answered with a status or body this package cannot use
	// (an unexpected 4xx, malformed JSON, a missing or mismatched id, a body over 1 MiB). It is
	// not the partner's fault: answer 5xx and alert the operator.
	ErrBadResponse = errors.New("ats: unexpected response")
	// ErrInvalidID means an id of the Lookup is not a positive decimal integer, or a required
	// one is missing (400). No request was sent.
	ErrInvalidID = errors.New("ats: invalid id")
	// ErrJobIDRequired is the ErrInvalidID of a Lookup without JobID for an ATS type that
	// fetches records only job-scoped (ATS-C).
	ErrJobIDRequired = fmt.Errorf("%w: a job id is required for this ATS type", ErrInvalidID)
	// ErrUnsupported means the ATS type is not supported for partner applications (422).
	ErrUnsupported = errors.New("ats: unsupported")
	// ErrMisconfigured means the company's ATS connection lacks a credential field or has an
	// unusable baseUrl (an operator problem: 5xx). Its message names fields, never values.
	ErrMisconfigured = errors.New("ats: connection misconfigured")
)

// DefaultTimeout bounds one ATS request when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// maxBody bounds how much of a response body is read.
const maxBody = 1 << 20

// Config configures a Client.
type Config struct {
	// BaseURL is the ATS API root (http or https, without user info), for example
	// "https://rest.ats.example.com/rest-services/abc1". When empty, Credentials["baseUrl"] is used.
	BaseURL string
	// Credentials holds the fields ExpectedCredentialFields names for the ATS type.
	Credentials map[string]string
	// Timeout bounds each request, on top of the caller's context; DefaultTimeout when zero.
	Timeout time.Duration
	// HTTPClient sends the requests; a shared pooled client when nil. Redirects are never
	// followed, whichever client is used, so credentials never leave the configured host.
	HTTPClient *http.Client
}

// Credential field names, as stored in the company's encrypted ATS credentials.
const (
	FieldBaseURL   = "baseUrl"
	FieldRestToken = "restToken" // ATS-A
	FieldAPIKey    = "apiKey"    // ATS-B
	FieldUsername  = "username"  // ATS-C
	FieldPassword  = "password"  // ATS-C
)

var credentialFields = map[models.ATSType][]string{
	models.ATSTypeA: {FieldBaseURL, FieldRestToken},
	models.ATSTypeB: {FieldBaseURL, FieldAPIKey},
	models.ATSTypeC: {FieldBaseURL, FieldUsername, FieldPassword},
}

// ExpectedCredentialFields returns the names of the credential fields the client of t reads,
// baseUrl included, or nil when t is not supported for partner applications.
func ExpectedCredentialFields(t models.ATSType) []string {
	return slices.Clone(credentialFields[t])
}

// RequiresJobID reports whether records of t can only be fetched with a job id (ATS-C).
func RequiresJobID(t models.ATSType) bool { return t == models.ATSTypeC }

// New returns the client of ATS type t. ATS-D (assessment links only) and unknown types give
// an error wrapping ErrUnsupported; an incomplete configuration gives ErrMisconfigured.
func New(t models.ATSType, c Config) (Client, error) {
	fields, ok := credentialFields[t]
	if !ok {
		if t == models.ATSTypeD {
			return nil, fmt.Errorf("%w: %s serves assessment links only, not partner applications", ErrUnsupported, t)
		}
		return nil, fmt.Errorf("%w: ATS type %q", ErrUnsupported, t)
	}
	base := c.BaseURL
	if base == "" {
		base = c.Credentials[FieldBaseURL]
	}
	var absent []string
	for _, f := range fields {
		if f == FieldBaseURL && base == "" || f != FieldBaseURL && c.Credentials[f] == "" {
			absent = append(absent, f)
		}
	}
	if len(absent) > 0 {
		return nil, fmt.Errorf("%w: %s credentials lack %s", ErrMisconfigured, t, strings.Join(absent, ", "))
	}
	u, err := parseBaseURL(base)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s", ErrMisconfigured, t, err)
	}
	switch t {
	case models.ATSTypeA:
		token := c.Credentials[FieldRestToken]
		return &jobSubmissionClient{newConn(t, u, c, func(r *http.Request) { r.Header.Set("BhRestToken", token) })}, nil
	case models.ATSTypeB:
		bearer := "Bearer " + c.Credentials[FieldAPIKey]
		return &opportunityResourceClient{newConn(t, u, c, func(r *http.Request) { r.Header.Set("Authorization", bearer) })}, nil
	default:
		user, pass := c.Credentials[FieldUsername], c.Credentials[FieldPassword]
		return &jobCandidateClient{newConn(t, u, c, func(r *http.Request) { r.SetBasicAuth(user, pass) })}, nil
	}
}

// parseBaseURL checks an ATS base URL. Its errors never quote the URL, which might carry a
// secret in a query or user info.
func parseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, errors.New("baseUrl is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("baseUrl must be an http or https URL")
	case u.Host == "":
		return nil, errors.New("baseUrl has no host")
	case u.User != nil:
		return nil, errors.New("baseUrl must not carry user info; use the credential fields")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("baseUrl must not carry a query or fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// parseID checks that s is a positive decimal integer without sign or leading zeros, the form
// of ATS ids. name says which id, for the error.
func parseID(name, s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != s {
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return fmt.Errorf("%w: %s %q is not a positive integer", ErrInvalidID, name, s)
	}
	return nil
}

// checkLookup validates the ids of l before any request.
func checkLookup(l Lookup, jobRequired bool) error {
	if l.ApplicantID == "" {
		return fmt.Errorf("%w: the applicant id is missing", ErrInvalidID)
	}
	if err := parseID("applicant id", l.ApplicantID); err != nil {
		return err
	}
	if l.JobID == "" {
		if jobRequired {
			return ErrJobIDRequired
		}
		return nil
	}
	return parseID("job id", l.JobID)
}
