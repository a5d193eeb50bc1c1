package models

import (
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// User is a person who signs in (table users). Users are soft-deleted: GORM scopes queries to
// DeletedAt IS NULL, and an e-mail address is unique among users that are not deleted
// (case-insensitively).
type User struct {
	ID              uuid.UUID      `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	Email           string         `gorm:"column:email"`
	Name            string         `gorm:"column:name"`
	IsPlatformAdmin bool           `gorm:"column:is_platform_admin"`
	CreatedAt       time.Time      `gorm:"column:created_at"`
	UpdatedAt       time.Time      `gorm:"column:updated_at"`
	DeletedAt       gorm.DeletedAt `gorm:"column:deleted_at"`
}

// TableName implements gorm's tabler.
func (User) TableName() string { return "users" }

// CompanyMembership gives a user a role in a company (table company_memberships).
type CompanyMembership struct {
	CompanyID uuid.UUID      `gorm:"column:company_id;type:uuid;primaryKey"`
	UserID    uuid.UUID      `gorm:"column:user_id;type:uuid;primaryKey"`
	Role      MembershipRole `gorm:"column:role"`
	CreatedAt time.Time      `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (CompanyMembership) TableName() string { return "company_memberships" }
