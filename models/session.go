package models

import (
	"time"

	"github.com/google/uuid"
)

// InterviewSession is one interview of a candidate for a job (table interview_sessions).
//
// LinkToken is the unguessable token of the interview link; left empty on create, the database
// generates one (122 random bits) and GORM reads it back. InvitedAt likewise defaults to the
// insert time. A COMPLETED session must have CompletedAt (CHECK constraint).
type InterviewSession struct {
	ID              uuid.UUID     `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID       uuid.UUID     `gorm:"column:company_id;type:uuid"`
	ApplicationID   *uuid.UUID    `gorm:"column:application_id;type:uuid"`
	CandidateID     uuid.UUID     `gorm:"column:candidate_id;type:uuid"`
	JobID           uuid.UUID     `gorm:"column:job_id;type:uuid"`
	Status          SessionStatus `gorm:"column:status;default:INVITED"`
	MediumType      MediumType    `gorm:"column:medium_type"`
	LinkToken       string        `gorm:"column:link_token;default:replace(gen_random_uuid()::text,'-','')"`
	InvitedAt       time.Time     `gorm:"column:invited_at;default:now()"`
	StartedAt       *time.Time    `gorm:"column:started_at"`
	CompletedAt     *time.Time    `gorm:"column:completed_at"`
	DurationSeconds *int          `gorm:"column:duration_seconds"`
	Decision        Decision      `gorm:"column:decision;default:NONE"`
	RecruiterRating *float64      `gorm:"column:recruiter_rating;type:numeric(4,2)"`
	ServiceRating   *float64      `gorm:"column:service_rating;type:numeric(4,2)"`
	RecruiterReview *string       `gorm:"column:recruiter_review"`
	ServiceReview   *string       `gorm:"column:service_review"`
	// ConsentedAt is when the candidate accepted the notice on automated evaluation.
	ConsentedAt *time.Time `gorm:"column:consented_at"`
	// ExpiresAt is the deadline the session's workflow waits for: the invitation's expiry while
	// INVITED, the end of the incomplete window once STARTED. Nil for sessions without a
	// lifecycle (the demo seed's).
	ExpiresAt *time.Time `gorm:"column:expires_at"`
	// EndedAt is when the session ended other than by completing (expired, incomplete,
	// cancelled, declined).
	EndedAt *time.Time `gorm:"column:ended_at"`
	// CancelReason is why a CANCELLED session was cancelled (the API's, a flow's or an
	// operator's words); nil for other statuses and for cancellations recruitd made itself.
	CancelReason *string `gorm:"column:cancel_reason"`
	// FlowWorkflowID is the customer-flow run that invited the session, signalled on completion.
	FlowWorkflowID *string   `gorm:"column:flow_workflow_id"`
	CreatedAt      time.Time `gorm:"column:created_at"`
	UpdatedAt      time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (InterviewSession) TableName() string { return "interview_sessions" }

// RecruiterNote is a recruiter's note on a candidate, optionally about one session (table
// recruiter_notes).
type RecruiterNote struct {
	ID           uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID    uuid.UUID  `gorm:"column:company_id;type:uuid"`
	CandidateID  uuid.UUID  `gorm:"column:candidate_id;type:uuid"`
	SessionID    *uuid.UUID `gorm:"column:session_id;type:uuid"`
	AuthorUserID *uuid.UUID `gorm:"column:author_user_id;type:uuid"`
	Body         string     `gorm:"column:body"`
	CreatedAt    time.Time  `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (RecruiterNote) TableName() string { return "recruiter_notes" }
