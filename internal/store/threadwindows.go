package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// TouchThreadWindow records that the candidate at address wrote to the company on channel at
// at: the start of WhatsApp's 24-hour window. A time earlier than the one recorded changes
// nothing.
func (s *Store) TouchThreadWindow(ctx context.Context, companyID uuid.UUID, channel, address string, at time.Time) error {
	err := s.db.WithContext(ctx).Exec(`
INSERT INTO thread_windows (company_id, channel, address, last_inbound_at) VALUES (?, ?, ?, ?)
ON CONFLICT (company_id, channel, address) DO UPDATE SET last_inbound_at = greatest(thread_windows.last_inbound_at, EXCLUDED.last_inbound_at)`,
		companyID, channel, address, at.UTC()).Error
	if err != nil {
		return fmt.Errorf("record thread window: %w", err)
	}
	return nil
}

// LastInbound is when the candidate at address last wrote to the company on channel; ok is false
// when never.
func (s *Store) LastInbound(ctx context.Context, companyID uuid.UUID, channel, address string) (at time.Time, ok bool, err error) {
	err = s.db.WithContext(ctx).Raw(`SELECT last_inbound_at FROM thread_windows WHERE company_id = ? AND channel = ? AND address = ?`,
		companyID, channel, address).Row().Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read thread window: %w", err)
	}
	return at, true, nil
}
