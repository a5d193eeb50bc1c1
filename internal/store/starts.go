package store

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// insertStart writes a workflow start into the outbox inside tx, the transaction that writes
// the rows the workflow works on.
func insertStart(tx *gorm.DB, ws *models.WorkflowStart) error {
	if err := tx.Create(ws).Error; err != nil {
		return fmt.Errorf("record start of %s: %w", ws.WorkflowID, err)
	}
	return nil
}

// WorkflowStart loads the company's outbox row of a workflow id.
func (s *Store) WorkflowStart(ctx context.Context, companyID uuid.UUID, workflowID string) (*models.WorkflowStart, error) {
	var ws models.WorkflowStart
	if err := s.db.WithContext(ctx).First(&ws, "company_id = ? AND workflow_id = ?", companyID, workflowID).Error; err != nil {
		return nil, notFound(err, "workflow start "+workflowID)
	}
	return &ws, nil
}

// MarkStarted records that a start was taken.
func (s *Store) MarkStarted(ctx context.Context, id uuid.UUID) error {
	return s.updateStart(ctx, id, map[string]any{"started_at": time.Now().UTC(), "attempts": gorm.Expr("attempts + 1")})
}

// RefuseStart records that a request answered 503 because its start was not taken: only a
// repeat of that request starts it.
func (s *Store) RefuseStart(ctx context.Context, id uuid.UUID, reason string) error {
	return s.updateStart(ctx, id, map[string]any{"refused_at": time.Now().UTC(), "attempts": gorm.Expr("attempts + 1"), "last_error": truncateText(reason, 500)})
}

// FailStart records a reconciler's failed attempt; the row stays pending.
func (s *Store) FailStart(ctx context.Context, id uuid.UUID, reason string) error {
	return s.updateStart(ctx, id, map[string]any{"attempts": gorm.Expr("attempts + 1"), "last_error": truncateText(reason, 500)})
}

func (s *Store) updateStart(ctx context.Context, id uuid.UUID, upd map[string]any) error {
	if err := s.db.WithContext(ctx).Model(&models.WorkflowStart{}).Where("id = ?", id).Updates(upd).Error; err != nil {
		return fmt.Errorf("update workflow start %s: %w", id, err)
	}
	return nil
}

// PendingStarts returns, oldest first, up to limit starts of every company that were not taken
// and were written before before: those not refused, and the refused ones of resumeRefused kinds. It is the reconciler's one query across
// companies: platform upkeep, answering no caller. Two reconcilers may pick the same row; the
// start is idempotent.
func (s *Store) PendingStarts(ctx context.Context, before time.Time, limit int, resumeRefused []string) ([]models.WorkflowStart, error) {
	var out []models.WorkflowStart
	err := s.db.WithContext(ctx).
		Where("started_at IS NULL AND created_at < ? AND (refused_at IS NULL OR kind = ANY(?))", before, models.StringArray(resumeRefused)).
		Order("created_at").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list pending workflow starts: %w", err)
	}
	return out, nil
}

// PruneStarts deletes up to limit start rows that were started before before, except those of
// keepKinds, and returns how many it deleted. Platform upkeep across companies, like
// PendingStarts.
func (s *Store) PruneStarts(ctx context.Context, before time.Time, keepKinds []string, limit int) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM workflow_starts WHERE id IN (
    SELECT id FROM workflow_starts WHERE started_at IS NOT NULL AND started_at < ? AND kind <> ALL (?::text[]) LIMIT ?)`,
		before, models.StringArray(keepKinds), limit)
	if res.Error != nil {
		return 0, fmt.Errorf("prune workflow starts: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// truncateText cuts s to at most n bytes on a rune boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
