// Package identity is identity verification through a hosted provider (a government ID checked
// against a selfie on the provider's page), for sessions whose job has
// enable_identity_verification: Start creates the verification at the provider and records it
// PENDING with the page's URL; ReceiveWebhook applies the provider's signed outcome (VERIFIED, or
// FAILED with its reason), refusing forged, unknown and replayed deliveries; Expire moves a
// verification still PENDING past its expiry to EXPIRED, for the interview workflow's timer.
//
// The provider is reached only through internal/idverify; the rows are in
// internal/store/identity.go (migration 00033); the webhook's entrance is httpapi/idverify.go.
// The rules are in docs/integrity-checks.md ("Identity verification").
package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/idverify"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// DefaultTTL is how long a verification stays PENDING before it expires, when
// Verifications.TTL is zero.
const DefaultTTL = 24 * time.Hour

// Provider creates verifications at the hosted provider (*idverify.Client).
type Provider interface {
	Create(ctx context.Context, r idverify.CreateRequest) (idverify.Verification, error)
}

// Verifications runs the feature. Provider may be nil where only webhooks and expiries are
// handled (the api's webhook, the worker's timer); Start then answers ErrNotConfigured.
// WebhookSecret is the provider account's Standard Webhooks secret; TTL the verification's
// lifetime (DefaultTTL when zero); Log may be nil.
type Verifications struct {
	Store         *store.Store
	Provider      Provider
	WebhookSecret string
	TTL           time.Duration
	Log           *slog.Logger
}

// Settings are the provider account, from the IDV_* settings: BaseURL and APIKey of its API
// (an empty BaseURL: no verification can start), the webhook secret, and the lifetime of a
// verification.
type Settings struct {
	BaseURL, APIKey, WebhookSecret string
	TTL                            time.Duration
}

// New returns the feature for the account. With no BaseURL, or one the adapter refuses (the
// configuration's validation refuses it first), Provider is nil and Start answers
// ErrNotConfigured; webhooks and expiries work all the same.
func New(st *store.Store, s Settings, log *slog.Logger) *Verifications {
	v := &Verifications{Store: st, WebhookSecret: s.WebhookSecret, TTL: s.TTL, Log: log}
	if s.BaseURL != "" {
		c, err := idverify.New(idverify.Config{BaseURL: s.BaseURL, APIKey: s.APIKey})
		if err != nil {
			v.log().Error("identity verification: provider not usable", "err", err)
			return v
		}
		v.Provider = c
	}
	return v
}

// Errors of the feature. Their messages hold no secret, id or personal data.
var (
	ErrNotConfigured       = errors.New("identity verification is not configured (IDV_BASE_URL, IDV_API_KEY, IDV_WEBHOOK_SECRET)")
	ErrNotRequired         = errors.New("the session's job does not verify identities (enable_identity_verification is off)")
	ErrSessionClosed       = errors.New("the session is closed: expired, cancelled, incomplete or declined")
	ErrProviderUnavailable = errors.New("the identity-verification provider is unavailable; retry later")
	// ErrBadSignature: the delivery is not signed with the provider's secret, a header is
	// missing, or its timestamp is outside webhooksig.Tolerance (an old delivery replayed).
	ErrBadSignature = errors.New("the delivery is not signed by the identity-verification provider")
	// ErrBadEvent: a signed body that is not an identity-verification event.
	ErrBadEvent = errors.New("the delivery is not an identity-verification event")
	// ErrUnknownVerification: no verification has the delivery's provider id and reference.
	ErrUnknownVerification = errors.New("no identity verification matches the delivery")
	// ErrUnknownReturn: a return address that was never given, or was used already.
	ErrUnknownReturn = errors.New("this return address is not valid")
)

// returnIDRE is the shape of a one-time return id: 32 random bytes, base64url without padding.
var returnIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// newReturnID is a one-time return id and the SHA-256 the row keeps of it.
func newReturnID() (string, []byte) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	id := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(id))
	return id, sum[:]
}

// ClaimReturn uses the single-use return address with id (the last segment of the address
// Start gave the provider): the first call returns the link token of the verification's session,
// to send the candidate back to the interview once; later calls and unknown ids are
// ErrUnknownReturn. The provider never holds the interview link itself.
func (v *Verifications) ClaimReturn(ctx context.Context, id string) (string, error) {
	if !returnIDRE.MatchString(id) {
		return "", ErrUnknownReturn
	}
	sum := sha256.Sum256([]byte(id))
	token, err := v.Store.ClaimIdentityReturn(ctx, sum[:])
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrUnknownReturn
	}
	return token, err
}

func (v *Verifications) log() *slog.Logger {
	if v.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return v.Log
}

func (v *Verifications) ttl() time.Duration {
	if v.TTL <= 0 {
		return DefaultTTL
	}
	return v.TTL
}

// Started is a session's verification as Start leaves it. URL is the provider's page while the
// verification is PENDING, "" once it is concluded (VERIFIED or FAILED: a session is verified
// once). ExpiresAt is when a PENDING one expires: the time the interview workflow's timer waits
// for before it calls Expire. Created: this call created it at the provider.
type Started struct {
	VerificationID uuid.UUID
	Status         models.IdentityStatus
	URL            string
	ExpiresAt      time.Time
	Created        bool
}

// Start returns the session's identity verification, creating it at the provider when the
// session has none yet, or only an EXPIRED one (or a PENDING one past its expiry, which it
// expires first): the candidate is sent to Started.URL. A session has at most one PENDING
// verification, so repeated and concurrent calls give the same one; a VERIFIED or FAILED one
// is returned as it is. returnBase, when not empty, is the absolute http(s) prefix of the
// single-use address the provider's page sends the candidate back to: Start appends a one-time
// id (ClaimReturn), so the provider never receives the interview link, the session's credential.
//
// Errors: store.ErrNotFound (no such session in the company), ErrNotRequired (the job has
// enable_identity_verification off), ErrSessionClosed (a new verification for a session that is
// EXPIRED, CANCELLED, INCOMPLETE or DECLINED), ErrNotConfigured, ErrProviderUnavailable (retry).
func (v *Verifications) Start(ctx context.Context, companyID, sessionID uuid.UUID, returnBase string) (Started, error) {
	sess, err := v.Store.IdentitySession(ctx, companyID, sessionID)
	if err != nil {
		return Started{}, err
	}
	if !sess.Enabled {
		return Started{}, ErrNotRequired
	}
	latest, err := v.Store.LatestIdentityVerification(ctx, companyID, sessionID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return Started{}, err
	default:
		if s, keep, err := v.reuse(ctx, companyID, latest); err != nil || keep {
			return s, err
		}
	}
	if !sess.Status.Open() && sess.Status != models.SessionStatusCompleted {
		return Started{}, ErrSessionClosed
	}
	if v.Provider == nil {
		return Started{}, ErrNotConfigured
	}
	var returnURL string
	var returnHash []byte
	if returnBase != "" {
		if u, err := url.Parse(returnBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Started{}, fmt.Errorf("identity verification of session %s: the return URL is not absolute http(s)", sessionID)
		}
		var rid string
		rid, returnHash = newReturnID()
		returnURL = strings.TrimRight(returnBase, "/") + "/" + rid
	}
	id := uuid.New()
	expires := time.Now().Add(v.ttl()).UTC().Truncate(time.Second)
	pv, err := v.Provider.Create(ctx, idverify.CreateRequest{Reference: id, ExpiresAt: expires, ReturnURL: returnURL})
	if errors.Is(err, idverify.ErrTransient) {
		return Started{}, fmt.Errorf("%w: create verification for session %s: %v", ErrProviderUnavailable, sessionID, err)
	}
	if err != nil {
		return Started{}, fmt.Errorf("create verification for session %s: %w", sessionID, err)
	}
	row, created, err := v.Store.CreateIdentityVerification(ctx, store.NewIdentityVerification{
		ID: id, CompanyID: companyID, CandidateID: sess.CandidateID, SessionID: sessionID, JobID: sess.JobID,
		Provider: idverify.ProviderName, ProviderVerificationID: pv.ID, HostedURL: pv.URL, ExpiresAt: expires, ReturnKeyHash: returnHash,
	})
	if err != nil {
		return Started{}, err
	}
	if !created {
		v.log().InfoContext(ctx, "identity verification: a concurrent start won; the provider's extra verification is left to expire there",
			"company_id", companyID, "session_id", sessionID)
	}
	s := started(row)
	s.Created = created
	return s, nil
}

// reuse decides whether Start returns the session's latest verification (keep) or creates a new
// one: a PENDING one at a provider is kept until its expiry, then expired; VERIFIED and FAILED
// are kept; EXPIRED and a PENDING row not started at a provider (seeded) are not.
func (v *Verifications) reuse(ctx context.Context, companyID uuid.UUID, latest store.IdentityVerification) (Started, bool, error) {
	switch latest.Status {
	case models.IdentityStatusVerified, models.IdentityStatusFailed, models.IdentityStatusSkipped:
		return started(latest), true, nil
	case models.IdentityStatusPending:
		if latest.Provider == nil || latest.ExpiresAt == nil {
			return Started{}, false, nil
		}
		if time.Now().Before(*latest.ExpiresAt) {
			return started(latest), true, nil
		}
		res, err := v.Expire(ctx, companyID, latest.ID)
		if err != nil {
			return Started{}, false, err
		}
		if res.Status != models.IdentityStatusExpired {
			// Concluded meanwhile, or not yet overdue by the database's clock: keep it.
			now, err := v.Store.IdentityVerification(ctx, companyID, latest.ID)
			if err != nil {
				return Started{}, false, err
			}
			return started(now), true, nil
		}
	}
	return Started{}, false, nil
}

func started(r store.IdentityVerification) Started {
	s := Started{VerificationID: r.ID, Status: r.Status}
	if r.ExpiresAt != nil {
		s.ExpiresAt = r.ExpiresAt.UTC()
	}
	if r.Status == models.IdentityStatusPending && r.HostedURL != nil {
		s.URL = *r.HostedURL
	}
	return s
}

// OutcomeDuplicate is the outcome of a delivery whose webhook-id was received before (a
// provider's retry): acknowledged with 2xx, nothing applied or recorded again.
const OutcomeDuplicate = "duplicate"

// WebhookResult is what a delivery did: the verification's status afterwards and the outcome
// (store.IdentityApplied, IdentityUnchanged, IdentityIgnored, or OutcomeDuplicate).
type WebhookResult struct {
	Status  models.IdentityStatus
	Outcome string
}

// ReceiveWebhook verifies and applies the provider's webhook (the raw body and its headers):
// the signature under WebhookSecret with the timestamp within webhooksig.Tolerance
// (ErrBadSignature), the event (ErrBadEvent), the verification named by the provider's id and
// recruitd's reference together (ErrUnknownVerification: so one company's reference never
// reaches another's row); a webhook-id seen before is acknowledged as OutcomeDuplicate. A PENDING verification
// moves to VERIFIED, or FAILED with the reason; a concluded one stays as it is, and the
// delivery is acknowledged (unchanged), so a late or conflicting outcome changes nothing.
func (v *Verifications) ReceiveWebhook(ctx context.Context, header http.Header, body []byte, requestID string) (WebhookResult, error) {
	d, err := idverify.VerifyWebhook(header, body, v.WebhookSecret, time.Now())
	switch {
	case errors.Is(err, idverify.ErrSignature):
		v.log().WarnContext(ctx, "identity webhook refused", "request_id", requestID, "reason", err)
		return WebhookResult{}, ErrBadSignature
	case errors.Is(err, idverify.ErrBadEvent):
		v.log().WarnContext(ctx, "identity webhook refused", "request_id", requestID, "reason", err)
		return WebhookResult{}, fmt.Errorf("%w: %v", ErrBadEvent, err)
	case err != nil:
		return WebhookResult{}, err
	}
	o := store.IdentityOutcome{Provider: idverify.ProviderName, ProviderVerificationID: d.Event.VerificationID,
		Reference: d.Event.Reference, WebhookID: d.ID, EventType: d.Event.Type, SignedAt: d.SignedAt}
	if st, ok := d.Event.Outcome(); ok {
		o.Status = st
		if st == models.IdentityStatusFailed && d.Event.FailureReason != "" {
			reason := d.Event.FailureReason
			o.FailureReason = &reason
		}
	}
	res, err := v.Store.ApplyIdentityOutcome(ctx, o)
	if errors.Is(err, store.ErrNotFound) {
		v.log().WarnContext(ctx, "identity webhook for an unknown verification", "request_id", requestID)
		return WebhookResult{}, ErrUnknownVerification
	}
	if err != nil {
		return WebhookResult{}, err
	}
	if res.Replayed {
		// A provider retries a delivery it believes lost: acknowledged, nothing applied again.
		v.log().InfoContext(ctx, "identity webhook delivered again; acknowledged", "request_id", requestID, "company_id", res.CompanyID,
			"verification_id", res.VerificationID)
		return WebhookResult{Status: res.Status, Outcome: OutcomeDuplicate}, nil
	}
	if res.Outcome == store.IdentityUnchanged {
		v.log().InfoContext(ctx, "identity webhook for a concluded verification; kept as it was", "request_id", requestID,
			"company_id", res.CompanyID, "verification_id", res.VerificationID, "status", res.Status, "event", d.Event.Type)
	}
	return WebhookResult{Status: res.Status, Outcome: res.Outcome}, nil
}

// ExpireResult is what Expire found or did: Expired when this call moved the verification to
// EXPIRED; Status afterwards; ExpiresAt its expiry (zero on a row not started at a provider).
type ExpireResult struct {
	Expired   bool
	Status    models.IdentityStatus
	ExpiresAt time.Time
}

// Expire moves the company's verification from PENDING to EXPIRED when it is still PENDING and
// its expiry has passed (checked in SQL by the database's clock, in one statement, so an
// outcome applied at the same moment wins or loses cleanly). Safe to repeat. The interview
// workflow calls it from an activity after a timer to ExpiresAt; when the result is still
// PENDING (the timer fired before the database's clock reached the expiry) it waits until
// ExpiresAt again. store.ErrNotFound for an unknown id or another company's.
func (v *Verifications) Expire(ctx context.Context, companyID, verificationID uuid.UUID) (ExpireResult, error) {
	res, err := v.Store.ExpireIdentityVerification(ctx, companyID, verificationID)
	if err != nil {
		return ExpireResult{}, err
	}
	out := ExpireResult{Expired: res.Expired, Status: res.Status}
	if res.ExpiresAt != nil {
		out.ExpiresAt = res.ExpiresAt.UTC()
	}
	return out, nil
}
