package store

// The start outbox (table workflow_starts): every query that writes or reads its rows. A store
// function that commits work a workflow does writes the workflow's start row here, in its own
// transaction, with insertStart, insertStarts, insertOrFindStart or renewStart; a feature that
// builds a start from what an earlier step of its transaction wrote writes it with
// Tx.InsertStarts or Tx.RenewStart. The rows are built by the caller (internal/kinds): the
// store never builds a start.

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

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

// insertChainedStart inserts a start when the query before it returned a row: a statement
// "WITH x AS (INSERT ... RETURNING id) " + insertChainedStart + " x" writes a row and the start
// of the run it needs in one round trip, atomic without a transaction of its own. Its arguments
// are chainedStartArgs', after the first insert's.
const insertChainedStart = `INSERT INTO workflow_starts (id, company_id, kind, workflow_id, company_slug, attributes, input, created_at, attempts)
SELECT ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, 0 FROM`

// chainedStartArgs are the arguments of insertChainedStart for ws, created at now; it sets ws's
// id when it has none, and its creation time.
func chainedStartArgs(ws *models.WorkflowStart, now time.Time) ([]any, error) {
	if ws.ID == uuid.Nil {
		ws.ID = uuid.New()
	}
	ws.CreatedAt = now
	attrs, err := ws.Attributes.Value()
	if err != nil {
		return nil, fmt.Errorf("record start of %s: %w", ws.WorkflowID, err)
	}
	return []any{ws.ID, ws.CompanyID, ws.Kind, ws.WorkflowID, ws.CompanySlug, attrs, string(ws.Input), now}, nil
}

// insertStarts writes starts into the outbox inside tx in one statement; a start whose workflow
// id is there already is left as it is. It returns the starts it wrote.
func insertStarts(tx *gorm.DB, all []models.WorkflowStart) ([]models.WorkflowStart, error) {
	if len(all) == 0 {
		return nil, nil
	}
	n := len(all)
	id, co, kind, wid, slug, attrs, input := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i := range all {
		ws := &all[i]
		if ws.ID == uuid.Nil {
			ws.ID = uuid.New()
		}
		a, err := ws.Attributes.Value()
		if err != nil {
			return nil, fmt.Errorf("record %s starts: %w", ws.Kind, err)
		}
		as, ok := a.(string)
		if !ok {
			return nil, fmt.Errorf("record %s starts: attributes of %s are %T, not JSON text", ws.Kind, ws.WorkflowID, a)
		}
		id[i], co[i], kind[i], wid[i], slug[i], attrs[i], input[i] = ws.ID.String(), ws.CompanyID.String(), ws.Kind, ws.WorkflowID, ws.CompanySlug, as, string(ws.Input)
	}
	rows, err := tx.Raw(`
INSERT INTO workflow_starts (id, company_id, kind, workflow_id, company_slug, attributes, input)
SELECT id, co, kind, wid, slug, attrs::jsonb, input::jsonb
FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS t(id, co, kind, wid, slug, attrs, input)
ON CONFLICT (workflow_id) DO NOTHING
RETURNING id, created_at`, textArray(id), textArray(co), textArray(kind), textArray(wid), textArray(slug), textArray(attrs), textArray(input)).Rows()
	if err != nil {
		return nil, fmt.Errorf("record %d %s starts: %w", n, all[0].Kind, err)
	}
	defer rows.Close()
	written := make(map[uuid.UUID]time.Time, n)
	for rows.Next() {
		var got uuid.UUID
		var at time.Time
		if err := rows.Scan(&got, &at); err != nil {
			return nil, fmt.Errorf("read recorded %s starts: %w", all[0].Kind, err)
		}
		written[got] = at
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read recorded %s starts: %w", all[0].Kind, err)
	}
	out := make([]models.WorkflowStart, 0, len(written))
	for _, ws := range all {
		if at, ok := written[ws.ID]; ok {
			ws.CreatedAt = at
			out = append(out, ws)
		}
	}
	return out, nil
}

// insertOrFindStart writes ws into the outbox inside tx unless a start of its workflow id is
// there already, and returns the row of the workflow id as it stands (ws, or the earlier one).
func insertOrFindStart(tx *gorm.DB, ws models.WorkflowStart) (*models.WorkflowStart, error) {
	written, err := insertStarts(tx, []models.WorkflowStart{ws})
	if err != nil {
		return nil, err
	}
	if len(written) == 1 {
		return &written[0], nil
	}
	var old models.WorkflowStart
	if err := tx.First(&old, "company_id = ? AND workflow_id = ?", ws.CompanyID, ws.WorkflowID).Error; err != nil {
		return nil, notFound(err, "workflow start "+ws.WorkflowID)
	}
	return &old, nil
}

// renewStart writes ws to the outbox inside tx, replacing an earlier row of its workflow id:
// pending again, under ws's id, so that an earlier request's late outcome does not mark it.
func renewStart(tx *gorm.DB, ws models.WorkflowStart) (*models.WorkflowStart, error) {
	ws.CreatedAt = time.Now().UTC()
	err := tx.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "workflow_id"}},
		DoUpdates: clause.AssignmentColumns([]string{
			"id", "input", "attributes", "company_slug", "created_at", "started_at", "refused_at", "attempts", "last_error",
		}),
	}).Create(&ws).Error
	if err != nil {
		return nil, fmt.Errorf("record start of %s: %w", ws.WorkflowID, err)
	}
	return &ws, nil
}

// InsertStarts writes starts in the transaction, leaving a start whose workflow id is there
// already as it is, and returns those it wrote: the caller launches them after the commit.
func (t *Tx) InsertStarts(starts []models.WorkflowStart) ([]models.WorkflowStart, error) {
	return insertStarts(t.db, starts)
}

// RenewStart writes ws in the transaction, replacing an earlier row of its workflow id (pending
// again, under ws's id), and returns the row to launch after the commit.
func (t *Tx) RenewStart(ws models.WorkflowStart) (*models.WorkflowStart, error) {
	return renewStart(t.db, ws)
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

// MarkLaunched records, in one statement, that the starts requests launched were taken; like
// MarkStarted it keeps a refusal's time (a retry after a 503 is still answered as the request).
func (s *Store) MarkLaunched(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Model(&models.WorkflowStart{}).Where("id IN ?", ids).
		Updates(map[string]any{"started_at": time.Now().UTC(), "attempts": gorm.Expr("attempts + 1")}).Error
	if err != nil {
		return fmt.Errorf("mark %d launched workflow starts: %w", len(ids), err)
	}
	return nil
}

// MarkStartedMany records that the starts were taken.
func (s *Store) MarkStartedMany(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Model(&models.WorkflowStart{}).Where("id IN ?", ids).
		Updates(map[string]any{"started_at": time.Now().UTC(), "attempts": gorm.Expr("attempts + 1"), "refused_at": nil}).Error
	if err != nil {
		return fmt.Errorf("mark %d workflow starts: %w", len(ids), err)
	}
	return nil
}

// RefuseStart records that a request answered 503 because its start was not taken: only a
// repeat of that request starts it.
func (s *Store) RefuseStart(ctx context.Context, id uuid.UUID, reason string) error {
	return s.updateStart(ctx, id, map[string]any{"refused_at": time.Now().UTC(), "attempts": gorm.Expr("attempts + 1"), "last_error": truncateText(reason, 500)})
}

// RefuseStartUnlessAccepted refuses a start like RefuseStart, unless an earlier attempt already
// failed without refusing it (outbox.Launcher.Accept's background start, or the reconciler): a
// request was answered 2xx for that row, which must still be started. It reports whether the
// row is refused.
func (s *Store) RefuseStartUnlessAccepted(ctx context.Context, id uuid.UUID, reason string) (bool, error) {
	var refused []bool
	err := s.db.WithContext(ctx).Raw(`UPDATE workflow_starts SET attempts = attempts + 1, last_error = ?,
	refused_at = CASE WHEN refused_at IS NULL AND attempts > 0 THEN NULL ELSE now() END
WHERE id = ? RETURNING refused_at IS NOT NULL`, truncateText(reason, 500), id).Scan(&refused).Error
	if err != nil {
		return false, fmt.Errorf("refuse workflow start %s: %w", id, err)
	}
	return len(refused) == 0 || refused[0], nil
}

// DeferStart records that a start its request answered 2xx for was not taken: the row stays
// pending, a refusal a concurrent repeat recorded meanwhile is withdrawn, and the reconciler
// starts it if no retry does first.
func (s *Store) DeferStart(ctx context.Context, id uuid.UUID, reason string) error {
	return s.updateStart(ctx, id, map[string]any{"attempts": gorm.Expr("attempts + 1"), "last_error": truncateText(reason, 500), "refused_at": nil})
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

// PendingCompanyStarts returns up to limit of the company's starts of kind that were not taken
// (an import's crash-left or refused starts), oldest first.
func (s *Store) PendingCompanyStarts(ctx context.Context, companyID uuid.UUID, kind string, limit int) ([]models.WorkflowStart, error) {
	var out []models.WorkflowStart
	err := s.db.WithContext(ctx).Where("company_id = ? AND kind = ? AND started_at IS NULL", companyID, kind).
		Order("created_at").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list pending %s starts: %w", kind, err)
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
