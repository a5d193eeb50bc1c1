package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// InboundClaim is a provider's inbound message id taken for handling: TurnSeq is the question
// an earlier attempt at the same message was answering (nil: none got that far), when that
// attempt ended before the message was handled (its process died).
type InboundClaim struct {
	TurnSeq *int
}

// RecordInbound takes a provider's inbound message id for handling; first is false when it was
// handled before (a retried or replayed webhook), which then changes nothing. An id recorded but
// never marked handled (HandledInbound), because the process handling it died, is taken again,
// with the turn that attempt recorded (InboundTurn). Two deliveries of one id at once may both
// be taken: the turn's answer is idempotent (a repeat of a stored answer changes nothing).
func (s *Store) RecordInbound(ctx context.Context, provider, messageID string) (claim InboundClaim, first bool, err error) {
	var rows []struct{ TurnSeq *int }
	err = s.db.WithContext(ctx).Raw(`INSERT INTO inbound_messages AS m (provider, message_id) VALUES (?, ?)
ON CONFLICT (provider, message_id) DO UPDATE SET received_at = m.received_at WHERE m.handled_at IS NULL
RETURNING m.turn_seq`, provider, messageID).Scan(&rows).Error
	if err != nil {
		return InboundClaim{}, false, fmt.Errorf("record inbound message: %w", err)
	}
	if len(rows) == 0 {
		return InboundClaim{}, false, nil
	}
	return InboundClaim{TurnSeq: rows[0].TurnSeq}, true, nil
}

// InboundTurn records the question an inbound message answers, before its answer is stored.
func (s *Store) InboundTurn(ctx context.Context, provider, messageID string, seq int) error {
	if err := s.db.WithContext(ctx).Exec(`UPDATE inbound_messages SET turn_seq = ? WHERE provider = ? AND message_id = ?`, seq, provider, messageID).Error; err != nil {
		return fmt.Errorf("record inbound message's turn: %w", err)
	}
	return nil
}

// HandledInbound marks an inbound message handled: a later delivery of its id is a duplicate.
func (s *Store) HandledInbound(ctx context.Context, provider, messageID string) error {
	if err := s.db.WithContext(ctx).Exec(`UPDATE inbound_messages SET handled_at = now() WHERE provider = ? AND message_id = ? AND handled_at IS NULL`,
		provider, messageID).Error; err != nil {
		return fmt.Errorf("mark inbound message handled: %w", err)
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

// ThreadSession finds the thread of address on channel (sms or whatsapp; no other channel has a
// thread). The statement repeats the predicate of messages_thread with the channels written out:
// with only "channel = $2" a generic plan cannot prove it, so Postgres planned the statement
// again on every inbound text (pg_stat_statements: one plan per call, 0.19 ms each).
func (s *Store) ThreadSession(ctx context.Context, channel, address string) (*ThreadSession, error) {
	var t ThreadSession
	err := s.db.WithContext(ctx).Raw(`
SELECT m.company_id, m.session_id, c.name AS company_name
FROM messages m JOIN companies c ON c.id = m.company_id
WHERE m.to_address = ? AND m.channel = ? AND m.channel IN ('sms', 'whatsapp') AND m.direction = 'outbound'
  AND m.session_id IS NOT NULL
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
