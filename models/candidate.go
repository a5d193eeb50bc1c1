package models

import (
	"time"

	"github.com/google/uuid"
)

// Candidate is a person in a company's talent pool (table candidates).
//
// ExternalID (the ATS candidate id) is unique within the company when set. Phone is E.164 when
// it validated; numbers that did not are stored as received. Status is free-form ("new",
// "screening", "interviewing", "offered", "hired", "rejected", ...); UpdatedAt drives the
// searchCandidates recency filter and is also bumped by a trigger on raw SQL updates.
type Candidate struct {
	ID              uuid.UUID   `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID       uuid.UUID   `gorm:"column:company_id;type:uuid"`
	ExternalID      *string     `gorm:"column:external_id"`
	FirstName       string      `gorm:"column:first_name"`
	LastName        string      `gorm:"column:last_name"`
	Email           *string     `gorm:"column:email"`
	Phone           *string     `gorm:"column:phone"`
	Title           string      `gorm:"column:title"`
	Location        string      `gorm:"column:location"`
	City            string      `gorm:"column:city"`
	State           string      `gorm:"column:state"`
	PostalCode      string      `gorm:"column:postal_code"`
	Country         string      `gorm:"column:country"`
	Latitude        *float64    `gorm:"column:latitude"`
	Longitude       *float64    `gorm:"column:longitude"`
	Skills          StringArray `gorm:"column:skills;type:text[]"`
	Employers       StringArray `gorm:"column:employers;type:text[]"`
	Education       string      `gorm:"column:education"`
	YearsExperience *int        `gorm:"column:years_experience"`
	Status          string      `gorm:"column:status;default:new"`
	CreatedAt       time.Time   `gorm:"column:created_at"`
	UpdatedAt       time.Time   `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Candidate) TableName() string { return "candidates" }

// Application is a candidate applying to a job (table applications). ExternalID is the
// source's application id (ATS application, partner's atsApplicantId, HR-suite Job Posting
// Application Id); (CompanyID, ExternalID, Source) is unique when ExternalID is set, which is
// what makes repeated submissions idempotent. Status is free-form.
type Application struct {
	ID          uuid.UUID         `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID   uuid.UUID         `gorm:"column:company_id;type:uuid"`
	CandidateID uuid.UUID         `gorm:"column:candidate_id;type:uuid"`
	JobID       uuid.UUID         `gorm:"column:job_id;type:uuid"`
	ExternalID  *string           `gorm:"column:external_id"`
	Source      ApplicationSource `gorm:"column:source"`
	Status      string            `gorm:"column:status;default:new"`
	CreatedAt   time.Time         `gorm:"column:created_at"`
	UpdatedAt   time.Time         `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Application) TableName() string { return "applications" }
