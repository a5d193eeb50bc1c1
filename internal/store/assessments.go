package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// ApplicationRef is an application found by its external id, with the external ids its
// candidate and job carry (empty when they have none), for an assessment link's cross-check.
type ApplicationRef struct {
	ID                  uuid.UUID
	Source              models.ApplicationSource
	CandidateExternalID string
	JobExternalID       string
}

// ApplicationsByExternalID returns the company's applications whose external id is externalID
// (one per source at most), ATS applications first, then the newest. It is how an assessment
// link finds the application it is for.
func (s *Store) ApplicationsByExternalID(ctx context.Context, companyID uuid.UUID, externalID string) ([]ApplicationRef, error) {
	var out []ApplicationRef
	err := s.db.WithContext(ctx).Raw(`
SELECT a.id, a.source, coalesce(c.external_id, '') AS candidate_external_id, j.external_id AS job_external_id
FROM applications a
JOIN candidates c ON c.company_id = a.company_id AND c.id = a.candidate_id
JOIN jobs j ON j.company_id = a.company_id AND j.id = a.job_id
WHERE a.company_id = ? AND a.external_id = ?
ORDER BY a.source = 'ats' DESC, a.created_at DESC
LIMIT 10`, companyID, externalID).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("find applications by external id: %w", err)
	}
	return out, nil
}

// SetApplicationExternalID gives a company's application the source's application id, so that
// assessment links pushed with that id reach it. ErrConflict: another application of the same
// source has the id.
func (s *Store) SetApplicationExternalID(ctx context.Context, companyID, applicationID uuid.UUID, externalID string) error {
	res := s.db.WithContext(ctx).Model(&models.Application{}).
		Where("company_id = ? AND id = ?", companyID, applicationID).Update("external_id", externalID)
	if res.Error != nil {
		return notFound(res.Error, "set external id of application "+applicationID.String())
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("application %s: %w", applicationID, ErrNotFound)
	}
	return nil
}

// AssessmentPush is an accepted assessment link for a managed application, with the start of
// the application's delivery workflow.
type AssessmentPush struct {
	CompanyID     uuid.UUID
	ApplicationID uuid.UUID
	URL           string
	OrderID       string
	ReceivedAt    time.Time
	Start         models.WorkflowStart
}

// AssessmentOutcome says what a push did.
type AssessmentOutcome string

const (
	// AssessmentNew: the link became the application's current link.
	AssessmentNew AssessmentOutcome = "new"
	// AssessmentSame: the current link has the same URL; nothing was stored.
	AssessmentSame AssessmentOutcome = "same"
	// AssessmentStale: a later-received link is current; the push is kept as replaced.
	AssessmentStale AssessmentOutcome = "stale"
)

// PushResult is what PushAssessmentLink did.
type PushResult struct {
	Outcome AssessmentOutcome
	Link    *models.AssessmentLink
	// Replaced is the link the push replaced, if any (sent or not).
	Replaced *models.AssessmentLink
	// Start is the delivery start to take after the commit; nil when nothing waits to be sent.
	Start *models.WorkflowStart
}

// PushAssessmentLink records a link for its application, last write wins, in one transaction
// that locks the application, so concurrent pushes for one application are serialised and the
// later-received one (ReceivedAt) ends up current whatever order they commit in.
//
// The same URL as the current link stores nothing; a newer one replaces the current link; an
// older one than the current link is kept, already replaced. Whenever the current link waits to
// be sent, the delivery start is written to the outbox (one row per application, renewed by each
// push with a new id so that an earlier push's outcome does not mark it), for the caller to take
// after the commit and for the reconciler if the caller dies first.
func (s *Store) PushAssessmentLink(ctx context.Context, p AssessmentPush) (*PushResult, error) {
	res := &PushResult{}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return pushAssessmentLink(tx, p, res) })
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pushAssessmentLink is PushAssessmentLink within tx.
func pushAssessmentLink(tx *gorm.DB, p AssessmentPush, res *PushResult) error {
	var locked []uuid.UUID
	if err := tx.Raw("SELECT id FROM applications WHERE company_id = ? AND id = ? FOR UPDATE", p.CompanyID, p.ApplicationID).
		Scan(&locked).Error; err != nil {
		return fmt.Errorf("lock application %s: %w", p.ApplicationID, err)
	}
	if len(locked) == 0 {
		return fmt.Errorf("application %s: %w", p.ApplicationID, ErrNotFound)
	}
	var cur []models.AssessmentLink
	if err := tx.Where("company_id = ? AND application_id = ? AND replaced_at IS NULL", p.CompanyID, p.ApplicationID).
		Limit(1).Find(&cur).Error; err != nil {
		return fmt.Errorf("load current assessment link: %w", err)
	}
	link := &models.AssessmentLink{
		ID: uuid.New(), CompanyID: p.CompanyID, ApplicationID: p.ApplicationID, URL: p.URL,
		OrderID: nullable(p.OrderID), ReceivedAt: p.ReceivedAt,
	}
	res.Link = link
	if len(cur) == 1 {
		c := &cur[0]
		switch {
		case c.URL == p.URL:
			res.Outcome, res.Link = AssessmentSame, c
			if !c.Pending() {
				return nil
			}
			return renewPushStart(tx, p, res)
		case c.ReceivedAt.After(p.ReceivedAt):
			res.Outcome = AssessmentStale
			link.ReplacedAt = &c.ReceivedAt
			if err := tx.Create(link).Error; err != nil {
				return fmt.Errorf("record stale assessment link: %w", err)
			}
			return nil
		}
		now := time.Now().UTC()
		if err := tx.Model(c).Where("company_id = ?", p.CompanyID).Update("replaced_at", now).Error; err != nil {
			return fmt.Errorf("replace assessment link %s: %w", c.ID, err)
		}
		c.ReplacedAt, res.Replaced = &now, c
	}
	res.Outcome = AssessmentNew
	if err := tx.Create(link).Error; err != nil {
		return fmt.Errorf("record assessment link: %w", err)
	}
	return renewPushStart(tx, p, res)
}

// renewPushStart writes the push's delivery start to the outbox, replacing the application's
// earlier row.
func renewPushStart(tx *gorm.DB, p AssessmentPush, res *PushResult) error {
	ws, err := renewStart(tx, p.Start)
	if err != nil {
		return err
	}
	res.Start = ws
	return nil
}

// AssessmentLink loads a company's assessment link.
func (s *Store) AssessmentLink(ctx context.Context, companyID, id uuid.UUID) (*models.AssessmentLink, error) {
	var l models.AssessmentLink
	if err := s.db.WithContext(ctx).First(&l, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
		return nil, notFound(err, "assessment link "+id.String())
	}
	return &l, nil
}

// PendingAssessmentLink returns the application's current link when it waits to be sent, or
// ErrNotFound.
func (s *Store) PendingAssessmentLink(ctx context.Context, companyID, applicationID uuid.UUID) (*models.AssessmentLink, error) {
	var l models.AssessmentLink
	err := s.db.WithContext(ctx).First(&l, "company_id = ? AND application_id = ? AND replaced_at IS NULL AND sent_at IS NULL AND failed_at IS NULL",
		companyID, applicationID).Error
	if err != nil {
		return nil, notFound(err, "pending assessment link of application "+applicationID.String())
	}
	return &l, nil
}

// AssessmentLinks returns an application's links, oldest received first.
func (s *Store) AssessmentLinks(ctx context.Context, companyID, applicationID uuid.UUID) ([]models.AssessmentLink, error) {
	var out []models.AssessmentLink
	if err := s.db.WithContext(ctx).Where("company_id = ? AND application_id = ?", companyID, applicationID).
		Order("received_at, id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list assessment links: %w", err)
	}
	return out, nil
}

// ErrLinkNotPending means an assessment link was sent, failed or replaced before an operation
// that needs it waiting.
var ErrLinkNotPending = errors.New("assessment link is not waiting to be sent")

// MarkAssessmentLinkSent records that the link went out in message messageID. It marks a link
// that was replaced while it was being sent too: it did reach the candidate.
func (s *Store) MarkAssessmentLinkSent(ctx context.Context, companyID, id, messageID uuid.UUID) (*models.AssessmentLink, error) {
	return s.finishAssessmentLink(ctx, companyID, id, map[string]any{"sent_at": time.Now().UTC(), "message_id": messageID})
}

// FailAssessmentLink records that no channel delivered the link.
func (s *Store) FailAssessmentLink(ctx context.Context, companyID, id uuid.UUID) (*models.AssessmentLink, error) {
	return s.finishAssessmentLink(ctx, companyID, id, map[string]any{"failed_at": time.Now().UTC()})
}

func (s *Store) finishAssessmentLink(ctx context.Context, companyID, id uuid.UUID, upd map[string]any) (*models.AssessmentLink, error) {
	var l models.AssessmentLink
	res := s.db.WithContext(ctx).Model(&l).Clauses(clause.Returning{}).
		Where("company_id = ? AND id = ? AND sent_at IS NULL AND failed_at IS NULL", companyID, id).Updates(upd)
	if res.Error != nil {
		return nil, fmt.Errorf("finish assessment link %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("assessment link %s: %w", id, ErrLinkNotPending)
	}
	return &l, nil
}

// ConversationChannel returns the channel of the candidate's latest message that was not a
// failed attempt, in either direction: the channel the candidate talks to the company in. ok is
// false when the candidate has none.
func (s *Store) ConversationChannel(ctx context.Context, companyID, candidateID uuid.UUID) (models.MessageChannel, bool, error) {
	var chs []models.MessageChannel
	err := s.db.WithContext(ctx).Model(&models.Message{}).
		Where("company_id = ? AND candidate_id = ? AND status <> ?", companyID, candidateID, models.MessageStatusFailed).
		Order("created_at DESC, id DESC").Limit(1).Pluck("channel", &chs).Error
	if err != nil {
		return "", false, fmt.Errorf("find conversation channel: %w", err)
	}
	if len(chs) == 0 {
		return "", false, nil
	}
	return chs[0], true, nil
}

// AssessmentHoldWindow is how long a link pushed for an application recruitd does not manage
// (yet) is held in case the application is ingested; after it the link is discarded.
const AssessmentHoldWindow = 15 * time.Minute

// AssessmentHold is a link held for an application not ingested yet (table
// assessment_link_holds). Nothing shows it: only its workflow reads it.
type AssessmentHold struct {
	ID             uuid.UUID `gorm:"column:id;type:uuid;primaryKey"`
	CompanyID      uuid.UUID `gorm:"column:company_id;type:uuid"`
	ApplicationRef string    `gorm:"column:application_ref"` // the pushed applicationId
	URL            string    `gorm:"column:assessment_url"`
	CandidateRef   string    `gorm:"column:candidate_ref"` // the push's cross-check ids, "" when not given
	JobRef         string    `gorm:"column:job_ref"`
	OrderID        *string   `gorm:"column:order_id"`
	ReceivedAt     time.Time `gorm:"column:received_at"`
	ExpiresAt      time.Time `gorm:"column:expires_at"`
}

// TableName implements gorm's tabler.
func (AssessmentHold) TableName() string { return "assessment_link_holds" }

// HoldAssessmentLink holds a push whose application is not managed (yet), until
// AssessmentHoldWindow after it is received: a new hold under h.ID, or the company's hold of the
// same application id replaced by this push when it was received later (last write wins; an
// older push changes nothing). A replaced hold keeps its id. On return h is the hold as it
// stands: the caller writes its workflow's start (Tx.RenewStart, from h.ID) in the same
// transaction, so a running hold workflow is signalled to look again and a missing one started.
func (t *Tx) HoldAssessmentLink(h *AssessmentHold) error {
	if h.ID == uuid.Nil {
		h.ID = uuid.New()
	}
	h.ExpiresAt = h.ReceivedAt.Add(AssessmentHoldWindow)
	var held AssessmentHold
	err := t.db.Raw(`
INSERT INTO assessment_link_holds AS h (id, company_id, application_ref, assessment_url, candidate_ref, job_ref, order_id, received_at, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (company_id, application_ref) DO UPDATE
    SET assessment_url = EXCLUDED.assessment_url, candidate_ref = EXCLUDED.candidate_ref, job_ref = EXCLUDED.job_ref,
        order_id = EXCLUDED.order_id, received_at = EXCLUDED.received_at, expires_at = EXCLUDED.expires_at
    WHERE EXCLUDED.received_at > h.received_at
RETURNING *`, h.ID, h.CompanyID, h.ApplicationRef, h.URL, h.CandidateRef, h.JobRef, h.OrderID, h.ReceivedAt, h.ExpiresAt).Scan(&held).Error
	if err != nil {
		return fmt.Errorf("hold assessment link: %w", err)
	}
	if held.ID == uuid.Nil {
		// A later push holds the application id already: it stands.
		if err := t.db.First(&held, "company_id = ? AND application_ref = ?", h.CompanyID, h.ApplicationRef).Error; err != nil {
			return fmt.Errorf("load assessment link hold: %w", err)
		}
	}
	*h = held
	return nil
}

// AssessmentHold loads one of the company's holds.
func (s *Store) AssessmentHold(ctx context.Context, companyID, id uuid.UUID) (*AssessmentHold, error) {
	var h AssessmentHold
	if err := s.db.WithContext(ctx).First(&h, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
		return nil, notFound(err, "assessment link hold "+id.String())
	}
	return &h, nil
}

// ExpireAssessmentHold deletes the hold when it has expired at now (a push since may have renewed
// it) and reports whether it did.
func (s *Store) ExpireAssessmentHold(ctx context.Context, companyID, id uuid.UUID, now time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM assessment_link_holds WHERE company_id = ? AND id = ? AND expires_at <= ?`, companyID, id, now)
	if res.Error != nil {
		return false, fmt.Errorf("discard assessment link hold %s: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// DropAssessmentHold deletes the hold as it was read (received at receivedAt), and reports
// whether it did: a push since replaced it otherwise.
func (s *Store) DropAssessmentHold(ctx context.Context, companyID, id uuid.UUID, receivedAt time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM assessment_link_holds WHERE company_id = ? AND id = ? AND received_at = ?`, companyID, id, receivedAt)
	if res.Error != nil {
		return false, fmt.Errorf("discard assessment link hold %s: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// ReleaseAssessmentHold turns the hold, as it was read (received at receivedAt), into the push
// p for the application that appeared, in one transaction: the hold is deleted and the link
// recorded as PushAssessmentLink records it (p.ReceivedAt is the hold's, so last write wins
// against pushes made directly since). ok is false, and nothing changes, when a push replaced the
// hold meanwhile.
func (s *Store) ReleaseAssessmentHold(ctx context.Context, companyID, id uuid.UUID, receivedAt time.Time, p AssessmentPush) (res *PushResult, ok bool, err error) {
	res = &PushResult{}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		del := tx.Exec(`DELETE FROM assessment_link_holds WHERE company_id = ? AND id = ? AND received_at = ?`, companyID, id, receivedAt)
		if del.Error != nil {
			return fmt.Errorf("release assessment link hold %s: %w", id, del.Error)
		}
		if ok = del.RowsAffected == 1; !ok {
			return nil
		}
		return pushAssessmentLink(tx, p, res)
	})
	if err != nil || !ok {
		return nil, false, err
	}
	return res, true, nil
}

// PruneAssessmentHolds deletes holds expired before before: those whose workflow never ran to
// discard them. Platform upkeep across companies, like PruneStarts.
func (s *Store) PruneAssessmentHolds(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM assessment_link_holds WHERE expires_at < ?`, before)
	if res.Error != nil {
		return 0, fmt.Errorf("prune assessment link holds: %w", res.Error)
	}
	return res.RowsAffected, nil
}
