package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// Listing and replaying stored HR-suite deliveries works across companies: the queries here are
// the platform's support surface, reached only with a platform admin's support token or the
// operator CLI. A filter's company narrows them to one tenant.

// HRSuiteDeliverySummary is a stored delivery as support lists it (no body).
type HRSuiteDeliverySummary struct {
	ID          uuid.UUID      `json:"id"`
	Company     string         `json:"company"`
	ReceivedAt  time.Time      `json:"receivedAt"`
	Rows        int            `json:"rows"`
	DuplicateOf *uuid.UUID     `json:"duplicateOf,omitempty"`
	ProcessedAt *time.Time     `json:"processedAt,omitempty"`
	Counts      map[string]int `json:"counts"`
}

// ErrBadFilter is a support filter that names something that does not exist.
var ErrBadFilter = errors.New("bad filter")

// hrsuiteWhere is the SQL condition of f over hrsuite_deliveries d joined to companies c.
func hrsuiteWhere(f models.HRSuiteFilter, withDuplicates bool) (string, []any) {
	conds := []string{"true"}
	var args []any
	if !withDuplicates {
		conds = append(conds, "d.duplicate_of IS NULL")
	}
	if f.DeliveryID != nil {
		conds, args = append(conds, "d.id = ?"), append(args, *f.DeliveryID)
	}
	if f.Company != "" {
		conds, args = append(conds, "c.slug = ?"), append(args, f.Company)
	}
	if f.From != nil {
		conds, args = append(conds, "d.received_at >= ?"), append(args, *f.From)
	}
	if f.To != nil {
		conds, args = append(conds, "d.received_at < ?"), append(args, *f.To)
	}
	switch {
	case f.Outcome == "invalid":
		conds = append(conds, "EXISTS (SELECT 1 FROM hrsuite_rows r WHERE r.company_id = d.company_id AND r.outcome LIKE 'invalid:%' AND r.delivery_id = d.id)")
	case f.Outcome != "":
		conds, args = append(conds, "EXISTS (SELECT 1 FROM hrsuite_rows r WHERE r.company_id = d.company_id AND r.outcome = ? AND r.delivery_id = d.id)"), append(args, f.Outcome)
	}
	return strings.Join(conds, " AND "), args
}

// ListHRSuiteDeliveries lists up to limit deliveries matching f, newest first, duplicates
// included (marked).
func (s *Store) ListHRSuiteDeliveries(ctx context.Context, f models.HRSuiteFilter, limit int) ([]HRSuiteDeliverySummary, error) {
	where, args := hrsuiteWhere(f, true)
	var rows []struct {
		ID          uuid.UUID
		Slug        string
		ReceivedAt  time.Time
		RowCount    int
		DuplicateOf *uuid.UUID
		ProcessedAt *time.Time
		Counts      models.JSON[map[string]int]
	}
	err := s.db.WithContext(ctx).Raw(`SELECT d.id, c.slug, d.received_at, d.row_count, d.duplicate_of, d.processed_at, d.counts
FROM hrsuite_deliveries d JOIN companies c ON c.id = d.company_id
WHERE `+where+` ORDER BY d.received_at DESC, d.id LIMIT ?`, append(args, limit)...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list hr-suite deliveries: %w", err)
	}
	out := make([]HRSuiteDeliverySummary, len(rows))
	for i, r := range rows {
		out[i] = HRSuiteDeliverySummary{ID: r.ID, Company: r.Slug, ReceivedAt: r.ReceivedAt, Rows: r.RowCount,
			DuplicateOf: r.DuplicateOf, ProcessedAt: r.ProcessedAt, Counts: r.Counts.V}
		if out[i].Counts == nil {
			out[i].Counts = map[string]int{}
		}
	}
	return out, nil
}

// HRSuiteDeliveryDetail is a delivery with its row outcomes, for support.
type HRSuiteDeliveryDetail struct {
	HRSuiteDeliverySummary
	RowOutcomes []HRSuiteRowView `json:"rowOutcomes"`
}

// HRSuiteRowView is one row's outcome as support sees it: the ids, never the contact cells.
type HRSuiteRowView struct {
	Row            int        `json:"row"`
	ApplicationRef string     `json:"jobPostingApplicationId,omitempty"`
	Outcome        string     `json:"outcome"`
	ApplicationID  *uuid.UUID `json:"applicationId,omitempty"`
}

// HRSuiteDeliveryDetail loads a delivery by id with its row outcomes (outcome, when set, keeps
// only rows with that outcome; "invalid" every invalid one).
func (s *Store) HRSuiteDeliveryDetail(ctx context.Context, id uuid.UUID, outcome string) (*HRSuiteDeliveryDetail, error) {
	list, err := s.ListHRSuiteDeliveries(ctx, models.HRSuiteFilter{DeliveryID: &id}, 1)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("hr-suite delivery %s: %w", id, ErrNotFound)
	}
	d := &HRSuiteDeliveryDetail{HRSuiteDeliverySummary: list[0], RowOutcomes: []HRSuiteRowView{}}
	src := id
	if d.DuplicateOf != nil {
		src = *d.DuplicateOf
	}
	q := s.db.WithContext(ctx).Model(&models.HRSuiteRow{}).Where("delivery_id = ?", src)
	switch {
	case outcome == "invalid":
		q = q.Where("outcome LIKE 'invalid:%'")
	case outcome != "":
		q = q.Where("outcome = ?", outcome)
	}
	var rows []models.HRSuiteRow
	if err := q.Order("row_index").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read hr-suite row outcomes: %w", err)
	}
	for _, r := range rows {
		v := HRSuiteRowView{Row: r.RowIndex, Outcome: r.Outcome, ApplicationID: r.ApplicationID}
		if r.ApplicationRef != nil {
			v.ApplicationRef = *r.ApplicationRef
		}
		d.RowOutcomes = append(d.RowOutcomes, v)
	}
	return d, nil
}

// HRSuiteReplayPlan is what a replay of a filter would reprocess: deliveries (duplicates
// excluded), their rows, the distinct applications their rows name, and how many of those are
// not processed yet (not recorded accepted or do_not_hire: unknown jobs, disabled workflows).
type HRSuiteReplayPlan struct {
	Deliveries   int `json:"deliveries"`
	Rows         int `json:"rows"`
	Applications int `json:"applications"`
	Unprocessed  int `json:"unprocessedApplications"`
}

// PlanHRSuiteReplay counts what a replay of f would reprocess.
func (s *Store) PlanHRSuiteReplay(ctx context.Context, f models.HRSuiteFilter) (*HRSuiteReplayPlan, error) {
	where, args := hrsuiteWhere(f, false)
	var p HRSuiteReplayPlan
	err := s.db.WithContext(ctx).Raw(`
WITH sel AS (
    SELECT d.id, d.company_id, d.row_count FROM hrsuite_deliveries d JOIN companies c ON c.id = d.company_id WHERE `+where+`
), apps AS (
    SELECT DISTINCT r.company_id, r.application_ref FROM hrsuite_rows r JOIN sel ON r.delivery_id = sel.id
    WHERE r.application_ref IS NOT NULL AND r.outcome NOT LIKE 'invalid:%'
)
SELECT (SELECT count(*) FROM sel) AS deliveries,
       (SELECT coalesce(sum(row_count), 0) FROM sel) AS rows,
       (SELECT count(*) FROM apps) AS applications,
       (SELECT count(*) FROM apps a WHERE NOT EXISTS (
            SELECT 1 FROM hrsuite_applications h WHERE h.company_id = a.company_id AND h.application_ref = a.application_ref
              AND h.outcome IN ('accepted', 'do_not_hire'))) AS unprocessed`, args...).Scan(&p).Error
	if err != nil {
		return nil, fmt.Errorf("plan hr-suite replay: %w", err)
	}
	return &p, nil
}

// CompanyRef names a company: its id and slug.
type CompanyRef struct {
	ID   uuid.UUID
	Slug string
}

// HRSuiteReplayCompanies lists, by slug, the companies of the deliveries a replay of f would
// reprocess: a replay has one run per company.
func (s *Store) HRSuiteReplayCompanies(ctx context.Context, f models.HRSuiteFilter) ([]CompanyRef, error) {
	where, args := hrsuiteWhere(f, false)
	var out []CompanyRef
	if err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT c.id, c.slug FROM hrsuite_deliveries d JOIN companies c ON c.id = d.company_id
WHERE `+where+` ORDER BY c.slug`, args...).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("list the companies of an hr-suite replay: %w", err)
	}
	return out, nil
}

// CreateHRSuiteReplay records r, a replay of f (its ID, RequestedBy and Filter set by the
// caller), with the deliveries it covers and its runs' starts, one per company
// (HRSuiteReplayCompanies), in one transaction. Only the deliveries of the starts' companies
// are covered, and only the starts of companies with a delivery covered are written: a company
// whose deliveries came or went since the caller listed them is left to their own ingest. A
// filter matching nothing records nothing and returns ErrNotFound. It returns the starts it
// wrote, to launch.
func (s *Store) CreateHRSuiteReplay(ctx context.Context, f models.HRSuiteFilter, r *models.HRSuiteReplay, starts []models.WorkflowStart) ([]models.WorkflowStart, error) {
	plan, err := s.PlanHRSuiteReplay(ctx, f)
	if err != nil {
		return nil, err
	}
	if plan.Deliveries == 0 || len(starts) == 0 {
		return nil, fmt.Errorf("no stored delivery matches the filter: %w", ErrNotFound)
	}
	r.RequestedAt, r.Filter = time.Now().UTC(), models.NewJSON(f)
	r.Deliveries, r.Rows, r.Applications, r.Counts = plan.Deliveries, plan.Rows, plan.Applications, models.NewJSON(map[string]int{})
	companies := make([]string, len(starts))
	for i, ws := range starts {
		companies[i] = ws.CompanyID.String()
	}
	var written []models.WorkflowStart
	where, args := hrsuiteWhere(f, false)
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(r).Error; err != nil {
			return fmt.Errorf("record hr-suite replay: %w", err)
		}
		var covered []uuid.UUID
		if err := tx.Raw(`
WITH ins AS (
    INSERT INTO hrsuite_replay_deliveries (replay_id, delivery_id, company_id)
    SELECT ?, d.id, d.company_id FROM hrsuite_deliveries d JOIN companies c ON c.id = d.company_id
    WHERE d.company_id = ANY (?::uuid[]) AND `+where+`
    RETURNING company_id
)
SELECT DISTINCT company_id FROM ins`,
			append([]any{r.ID, textArray(companies)}, args...)...).Scan(&covered).Error; err != nil {
			return fmt.Errorf("record hr-suite replay deliveries: %w", err)
		}
		if err := tx.Model(r).Update("deliveries", gorm.Expr("(SELECT count(*) FROM hrsuite_replay_deliveries WHERE replay_id = ?)", r.ID)).Error; err != nil {
			return fmt.Errorf("count hr-suite replay deliveries: %w", err)
		}
		var due []models.WorkflowStart
		for _, ws := range starts {
			if slices.Contains(covered, ws.CompanyID) {
				due = append(due, ws)
			}
		}
		if len(due) == 0 {
			return fmt.Errorf("no stored delivery matches the filter: %w", ErrNotFound)
		}
		written, err = insertStarts(tx, due)
		return err
	})
	if err != nil {
		return nil, err
	}
	return written, nil
}

// HRSuiteReplayDeliveries returns the company's deliveries of a replay that are not done yet,
// oldest first.
func (s *Store) HRSuiteReplayDeliveries(ctx context.Context, companyID, replayID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := s.db.WithContext(ctx).Raw(`SELECT rd.delivery_id FROM hrsuite_replay_deliveries rd JOIN hrsuite_deliveries d ON d.id = rd.delivery_id
WHERE rd.replay_id = ? AND rd.company_id = ? AND rd.done_at IS NULL ORDER BY d.received_at, d.id`, replayID, companyID).Rows()
	if err != nil {
		return nil, fmt.Errorf("list hr-suite replay deliveries: %w", err)
	}
	defer rows.Close()
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("read hr-suite replay delivery: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// FinishHRSuiteReplayDelivery marks one delivery of a replay done, adds its counts to the
// replay's, and marks the replay finished once none of its deliveries is left to do (a delivery
// the retention deleted meanwhile is gone from the list). Marking a delivery done twice counts
// it once.
func (s *Store) FinishHRSuiteReplayDelivery(ctx context.Context, companyID, replayID, deliveryID uuid.UUID, counts map[string]int) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE hrsuite_replay_deliveries SET done_at = now() WHERE replay_id = ? AND delivery_id = ? AND company_id = ? AND done_at IS NULL`,
			replayID, deliveryID, companyID)
		if res.Error != nil {
			return fmt.Errorf("mark hr-suite replay delivery done: %w", res.Error)
		}
		if res.RowsAffected == 1 {
			err := tx.Exec(`
UPDATE hrsuite_replays r SET deliveries_done = deliveries_done + 1,
    counts = (SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM (
        SELECT k, sum(v::integer) AS v FROM (
            SELECT key AS k, value AS v FROM jsonb_each_text(r.counts)
            UNION ALL SELECT key, value FROM jsonb_each_text(?::jsonb)) x GROUP BY k) y)
WHERE id = ?`, models.NewJSON(counts), replayID).Error
			if err != nil {
				return fmt.Errorf("count hr-suite replay progress: %w", err)
			}
		}
		err := tx.Exec(`UPDATE hrsuite_replays SET finished_at = now() WHERE id = ? AND finished_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM hrsuite_replay_deliveries WHERE replay_id = ? AND done_at IS NULL)`, replayID, replayID).Error
		if err != nil {
			return fmt.Errorf("finish hr-suite replay: %w", err)
		}
		return nil
	})
}

// HRSuiteReplay loads a replay.
func (s *Store) HRSuiteReplay(ctx context.Context, id uuid.UUID) (*models.HRSuiteReplay, error) {
	var r models.HRSuiteReplay
	if err := s.db.WithContext(ctx).First(&r, "id = ?", id).Error; err != nil {
		return nil, notFound(err, "hr-suite replay")
	}
	return &r, nil
}
