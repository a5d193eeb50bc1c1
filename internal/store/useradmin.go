package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// SetPlatformAdmin sets or clears the user's platform-admin flag.
func (s *Store) SetPlatformAdmin(ctx context.Context, userID uuid.UUID, admin bool) error {
	if err := s.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", userID).Update("is_platform_admin", admin).Error; err != nil {
		return fmt.Errorf("set platform admin of %s: %w", userID, err)
	}
	return nil
}

// RemoveMembership removes the user from the company; ErrNotFound when there was none.
func (s *Store) RemoveMembership(ctx context.Context, companyID, userID uuid.UUID) error {
	res := s.db.WithContext(ctx).Where("company_id = ? AND user_id = ?", companyID, userID).Delete(&models.CompanyMembership{})
	if res.Error != nil {
		return fmt.Errorf("remove membership: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("membership: %w", ErrNotFound)
	}
	return nil
}

// SoftDeleteUser marks the user deleted: sign-in is refused and its OAuth tokens stop working at
// the next request.
func (s *Store) SoftDeleteUser(ctx context.Context, userID uuid.UUID) error {
	if err := s.db.WithContext(ctx).Delete(&models.User{}, "id = ?", userID).Error; err != nil {
		return fmt.Errorf("delete user %s: %w", userID, err)
	}
	return nil
}

// UserSummary is a user with the slugs of its companies (operator commands).
type UserSummary struct {
	ID            uuid.UUID
	Email, Name   string
	PlatformAdmin bool
	Companies     []string
	CreatedAt     time.Time
}

// ListUsers returns the active users by e-mail with their companies.
func (s *Store) ListUsers(ctx context.Context) ([]UserSummary, error) {
	rows, err := s.sql.QueryContext(ctx, `
		SELECT u.id, u.email, u.name, u.is_platform_admin, u.created_at,
		       ARRAY(SELECT c.slug FROM company_memberships m JOIN companies c ON c.id = m.company_id
		             WHERE m.user_id = u.id ORDER BY m.created_at, c.slug)
		FROM users u WHERE u.deleted_at IS NULL ORDER BY lower(u.email)`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []UserSummary
	for rows.Next() {
		var u UserSummary
		var slugs models.StringArray
		if err := rows.Scan(&u.ID, &u.Email, &u.Name, &u.PlatformAdmin, &u.CreatedAt, &slugs); err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		u.Companies = slugs
		out = append(out, u)
	}
	return out, rows.Err()
}
