package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// EnsureUser returns the active user with email, creating it when absent.
func (s *Store) EnsureUser(ctx context.Context, email, name string, platformAdmin bool) (*models.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	var u models.User
	err := s.db.WithContext(ctx).Where("lower(email) = ?", email).Limit(1).Find(&u).Error
	if err != nil {
		return nil, fmt.Errorf("find user: %w", err)
	}
	if u.ID != uuid.Nil {
		return &u, nil
	}
	u = models.User{Email: email, Name: name, IsPlatformAdmin: platformAdmin}
	if err := s.db.WithContext(ctx).Create(&u).Error; err != nil {
		return nil, notFound(err, "create user")
	}
	return &u, nil
}

// EnsureMembership adds the user to the company with role, keeping an existing membership.
func (s *Store) EnsureMembership(ctx context.Context, companyID, userID uuid.UUID, role models.MembershipRole) error {
	m := models.CompanyMembership{CompanyID: companyID, UserID: userID, Role: role}
	if err := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error; err != nil {
		return fmt.Errorf("add membership: %w", err)
	}
	return nil
}
