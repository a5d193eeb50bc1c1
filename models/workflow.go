package models

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// WorkflowStart is a workflow start in the start outbox (workflow_starts): written in the
// transaction that writes the rows the workflow works on, started after the commit. It holds
// what the kind's start function needs and nothing personal: ids, slugs, enums.
type WorkflowStart struct {
	ID          uuid.UUID               `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID   uuid.UUID               `gorm:"column:company_id;type:uuid"`
	Kind        string                  `gorm:"column:kind"`
	WorkflowID  string                  `gorm:"column:workflow_id"`
	CompanySlug string                  `gorm:"column:company_slug"`
	Attributes  JSON[map[string]string] `gorm:"column:attributes;type:jsonb"`
	Input       json.RawMessage         `gorm:"column:input;type:jsonb"`
	CreatedAt   time.Time               `gorm:"column:created_at"`
	StartedAt   *time.Time              `gorm:"column:started_at"`
	RefusedAt   *time.Time              `gorm:"column:refused_at"`
	Attempts    int                     `gorm:"column:attempts"`
	LastError   *string                 `gorm:"column:last_error"`
	// NotBefore, when set, holds the run's first workflow task until then (Temporal's start
	// delay): a run with nothing to do before a known time does not wake to find that out. It
	// is not stored: a start made again from its row (the reconciler's) runs at once, and its
	// first round looks and waits as it would have.
	NotBefore *time.Time `gorm:"-"`
}

// TableName is the table of WorkflowStart.
func (WorkflowStart) TableName() string { return "workflow_starts" }
