package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/models"
)

// Support tokens are platform admins' credentials for the support endpoints (/v1/support), which
// reach across companies.

// DefaultSupportTokenTTL is how long a support token works when its creator names no expiry;
// MaxSupportTokenTTL bounds what they may name.
const (
	DefaultSupportTokenTTL = 30 * 24 * time.Hour
	MaxSupportTokenTTL     = 365 * 24 * time.Hour
)

// ErrBadTTL is a support token lifetime outside (0, MaxSupportTokenTTL].
var ErrBadTTL = errors.New("a support token's lifetime must be positive and at most 365 days")

// CreateSupportToken stores a new support token of a platform admin (the user found by e-mail),
// valid for ttl from now.
func (s *Store) CreateSupportToken(ctx context.Context, email, name, token string, ttl time.Duration) (*models.SupportToken, *models.User, error) {
	if ttl <= 0 || ttl > MaxSupportTokenTTL {
		return nil, nil, ErrBadTTL
	}
	var u models.User
	if err := s.db.WithContext(ctx).Where("lower(email) = lower(?)", email).First(&u).Error; err != nil {
		return nil, nil, notFound(err, "user "+email)
	}
	if !u.IsPlatformAdmin {
		return nil, nil, fmt.Errorf("user %s is not a platform admin (recruitd users add --admin): %w", u.Email, ErrBadFilter)
	}
	prefix, ok := apikey.Prefix(token)
	if !ok {
		return nil, nil, fmt.Errorf("support token too short")
	}
	now := time.Now().UTC()
	t := &models.SupportToken{UserID: u.ID, Name: name, Prefix: prefix, KeyHash: apikey.Hash(token), CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := s.db.WithContext(ctx).Create(t).Error; err != nil {
		return nil, nil, fmt.Errorf("store support token: %w", err)
	}
	return t, &u, nil
}

// SupportTokenView is a support token as the CLI lists it: no hash, its user's e-mail.
type SupportTokenView struct {
	models.SupportToken
	UserEmail string `gorm:"column:user_email"`
}

// ListSupportTokens lists support tokens, oldest first, revoked and expired ones included; email,
// when set, keeps one user's.
func (s *Store) ListSupportTokens(ctx context.Context, email string) ([]SupportTokenView, error) {
	q := s.db.WithContext(ctx).Table("support_tokens t").Select("t.*, u.email AS user_email").
		Joins("JOIN users u ON u.id = t.user_id")
	if email != "" {
		q = q.Where("lower(u.email) = lower(?)", email)
	}
	var out []SupportTokenView
	if err := q.Order("t.created_at, t.id").Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("list support tokens: %w", err)
	}
	return out, nil
}

// RevokeSupportToken revokes a support token by id or clear prefix; requests with it get 401 at
// once. Revoking a revoked token changes nothing. ErrConflict: a prefix names several tokens.
func (s *Store) RevokeSupportToken(ctx context.Context, ref string) (*models.SupportToken, error) {
	q := s.db.WithContext(ctx)
	if id, err := uuid.Parse(ref); err == nil {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("prefix = ?", ref)
	}
	var ts []models.SupportToken
	if err := q.Find(&ts).Error; err != nil {
		return nil, fmt.Errorf("find support token %s: %w", ref, err)
	}
	switch len(ts) {
	case 0:
		return nil, fmt.Errorf("support token %s: %w", ref, ErrNotFound)
	case 1:
	default:
		return nil, fmt.Errorf("support token prefix %s names %d tokens, revoke by id: %w", ref, len(ts), ErrConflict)
	}
	t := ts[0]
	if t.RevokedAt == nil {
		now := time.Now().UTC()
		if err := s.db.WithContext(ctx).Model(&t).Update("revoked_at", now).Error; err != nil {
			return nil, fmt.Errorf("revoke support token %s: %w", ref, err)
		}
		t.RevokedAt = &now
	}
	return &t, nil
}

// AuthenticateSupport resolves a support token to its platform admin: ErrUnknownKey for a token
// that is unknown, revoked, expired, or whose user is deleted or no longer a platform admin.
func (s *Store) AuthenticateSupport(ctx context.Context, token string) (*models.User, error) {
	prefix, ok := apikey.Prefix(token)
	if !ok {
		return nil, ErrUnknownKey
	}
	var rows []models.SupportToken
	if err := s.db.WithContext(ctx).Where("prefix = ? AND revoked_at IS NULL AND expires_at > now()", prefix).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("look up support token: %w", err)
	}
	t, ok := matchKey(rows, func(t *models.SupportToken) []byte { return t.KeyHash }, token)
	if !ok {
		return nil, ErrUnknownKey
	}
	var u models.User
	if err := s.db.WithContext(ctx).First(&u, "id = ?", t.UserID).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrUnknownKey // the user was deleted
		}
		return nil, fmt.Errorf("load support token user: %w", err)
	}
	if !u.IsPlatformAdmin {
		return nil, ErrUnknownKey
	}
	if t.LastUsedAt == nil || time.Since(*t.LastUsedAt) > time.Minute {
		if err := s.db.WithContext(ctx).Model(&models.SupportToken{}).Where("id = ?", t.ID).Update("last_used_at", time.Now().UTC()).Error; err != nil {
			return nil, fmt.Errorf("record support token use: %w", err)
		}
	}
	return &u, nil
}
