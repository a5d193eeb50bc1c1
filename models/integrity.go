package models

import (
	"time"

	"github.com/google/uuid"
)

// CheatingEvaluation is the model-based cheating analysis of one session (table
// cheating_evaluations, at most one row per session). Scores are 0-100; the session is flagged
// when CheatingScore >= Company.CheatThreshold. Sub-scores are nil when not measured.
type CheatingEvaluation struct {
	ID                uuid.UUID `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID         uuid.UUID `gorm:"column:company_id;type:uuid"`
	SessionID         uuid.UUID `gorm:"column:session_id;type:uuid"`
	CheatingScore     float64   `gorm:"column:cheating_score;type:numeric(5,2)"`
	EyeTrackingScore  *float64  `gorm:"column:eye_tracking_score;type:numeric(5,2)"`
	HeadTrackingScore *float64  `gorm:"column:head_tracking_score;type:numeric(5,2)"`
	VoiceScore        *float64  `gorm:"column:voice_score;type:numeric(5,2)"`
	TranscriptScore   *float64  `gorm:"column:transcript_score;type:numeric(5,2)"`
	MultiPersonScore  *float64  `gorm:"column:multi_person_score;type:numeric(5,2)"`
	CreatedAt         time.Time `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (CheatingEvaluation) TableName() string { return "cheating_evaluations" }

// FraudVerification is a fraud-signal provider's verdict on a candidate's identity signals
// (table fraud_verifications). OverallVerificationScore is 0-100, lower is riskier; Signals
// keeps the provider's detail.
type FraudVerification struct {
	ID                       uuid.UUID            `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID                uuid.UUID            `gorm:"column:company_id;type:uuid"`
	CandidateID              uuid.UUID            `gorm:"column:candidate_id;type:uuid"`
	SessionID                *uuid.UUID           `gorm:"column:session_id;type:uuid"`
	OverallVerificationScore float64              `gorm:"column:overall_verification_score;type:numeric(5,2)"`
	DisposableEmail          bool                 `gorm:"column:disposable_email"`
	VoIPPhone                bool                 `gorm:"column:voip_phone"`
	VPNProxyIP               bool                 `gorm:"column:vpn_proxy_ip"`
	ThinProfile              bool                 `gorm:"column:thin_profile"`
	FootprintAnomaly         bool                 `gorm:"column:footprint_anomaly"`
	Signals                  JSON[map[string]any] `gorm:"column:signals;type:jsonb"`
	CreatedAt                time.Time            `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (FraudVerification) TableName() string { return "fraud_verifications" }

// IdentityVerification is a government-ID plus selfie check of a candidate for a job (table
// identity_verifications); it runs only for jobs with EnableIdentityVerification.
type IdentityVerification struct {
	ID            uuid.UUID      `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID     uuid.UUID      `gorm:"column:company_id;type:uuid"`
	CandidateID   uuid.UUID      `gorm:"column:candidate_id;type:uuid"`
	SessionID     *uuid.UUID     `gorm:"column:session_id;type:uuid"`
	JobID         uuid.UUID      `gorm:"column:job_id;type:uuid"`
	Status        IdentityStatus `gorm:"column:status;default:PENDING"`
	FailureReason *string        `gorm:"column:failure_reason"`
	CreatedAt     time.Time      `gorm:"column:created_at"`
	CompletedAt   *time.Time     `gorm:"column:completed_at"`
}

// TableName implements gorm's tabler.
func (IdentityVerification) TableName() string { return "identity_verifications" }

// Outcomes of an identity provider's webhook delivery (identity_webhook_deliveries.outcome).
const (
	IdentityWebhookApplied   = "applied"   // PENDING moved to the delivery's status
	IdentityWebhookUnchanged = "unchanged" // already concluded (VERIFIED, FAILED or EXPIRED): kept
	IdentityWebhookIgnored   = "ignored"   // an event that concludes nothing
)

// IdentityWebhookOutcomes lists the outcomes above.
func IdentityWebhookOutcomes() []string {
	return []string{IdentityWebhookApplied, IdentityWebhookUnchanged, IdentityWebhookIgnored}
}
