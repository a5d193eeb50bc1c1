package models

import (
	"time"

	"github.com/google/uuid"
)

// Job is a position a company interviews for, also called an interviewer (table jobs).
//
// ExternalID is the ATS-side job id, unique within the company including soft-deleted jobs.
// InterviewerID is "<company slug>-<ExternalID>", unique across companies. An active job has
// Status JobStatusActive and IsDeleted false; IsOpen says whether it takes applications. IsOpen
// is written as given on create (the database default true applies to raw SQL only).
type Job struct {
	ID                         uuid.UUID               `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID                  uuid.UUID               `gorm:"column:company_id;type:uuid"`
	ExternalID                 string                  `gorm:"column:external_id"`
	InterviewerID              string                  `gorm:"column:interviewer_id"`
	Title                      string                  `gorm:"column:title"`
	ExternalTitle              string                  `gorm:"column:external_title"`
	Description                string                  `gorm:"column:description"`
	Status                     JobStatus               `gorm:"column:status;default:GENERATING"`
	FailureReason              *string                 `gorm:"column:failure_reason"`
	IsOpen                     bool                    `gorm:"column:is_open"`
	IsDeleted                  bool                    `gorm:"column:is_deleted"`
	EnableIdentityVerification bool                    `gorm:"column:enable_identity_verification"`
	ResumeFitTemplateID        *uuid.UUID              `gorm:"column:resume_fit_template_id;type:uuid"`
	CreatedByUserID            *uuid.UUID              `gorm:"column:created_by_user_id;type:uuid"`
	GenerationOptions          JSON[GenerationOptions] `gorm:"column:generation_options;type:jsonb"`
	CreatedAt                  time.Time               `gorm:"column:created_at"`
	UpdatedAt                  time.Time               `gorm:"column:updated_at"`
	GeneratedAt                *time.Time              `gorm:"column:generated_at"`
	// GuideVersion is the version of Description: 1 at creation, one more each time an import
	// brings a changed description (and a new generation).
	GuideVersion int `gorm:"column:guide_version;default:1"`
}

// TableName implements gorm's tabler.
func (Job) TableName() string { return "jobs" }

// GenerationOptions are the options of the createJob request that produced a job, kept so that
// generation can be rerun. JSON names are the request's field names.
type GenerationOptions struct {
	AdditionalQuestions           []string             `json:"additionalQuestions,omitempty"`
	StructuredAdditionalQuestions []StructuredQuestion `json:"structuredAdditionalQuestions,omitempty"`
	IntelligentlyOrderQuestions   bool                 `json:"intelligentlyOrderQuestions,omitempty"`
	AdditionalGenerationContext   string               `json:"additionalGenerationContext,omitempty"`
	// Active is the request's active flag; nil means the company's default job status applied.
	Active *bool `json:"active,omitempty"`
}

// StructuredQuestion is an item of structuredAdditionalQuestions.
type StructuredQuestion struct {
	Question        string   `json:"question"`
	Answers         []string `json:"answers,omitempty"`
	TagName         string   `json:"tagName,omitempty"`
	TagInstructions string   `json:"tagInstructions,omitempty"`
}
