package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// SaveThreadQuestionSent records when a text thread handed the question of the session's turn
// seq to the provider; the first send is kept (a repeated prompt changes nothing), and a turn the
// session does not have records nothing.
func (s *Store) SaveThreadQuestionSent(ctx context.Context, companyID, sessionID uuid.UUID, seq int, channel models.AnswerChannel, at time.Time) error {
	err := s.db.WithContext(ctx).Exec(`
INSERT INTO interview_thread_signals (company_id, session_id, seq, channel, sent_at)
SELECT t.company_id, t.session_id, t.seq, ?, ? FROM interview_turns t
WHERE t.company_id = ? AND t.session_id = ? AND t.seq = ?
ON CONFLICT (company_id, session_id, seq) DO NOTHING`, channel, at, companyID, sessionID, seq).Error
	if err != nil {
		return fmt.Errorf("record question %d of session %s sent: %w", seq, sessionID, err)
	}
	return nil
}

// SaveThreadAnswerReceived records when the answer to turn seq arrived in the thread its
// question was sent in; false when there is no such send, or an arrival was recorded before.
func (s *Store) SaveThreadAnswerReceived(ctx context.Context, companyID, sessionID uuid.UUID, seq int, channel models.AnswerChannel, at time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`
UPDATE interview_thread_signals SET received_at = ?
WHERE company_id = ? AND session_id = ? AND seq = ? AND channel = ? AND received_at IS NULL`, at, companyID, sessionID, seq, channel)
	if res.Error != nil {
		return false, fmt.Errorf("record answer %d of session %s received: %w", seq, sessionID, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// ThreadTiming is one answer taken in a text thread, as the cheating rules read it: the
// thread's channel and the server's time from handing the question to the provider to the
// answer's arrival (0 when the clocks disagree).
type ThreadTiming struct {
	Seq     int
	Channel models.AnswerChannel
	ReplyMs int64
}

// ThreadTimings lists the session's answers that arrived in the thread their question was sent
// in, in seq order.
func (s *Store) ThreadTimings(ctx context.Context, companyID, sessionID uuid.UUID) ([]ThreadTiming, error) {
	rows, err := s.sql.QueryContext(ctx, `SELECT g.seq, g.channel,
			greatest(0, floor(extract(epoch FROM g.received_at - g.sent_at) * 1000))::bigint
		FROM interview_thread_signals g
		JOIN interview_turns t ON t.company_id = g.company_id AND t.session_id = g.session_id AND t.seq = g.seq
		WHERE g.company_id = $1 AND g.session_id = $2 AND g.received_at IS NOT NULL
		  AND t.answer IS NOT NULL AND t.channel = g.channel
		ORDER BY g.seq`, companyID, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load thread timings of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []ThreadTiming
	for rows.Next() {
		var t ThreadTiming
		if err := rows.Scan(&t.Seq, &t.Channel, &t.ReplyMs); err != nil {
			return nil, fmt.Errorf("load thread timings of session %s: %w", sessionID, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load thread timings of session %s: %w", sessionID, err)
	}
	return out, nil
}
