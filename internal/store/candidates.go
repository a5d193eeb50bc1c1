package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// CandidateInput identifies a candidate by contact; Email and Phone (E.164) may each be empty.
type CandidateInput struct {
	FirstName, LastName string
	Email, Phone        string
	ExternalID          string
}

// Candidate loads a company's candidate.
func (s *Store) Candidate(ctx context.Context, companyID, candidateID uuid.UUID) (*models.Candidate, error) {
	var c models.Candidate
	if err := s.db.WithContext(ctx).First(&c, "company_id = ? AND id = ?", companyID, candidateID).Error; err != nil {
		return nil, notFound(err, "candidate "+candidateID.String())
	}
	return &c, nil
}

// SetCandidateStatus sets a candidate's free-text status.
func (s *Store) SetCandidateStatus(ctx context.Context, companyID, id uuid.UUID, status string) error {
	return s.setStatus(ctx, &models.Candidate{}, companyID, id, status)
}

// findOrCreateCandidate finds the company's candidate by e-mail (case-insensitive) or phone and
// fills in a contact it lacks, or creates one. Concurrent calls for the same contact are
// serialised by an advisory lock held until the transaction ends, so they share one candidate.
func findOrCreateCandidate(tx *gorm.DB, companyID uuid.UUID, in CandidateInput) (*models.Candidate, bool, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	lockKey := companyID.String() + "|" + email + "|" + in.Phone
	if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", lockKey).Error; err != nil {
		return nil, false, fmt.Errorf("lock candidate: %w", err)
	}
	q := tx.Where("company_id = ?", companyID)
	switch {
	case email != "" && in.Phone != "":
		q = q.Where("(lower(email) = ? OR phone = ?)", email, in.Phone)
	case email != "":
		q = q.Where("lower(email) = ?", email)
	case in.Phone != "":
		q = q.Where("phone = ?", in.Phone)
	default:
		q = nil
	}
	if q != nil {
		var found []models.Candidate
		if err := q.Order("created_at").Limit(1).Find(&found).Error; err != nil {
			return nil, false, fmt.Errorf("find candidate: %w", err)
		}
		if len(found) == 1 {
			c := found[0]
			return &c, false, fillContact(tx, &c, email, in.Phone)
		}
	}
	c := models.Candidate{CompanyID: companyID, FirstName: in.FirstName, LastName: in.LastName, Status: "interviewing"}
	if email != "" {
		c.Email = &email
	}
	if in.Phone != "" {
		c.Phone = &in.Phone
	}
	if in.ExternalID != "" {
		c.ExternalID = &in.ExternalID
	}
	if err := tx.Create(&c).Error; err != nil {
		return nil, false, fmt.Errorf("create candidate: %w", err)
	}
	return &c, true, nil
}

// fillContact adds a contact the stored candidate lacks; it never overwrites one.
func fillContact(tx *gorm.DB, c *models.Candidate, email, phone string) error {
	updates := map[string]any{}
	if c.Email == nil && email != "" {
		c.Email = &email
		updates["email"] = email
	}
	if c.Phone == nil && phone != "" {
		c.Phone = &phone
		updates["phone"] = phone
	}
	if len(updates) == 0 {
		return nil
	}
	if err := tx.Model(c).Where("company_id = ?", c.CompanyID).Updates(updates).Error; err != nil {
		return fmt.Errorf("update candidate contact: %w", err)
	}
	return nil
}
