package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/models"
)

// HRSuiteReceipt is what storing a delivery did: the stored delivery, and the start of its
// ingest when it is not a duplicate of an earlier body.
type HRSuiteReceipt struct {
	Delivery *models.HRSuiteDelivery
	Start    *models.WorkflowStart
}

// ErrStorageQuota means a company's stored HR-suite deliveries would go over its quota; the
// error is a *StorageQuotaError.
var ErrStorageQuota = errors.New("hr-suite storage quota exceeded")

// StorageQuotaError says how much of its quota a company uses.
type StorageQuotaError struct {
	Used, Quota int64 // bytes as stored
}

func (e *StorageQuotaError) Error() string {
	return fmt.Sprintf("%s: %d of %d bytes used", ErrStorageQuota, e.Used, e.Quota)
}

func (e *StorageQuotaError) Unwrap() error { return ErrStorageQuota }

// HRSuiteStorageUsed returns the bytes the company's stored deliveries take (bodies as stored).
func (s *Store) HRSuiteStorageUsed(ctx context.Context, companyID uuid.UUID) (int64, error) {
	return hrsuiteStorageUsed(s.db.WithContext(ctx), companyID)
}

func hrsuiteStorageUsed(tx *gorm.DB, companyID uuid.UUID) (int64, error) {
	var used int64
	if err := tx.Raw(`SELECT coalesce(sum(stored_bytes), 0) FROM hrsuite_deliveries WHERE company_id = ?`, companyID).Row().Scan(&used); err != nil {
		return 0, fmt.Errorf("sum hr-suite storage: %w", err)
	}
	return used, nil
}

// StoreHRSuiteDelivery stores a delivery's body as received, gzip-compressed, under d.ID (the
// caller's, which start, its ingest's start, names) in one transaction with start. A body
// identical to an earlier delivery of the company is stored as a duplicate of it, with no body of
// its own and no start: it changes nothing else. Two identical bodies arriving together are told
// apart by the unique index on the hash of first deliveries.
//
// The company's stored bodies, this one included, must stay within quota bytes: over it nothing
// is stored and the error is a *StorageQuotaError. The company's deliveries are stored one at a
// time (a transaction-scoped advisory lock), so two at once cannot both fit in the last space.
func (s *Store) StoreHRSuiteDelivery(ctx context.Context, d *models.HRSuiteDelivery, quota int64, start models.WorkflowStart) (*HRSuiteReceipt, error) {
	if d.ID == uuid.Nil {
		return nil, errors.New("store hr-suite delivery: the delivery has no id")
	}
	sum := sha256.Sum256(d.Body)
	d.BodySHA256 = sum[:]
	if d.ReceivedAt.IsZero() {
		d.ReceivedAt = time.Now().UTC()
	}
	d.BodyBytes = int64(len(d.Body))
	stored, err := compressBody(d.Body)
	if err != nil {
		return nil, err
	}
	d.BodyEncoding = models.BodyEncodingGzip
	rec := &HRSuiteReceipt{Delivery: d}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended('hrsuite-storage:' || ?::text, 0))`, d.CompanyID).Error; err != nil {
			return fmt.Errorf("lock hr-suite storage: %w", err)
		}
		var first []uuid.UUID
		if err := tx.Raw(`SELECT id FROM hrsuite_deliveries WHERE company_id = ? AND body_sha256 = ? AND duplicate_of IS NULL`,
			d.CompanyID, d.BodySHA256).Scan(&first).Error; err != nil {
			return fmt.Errorf("find the first delivery of the body: %w", err)
		}
		if len(first) == 1 {
			// The body is the first delivery's, byte for byte: a reference stores nothing new.
			d.DuplicateOf = &first[0]
			if err := tx.Exec(`INSERT INTO hrsuite_deliveries (id, company_id, received_at, body, body_encoding, body_bytes, body_sha256, row_count, api_key_id, request_id, duplicate_of)
VALUES (?, ?, ?, '', 'identity', ?, ?, ?, ?, ?, ?)`, d.ID, d.CompanyID, d.ReceivedAt, d.BodyBytes, d.BodySHA256, d.RowCount, d.APIKeyID, d.RequestID, first[0]).Error; err != nil {
				return fmt.Errorf("store duplicate hr-suite delivery: %w", err)
			}
			return nil
		}
		used, err := hrsuiteStorageUsed(tx, d.CompanyID)
		if err != nil {
			return err
		}
		if used+int64(len(stored)) > quota {
			return &StorageQuotaError{Used: used, Quota: quota}
		}
		if err := tx.Exec(`INSERT INTO hrsuite_deliveries (id, company_id, received_at, body, body_encoding, body_bytes, body_sha256, row_count, api_key_id, request_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.ID, d.CompanyID, d.ReceivedAt, stored, d.BodyEncoding, d.BodyBytes, d.BodySHA256, d.RowCount, d.APIKeyID, d.RequestID).Error; err != nil {
			return fmt.Errorf("store hr-suite delivery: %w", err)
		}
		rec.Start = &start
		return insertStart(tx, rec.Start)
	})
	if err != nil {
		return nil, err
	}
	d.StoredBytes = int64(len(stored))
	if d.DuplicateOf != nil {
		d.StoredBytes = 0
	}
	return rec, nil
}

// compressBody gzips a delivery body at the fastest level: report rows repeat their column
// names, so even that takes a JSON body to a fraction of its size.
func compressBody(body []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(body)/4 + 64)
	zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		return nil, fmt.Errorf("compress hr-suite delivery: %w", err)
	}
	if _, err := zw.Write(body); err != nil {
		return nil, fmt.Errorf("compress hr-suite delivery: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress hr-suite delivery: %w", err)
	}
	return b.Bytes(), nil
}

// decodeBody returns d's body as received. It reads no more than the BodyBytes recorded.
func decodeBody(d *models.HRSuiteDelivery) ([]byte, error) {
	switch d.BodyEncoding {
	case models.BodyEncodingIdentity, "":
		return d.Body, nil
	case models.BodyEncodingGzip:
		zr, err := gzip.NewReader(bytes.NewReader(d.Body))
		if err != nil {
			return nil, fmt.Errorf("decompress hr-suite delivery %s: %w", d.ID, err)
		}
		out := make([]byte, 0, d.BodyBytes)
		buf := bytes.NewBuffer(out)
		if _, err := io.Copy(buf, io.LimitReader(zr, d.BodyBytes+1)); err != nil {
			return nil, fmt.Errorf("decompress hr-suite delivery %s: %w", d.ID, err)
		}
		if int64(buf.Len()) != d.BodyBytes {
			return nil, fmt.Errorf("decompress hr-suite delivery %s: %d bytes, %d recorded", d.ID, buf.Len(), d.BodyBytes)
		}
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("hr-suite delivery %s: unknown body encoding %q", d.ID, d.BodyEncoding)
}

// HRSuiteDelivery loads one of the company's deliveries, body included and decoded (a
// duplicate's body is empty: it is its first delivery's).
func (s *Store) HRSuiteDelivery(ctx context.Context, companyID, id uuid.UUID) (*models.HRSuiteDelivery, error) {
	var d models.HRSuiteDelivery
	if err := s.db.WithContext(ctx).First(&d, "company_id = ? AND id = ?", companyID, id).Error; err != nil {
		return nil, notFound(err, "hr-suite delivery")
	}
	body, err := decodeBody(&d)
	if err != nil {
		return nil, err
	}
	d.Body = body
	return &d, nil
}

// RecordHRSuiteRows records the outcomes of rows, replacing an earlier processing's.
func (s *Store) RecordHRSuiteRows(ctx context.Context, companyID, deliveryID uuid.UUID, rows []HRSuiteRowOutcome) error {
	return upsertHRSuiteRows(s.db.WithContext(ctx), companyID, deliveryID, rows)
}

// RecordHRSuiteRows records the outcomes of rows in the transaction, replacing an earlier
// processing's.
func (t *Tx) RecordHRSuiteRows(companyID, deliveryID uuid.UUID, rows []HRSuiteRowOutcome) error {
	return upsertHRSuiteRows(t.db, companyID, deliveryID, rows)
}

// HRSuiteRowOutcome is one row's outcome.
type HRSuiteRowOutcome struct {
	Index          int
	ApplicationRef string // "" when the row had none
	Outcome        hrsuitereport.Outcome
	ApplicationID  uuid.UUID // uuid.Nil when none
}

func upsertHRSuiteRows(tx *gorm.DB, companyID, deliveryID uuid.UUID, rows []HRSuiteRowOutcome) error {
	if len(rows) == 0 {
		return nil
	}
	idx, refs, outcomes, apps := make(models.StringArray, len(rows)), make(models.StringArray, len(rows)), make(models.StringArray, len(rows)), make(models.StringArray, len(rows))
	for i, r := range rows {
		idx[i], refs[i], outcomes[i] = strconv.Itoa(r.Index), r.ApplicationRef, string(r.Outcome)
		if r.ApplicationID != uuid.Nil {
			apps[i] = r.ApplicationID.String()
		}
	}
	err := tx.Exec(`
INSERT INTO hrsuite_rows AS r (delivery_id, row_index, company_id, application_ref, outcome, application_id, processed_at)
SELECT ?, t.idx::integer, ?, nullif(t.ref, ''), t.outcome, nullif(t.app, '')::uuid, now()
FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS t(idx, ref, outcome, app)
ON CONFLICT (delivery_id, row_index) DO UPDATE
    SET application_ref = EXCLUDED.application_ref, outcome = EXCLUDED.outcome,
        application_id = EXCLUDED.application_id, processed_at = EXCLUDED.processed_at`,
		deliveryID, companyID, idx, refs, outcomes, apps).Error
	if err != nil {
		return fmt.Errorf("record hr-suite row outcomes: %w", err)
	}
	return nil
}

// HRSuiteRecord is the record of an HR-suite application (hrsuite_applications): the delivery
// that wrote it, the outcome it wrote and the application it created (nil when none).
type HRSuiteRecord struct {
	DeliveryID    uuid.UUID
	Outcome       hrsuitereport.Outcome
	ApplicationID *uuid.UUID
}

// LockHRSuiteRecords reads the company's records of the applications refs (Job Posting
// Application Ids) and locks them until the transaction ends, so that a concurrent delivery
// waits for this one. It returns them by ref.
func (t *Tx) LockHRSuiteRecords(companyID uuid.UUID, refs []string) (map[string]HRSuiteRecord, error) {
	var recs []struct {
		Ref           string     `gorm:"column:application_ref"`
		DeliveryID    uuid.UUID  `gorm:"column:delivery_id"`
		Outcome       string     `gorm:"column:outcome"`
		ApplicationID *uuid.UUID `gorm:"column:application_id"`
	}
	if err := t.db.Raw(`SELECT application_ref, delivery_id, outcome, application_id FROM hrsuite_applications
WHERE company_id = ? AND application_ref = ANY (?::text[]) ORDER BY application_ref FOR UPDATE`, companyID, models.StringArray(refs)).Scan(&recs).Error; err != nil {
		return nil, fmt.Errorf("read hr-suite application records: %w", err)
	}
	out := make(map[string]HRSuiteRecord, len(recs))
	for _, r := range recs {
		out[r.Ref] = HRSuiteRecord{DeliveryID: r.DeliveryID, Outcome: hrsuitereport.Outcome(r.Outcome), ApplicationID: r.ApplicationID}
	}
	return out, nil
}

// HRSuiteJob is a company job imported through the aggregator.
type HRSuiteJob struct {
	ID            uuid.UUID `gorm:"column:id"`
	ExternalID    string    `gorm:"column:external_id"`
	InterviewerID string    `gorm:"column:interviewer_id"`
}

// HRSuiteJobs lists the company's jobs with these external ids that were imported through the
// aggregator (an aggregator record) and are not deleted; a job created through createJob with
// the same id is not one of them.
func (t *Tx) HRSuiteJobs(companyID uuid.UUID, externalIDs []string) ([]HRSuiteJob, error) {
	var jobs []HRSuiteJob
	if err := t.db.Raw(`SELECT j.id, j.external_id, j.interviewer_id FROM jobs j
WHERE j.company_id = ? AND j.external_id = ANY (?::text[]) AND NOT j.is_deleted
  AND EXISTS (SELECT 1 FROM aggregator_jobs a WHERE a.company_id = j.company_id AND a.job_id = j.id)`,
		companyID, models.StringArray(externalIDs)).Scan(&jobs).Error; err != nil {
		return nil, fmt.Errorf("read imported jobs: %w", err)
	}
	return jobs, nil
}

// HRSuiteClaim is the record a delivery writes for an application: its ref and outcome.
type HRSuiteClaim struct {
	Ref     string
	Outcome hrsuitereport.Outcome
}

// ClaimHRSuiteApplications writes the delivery's records of claims: new records, or in place of
// records whose outcome is replaceable. It returns the refs it wrote; a ref left out was recorded
// meanwhile by another delivery (which committed while this one waited). Records are written in
// one order, so two transactions claiming overlapping refs wait for each other instead of
// deadlocking.
func (t *Tx) ClaimHRSuiteApplications(companyID, deliveryID uuid.UUID, claims []HRSuiteClaim, replaceable hrsuitereport.Outcome) (map[string]bool, error) {
	if len(claims) == 0 {
		return map[string]bool{}, nil
	}
	refs, outcomes := make(models.StringArray, len(claims)), make(models.StringArray, len(claims))
	for i, c := range claims {
		refs[i], outcomes[i] = c.Ref, string(c.Outcome)
	}
	sortTogether(refs, outcomes)
	var claimed []string
	if err := t.db.Raw(`
INSERT INTO hrsuite_applications AS h (company_id, application_ref, delivery_id, outcome)
SELECT ?, t.ref, ?, t.outcome FROM unnest(?::text[], ?::text[]) AS t(ref, outcome)
ON CONFLICT (company_id, application_ref) DO UPDATE
    SET delivery_id = EXCLUDED.delivery_id, outcome = EXCLUDED.outcome, updated_at = now()
    WHERE h.outcome = ?
RETURNING application_ref`, companyID, deliveryID, refs, outcomes, string(replaceable)).Scan(&claimed).Error; err != nil {
		return nil, fmt.Errorf("record hr-suite applications: %w", err)
	}
	out := make(map[string]bool, len(claimed))
	for _, r := range claimed {
		out[r] = true
	}
	return out, nil
}

// HRSuiteCandidate is a candidate of a delivery, by Candidate Id, with the contact details to
// store ("" keeps the stored value).
type HRSuiteCandidate struct {
	Ref                               string
	FirstName, LastName, Email, Phone string
}

// HRSuiteApplication is an application of a delivery to create: its ref (Job Posting
// Application Id), its candidate's ref and its job.
type HRSuiteApplication struct {
	Ref, CandidateRef string
	JobID             uuid.UUID
}

// HRSuiteApplicationIDs is an application of a delivery as stored.
type HRSuiteApplicationIDs struct {
	Ref                    string
	ID, CandidateID, JobID uuid.UUID
}

// CreateHRSuiteApplications upserts the candidates (store.upsertCandidates' rules) with the
// contacts the HR suite gave, creates the applications (one stored before is kept), links them
// to their records (ClaimHRSuiteApplications) and returns them. Every application's candidate is
// among cands.
func (t *Tx) CreateHRSuiteApplications(companyID uuid.UUID, cands []HRSuiteCandidate, apps []HRSuiteApplication) ([]HRSuiteApplicationIDs, error) {
	if len(apps) == 0 {
		return nil, nil
	}
	tx := t.db
	var cext, first, last, email, phone models.StringArray
	for _, c := range cands {
		cext, first, last, email, phone = append(cext, c.Ref), append(first, c.FirstName), append(last, c.LastName), append(email, c.Email), append(phone, c.Phone)
	}
	sortTogether(cext, first, last, email, phone) // upserted in one order, as the records are claimed
	candByRef, err := upsertCandidates(tx, companyID, cext, first, last, email, phone)
	if err != nil {
		return nil, fmt.Errorf("upsert hr-suite candidates: %w", err)
	}
	ids := make([]uuid.UUID, len(cext))
	for i, e := range cext {
		ids[i] = candByRef[e]
	}
	if err := recordContactSources(tx, companyID, string(models.ApplicationSourceHRSuiteWebhook), ids, email, phone); err != nil {
		return nil, err
	}
	var aext, acand, ajob models.StringArray
	for _, a := range apps {
		aext = append(aext, a.Ref)
		acand = append(acand, candByRef[a.CandidateRef].String())
		ajob = append(ajob, a.JobID.String())
	}
	if err := tx.Exec(`
INSERT INTO applications (company_id, candidate_id, job_id, external_id, source)
SELECT ?, t.cand::uuid, t.job::uuid, t.ext, ? FROM unnest(?::text[], ?::text[], ?::text[]) AS t(ext, cand, job)
ON CONFLICT (company_id, external_id, source) WHERE external_id IS NOT NULL DO NOTHING`,
		companyID, models.ApplicationSourceHRSuiteWebhook, aext, acand, ajob).Error; err != nil {
		return nil, fmt.Errorf("create hr-suite applications: %w", err)
	}
	var out []struct {
		ID          uuid.UUID `gorm:"column:id"`
		ExternalID  string    `gorm:"column:external_id"`
		CandidateID uuid.UUID `gorm:"column:candidate_id"`
		JobID       uuid.UUID `gorm:"column:job_id"`
	}
	if err := tx.Raw(`
UPDATE hrsuite_applications h SET application_id = a.id
FROM applications a
WHERE h.company_id = ? AND h.application_ref = ANY (?::text[])
  AND a.company_id = h.company_id AND a.source = ? AND a.external_id = h.application_ref
RETURNING a.id, a.external_id, a.candidate_id, a.job_id`, companyID, aext, models.ApplicationSourceHRSuiteWebhook).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("link hr-suite applications: %w", err)
	}
	res := make([]HRSuiteApplicationIDs, len(out))
	for i, a := range out {
		res[i] = HRSuiteApplicationIDs{Ref: a.ExternalID, ID: a.ID, CandidateID: a.CandidateID, JobID: a.JobID}
	}
	return res, nil
}

// FinishHRSuiteDelivery counts the delivery's row outcomes and records them with the time of
// this processing, in one statement. When every row has an outcome and none is one of pending
// (the outcomes a replay may still change) it records since when, once: the retention
// (PruneHRSuiteDeliveries) runs from there, and a replay does not renew it.
func (s *Store) FinishHRSuiteDelivery(ctx context.Context, companyID, deliveryID uuid.UUID, pending []hrsuitereport.Outcome) (map[string]int, error) {
	notFinal := make(models.StringArray, len(pending))
	for i, o := range pending {
		notFinal[i] = string(o)
	}
	var counts models.JSON[map[string]int]
	err := s.db.WithContext(ctx).Raw(`
WITH x AS (
    SELECT outcome, count(*) AS n FROM hrsuite_rows WHERE delivery_id = ? GROUP BY outcome
)
UPDATE hrsuite_deliveries SET processed_at = now(),
    counts = (SELECT coalesce(jsonb_object_agg(outcome, n), '{}') FROM x),
    final_at = CASE
        WHEN (SELECT coalesce(sum(n), 0) FROM x) = row_count
         AND NOT EXISTS (SELECT 1 FROM x WHERE outcome = ANY (?::text[]))
        THEN coalesce(final_at, now()) END
WHERE company_id = ? AND id = ?
RETURNING counts`, deliveryID, notFinal, companyID, deliveryID).Row().Scan(&counts)
	if err != nil {
		return nil, fmt.Errorf("record hr-suite delivery counts: %w", err)
	}
	return counts.V, nil
}

// PruneHRSuiteDeliveries deletes up to limit deliveries (with their row outcomes and duplicates)
// whose rows have all had final outcomes since before before, except those a replay has yet to
// reprocess, and returns how many it deleted. The dedupe records they made stay. Platform upkeep
// across companies, like PruneStarts.
func (s *Store) PruneHRSuiteDeliveries(ctx context.Context, before time.Time, limit int) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM hrsuite_deliveries WHERE id IN (
    SELECT d.id FROM hrsuite_deliveries d WHERE d.final_at < ?
      AND NOT EXISTS (SELECT 1 FROM hrsuite_replay_deliveries rd WHERE rd.delivery_id = d.id AND rd.done_at IS NULL)
    ORDER BY d.final_at LIMIT ?)`, before, limit)
	if res.Error != nil {
		return 0, fmt.Errorf("prune hr-suite deliveries: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// sortTogether sorts keys and reorders each of vals alike.
func sortTogether(keys models.StringArray, vals ...models.StringArray) {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	for _, col := range append([]models.StringArray{keys}, vals...) {
		old := slices.Clone(col)
		for i, j := range idx {
			col[i] = old[j]
		}
	}
}
