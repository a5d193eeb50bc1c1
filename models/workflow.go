package models

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// WorkflowTrigger is what starts a customer workflow (workflow_definitions.trigger).
type WorkflowTrigger string

const (
	TriggerPartnerApplication    WorkflowTrigger = "partner_application"
	TriggerNewApplicationWebhook WorkflowTrigger = "new_application_webhook"
	TriggerNewJobFromATS         WorkflowTrigger = "new_job_from_ats"
	TriggerManualInvite          WorkflowTrigger = "manual_invite"
)

var allWorkflowTriggers = []WorkflowTrigger{TriggerPartnerApplication, TriggerNewApplicationWebhook, TriggerNewJobFromATS, TriggerManualInvite}

// AllWorkflowTriggers returns every WorkflowTrigger.
func AllWorkflowTriggers() []WorkflowTrigger { return slices.Clone(allWorkflowTriggers) }

// Valid reports whether t is a WorkflowTrigger.
func (t WorkflowTrigger) Valid() bool { return slices.Contains(allWorkflowTriggers, t) }

// ParseWorkflowTrigger parses s, ignoring case.
func ParseWorkflowTrigger(s string) (WorkflowTrigger, error) {
	return parseEnum("trigger", s, allWorkflowTriggers)
}

// WorkflowDefinition is one saved version of a company's workflow for a trigger. Versions are
// never changed: saving writes version+1, and the highest version is the one in force.
type WorkflowDefinition struct {
	ID         uuid.UUID       `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID  uuid.UUID       `gorm:"column:company_id;type:uuid"`
	Trigger    WorkflowTrigger `gorm:"column:trigger"`
	Version    int             `gorm:"column:version"`
	Enabled    bool            `gorm:"column:enabled"`
	Definition json.RawMessage `gorm:"column:definition;type:jsonb"`
	Hash       string          `gorm:"column:hash"`
	CreatedAt  time.Time       `gorm:"column:created_at"`
}

// TableName is the table of WorkflowDefinition.
func (WorkflowDefinition) TableName() string { return "workflow_definitions" }

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
}

// TableName is the table of WorkflowStart.
func (WorkflowStart) TableName() string { return "workflow_starts" }
