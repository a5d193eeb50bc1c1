package models

import (
	"time"

	"github.com/google/uuid"
)

// AssessmentLink is an assessment link pushed for an application recruitd manages (table
// assessment_links). The application's current link is the one with no ReplacedAt. Its state
// is read from the timestamps: sent (SentAt), failed on every channel (FailedAt), replaced
// before it was sent (ReplacedAt without SentAt), else waiting. URL opens the candidate's
// assessment: it never leaves Postgres except in the message that delivers it.
type AssessmentLink struct {
	ID            uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID     uuid.UUID  `gorm:"column:company_id;type:uuid"`
	ApplicationID uuid.UUID  `gorm:"column:application_id;type:uuid"`
	URL           string     `gorm:"column:assessment_url"`
	OrderID       *string    `gorm:"column:order_id"`
	ReceivedAt    time.Time  `gorm:"column:received_at"`
	ReplacedAt    *time.Time `gorm:"column:replaced_at"`
	SentAt        *time.Time `gorm:"column:sent_at"`
	FailedAt      *time.Time `gorm:"column:failed_at"`
	MessageID     *uuid.UUID `gorm:"column:message_id;type:uuid"`
	CreatedAt     time.Time  `gorm:"column:created_at"`
}

// TableName is the table of AssessmentLink.
func (AssessmentLink) TableName() string { return "assessment_links" }

// Pending reports whether the link still waits to be sent: current, neither sent nor failed.
func (l *AssessmentLink) Pending() bool {
	return l.ReplacedAt == nil && l.SentAt == nil && l.FailedAt == nil
}
