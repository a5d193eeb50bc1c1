package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/models"
)

// CreateCompany inserts c and fills its id; ErrConflict when the slug is taken.
func (s *Store) CreateCompany(ctx context.Context, c *models.Company) error {
	if err := s.db.WithContext(ctx).Create(c).Error; err != nil {
		return notFound(err, "create company "+c.Slug)
	}
	return nil
}

// Company loads a company by id.
func (s *Store) Company(ctx context.Context, id uuid.UUID) (*models.Company, error) {
	var c models.Company
	if err := s.db.WithContext(ctx).First(&c, "id = ?", id).Error; err != nil {
		return nil, notFound(err, "company "+id.String())
	}
	return &c, nil
}

// CompanyBySlug loads a company by slug (operator commands).
func (s *Store) CompanyBySlug(ctx context.Context, slug string) (*models.Company, error) {
	var c models.Company
	if err := s.db.WithContext(ctx).First(&c, "slug = ?", slug).Error; err != nil {
		return nil, notFound(err, "company "+slug)
	}
	return &c, nil
}

// ListCompanies returns every company by slug (operator commands).
func (s *Store) ListCompanies(ctx context.Context) ([]models.Company, error) {
	var cs []models.Company
	if err := s.db.WithContext(ctx).Order("slug").Find(&cs).Error; err != nil {
		return nil, fmt.Errorf("list companies: %w", err)
	}
	return cs, nil
}

// SetATSCredentials encrypts creds (field name → value, base URL included) for the company and
// records which fields are populated, so presence can be reported without decrypting.
func (s *Store) SetATSCredentials(ctx context.Context, companyID uuid.UUID, box *secretbox.Box, creds map[string]string) error {
	plain, err := json.Marshal(creds)
	if err != nil {
		return fmt.Errorf("encode ats credentials: %w", err)
	}
	sealed, err := box.Seal(plain, companyID[:])
	if err != nil {
		return err
	}
	fields := make([]string, 0, len(creds))
	for k, v := range creds {
		if v != "" {
			fields = append(fields, k)
		}
	}
	sort.Strings(fields)
	res := s.db.WithContext(ctx).Model(&models.Company{}).Where("id = ?", companyID).
		Updates(map[string]any{"ats_credentials": sealed, "ats_credential_fields": models.StringArray(fields)})
	if res.Error != nil {
		return fmt.Errorf("store ats credentials: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("store ats credentials of %s: %w", companyID, ErrNotFound)
	}
	return nil
}

// ATSCredentials loads and decrypts the company's ATS credentials; an empty map when none are set.
func (s *Store) ATSCredentials(ctx context.Context, companyID uuid.UUID, box *secretbox.Box) (map[string]string, error) {
	var c models.Company
	if err := s.db.WithContext(ctx).Select("id", "ats_credentials").First(&c, "id = ?", companyID).Error; err != nil {
		return nil, notFound(err, "company "+companyID.String())
	}
	return OpenATSCredentials(box, &c)
}

// OpenATSCredentials decrypts the credentials of a company row already loaded.
func OpenATSCredentials(box *secretbox.Box, c *models.Company) (map[string]string, error) {
	creds := map[string]string{}
	if len(c.ATSCredentials) == 0 {
		return creds, nil
	}
	plain, err := box.Open(c.ATSCredentials, c.ID[:])
	if err != nil {
		return nil, fmt.Errorf("ats credentials of %s: %w", c.ID, err)
	}
	if err := json.Unmarshal(plain, &creds); err != nil {
		return nil, fmt.Errorf("decode ats credentials of %s: %w", c.ID, err)
	}
	return creds, nil
}
