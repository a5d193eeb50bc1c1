package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// SessionTranscript is the session's transcript, every turn in seq order.
func (s *Store) SessionTranscript(ctx context.Context, companyID, sessionID uuid.UUID) ([]models.InterviewTurn, error) {
	var turns []models.InterviewTurn
	if err := s.db.WithContext(ctx).Where("company_id = ? AND session_id = ?", companyID, sessionID).Order("seq").Find(&turns).Error; err != nil {
		return nil, fmt.Errorf("load transcript of session %s: %w", sessionID, err)
	}
	return turns, nil
}

// SessionCheating is a session's stored cheating evaluation with the company's threshold.
type SessionCheating struct {
	CheatingScore   float64
	TranscriptScore *float64
	Threshold       float64
	Evidence        []byte // a JSON object; nil for evaluations made elsewhere
}

// SessionCheating loads the session's cheating evaluation; ErrNotFound when it has none.
func (s *Store) SessionCheating(ctx context.Context, companyID, sessionID uuid.UUID) (*SessionCheating, error) {
	var c SessionCheating
	var evidence sql.NullString
	err := s.sql.QueryRowContext(ctx, `SELECT ce.cheating_score::float8, ce.transcript_score::float8, co.cheat_threshold::float8, ce.evidence::text
		FROM cheating_evaluations ce JOIN companies co ON co.id = ce.company_id
		WHERE ce.company_id = $1 AND ce.session_id = $2`, companyID, sessionID).Scan(&c.CheatingScore, &c.TranscriptScore, &c.Threshold, &evidence)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("cheating evaluation of session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load cheating evaluation of session %s: %w", sessionID, err)
	}
	if evidence.Valid {
		c.Evidence = []byte(evidence.String)
	}
	return &c, nil
}
