package models

import (
	"time"

	"github.com/google/uuid"
)

// Template is a company's reusable resume-fit or interview-guide template (table templates).
// Jobs reference resumeFit templates through Job.ResumeFitTemplateID; interview-guide use is
// marked on copied questions and criteria (InterviewQuestion.TemplateID,
// GradingCriterion.TemplateID).
type Template struct {
	ID        uuid.UUID            `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID uuid.UUID            `gorm:"column:company_id;type:uuid"`
	Type      TemplateType         `gorm:"column:type"`
	Name      string               `gorm:"column:name"`
	Content   JSON[map[string]any] `gorm:"column:content;type:jsonb"`
	CreatedAt time.Time            `gorm:"column:created_at"`
	UpdatedAt time.Time            `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Template) TableName() string { return "templates" }

// InterviewGuide is the generated interview script of a job, one per job (table
// interview_guides). Its questions and grading criteria are separate rows ordered by Position.
type InterviewGuide struct {
	ID                 uuid.UUID   `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID          uuid.UUID   `gorm:"column:company_id;type:uuid"`
	JobID              uuid.UUID   `gorm:"column:job_id;type:uuid"`
	Intro              string      `gorm:"column:intro"`
	Outro              string      `gorm:"column:outro"`
	LearningObjectives StringArray `gorm:"column:learning_objectives;type:text[]"`
	Skills             StringArray `gorm:"column:skills;type:text[]"`
	// Version is the job's GuideVersion the guide was generated from.
	Version   int       `gorm:"column:version;default:1"`
	CreatedAt time.Time `gorm:"column:created_at"`
	UpdatedAt time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (InterviewGuide) TableName() string { return "interview_guides" }

// InterviewQuestion is one question of a guide (table interview_questions); Position is unique
// within the guide. Answers, TagName and TagInstructions come from structured additional
// questions. TemplateID is set when the question was copied from an interviewGuide template.
type InterviewQuestion struct {
	ID              uuid.UUID      `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID       uuid.UUID      `gorm:"column:company_id;type:uuid"`
	GuideID         uuid.UUID      `gorm:"column:guide_id;type:uuid"`
	Position        int            `gorm:"column:position"`
	Text            string         `gorm:"column:text"`
	Source          QuestionSource `gorm:"column:source"`
	Skill           *string        `gorm:"column:skill"`
	Answers         StringArray    `gorm:"column:answers;type:text[]"`
	TagName         *string        `gorm:"column:tag_name"`
	TagInstructions *string        `gorm:"column:tag_instructions"`
	TemplateID      *uuid.UUID     `gorm:"column:template_id;type:uuid"`
	CreatedAt       time.Time      `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (InterviewQuestion) TableName() string { return "interview_questions" }

// GradingCriterion is one evaluation criterion of a guide (table grading_criteria); Position is
// unique within the guide. TemplateID is set when it was copied from an interviewGuide template.
type GradingCriterion struct {
	ID          uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID   uuid.UUID  `gorm:"column:company_id;type:uuid"`
	GuideID     uuid.UUID  `gorm:"column:guide_id;type:uuid"`
	Position    int        `gorm:"column:position"`
	Name        string     `gorm:"column:name"`
	Description string     `gorm:"column:description"`
	TemplateID  *uuid.UUID `gorm:"column:template_id;type:uuid"`
	CreatedAt   time.Time  `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (GradingCriterion) TableName() string { return "grading_criteria" }
