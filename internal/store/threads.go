package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// RecordInbound records a provider's inbound message id; first is false when it was recorded
// before (a retried or replayed webhook), which then changes nothing.
func (s *Store) RecordInbound(ctx context.Context, provider, messageID string) (first bool, err error) {
	res := s.db.WithContext(ctx).Exec(`INSERT INTO inbound_messages (provider, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, provider, messageID)
	if res.Error != nil {
		return false, fmt.Errorf("record inbound message: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// ForgetInbound removes a recorded message id whose handling failed, so the provider's retry is
// handled.
func (s *Store) ForgetInbound(ctx context.Context, provider, messageID string) error {
	if err := s.db.WithContext(ctx).Exec(`DELETE FROM inbound_messages WHERE provider = ? AND message_id = ?`, provider, messageID).Error; err != nil {
		return fmt.Errorf("forget inbound message: %w", err)
	}
	return nil
}

// ThreadSession is the session a number's text belongs to: the latest session whose messages
// went to the number by SMS or WhatsApp. It establishes the tenant (the number's thread), so it
// takes no company; ErrNotFound for a number recruitd never texted.
type ThreadSession struct {
	CompanyID, SessionID uuid.UUID
	CompanyName          string
}

// ThreadSession finds the thread of address on channel.
func (s *Store) ThreadSession(ctx context.Context, channel, address string) (*ThreadSession, error) {
	var t ThreadSession
	err := s.db.WithContext(ctx).Raw(`
SELECT m.company_id, m.session_id, c.name AS company_name
FROM messages m JOIN companies c ON c.id = m.company_id
WHERE m.to_address = ? AND m.channel = ? AND m.direction = 'outbound' AND m.session_id IS NOT NULL
ORDER BY m.created_at DESC LIMIT 1`, address, channel).Row().Scan(&t.CompanyID, &t.SessionID, &t.CompanyName)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("thread of a number: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("find thread: %w", err)
	}
	return &t, nil
}

// OptOut records that address asked the company to stop (keyword: STOP, a synonym, or
// "free-text"); first is false when it had already.
func (s *Store) OptOut(ctx context.Context, companyID uuid.UUID, address, keyword string) (first bool, err error) {
	res := s.db.WithContext(ctx).Exec(`INSERT INTO channel_opt_outs (company_id, address, keyword) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		companyID, address, keyword)
	if res.Error != nil {
		return false, fmt.Errorf("record opt-out: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// OptIn removes address's opt-out from the company (START); found is false when there was none.
func (s *Store) OptIn(ctx context.Context, companyID uuid.UUID, address string) (found bool, err error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM channel_opt_outs WHERE company_id = ? AND address = ?`, companyID, address)
	if res.Error != nil {
		return false, fmt.Errorf("remove opt-out: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// OptedOut reports whether address opted out of the company's texts and calls.
func (s *Store) OptedOut(ctx context.Context, companyID uuid.UUID, address string) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Raw(`SELECT count(*) FROM channel_opt_outs WHERE company_id = ? AND address = ?`, companyID, address).Scan(&n).Error; err != nil {
		return false, fmt.Errorf("read opt-out: %w", err)
	}
	return n > 0, nil
}
