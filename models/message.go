package models

import (
	"time"

	"github.com/google/uuid"
)

// Message is one message of a candidate's conversation, in any channel and either direction
// (table messages). ProviderMessageID is the provider's id, used to match delivery reports.
type Message struct {
	ID                uuid.UUID        `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID         uuid.UUID        `gorm:"column:company_id;type:uuid"`
	CandidateID       uuid.UUID        `gorm:"column:candidate_id;type:uuid"`
	ApplicationID     *uuid.UUID       `gorm:"column:application_id;type:uuid"`
	SessionID         *uuid.UUID       `gorm:"column:session_id;type:uuid"`
	Direction         MessageDirection `gorm:"column:direction"`
	Channel           MessageChannel   `gorm:"column:channel"`
	Status            MessageStatus    `gorm:"column:status;default:queued"`
	Provider          *string          `gorm:"column:provider"`
	ProviderMessageID *string          `gorm:"column:provider_message_id"`
	ToAddress         string           `gorm:"column:to_address"`
	Subject           *string          `gorm:"column:subject"`
	Body              string           `gorm:"column:body"`
	Error             *string          `gorm:"column:error"`
	CreatedAt         time.Time        `gorm:"column:created_at"`
	SentAt            *time.Time       `gorm:"column:sent_at"`
	// SendKey identifies the activity that sends the message (its workflow run and activity
	// id), the same across the activity's retries, or, for a session's reminder, the reminder
	// itself (store.ReminderSendKey), the same across the workflow's runs; nil for messages not
	// sent by an activity.
	SendKey *string `gorm:"column:send_key"`
	// ProviderStatus is the provider's last reported status of the message (Twilio's
	// MessageStatus: queued, sent, delivered, undelivered...), StatusAt when it was recorded.
	ProviderStatus *string    `gorm:"column:provider_status"`
	StatusAt       *time.Time `gorm:"column:status_at"`
}

// TableName implements gorm's tabler.
func (Message) TableName() string { return "messages" }
