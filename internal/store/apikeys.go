package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/models"
)

// Authentication failures; both answer 401.
var (
	ErrUnknownKey = errors.New("unknown api key")
	ErrRevokedKey = errors.New("revoked api key")
)

// CreateAPIKey stores the hash of key for the company, with scopes (every scope when none is
// given: a customer's key). ErrConflict when the key already exists.
func (s *Store) CreateAPIKey(ctx context.Context, companyID uuid.UUID, name, key string, scopes ...models.Scope) (*models.APIKey, error) {
	prefix, ok := apikey.Prefix(key)
	if !ok {
		return nil, fmt.Errorf("api key shorter than %d characters", apikey.MinLen)
	}
	if len(scopes) == 0 {
		scopes = models.AllScopes()
	}
	k := &models.APIKey{CompanyID: companyID, Name: name, Prefix: prefix, KeyHash: apikey.Hash(key), Scopes: scopeStrings(scopes)}
	if err := s.db.WithContext(ctx).Create(k).Error; err != nil {
		return nil, notFound(err, "create api key "+prefix)
	}
	return k, nil
}

// Authenticate resolves a presented key to its company, in one statement: candidate rows are
// found by the key's clear prefix with their company, and the hashes compared in constant time.
func (s *Store) Authenticate(ctx context.Context, key string) (*models.Company, *models.APIKey, error) {
	prefix, ok := apikey.Prefix(key)
	if !ok {
		return nil, nil, ErrUnknownKey
	}
	var rows []keyWithCompany
	if err := s.db.WithContext(ctx).Joins("Company").Where("api_keys.prefix = ?", prefix).Find(&rows).Error; err != nil {
		return nil, nil, fmt.Errorf("look up api key: %w", err)
	}
	match, ok := matchKey(rows, func(k *keyWithCompany) []byte { return k.KeyHash }, key)
	if !ok {
		return nil, nil, ErrUnknownKey
	}
	if match.RevokedAt != nil {
		return nil, nil, ErrRevokedKey
	}
	if match.Company.ID != match.CompanyID {
		return nil, nil, fmt.Errorf("company %s: %w", match.CompanyID, ErrNotFound)
	}
	return &match.Company, &match.APIKey, nil
}

// keyWithCompany is an API key read with its company.
type keyWithCompany struct {
	models.APIKey
	Company models.Company `gorm:"foreignKey:CompanyID"`
}

// TableName implements gorm's tabler.
func (keyWithCompany) TableName() string { return "api_keys" }

// SetAPIKeyScopes replaces the scopes of the company's key.
func (s *Store) SetAPIKeyScopes(ctx context.Context, companyID, keyID uuid.UUID, scopes []models.Scope) error {
	res := s.db.WithContext(ctx).Model(&models.APIKey{}).Where("company_id = ? AND id = ?", companyID, keyID).
		Update("scopes", models.StringArray(scopeStrings(scopes)))
	if res.Error != nil {
		return fmt.Errorf("set scopes of api key %s: %w", keyID, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("api key %s: %w", keyID, ErrNotFound)
	}
	return nil
}

func scopeStrings(scopes []models.Scope) []string {
	out := make([]string, len(scopes))
	for i, sc := range scopes {
		out[i] = string(sc)
	}
	return out
}

// TouchAPIKey records that the key was used at.
func (s *Store) TouchAPIKey(ctx context.Context, companyID, keyID uuid.UUID, at time.Time) error {
	err := s.db.WithContext(ctx).Model(&models.APIKey{}).
		Where("company_id = ? AND id = ?", companyID, keyID).Update("last_used_at", at).Error
	if err != nil {
		return fmt.Errorf("touch api key %s: %w", keyID, err)
	}
	return nil
}

// ListAPIKeys returns the company's keys, newest first.
func (s *Store) ListAPIKeys(ctx context.Context, companyID uuid.UUID) ([]models.APIKey, error) {
	var ks []models.APIKey
	if err := s.db.WithContext(ctx).Where("company_id = ?", companyID).Order("created_at DESC").Find(&ks).Error; err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return ks, nil
}

// RevokeAPIKey revokes the company's key named by its id or its prefix. Revoking twice keeps the
// first revocation time. ErrNotFound when no key of the company matches; ErrConflict when a
// prefix names several keys.
func (s *Store) RevokeAPIKey(ctx context.Context, companyID uuid.UUID, ref string) (*models.APIKey, error) {
	q := s.db.WithContext(ctx).Where("company_id = ?", companyID)
	if id, err := uuid.Parse(ref); err == nil {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("prefix = ?", ref)
	}
	var ks []models.APIKey
	if err := q.Find(&ks).Error; err != nil {
		return nil, fmt.Errorf("find api key %s: %w", ref, err)
	}
	switch len(ks) {
	case 0:
		return nil, fmt.Errorf("api key %s: %w", ref, ErrNotFound)
	case 1:
	default:
		return nil, fmt.Errorf("api key prefix %s names %d keys, revoke by id: %w", ref, len(ks), ErrConflict)
	}
	k := ks[0]
	if k.RevokedAt == nil {
		now := time.Now().UTC()
		if err := s.db.WithContext(ctx).Model(&k).Where("company_id = ?", companyID).Update("revoked_at", now).Error; err != nil {
			return nil, fmt.Errorf("revoke api key %s: %w", ref, err)
		}
		k.RevokedAt = &now
	}
	return &k, nil
}

// matchKey returns the row among those found by a key's clear prefix whose stored hash the whole
// key matches (compared in constant time).
func matchKey[T any](rows []T, hashOf func(*T) []byte, key string) (*T, bool) {
	for i := range rows {
		if apikey.Matches(hashOf(&rows[i]), key) {
			return &rows[i], true
		}
	}
	return nil, false
}
