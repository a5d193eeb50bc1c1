package models

import (
	"time"

	"github.com/google/uuid"
)

// HRSuiteDelivery is one POST /webhook/hrsuite body, stored whole as received (table
// hrsuite_deliveries), compressed: Body holds BodyEncoding ("gzip", or "identity" for deliveries
// stored before compression) of BodyBytes bytes; store.HRSuiteDelivery returns it decoded.
// DuplicateOf is set when the body is identical to an earlier delivery of the company, which is
// the one processed; a duplicate stores no body of its own. Counts are the row outcomes of the
// latest processing (ProcessedAt), by outcome. FinalAt is when every row had a final outcome (no
// unknown_job or no_trigger left), from which the retention runs.
type HRSuiteDelivery struct {
	ID           uuid.UUID            `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID    uuid.UUID            `gorm:"column:company_id;type:uuid"`
	ReceivedAt   time.Time            `gorm:"column:received_at"`
	Body         []byte               `gorm:"column:body" json:"-"`
	BodyEncoding string               `gorm:"column:body_encoding"`
	BodyBytes    int64                `gorm:"column:body_bytes"`
	StoredBytes  int64                `gorm:"column:stored_bytes;->"`
	BodySHA256   []byte               `gorm:"column:body_sha256" json:"-"`
	RowCount     int                  `gorm:"column:row_count"`
	DuplicateOf  *uuid.UUID           `gorm:"column:duplicate_of;type:uuid"`
	APIKeyID     *uuid.UUID           `gorm:"column:api_key_id;type:uuid"`
	RequestID    string               `gorm:"column:request_id"`
	ProcessedAt  *time.Time           `gorm:"column:processed_at"`
	FinalAt      *time.Time           `gorm:"column:final_at"`
	Counts       JSON[map[string]int] `gorm:"column:counts;type:jsonb"`
}

// TableName implements gorm's tabler.
func (HRSuiteDelivery) TableName() string { return "hrsuite_deliveries" }

// Encodings of a stored delivery body (HRSuiteDelivery.BodyEncoding).
const (
	BodyEncodingIdentity = "identity"
	BodyEncodingGzip     = "gzip"
)

// AllBodyEncodings lists the encodings of stored delivery bodies.
func AllBodyEncodings() []string { return []string{BodyEncodingIdentity, BodyEncodingGzip} }

// HRSuiteRow is one row's outcome in its delivery's latest processing (table hrsuite_rows).
// ApplicationRef is the row's Job Posting Application Id, when it had one.
type HRSuiteRow struct {
	DeliveryID     uuid.UUID  `gorm:"column:delivery_id;type:uuid;primaryKey"`
	RowIndex       int        `gorm:"column:row_index;primaryKey"`
	CompanyID      uuid.UUID  `gorm:"column:company_id;type:uuid"`
	ApplicationRef *string    `gorm:"column:application_ref"`
	Outcome        string     `gorm:"column:outcome"`
	ApplicationID  *uuid.UUID `gorm:"column:application_id;type:uuid"`
	ProcessedAt    time.Time  `gorm:"column:processed_at"`
}

// TableName implements gorm's tabler.
func (HRSuiteRow) TableName() string { return "hrsuite_rows" }

// HRSuiteReplay is a support replay of stored deliveries (table hrsuite_replays): who asked,
// when, the filter, what it covers and how far it got.
type HRSuiteReplay struct {
	ID             uuid.UUID            `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()" json:"id"`
	RequestedBy    string               `gorm:"column:requested_by" json:"requestedBy"`
	RequestedAt    time.Time            `gorm:"column:requested_at" json:"requestedAt"`
	Filter         JSON[HRSuiteFilter]  `gorm:"column:filter;type:jsonb" json:"filter"`
	Deliveries     int                  `gorm:"column:deliveries" json:"deliveries"`
	Rows           int                  `gorm:"column:rows" json:"rows"`
	Applications   int                  `gorm:"column:applications" json:"applications"`
	DeliveriesDone int                  `gorm:"column:deliveries_done" json:"deliveriesDone"`
	Counts         JSON[map[string]int] `gorm:"column:counts;type:jsonb" json:"counts"`
	FinishedAt     *time.Time           `gorm:"column:finished_at" json:"finishedAt,omitempty"`
}

// TableName implements gorm's tabler.
func (HRSuiteReplay) TableName() string { return "hrsuite_replays" }

// HRSuiteFilter selects stored deliveries: of a company (by slug; empty: every company), received
// in [From, To) (zero: unbounded), having a row with Outcome (empty: any; "invalid" matches
// every invalid:<reason>), or one delivery by ID. Duplicate deliveries are never selected: their
// rows are their first delivery's.
type HRSuiteFilter struct {
	DeliveryID *uuid.UUID `json:"deliveryId,omitempty"`
	Company    string     `json:"company,omitempty"`
	From       *time.Time `json:"from,omitempty"`
	To         *time.Time `json:"to,omitempty"`
	Outcome    string     `json:"outcome,omitempty"`
}

// SupportToken is a platform admin's credential for the support endpoints (table
// support_tokens); only the SHA-256 of the token is stored.
type SupportToken struct {
	ID         uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	UserID     uuid.UUID  `gorm:"column:user_id;type:uuid"`
	Name       string     `gorm:"column:name"`
	Prefix     string     `gorm:"column:prefix"`
	KeyHash    []byte     `gorm:"column:key_hash" json:"-"`
	CreatedAt  time.Time  `gorm:"column:created_at"`
	LastUsedAt *time.Time `gorm:"column:last_used_at"`
	RevokedAt  *time.Time `gorm:"column:revoked_at"`
	ExpiresAt  time.Time  `gorm:"column:expires_at"`
}

// TableName implements gorm's tabler.
func (SupportToken) TableName() string { return "support_tokens" }
