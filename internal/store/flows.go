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

// FlowDefinition loads the version in force of the company's definition for trigger.
func (s *Store) FlowDefinition(ctx context.Context, companyID uuid.UUID, trigger models.FlowTrigger) (*models.FlowDefinition, error) {
	var d models.FlowDefinition
	err := s.db.WithContext(ctx).Where("company_id = ? AND trigger = ?", companyID, trigger).Order("version DESC").First(&d).Error
	if err != nil {
		return nil, notFound(err, "workflow definition "+string(trigger))
	}
	return &d, nil
}

// SaveFlowDefinition stores a validated definition as the next version. Saving the same
// content as the version in force changes nothing and returns that version.
func (s *Store) SaveFlowDefinition(ctx context.Context, companyID uuid.UUID, trigger models.FlowTrigger, def json.RawMessage, enabled bool, hash string) (*models.FlowDefinition, error) {
	for attempt := 0; ; attempt++ {
		cur, err := s.FlowDefinition(ctx, companyID, trigger)
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
		d := &models.FlowDefinition{CompanyID: companyID, Trigger: trigger, Version: version, Enabled: enabled, Definition: def, Hash: hash}
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
func (s *Store) EnabledTrigger(ctx context.Context, companyID uuid.UUID, trigger models.FlowTrigger) (bool, error) {
	d, err := s.FlowDefinition(ctx, companyID, trigger)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check trigger %s: %w", trigger, err)
	}
	return d.Enabled, nil
}
