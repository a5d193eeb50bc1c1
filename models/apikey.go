package models

import (
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
}

// TableName implements gorm's tabler.
func (APIKey) TableName() string { return "api_keys" }
