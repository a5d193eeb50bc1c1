package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// WorkflowDefinition loads the version in force of the company's definition for trigger.
func (s *Store) WorkflowDefinition(ctx context.Context, companyID uuid.UUID, trigger models.WorkflowTrigger) (*models.WorkflowDefinition, error) {
	var d models.WorkflowDefinition
	err := s.db.WithContext(ctx).Where("company_id = ? AND trigger = ?", companyID, trigger).Order("version DESC").First(&d).Error
	if err != nil {
		return nil, notFound(err, "workflow definition "+string(trigger))
	}
	return &d, nil
}

// SaveWorkflowDefinition stores a validated definition as the next version. Saving the same
// content as the version in force changes nothing and returns that version.
func (s *Store) SaveWorkflowDefinition(ctx context.Context, companyID uuid.UUID, trigger models.WorkflowTrigger, def json.RawMessage, enabled bool, hash string) (*models.WorkflowDefinition, error) {
	for attempt := 0; ; attempt++ {
		cur, err := s.WorkflowDefinition(ctx, companyID, trigger)
		version := 1
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		case cur.Hash == hash:
			return cur, nil
		default:
			version = cur.Version + 1
		}
		d := &models.WorkflowDefinition{CompanyID: companyID, Trigger: trigger, Version: version, Enabled: enabled, Definition: def, Hash: hash}
		err = s.db.WithContext(ctx).Create(d).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) && attempt < 3 {
			continue // a concurrent save took this version number
		}
		if err != nil {
			return nil, notFound(err, "save workflow definition "+string(trigger))
		}
		return d, nil
	}
}

// EnabledTrigger reports whether the company has an enabled definition for trigger.
func (s *Store) EnabledTrigger(ctx context.Context, companyID uuid.UUID, trigger models.WorkflowTrigger) (bool, error) {
	d, err := s.WorkflowDefinition(ctx, companyID, trigger)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check trigger %s: %w", trigger, err)
	}
	return d.Enabled, nil
}
