package models

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// FlowTrigger is the event that starts a company's customer flow
// (workflow_definitions.trigger). A company has at most one definition in force per trigger.
type FlowTrigger string

const (
	// TriggerPartnerApplication fires when a partner submits an applicant. The run must end in
	// exactly one partner callback: the definition's, or the platform's fallback when it sent none.
	TriggerPartnerApplication FlowTrigger = "partner_application"
	// TriggerNewApplicationWebhook fires per matched application of an HR-suite webhook delivery.
	TriggerNewApplicationWebhook FlowTrigger = "new_application_webhook"
	// TriggerNewJobFromATS fires per job imported from the ATS. There is no candidate.
	TriggerNewJobFromATS FlowTrigger = "new_job_from_ats"
	// TriggerManualInvite fires when a recruiter invites a candidate by hand.
	TriggerManualInvite FlowTrigger = "manual_invite"
	// TriggerNewApplicationATS ('New Application from ATS') fires once per application the
	// aggregator's application sync creates, for ever.
	TriggerNewApplicationATS FlowTrigger = "new_application_ats"
)

var allFlowTriggers = []FlowTrigger{TriggerPartnerApplication, TriggerNewApplicationWebhook, TriggerNewJobFromATS, TriggerManualInvite,
	TriggerNewApplicationATS}

// AllFlowTriggers returns every FlowTrigger.
func AllFlowTriggers() []FlowTrigger { return slices.Clone(allFlowTriggers) }

// Valid reports whether t is a FlowTrigger.
func (t FlowTrigger) Valid() bool { return slices.Contains(allFlowTriggers, t) }

// ParseFlowTrigger parses s, ignoring case.
func ParseFlowTrigger(s string) (FlowTrigger, error) {
	return parseEnum("trigger", s, allFlowTriggers)
}

// FlowDefinition is one saved version of a company's customer flow for a trigger. Versions
// are never changed: saving writes version+1, and the highest version is the one in force.
type FlowDefinition struct {
	ID         uuid.UUID       `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID  uuid.UUID       `gorm:"column:company_id;type:uuid"`
	Trigger    FlowTrigger     `gorm:"column:trigger"`
	Version    int             `gorm:"column:version"`
	Enabled    bool            `gorm:"column:enabled"`
	Definition json.RawMessage `gorm:"column:definition;type:jsonb"`
	Hash       string          `gorm:"column:hash"`
	CreatedAt  time.Time       `gorm:"column:created_at"`
}

// TableName is the table of FlowDefinition.
func (FlowDefinition) TableName() string { return "workflow_definitions" }
