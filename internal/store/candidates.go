package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// CandidateInput identifies a candidate by contact; Email and Phone (E.164) may each be empty.
type CandidateInput struct {
	FirstName, LastName string
	Email, Phone        string
	ExternalID          string
}

// Candidate loads a company's candidate.
func (s *Store) Candidate(ctx context.Context, companyID, candidateID uuid.UUID) (*models.Candidate, error) {
	var c models.Candidate
	if err := s.db.WithContext(ctx).First(&c, "company_id = ? AND id = ?", companyID, candidateID).Error; err != nil {
		return nil, notFound(err, "candidate "+candidateID.String())
	}
	return &c, nil
}

// SetCandidateStatus sets a candidate's free-text status.
func (s *Store) SetCandidateStatus(ctx context.Context, companyID, id uuid.UUID, status string) error {
	return s.setStatus(ctx, &models.Candidate{}, companyID, id, status)
}

// findOrCreateCandidate finds the company's candidate by e-mail (case-insensitive) or phone and
// fills in a contact it lacks, or creates one, and records the contact source gave
// (recordContactSources). Concurrent calls for the same contact are serialised by an advisory
// lock held until the transaction ends, so they share one candidate.
func findOrCreateCandidate(tx *gorm.DB, companyID uuid.UUID, in CandidateInput, source string) (*models.Candidate, bool, error) {
	c, created, err := findOrCreateCandidateRow(tx, companyID, in)
	if err != nil {
		return nil, false, err
	}
	if err := recordContactSources(tx, companyID, source, []uuid.UUID{c.ID}, []string{in.Email}, []string{in.Phone}); err != nil {
		return nil, false, err
	}
	return c, created, nil
}

func findOrCreateCandidateRow(tx *gorm.DB, companyID uuid.UUID, in CandidateInput) (*models.Candidate, bool, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	lockKey := companyID.String() + "|" + email + "|" + in.Phone
	if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", lockKey).Error; err != nil {
		return nil, false, fmt.Errorf("lock candidate: %w", err)
	}
	q := tx.Where("company_id = ?", companyID)
	switch {
	case email != "" && in.Phone != "":
		q = q.Where("(lower(email) = ? OR phone = ?)", email, in.Phone)
	case email != "":
		q = q.Where("lower(email) = ?", email)
	case in.Phone != "":
		q = q.Where("phone = ?", in.Phone)
	default:
		q = nil
	}
	if q != nil {
		var found []models.Candidate
		if err := q.Order("created_at").Limit(1).Find(&found).Error; err != nil {
			return nil, false, fmt.Errorf("find candidate: %w", err)
		}
		if len(found) == 1 {
			c := found[0]
			return &c, false, fillContact(tx, &c, email, in.Phone)
		}
	}
	c := models.Candidate{CompanyID: companyID, FirstName: in.FirstName, LastName: in.LastName, Status: "interviewing"}
	if email != "" {
		c.Email = &email
	}
	if in.Phone != "" {
		c.Phone = &in.Phone
	}
	if in.ExternalID != "" {
		c.ExternalID = &in.ExternalID
	}
	if err := tx.Create(&c).Error; err != nil {
		return nil, false, fmt.Errorf("create candidate: %w", err)
	}
	return &c, true, nil
}

// fillContact adds a contact the stored candidate lacks; it never overwrites one.
func fillContact(tx *gorm.DB, c *models.Candidate, email, phone string) error {
	updates := map[string]any{}
	if c.Email == nil && email != "" {
		c.Email = &email
		updates["email"] = email
	}
	if c.Phone == nil && phone != "" {
		c.Phone = &phone
		updates["phone"] = phone
	}
	if len(updates) == 0 {
		return nil
	}
	if err := tx.Model(c).Where("company_id = ?", c.CompanyID).Updates(updates).Error; err != nil {
		return fmt.Errorf("update candidate contact: %w", err)
	}
	return nil
}

// Source names of candidate_contact_sources besides the application sources
// (models.ApplicationSource: partner, hrsuite_webhook, ats, manual, assessment).
const SourceInvitation = "invitation"

// recordContactSources keeps, per candidate, the e-mail and phone the source gave this time
// (candidate_contact_sources, the latest per source; migration 00040), so the fraud check can
// compare the stored contact with what each source said. ids, emails and phones are parallel;
// a row without either contact, or with a value the table does not bound, records nothing of it.
func recordContactSources(tx *gorm.DB, companyID uuid.UUID, source string, ids []uuid.UUID, emails, phones []string) error {
	var cid, em, ph models.StringArray
	for i, id := range ids {
		e, p := strings.TrimSpace(emails[i]), strings.TrimSpace(phones[i])
		if len(e) > 320 {
			e = ""
		}
		if len(p) > 40 {
			p = ""
		}
		if id == uuid.Nil || (e == "" && p == "") {
			continue
		}
		cid, em, ph = append(cid, id.String()), append(em, e), append(ph, p)
	}
	if len(cid) == 0 {
		return nil
	}
	err := tx.Exec(`
INSERT INTO candidate_contact_sources AS s (company_id, candidate_id, source, email, phone)
SELECT DISTINCT ON (t.cid) ?, t.cid::uuid, ?, nullif(t.email, ''), nullif(t.phone, '')
FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS t(cid, email, phone, n)
ORDER BY t.cid, t.n DESC
ON CONFLICT (company_id, candidate_id, source) DO UPDATE SET email = EXCLUDED.email, phone = EXCLUDED.phone, seen_at = now()
    WHERE (s.email, s.phone) IS DISTINCT FROM (EXCLUDED.email, EXCLUDED.phone)`, companyID, source, cid, em, ph).Error
	if err != nil {
		return fmt.Errorf("record the contacts %s gave: %w", source, err)
	}
	return nil
}

// SourceContact is the contact one source gave for a candidate (candidate_contact_sources).
type SourceContact struct {
	Source       string
	Email, Phone string
}

// ContactSources lists the contacts each source gave for the company's candidate, by source.
func (s *Store) ContactSources(ctx context.Context, companyID, candidateID uuid.UUID) ([]SourceContact, error) {
	var rows []struct {
		Source       string
		Email, Phone *string
	}
	if err := s.db.WithContext(ctx).Raw(`SELECT source, email, phone FROM candidate_contact_sources
		WHERE company_id = ? AND candidate_id = ? ORDER BY source`, companyID, candidateID).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("load the contact sources of candidate %s: %w", candidateID, err)
	}
	out := make([]SourceContact, len(rows))
	for i, r := range rows {
		out[i].Source = r.Source
		if r.Email != nil {
			out[i].Email = *r.Email
		}
		if r.Phone != nil {
			out[i].Phone = *r.Phone
		}
	}
	return out, nil
}

// upsertCandidates writes candidates by (company, external id) in one statement, the columns side
// by side (ext sorted, so concurrent upserts lock rows in one order): a name replaces the stored
// one only when given (first or last), an e-mail or phone only when given, and an unchanged row is
// not written. It returns every candidate's id by external id: those the upsert wrote, and the
// unchanged ones from the statement's snapshot.
func upsertCandidates(tx *gorm.DB, companyID uuid.UUID, ext, first, last, email, phone models.StringArray) (map[string]uuid.UUID, error) {
	rows, err := tx.Raw(`
WITH up AS (
    INSERT INTO candidates AS c (company_id, external_id, first_name, last_name, email, phone)
    SELECT ?, t.ext, t.first, t.last, nullif(t.email, ''), nullif(t.phone, '')
    FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS t(ext, first, last, email, phone)
    ON CONFLICT (company_id, external_id) WHERE external_id IS NOT NULL DO UPDATE
        SET first_name = CASE WHEN EXCLUDED.first_name <> '' OR EXCLUDED.last_name <> '' THEN EXCLUDED.first_name ELSE c.first_name END,
            last_name  = CASE WHEN EXCLUDED.first_name <> '' OR EXCLUDED.last_name <> '' THEN EXCLUDED.last_name ELSE c.last_name END,
            email = coalesce(EXCLUDED.email, c.email),
            phone = coalesce(EXCLUDED.phone, c.phone)
        WHERE (c.first_name, c.last_name, c.email, c.phone) IS DISTINCT FROM
              (CASE WHEN EXCLUDED.first_name <> '' OR EXCLUDED.last_name <> '' THEN EXCLUDED.first_name ELSE c.first_name END,
               CASE WHEN EXCLUDED.first_name <> '' OR EXCLUDED.last_name <> '' THEN EXCLUDED.last_name ELSE c.last_name END,
               coalesce(EXCLUDED.email, c.email), coalesce(EXCLUDED.phone, c.phone))
    RETURNING c.external_id, c.id
)
SELECT external_id, id FROM up
UNION ALL
SELECT c.external_id, c.id FROM candidates c
WHERE c.company_id = ? AND c.external_id = ANY (?::text[]) AND NOT EXISTS (SELECT 1 FROM up WHERE up.external_id = c.external_id)`,
		companyID, ext, first, last, email, phone, companyID, ext).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]uuid.UUID, len(ext))
	for rows.Next() {
		var e string
		var id uuid.UUID
		if err := rows.Scan(&e, &id); err != nil {
			return nil, fmt.Errorf("read candidate: %w", err)
		}
		out[e] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	return out, nil
}
