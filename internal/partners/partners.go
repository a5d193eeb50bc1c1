// Package partners is the home of partner applications: the rules of a submission (its checks
// in order, a repeat's cross-checks, the ATS lookup through internal/ats), its recording with
// the start of its run, and the launch of that start after the commit. The entrance
// (httpapi/partners.go) parses the request and maps the errors below through its error table;
// the run itself is workflows/partner.go with its activities in activities/partner.go.
package partners

import (
	"errors"
	"time"

	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
)

// Applications receives partner submissions. cmd/recruitd wires it.
type Applications struct {
	Store    *store.Store
	Launcher *outbox.Launcher
	// Box opens the company's ATS credentials.
	Box *secretbox.Box
	// ATSTimeout bounds one ATS request (ATS_TIMEOUT); a slower ATS is ErrATSUnavailable.
	ATSTimeout time.Duration
}

// The submission's refusals, in the order Submit checks them (see Submit). Each is final for
// the request, except ErrATSUnavailable, which a partner retries with backoff.
var (
	// ErrMissingFields: an id the submission requires is absent (a *FieldError names it).
	ErrMissingFields = errors.New("missing required fields")
	// ErrInvalidField: an id is not a positive integer (a *FieldError names it).
	ErrInvalidField = errors.New("invalid field")
	// ErrNoCallbackEndpoint: the caller's API key is bound to no partner, so no callback could
	// reach it.
	ErrNoCallbackEndpoint = errors.New("the API key is not bound to a partner")
	// ErrOtherPartner: the applicant was submitted by another partner of the company, which
	// alone receives its status and callbacks.
	ErrOtherPartner = errors.New("applicant submitted by another partner")
	// ErrJobMismatch: atsJobId differs from the job of the ATS record or the stored application.
	ErrJobMismatch = errors.New("atsJobId does not match the applicant record")
	// ErrCandidateMismatch: atsCandidateId differs from the candidate of the ATS record or the
	// stored application.
	ErrCandidateMismatch = errors.New("atsCandidateId does not match the applicant record")
	// ErrUnsupportedATS: the company's ATS type takes no partner applications.
	ErrUnsupportedATS = errors.New("the company's ATS does not support partner applications")
	// ErrJobNotFound: no job of the company has the ATS job id.
	ErrJobNotFound = errors.New("no job of the company matches the ATS job id")
	// ErrJobClosed: the job is not active or not open.
	ErrJobClosed = errors.New("the job is closed or not active")
	// ErrNoPartnerTrigger: the company has no enabled partner_application flow.
	ErrNoPartnerTrigger = errors.New("no enabled partner_application trigger")
	// ErrApplicantNotFound: the ATS has no such applicant (or candidate, or job).
	ErrApplicantNotFound = errors.New("the applicant does not exist in the ATS")
	// ErrATSUnavailable: the ATS did not answer in time or failed; the error wraps the cause.
	ErrATSUnavailable = errors.New("the ATS is unavailable")
)

// FieldError is a submission refused for its fields. It wraps ErrMissingFields or
// ErrInvalidField; Detail is written for the caller (which fields, and why).
type FieldError struct {
	Kind   error
	detail string
}

func (e *FieldError) Error() string { return e.detail }

// Unwrap returns e.Kind.
func (e *FieldError) Unwrap() error { return e.Kind }

// Detail is the message for the caller.
func (e *FieldError) Detail() string { return e.detail }
