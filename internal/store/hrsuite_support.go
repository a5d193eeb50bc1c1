package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/models"
)

// Support staff work across companies: the queries here are the platform's support surface,
// reached only with a platform admin's support token or the operator CLI. A filter's company
// narrows them to one tenant.

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

// HRSuiteReplayStart builds the start of a replay's run over one company's deliveries.
type HRSuiteReplayStart func(companyID uuid.UUID, slug string, replayID uuid.UUID) models.WorkflowStart

// CreateHRSuiteReplay records a replay of f requested by who, with the deliveries it covers and
// one start per company among them, in one transaction. A filter matching nothing records
// nothing and returns ErrNotFound.
func (s *Store) CreateHRSuiteReplay(ctx context.Context, f models.HRSuiteFilter, who string, start HRSuiteReplayStart) (*models.HRSuiteReplay, []models.WorkflowStart, error) {
	plan, err := s.PlanHRSuiteReplay(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	if plan.Deliveries == 0 {
		return nil, nil, fmt.Errorf("no stored delivery matches the filter: %w", ErrNotFound)
	}
	r := &models.HRSuiteReplay{ID: uuid.New(), RequestedBy: who, RequestedAt: time.Now().UTC(), Filter: models.NewJSON(f),
		Deliveries: plan.Deliveries, Rows: plan.Rows, Applications: plan.Applications, Counts: models.NewJSON(map[string]int{})}
	var starts []models.WorkflowStart
	where, args := hrsuiteWhere(f, false)
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(r).Error; err != nil {
			return fmt.Errorf("record hr-suite replay: %w", err)
		}
		var companies []struct {
			ID   uuid.UUID
			Slug string
		}
		if err := tx.Raw(`
WITH ins AS (
    INSERT INTO hrsuite_replay_deliveries (replay_id, delivery_id, company_id)
    SELECT ?, d.id, d.company_id FROM hrsuite_deliveries d JOIN companies c ON c.id = d.company_id WHERE `+where+`
    RETURNING company_id
)
SELECT DISTINCT c.id, c.slug FROM ins JOIN companies c ON c.id = ins.company_id ORDER BY c.slug`,
			append([]any{r.ID}, args...)...).Scan(&companies).Error; err != nil {
			return fmt.Errorf("record hr-suite replay deliveries: %w", err)
		}
		if err := tx.Model(r).Update("deliveries", gorm.Expr("(SELECT count(*) FROM hrsuite_replay_deliveries WHERE replay_id = ?)", r.ID)).Error; err != nil {
			return fmt.Errorf("count hr-suite replay deliveries: %w", err)
		}
		for _, c := range companies {
			starts = append(starts, start(c.ID, c.Slug, r.ID))
		}
		if len(starts) == 0 {
			return fmt.Errorf("no stored delivery matches the filter: %w", ErrNotFound)
		}
		return tx.Create(&starts).Error
	})
	if err != nil {
		return nil, nil, err
	}
	return r, starts, nil
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

// DefaultSupportTokenTTL is how long a support token works when its creator names no expiry;
// MaxSupportTokenTTL bounds what they may name.
const (
	DefaultSupportTokenTTL = 30 * 24 * time.Hour
	MaxSupportTokenTTL     = 365 * 24 * time.Hour
)

// ErrBadTTL is a support token lifetime outside (0, MaxSupportTokenTTL].
var ErrBadTTL = errors.New("a support token's lifetime must be positive and at most 365 days")

// CreateSupportToken stores a new support token of a platform admin (the user found by e-mail),
// valid for ttl from now.
func (s *Store) CreateSupportToken(ctx context.Context, email, name, token string, ttl time.Duration) (*models.SupportToken, *models.User, error) {
	if ttl <= 0 || ttl > MaxSupportTokenTTL {
		return nil, nil, ErrBadTTL
	}
	var u models.User
	if err := s.db.WithContext(ctx).Where("lower(email) = lower(?)", email).First(&u).Error; err != nil {
		return nil, nil, notFound(err, "user "+email)
	}
	if !u.IsPlatformAdmin {
		return nil, nil, fmt.Errorf("user %s is not a platform admin (recruitd users add --admin): %w", u.Email, ErrBadFilter)
	}
	prefix, ok := apikey.Prefix(token)
	if !ok {
		return nil, nil, fmt.Errorf("support token too short")
	}
	now := time.Now().UTC()
	t := &models.SupportToken{UserID: u.ID, Name: name, Prefix: prefix, KeyHash: apikey.Hash(token), CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := s.db.WithContext(ctx).Create(t).Error; err != nil {
		return nil, nil, fmt.Errorf("store support token: %w", err)
	}
	return t, &u, nil
}

// SupportTokenView is a support token as the CLI lists it: no hash, its user's e-mail.
type SupportTokenView struct {
	models.SupportToken
	UserEmail string `gorm:"column:user_email"`
}

// ListSupportTokens lists support tokens, oldest first, revoked and expired ones included; email,
// when set, keeps one user's.
func (s *Store) ListSupportTokens(ctx context.Context, email string) ([]SupportTokenView, error) {
	q := s.db.WithContext(ctx).Table("support_tokens t").Select("t.*, u.email AS user_email").
		Joins("JOIN users u ON u.id = t.user_id")
	if email != "" {
		q = q.Where("lower(u.email) = lower(?)", email)
	}
	var out []SupportTokenView
	if err := q.Order("t.created_at, t.id").Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("list support tokens: %w", err)
	}
	return out, nil
}

// RevokeSupportToken revokes a support token by id or clear prefix; requests with it get 401 at
// once. Revoking a revoked token changes nothing. ErrConflict: a prefix names several tokens.
func (s *Store) RevokeSupportToken(ctx context.Context, ref string) (*models.SupportToken, error) {
	q := s.db.WithContext(ctx)
	if id, err := uuid.Parse(ref); err == nil {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("prefix = ?", ref)
	}
	var ts []models.SupportToken
	if err := q.Find(&ts).Error; err != nil {
		return nil, fmt.Errorf("find support token %s: %w", ref, err)
	}
	switch len(ts) {
	case 0:
		return nil, fmt.Errorf("support token %s: %w", ref, ErrNotFound)
	case 1:
	default:
		return nil, fmt.Errorf("support token prefix %s names %d tokens, revoke by id: %w", ref, len(ts), ErrConflict)
	}
	t := ts[0]
	if t.RevokedAt == nil {
		now := time.Now().UTC()
		if err := s.db.WithContext(ctx).Model(&t).Update("revoked_at", now).Error; err != nil {
			return nil, fmt.Errorf("revoke support token %s: %w", ref, err)
		}
		t.RevokedAt = &now
	}
	return &t, nil
}

// AuthenticateSupport resolves a support token to its platform admin: ErrUnknownKey for a token
// that is unknown, revoked, expired, or whose user is deleted or no longer a platform admin.
func (s *Store) AuthenticateSupport(ctx context.Context, token string) (*models.User, error) {
	prefix, ok := apikey.Prefix(token)
	if !ok {
		return nil, ErrUnknownKey
	}
	var rows []models.SupportToken
	if err := s.db.WithContext(ctx).Where("prefix = ? AND revoked_at IS NULL AND expires_at > now()", prefix).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("look up support token: %w", err)
	}
	t, ok := matchKey(rows, func(t *models.SupportToken) []byte { return t.KeyHash }, token)
	if !ok {
		return nil, ErrUnknownKey
	}
	var u models.User
	if err := s.db.WithContext(ctx).First(&u, "id = ?", t.UserID).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrUnknownKey // the user was deleted
		}
		return nil, fmt.Errorf("load support token user: %w", err)
	}
	if !u.IsPlatformAdmin {
		return nil, ErrUnknownKey
	}
	if t.LastUsedAt == nil || time.Since(*t.LastUsedAt) > time.Minute {
		if err := s.db.WithContext(ctx).Model(&models.SupportToken{}).Where("id = ?", t.ID).Update("last_used_at", time.Now().UTC()).Error; err != nil {
			return nil, fmt.Errorf("record support token use: %w", err)
		}
	}
	return &u, nil
}
