package models

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// PartnerStatus is the state of a partner application (partner_applications.status): in flight
// until its terminal callback is decided, then the callback's status.
type PartnerStatus string

const (
	PartnerStatusInFlight    PartnerStatus = "in_flight"
	PartnerStatusInvited     PartnerStatus = "invited"
	PartnerStatusNotEligible PartnerStatus = "not_eligible"
	PartnerStatusError       PartnerStatus = "error"
)

var allPartnerStatuses = []PartnerStatus{PartnerStatusInFlight, PartnerStatusInvited, PartnerStatusNotEligible, PartnerStatusError}

// AllPartnerStatuses returns every PartnerStatus.
func AllPartnerStatuses() []PartnerStatus { return slices.Clone(allPartnerStatuses) }

// Valid reports whether s is a PartnerStatus.
func (s PartnerStatus) Valid() bool { return slices.Contains(allPartnerStatuses, s) }

// Settled reports whether the application's terminal callback is decided.
func (s PartnerStatus) Settled() bool { return s.Valid() && s != PartnerStatusInFlight }

// CallbackState is a callback's delivery state (callbacks.state).
type CallbackState string

const (
	CallbackStatePending   CallbackState = "pending"
	CallbackStateDelivered CallbackState = "delivered"
	CallbackStateGaveUp    CallbackState = "gave_up"
)

var allCallbackStates = []CallbackState{CallbackStatePending, CallbackStateDelivered, CallbackStateGaveUp}

// AllCallbackStates returns every CallbackState.
func AllCallbackStates() []CallbackState { return slices.Clone(allCallbackStates) }

// Partner is a platform that submits applicants for a company and receives callbacks. The
// secrets are sealed (internal/secretbox) and never leave the service except in the callback
// request itself.
type Partner struct {
	ID             uuid.UUID `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID      uuid.UUID `gorm:"column:company_id;type:uuid"`
	Name           string    `gorm:"column:name"`
	CallbackURL    string    `gorm:"column:callback_url"`
	CallbackSecret []byte    `gorm:"column:callback_secret" json:"-"`
	SigningSecret  []byte    `gorm:"column:signing_secret" json:"-"`
	CreatedAt      time.Time `gorm:"column:created_at"`
	UpdatedAt      time.Time `gorm:"column:updated_at"`
}

// TableName is the table of Partner.
func (Partner) TableName() string { return "partners" }

// PartnerApplication is one applicant submitted by a partner; one per company and ATS applicant.
type PartnerApplication struct {
	ID             uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID      uuid.UUID  `gorm:"column:company_id;type:uuid"`
	PartnerID      uuid.UUID  `gorm:"column:partner_id;type:uuid"`
	ATSApplicantID string     `gorm:"column:ats_applicant_id"`
	ATSJobID       string     `gorm:"column:ats_job_id"`
	ATSCandidateID *string    `gorm:"column:ats_candidate_id"`
	JobID          uuid.UUID  `gorm:"column:job_id;type:uuid"`
	CandidateID    *uuid.UUID `gorm:"column:candidate_id;type:uuid"`
	ApplicationID  *uuid.UUID `gorm:"column:application_id;type:uuid"`
	// Applicant is the ATS record's applicant until the run stores it as CandidateID and
	// ApplicationID (nil after).
	Applicant     JSON[*PartnerApplicant] `gorm:"column:applicant"`
	Status        PartnerStatus           `gorm:"column:status;default:in_flight"`
	InterviewLink *string                 `gorm:"column:interview_link"`
	Reason        *string                 `gorm:"column:reason"`
	CreatedAt     time.Time               `gorm:"column:created_at"`
	SettledAt     *time.Time              `gorm:"column:settled_at"`
}

// PartnerApplicant is the applicant a submission read from the ATS; Phone is normalised when it
// could be.
type PartnerApplicant struct {
	FirstName string `json:"firstName,omitempty"`
	LastName  string `json:"lastName,omitempty"`
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone,omitempty"`
}

// TableName is the table of PartnerApplication.
func (PartnerApplication) TableName() string { return "partner_applications" }

// Callback is one callback to a partner; its ID is the webhook-id of every delivery attempt.
type Callback struct {
	ID                   uuid.UUID     `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID            uuid.UUID     `gorm:"column:company_id;type:uuid"`
	PartnerApplicationID uuid.UUID     `gorm:"column:partner_application_id;type:uuid"`
	PartnerID            uuid.UUID     `gorm:"column:partner_id;type:uuid"`
	Status               PartnerStatus `gorm:"column:status"`
	Reason               *string       `gorm:"column:reason"`
	InterviewLink        *string       `gorm:"column:interview_link"`
	Replay               bool          `gorm:"column:replay"`
	State                CallbackState `gorm:"column:state;default:pending"`
	Attempts             int           `gorm:"column:attempts"`
	CreatedAt            time.Time     `gorm:"column:created_at"`
	DeliveredAt          *time.Time    `gorm:"column:delivered_at"`
}

// TableName is the table of Callback.
func (Callback) TableName() string { return "callbacks" }

// CallbackAttempt is one delivery attempt of a callback.
type CallbackAttempt struct {
	ID           uuid.UUID `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID    uuid.UUID `gorm:"column:company_id;type:uuid"`
	CallbackID   uuid.UUID `gorm:"column:callback_id;type:uuid"`
	Number       int       `gorm:"column:number"`
	At           time.Time `gorm:"column:at"`
	DurationMS   int       `gorm:"column:duration_ms"`
	StatusCode   *int      `gorm:"column:status_code"`
	ErrorClass   *string   `gorm:"column:error_class"`
	ResponseBody *string   `gorm:"column:response_body"`
}

// TableName is the table of CallbackAttempt.
func (CallbackAttempt) TableName() string { return "callback_attempts" }
