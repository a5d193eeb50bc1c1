package models

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// APIKeyPrefixLen is the number of leading key characters stored in APIKey.Prefix.
const APIKeyPrefixLen = 12

// APIKey is a company's API key (table api_keys). Only the SHA-256 of the whole key is stored
// (KeyHash, unique); Prefix is its first APIKeyPrefixLen characters, shown to users and not
// unique. A key with RevokedAt set is no longer accepted.
type APIKey struct {
	ID         uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID  uuid.UUID  `gorm:"column:company_id;type:uuid"`
	Name       string     `gorm:"column:name"`
	Prefix     string     `gorm:"column:prefix"`
	KeyHash    []byte     `gorm:"column:key_hash" json:"-"`
	CreatedAt  time.Time  `gorm:"column:created_at"`
	LastUsedAt *time.Time `gorm:"column:last_used_at"`
	RevokedAt  *time.Time `gorm:"column:revoked_at"`
	// PartnerID binds the key to a partner: callbacks of submissions made with it go there.
	PartnerID *uuid.UUID `gorm:"column:partner_id;type:uuid"`
	// Scopes are what the key may do (AllScopes for a customer's key).
	Scopes StringArray `gorm:"column:scopes;type:text[]"`
}

// Scope is something an API key may do.
type Scope string

// Scopes. GET /v1/api/company (who am I) needs none.
const (
	ScopeJobs                Scope = "jobs"                 // createJob, interviewers
	ScopeInvitations         Scope = "invitations"          // inviteCandidate
	ScopeWorkflows           Scope = "workflows"            // workflow definitions
	ScopePartnerApplications Scope = "partner-applications" // partner submissions
	ScopeAssessmentLinks     Scope = "assessment-links"     // assessment-link pushes
	ScopeHRSuiteWebhook      Scope = "hrsuite-webhook"      // HR-suite deliveries
	ScopeMCPRead             Scope = "mcp:read"             // the tool server
	ScopeIntegrations        Scope = "integrations"         // the HR-suite connection card and Connect
	ScopeReports             Scope = "reports"              // interview reports
	ScopeDecisions           Scope = "decisions"            // recruiter decisions, written to the ATS
)

var allScopes = []Scope{ScopeJobs, ScopeInvitations, ScopeWorkflows, ScopePartnerApplications, ScopeAssessmentLinks, ScopeHRSuiteWebhook, ScopeMCPRead, ScopeIntegrations, ScopeReports, ScopeDecisions}

// AllScopes returns every Scope: a customer's key has them all.
func AllScopes() []Scope { return slices.Clone(allScopes) }

// ParseScope parses s, ignoring case.
func ParseScope(s string) (Scope, error) { return parseEnum("scope", s, allScopes) }

// Has reports whether the key may do s.
func (k *APIKey) Has(s Scope) bool { return slices.Contains(k.Scopes, string(s)) }

// TableName implements gorm's tabler.
func (APIKey) TableName() string { return "api_keys" }
