package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// CreateMessage records a message of a candidate's conversation.
func (s *Store) CreateMessage(ctx context.Context, m *models.Message) error {
	if err := s.db.WithContext(ctx).Create(m).Error; err != nil {
		return fmt.Errorf("create message: %w", err)
	}
	return nil
}

// MessageBySendKey finds the company's message sent by the activity with this send key
// (models.Message.SendKey); ErrNotFound when there is none.
func (s *Store) MessageBySendKey(ctx context.Context, companyID uuid.UUID, key string) (*models.Message, error) {
	var m models.Message
	if err := s.db.WithContext(ctx).First(&m, "company_id = ? AND send_key = ?", companyID, key).Error; err != nil {
		return nil, notFound(err, "message by send key")
	}
	return &m, nil
}

// RequeueMessage makes an earlier attempt's message (queued or failed) the current attempt's:
// queued again, with the text and address of this attempt.
func (s *Store) RequeueMessage(ctx context.Context, m *models.Message) error {
	err := s.db.WithContext(ctx).Model(&models.Message{}).Where("company_id = ? AND id = ?", m.CompanyID, m.ID).Updates(map[string]any{
		"status": models.MessageStatusQueued, "channel": m.Channel, "to_address": m.ToAddress, "subject": m.Subject, "body": m.Body, "error": nil,
	}).Error
	if err != nil {
		return fmt.Errorf("requeue message %s: %w", m.ID, err)
	}
	return nil
}

// MessageResult is the outcome of one delivery attempt.
type MessageResult struct {
	Status            models.MessageStatus
	Provider          string
	ProviderMessageID string
	Error             string
}

// FinishMessage records a delivery attempt's outcome on its message.
func (s *Store) FinishMessage(ctx context.Context, companyID, messageID uuid.UUID, r MessageResult) error {
	upd := map[string]any{"status": r.Status, "provider": nullable(r.Provider), "provider_message_id": nullable(r.ProviderMessageID), "error": nullable(r.Error)}
	if r.Status == models.MessageStatusSent {
		upd["sent_at"] = time.Now().UTC()
	}
	if err := s.db.WithContext(ctx).Model(&models.Message{}).Where("company_id = ? AND id = ?", companyID, messageID).Updates(upd).Error; err != nil {
		return fmt.Errorf("finish message %s: %w", messageID, err)
	}
	return nil
}

// Conversation returns a candidate's messages, oldest first.
func (s *Store) Conversation(ctx context.Context, companyID, candidateID uuid.UUID) ([]models.Message, error) {
	var ms []models.Message
	if err := s.db.WithContext(ctx).Where("company_id = ? AND candidate_id = ?", companyID, candidateID).Order("created_at, id").Find(&ms).Error; err != nil {
		return nil, fmt.Errorf("load conversation: %w", err)
	}
	return ms, nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
