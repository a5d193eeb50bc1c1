package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// MessageByProviderID finds the message a provider's message id names, in any company: the id is
// all a provider's delivery report carries. ErrNotFound when there is none (yet).
func (s *Store) MessageByProviderID(ctx context.Context, provider, providerMessageID string) (*models.Message, error) {
	var m models.Message
	err := s.db.WithContext(ctx).Where("provider = ? AND provider_message_id = ?", provider, providerMessageID).
		Order("created_at DESC").Take(&m).Error
	if err != nil {
		return nil, notFound(err, "message "+providerMessageID)
	}
	return &m, nil
}

// DeliveryStatus is what a delivery report changes on a message: the provider's status, and the
// message's status and error when the report decides them ("" leaves them).
type DeliveryStatus struct {
	ProviderStatus string
	Status         models.MessageStatus
	Error          string
}

// RecordDeliveryStatus writes d on the company's message if its provider status is still prev
// (nil: none recorded), and reports whether it did: false when another report changed it first.
func (s *Store) RecordDeliveryStatus(ctx context.Context, companyID, messageID uuid.UUID, prev *string, d DeliveryStatus) (bool, error) {
	upd := map[string]any{"provider_status": d.ProviderStatus, "status_at": time.Now().UTC()}
	if d.Status != "" {
		upd["status"] = d.Status
	}
	if d.Error != "" {
		upd["error"] = d.Error
	}
	q := s.db.WithContext(ctx).Model(&models.Message{}).Where("company_id = ? AND id = ?", companyID, messageID)
	if prev == nil {
		q = q.Where("provider_status IS NULL")
	} else {
		q = q.Where("provider_status = ?", *prev)
	}
	res := q.Updates(upd)
	if res.Error != nil {
		return false, fmt.Errorf("record delivery status of message %s: %w", messageID, res.Error)
	}
	return res.RowsAffected == 1, nil
}
