package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// Identity verification through a hosted provider (internal/identity): the session a
// verification is for, its row with the provider's columns (migration 00033), the outcome of the
// provider's webhook and the expiry.

// IdentitySession is what a verification needs of an interview session: whose it is, for which
// job, and whether that job verifies identities.
type IdentitySession struct {
	SessionID, CandidateID, JobID uuid.UUID
	Status                        models.SessionStatus
	Enabled                       bool
}

// IdentitySession loads the company's session with its job's enable_identity_verification.
func (s *Store) IdentitySession(ctx context.Context, companyID, sessionID uuid.UUID) (IdentitySession, error) {
	var row struct {
		CandidateID uuid.UUID
		JobID       uuid.UUID
		Status      models.SessionStatus
		Enabled     bool
	}
	res := s.db.WithContext(ctx).Raw(`
		SELECT s.candidate_id, s.job_id, s.status, j.enable_identity_verification AS enabled
		FROM interview_sessions s JOIN jobs j ON j.company_id = s.company_id AND j.id = s.job_id
		WHERE s.company_id = ? AND s.id = ?`, companyID, sessionID).Scan(&row)
	if res.Error != nil {
		return IdentitySession{}, fmt.Errorf("load session %s for identity verification: %w", sessionID, res.Error)
	}
	if res.RowsAffected == 0 {
		return IdentitySession{}, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	return IdentitySession{SessionID: sessionID, CandidateID: row.CandidateID, JobID: row.JobID, Status: row.Status, Enabled: row.Enabled}, nil
}

// IdentityVerification is an identity_verifications row with the provider's columns, which are
// nil on rows recruitd did not start at a provider.
type IdentityVerification struct {
	models.IdentityVerification
	Provider               *string    `gorm:"column:provider"`
	ProviderVerificationID *string    `gorm:"column:provider_verification_id"`
	HostedURL              *string    `gorm:"column:hosted_url"`
	ExpiresAt              *time.Time `gorm:"column:expires_at"`
}

const identityColumns = `id, company_id, candidate_id, session_id, job_id, status, failure_reason, created_at, completed_at,
	provider, provider_verification_id, hosted_url, expires_at`

// IdentityVerification loads one of the company's verifications.
func (s *Store) IdentityVerification(ctx context.Context, companyID, id uuid.UUID) (IdentityVerification, error) {
	var v IdentityVerification
	res := s.db.WithContext(ctx).Raw(`SELECT `+identityColumns+` FROM identity_verifications WHERE company_id = ? AND id = ?`, companyID, id).Scan(&v)
	if res.Error != nil {
		return v, fmt.Errorf("load identity verification %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return v, fmt.Errorf("identity verification %s: %w", id, ErrNotFound)
	}
	return v, nil
}

// LatestIdentityVerification loads the session's newest verification (ErrNotFound when none).
func (s *Store) LatestIdentityVerification(ctx context.Context, companyID, sessionID uuid.UUID) (IdentityVerification, error) {
	var v IdentityVerification
	res := s.db.WithContext(ctx).Raw(`SELECT `+identityColumns+` FROM identity_verifications
		WHERE company_id = ? AND session_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`, companyID, sessionID).Scan(&v)
	if res.Error != nil {
		return v, fmt.Errorf("load identity verification of session %s: %w", sessionID, res.Error)
	}
	if res.RowsAffected == 0 {
		return v, fmt.Errorf("identity verification of session %s: %w", sessionID, ErrNotFound)
	}
	return v, nil
}

// NewIdentityVerification is a verification created at the provider, to record PENDING. ID is
// the reference the provider was given.
type NewIdentityVerification struct {
	ID, CompanyID, CandidateID, SessionID, JobID uuid.UUID
	Provider, ProviderVerificationID, HostedURL  string
	ExpiresAt                                    time.Time
	// ReturnKeyHash is the SHA-256 of the one-time id of the address the provider sends the
	// candidate back to (ClaimIdentityReturn); nil when none was given.
	ReturnKeyHash []byte
}

// CreateIdentityVerification records v as PENDING. When the session already has a PENDING
// verification at a provider (a concurrent start won), it keeps that one and returns it with
// created false.
func (s *Store) CreateIdentityVerification(ctx context.Context, v NewIdentityVerification) (IdentityVerification, bool, error) {
	var out IdentityVerification
	res := s.db.WithContext(ctx).Raw(`
		INSERT INTO identity_verifications (id, company_id, candidate_id, session_id, job_id, status,
			provider, provider_verification_id, hosted_url, expires_at, return_key_hash)
		VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?)
		ON CONFLICT (company_id, session_id) WHERE status = 'PENDING' AND provider IS NOT NULL DO NOTHING
		RETURNING `+identityColumns,
		v.ID, v.CompanyID, v.CandidateID, v.SessionID, v.JobID, v.Provider, v.ProviderVerificationID, v.HostedURL, v.ExpiresAt.UTC(),
		v.ReturnKeyHash).Scan(&out)
	if res.Error != nil {
		return out, false, fmt.Errorf("record identity verification of session %s: %w", v.SessionID, res.Error)
	}
	if res.RowsAffected == 1 {
		return out, true, nil
	}
	res = s.db.WithContext(ctx).Raw(`SELECT `+identityColumns+` FROM identity_verifications
		WHERE company_id = ? AND session_id = ? AND status = 'PENDING' AND provider IS NOT NULL`, v.CompanyID, v.SessionID).Scan(&out)
	if res.Error != nil {
		return out, false, fmt.Errorf("load the pending identity verification of session %s: %w", v.SessionID, res.Error)
	}
	if res.RowsAffected == 0 {
		// The winner concluded between the two statements; the caller may start again.
		return out, false, fmt.Errorf("pending identity verification of session %s: %w", v.SessionID, ErrConflict)
	}
	return out, false, nil
}

// IdentityOutcome is a verified provider webhook to apply: the verification it names (the
// provider's id and recruitd's reference, which must belong to one row), the delivery's
// webhook-id, type and signed time, and the status it concludes with ("" for an event that
// concludes nothing) and the failure reason.
type IdentityOutcome struct {
	Provider, ProviderVerificationID string
	Reference                        uuid.UUID
	WebhookID, EventType             string
	SignedAt                         time.Time
	Status                           models.IdentityStatus
	FailureReason                    *string
}

// Outcomes of ApplyIdentityOutcome, as identity_webhook_deliveries records them
// (models.IdentityWebhookOutcomes).
const (
	IdentityApplied   = models.IdentityWebhookApplied
	IdentityUnchanged = models.IdentityWebhookUnchanged
	IdentityIgnored   = models.IdentityWebhookIgnored
)

// IdentityOutcomeResult is what applying a webhook did. Replayed: the webhook-id was received
// before, and nothing was done.
type IdentityOutcomeResult struct {
	CompanyID, VerificationID uuid.UUID
	Status                    models.IdentityStatus
	Outcome                   string
	Replayed                  bool
}

// ApplyIdentityOutcome records the delivery's webhook-id and applies its outcome in one
// transaction: the row is found by provider, provider id and reference together (ErrNotFound
// otherwise; this lookup establishes the tenant, as an API key does), a webhook-id already
// recorded is a replay (Replayed, nothing written), and only a PENDING row moves, to VERIFIED or
// FAILED with the reason and completed_at. The row is locked first, so concurrent deliveries of
// one verification apply one after the other.
func (s *Store) ApplyIdentityOutcome(ctx context.Context, o IdentityOutcome) (IdentityOutcomeResult, error) {
	var res IdentityOutcomeResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var row struct {
			CompanyID uuid.UUID
			ID        uuid.UUID
			Status    models.IdentityStatus
		}
		q := tx.Raw(`SELECT company_id, id, status FROM identity_verifications
			WHERE provider = ? AND provider_verification_id = ? AND id = ? FOR UPDATE`,
			o.Provider, o.ProviderVerificationID, o.Reference).Scan(&row)
		if q.Error != nil {
			return fmt.Errorf("find identity verification %s: %w", o.Reference, q.Error)
		}
		if q.RowsAffected == 0 {
			return fmt.Errorf("identity verification %s at %s: %w", o.Reference, o.Provider, ErrNotFound)
		}
		res.CompanyID, res.VerificationID, res.Status = row.CompanyID, row.ID, row.Status
		switch {
		case o.Status == "":
			res.Outcome = IdentityIgnored
		case row.Status == models.IdentityStatusPending:
			res.Outcome = IdentityApplied
		default:
			res.Outcome = IdentityUnchanged
		}
		ins := tx.Exec(`INSERT INTO identity_webhook_deliveries (provider, webhook_id, company_id, verification_id, event_type, outcome, signed_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (provider, webhook_id) DO NOTHING`,
			o.Provider, o.WebhookID, row.CompanyID, row.ID, o.EventType, res.Outcome, o.SignedAt.UTC())
		if ins.Error != nil {
			return fmt.Errorf("record identity webhook %s: %w", o.WebhookID, ins.Error)
		}
		if ins.RowsAffected == 0 {
			res.Replayed, res.Outcome = true, ""
			return errReplayed
		}
		if res.Outcome != IdentityApplied {
			return nil
		}
		upd := tx.Exec(`UPDATE identity_verifications SET status = ?, failure_reason = ?, completed_at = now()
			WHERE company_id = ? AND id = ? AND status = 'PENDING'`, o.Status, o.FailureReason, row.CompanyID, row.ID)
		if upd.Error != nil {
			return fmt.Errorf("conclude identity verification %s: %w", row.ID, upd.Error)
		}
		res.Status = o.Status
		return nil
	})
	if errors.Is(err, errReplayed) {
		return res, nil
	}
	return res, err
}

// errReplayed rolls back ApplyIdentityOutcome's transaction for a replay.
var errReplayed = errors.New("identity webhook replayed")

// IdentityExpiry is what ExpireIdentityVerification found or did.
type IdentityExpiry struct {
	// Expired: this call moved the verification from PENDING to EXPIRED.
	Expired bool
	// Status is the verification's status after the call; ExpiresAt its expiry (nil on rows
	// recruitd did not start at a provider, which never expire here).
	Status    models.IdentityStatus
	ExpiresAt *time.Time
}

// ExpireIdentityVerification moves the company's verification from PENDING to EXPIRED, with
// completed_at, only when it is still PENDING and its expires_at has passed by the database's
// clock: one conditional UPDATE, so a webhook applied at the same moment and an early timer both
// leave it as it is. ErrNotFound for another company's or an unknown verification.
func (s *Store) ExpireIdentityVerification(ctx context.Context, companyID, id uuid.UUID) (IdentityExpiry, error) {
	var out struct {
		Status    models.IdentityStatus
		ExpiresAt *time.Time
	}
	res := s.db.WithContext(ctx).Raw(`UPDATE identity_verifications SET status = 'EXPIRED', completed_at = now()
		WHERE company_id = ? AND id = ? AND status = 'PENDING' AND expires_at <= now()
		RETURNING status, expires_at`, companyID, id).Scan(&out)
	if res.Error != nil {
		return IdentityExpiry{}, fmt.Errorf("expire identity verification %s: %w", id, res.Error)
	}
	if res.RowsAffected == 1 {
		return IdentityExpiry{Expired: true, Status: out.Status, ExpiresAt: out.ExpiresAt}, nil
	}
	v, err := s.IdentityVerification(ctx, companyID, id)
	if err != nil {
		return IdentityExpiry{}, err
	}
	return IdentityExpiry{Status: v.Status, ExpiresAt: v.ExpiresAt}, nil
}

// recordSkippedIdentity records, inside a transaction that ends the session (completion, the
// deadline), that the identity step of a job with enable_identity_verification was skipped:
// a SKIPPED verification when the session has none. A session that started one keeps it (a
// PENDING one expires by its own timer).
func recordSkippedIdentity(tx *gorm.DB, companyID, sessionID uuid.UUID) error {
	err := tx.Exec(`
		INSERT INTO identity_verifications (company_id, candidate_id, session_id, job_id, status, completed_at)
		SELECT s.company_id, s.candidate_id, s.id, s.job_id, 'SKIPPED', now()
		FROM interview_sessions s JOIN jobs j ON j.company_id = s.company_id AND j.id = s.job_id
		WHERE s.company_id = ? AND s.id = ? AND j.enable_identity_verification
		  AND NOT EXISTS (SELECT 1 FROM identity_verifications v WHERE v.company_id = s.company_id AND v.session_id = s.id)`,
		companyID, sessionID).Error
	if err != nil {
		return fmt.Errorf("record the skipped identity step of session %s: %w", sessionID, err)
	}
	return nil
}

// ClaimIdentityReturn uses the one-time return address whose id hashes to keyHash: the first
// call marks it used and returns the link token of the verification's session; any later call,
// and an unknown hash, is ErrNotFound. One statement, so two visits at once use it once.
func (s *Store) ClaimIdentityReturn(ctx context.Context, keyHash []byte) (string, error) {
	var rows []struct{ LinkToken *string }
	err := s.db.WithContext(ctx).Raw(`
		WITH used AS (
			UPDATE identity_verifications SET return_used_at = now()
			WHERE return_key_hash = ? AND return_used_at IS NULL
			RETURNING company_id, session_id)
		SELECT s.link_token FROM used JOIN interview_sessions s ON s.company_id = used.company_id AND s.id = used.session_id`,
		keyHash).Scan(&rows).Error
	if err != nil {
		return "", fmt.Errorf("claim identity return address: %w", err)
	}
	if len(rows) != 1 || rows[0].LinkToken == nil || *rows[0].LinkToken == "" {
		return "", fmt.Errorf("identity return address: %w", ErrNotFound)
	}
	return *rows[0].LinkToken, nil
}
