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

// RecordHRSuiteRows records the outcome of rows that belong to no application processed (invalid
// rows), replacing an earlier processing's.
func (s *Store) RecordHRSuiteRows(ctx context.Context, companyID, deliveryID uuid.UUID, rows []HRSuiteRowOutcome) error {
	return upsertHRSuiteRows(s.db.WithContext(ctx), companyID, deliveryID, rows)
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

// HRSuiteChunk is a part of a delivery's applications to process in one transaction.
type HRSuiteChunk struct {
	Company    *models.Company
	DeliveryID uuid.UUID
	// TriggerEnabled: the company has saved an enabled 'New Applications via Webhook'
	// definition (EnabledTrigger); otherwise applications are recorded no_trigger.
	TriggerEnabled bool
	Applications   []hrsuitereport.Application
}

// HRSuiteChunkResult is what a chunk did: each application's outcome (by Job Posting
// Application Id) and the applications it accepted, whose workflow starts the caller writes in
// the same transaction.
type HRSuiteChunkResult struct {
	Outcomes map[string]hrsuitereport.Outcome
	Accepted []HRSuiteAccepted
}

// HRSuiteAccepted is an application a chunk accepted, with the rows its workflow works on.
type HRSuiteAccepted struct {
	JobID, CandidateID, ApplicationID uuid.UUID
	InterviewerID                     string // the job's
}

// hrsuiteJob is a company job a chunk's applications name by Job Req Id.
type hrsuiteJob struct {
	ID            uuid.UUID `gorm:"column:id"`
	ExternalID    string    `gorm:"column:external_id"`
	InterviewerID string    `gorm:"column:interviewer_id"`
}

type hrsuiteRecord struct {
	ref           string
	deliveryID    uuid.UUID
	outcome       string
	applicationID *uuid.UUID
}

// IngestHRSuiteChunk applies a chunk of a delivery's applications in the transaction, with a
// fixed number of statements whatever its size:
//
//   - an application recorded accepted or do_not_hire by another delivery is a duplicate and
//     changes nothing; one recorded by this delivery keeps its outcome (a retried or replayed
//     chunk gives the same result and invites nobody twice);
//   - do-not-hire applications are recorded and create nothing;
//   - applications whose Job Req Id is not one of the company's jobs imported from the HR
//     suite (through the aggregator, not deleted) are unknown_job and not recorded, so a replay
//     after the job is imported picks them up;
//   - the rest create or update their candidate (by Candidate Id) and application (by Job
//     Posting Application Id), and are recorded accepted (listed in Accepted: the caller writes
//     the start of their workflow before the commit), or no_trigger when the company has no
//     saved, enabled workflow for the trigger.
//
// Recording claims an application: of two deliveries processing the same id at once, the one
// whose record lands first accepts it, the other sees a duplicate. Every row's outcome is
// written in the same transaction.
func (t *Tx) IngestHRSuiteChunk(c HRSuiteChunk) (*HRSuiteChunkResult, error) {
	res := &HRSuiteChunkResult{Outcomes: make(map[string]hrsuitereport.Outcome, len(c.Applications))}
	if len(c.Applications) == 0 {
		return res, nil
	}
	companyID := c.Company.ID
	refs := make(models.StringArray, 0, len(c.Applications))
	jobRefs := make(models.StringArray, 0, len(c.Applications))
	for _, a := range c.Applications {
		refs = append(refs, a.ExternalID)
		jobRefs = append(jobRefs, a.JobReqID)
	}
	err := func(tx *gorm.DB) error {
		// Records of earlier processing, locked so that a concurrent delivery waits for this one.
		var recs []struct {
			Ref           string     `gorm:"column:application_ref"`
			DeliveryID    uuid.UUID  `gorm:"column:delivery_id"`
			Outcome       string     `gorm:"column:outcome"`
			ApplicationID *uuid.UUID `gorm:"column:application_id"`
		}
		if err := tx.Raw(`SELECT application_ref, delivery_id, outcome, application_id FROM hrsuite_applications
WHERE company_id = ? AND application_ref = ANY (?::text[]) ORDER BY application_ref FOR UPDATE`, companyID, refs).Scan(&recs).Error; err != nil {
			return fmt.Errorf("read hr-suite application records: %w", err)
		}
		known := make(map[string]hrsuiteRecord, len(recs))
		for _, r := range recs {
			known[r.Ref] = hrsuiteRecord{ref: r.Ref, deliveryID: r.DeliveryID, outcome: r.Outcome, applicationID: r.ApplicationID}
		}
		// Only the jobs imported from the HR suite (an aggregator record), not deleted: a job
		// created through createJob with the same id is another job that happens to share it.
		var jobs []hrsuiteJob
		if err := tx.Raw(`SELECT j.id, j.external_id, j.interviewer_id FROM jobs j
WHERE j.company_id = ? AND j.external_id = ANY (?::text[]) AND NOT j.is_deleted
  AND EXISTS (SELECT 1 FROM aggregator_jobs a WHERE a.company_id = j.company_id AND a.job_id = j.id)`,
			companyID, jobRefs).Scan(&jobs).Error; err != nil {
			return fmt.Errorf("match hr-suite applications to jobs: %w", err)
		}
		jobByRef := make(map[string]int, len(jobs))
		for i, j := range jobs {
			jobByRef[j.ExternalID] = i
		}

		appIDs := make(map[string]uuid.UUID, len(c.Applications))
		var claimRefs, claimOutcomes models.StringArray
		var create []int // indexes into c.Applications of applications that create rows
		for i, a := range c.Applications {
			if r, ok := known[a.ExternalID]; ok && r.outcome != string(hrsuitereport.NoTrigger) {
				if r.applicationID != nil {
					appIDs[a.ExternalID] = *r.applicationID
				}
				if r.deliveryID == c.DeliveryID {
					res.Outcomes[a.ExternalID] = hrsuitereport.Outcome(r.outcome)
				} else {
					res.Outcomes[a.ExternalID] = hrsuitereport.Duplicate
				}
				continue
			}
			switch _, hasJob := jobByRef[a.JobReqID]; {
			case a.DoNotHire:
				res.Outcomes[a.ExternalID] = hrsuitereport.DoNotHire
			case !hasJob:
				res.Outcomes[a.ExternalID] = hrsuitereport.UnknownJob
				continue
			case c.TriggerEnabled:
				res.Outcomes[a.ExternalID] = hrsuitereport.Accepted
				create = append(create, i)
			default:
				res.Outcomes[a.ExternalID] = hrsuitereport.NoTrigger
				create = append(create, i)
			}
			claimRefs = append(claimRefs, a.ExternalID)
			claimOutcomes = append(claimOutcomes, string(res.Outcomes[a.ExternalID]))
		}
		if len(claimRefs) > 0 {
			// Claimed in one order, so two chunks claiming overlapping ids wait for each other
			// instead of deadlocking.
			sortTogether(claimRefs, claimOutcomes)
			var claimed []string
			if err := tx.Raw(`
INSERT INTO hrsuite_applications AS h (company_id, application_ref, delivery_id, outcome)
SELECT ?, t.ref, ?, t.outcome FROM unnest(?::text[], ?::text[]) AS t(ref, outcome)
ON CONFLICT (company_id, application_ref) DO UPDATE
    SET delivery_id = EXCLUDED.delivery_id, outcome = EXCLUDED.outcome, updated_at = now()
    WHERE h.outcome = 'no_trigger'
RETURNING application_ref`, companyID, c.DeliveryID, claimRefs, claimOutcomes).Scan(&claimed).Error; err != nil {
				return fmt.Errorf("record hr-suite applications: %w", err)
			}
			if len(claimed) < len(claimRefs) {
				// Another delivery recorded some of them first (it committed while this one
				// waited): they are its, not this delivery's.
				won := make(map[string]bool, len(claimed))
				for _, r := range claimed {
					won[r] = true
				}
				kept := create[:0]
				for _, i := range create {
					if won[c.Applications[i].ExternalID] {
						kept = append(kept, i)
					}
				}
				create = kept
				for _, r := range claimRefs {
					if !won[r] {
						res.Outcomes[r] = hrsuitereport.Duplicate
					}
				}
			}
		}
		if len(create) > 0 {
			if err := createHRSuiteApplications(tx, c, create, jobs, jobByRef, appIDs, res); err != nil {
				return err
			}
		}
		var rows []HRSuiteRowOutcome
		for _, a := range c.Applications {
			for _, idx := range a.Rows {
				rows = append(rows, HRSuiteRowOutcome{Index: idx, ApplicationRef: a.ExternalID, Outcome: res.Outcomes[a.ExternalID], ApplicationID: appIDs[a.ExternalID]})
			}
		}
		return upsertHRSuiteRows(tx, companyID, c.DeliveryID, rows)
	}(t.db)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// createHRSuiteApplications upserts the candidates and applications of the chunk's applications
// at create, links them to their records and lists the accepted ones.
func createHRSuiteApplications(tx *gorm.DB, c HRSuiteChunk, create []int, jobs []hrsuiteJob, jobByRef map[string]int,
	appIDs map[string]uuid.UUID, res *HRSuiteChunkResult) error {
	companyID := c.Company.ID
	// One candidate per Candidate Id: the chunk's latest application of a candidate gives the
	// contact details (ON CONFLICT may touch a row once per statement).
	candIdx := map[string]int{}
	var cext, first, last, email, phone models.StringArray
	for _, i := range create {
		a := c.Applications[i]
		k, ok := candIdx[a.CandidateID]
		if !ok {
			k = len(cext)
			candIdx[a.CandidateID] = k
			cext, first, last, email, phone = append(cext, a.CandidateID), append(first, ""), append(last, ""), append(email, ""), append(phone, "")
		}
		if a.FirstName != "" || a.LastName != "" {
			first[k], last[k] = a.FirstName, a.LastName
		}
		if a.Email != "" {
			email[k] = a.Email
		}
		if a.Phone != "" {
			phone[k] = a.Phone
		}
	}
	sortTogether(cext, first, last, email, phone) // upserted in one order, as the records are claimed
	candByRef, err := upsertCandidates(tx, companyID, cext, first, last, email, phone)
	if err != nil {
		return fmt.Errorf("upsert hr-suite candidates: %w", err)
	}
	ids := make([]uuid.UUID, len(cext))
	for i, e := range cext {
		ids[i] = candByRef[e]
	}
	if err := recordContactSources(tx, companyID, string(models.ApplicationSourceHRSuiteWebhook), ids, email, phone); err != nil {
		return err
	}
	var aext, acand, ajob models.StringArray
	for _, i := range create {
		a := c.Applications[i]
		aext = append(aext, a.ExternalID)
		acand = append(acand, candByRef[a.CandidateID].String())
		ajob = append(ajob, jobs[jobByRef[a.JobReqID]].ID.String())
	}
	if err := tx.Exec(`
INSERT INTO applications (company_id, candidate_id, job_id, external_id, source)
SELECT ?, t.cand::uuid, t.job::uuid, t.ext, ? FROM unnest(?::text[], ?::text[], ?::text[]) AS t(ext, cand, job)
ON CONFLICT (company_id, external_id, source) WHERE external_id IS NOT NULL DO NOTHING`,
		companyID, models.ApplicationSourceHRSuiteWebhook, aext, acand, ajob).Error; err != nil {
		return fmt.Errorf("create hr-suite applications: %w", err)
	}
	var apps []struct {
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
RETURNING a.id, a.external_id, a.candidate_id, a.job_id`, companyID, aext, models.ApplicationSourceHRSuiteWebhook).Scan(&apps).Error; err != nil {
		return fmt.Errorf("link hr-suite applications: %w", err)
	}
	interviewer := make(map[uuid.UUID]string, len(jobs))
	for _, j := range jobs {
		interviewer[j.ID] = j.InterviewerID
	}
	for _, a := range apps {
		appIDs[a.ExternalID] = a.ID
		if res.Outcomes[a.ExternalID] == hrsuitereport.Accepted {
			res.Accepted = append(res.Accepted, HRSuiteAccepted{JobID: a.JobID, CandidateID: a.CandidateID, ApplicationID: a.ID, InterviewerID: interviewer[a.JobID]})
		}
	}
	return nil
}

// FinishHRSuiteDelivery counts the delivery's row outcomes and records them with the time of
// this processing, in one statement. When every row has a final outcome (an outcome for each
// row, none unknown_job or no_trigger, which a replay may still change) it records since when,
// once: the retention (PruneHRSuiteDeliveries) runs from there, and a replay does not renew it.
func (s *Store) FinishHRSuiteDelivery(ctx context.Context, companyID, deliveryID uuid.UUID) (map[string]int, error) {
	var counts models.JSON[map[string]int]
	err := s.db.WithContext(ctx).Raw(`
WITH x AS (
    SELECT outcome, count(*) AS n FROM hrsuite_rows WHERE delivery_id = ? GROUP BY outcome
)
UPDATE hrsuite_deliveries SET processed_at = now(),
    counts = (SELECT coalesce(jsonb_object_agg(outcome, n), '{}') FROM x),
    final_at = CASE
        WHEN (SELECT coalesce(sum(n), 0) FROM x) = row_count
         AND NOT EXISTS (SELECT 1 FROM x WHERE outcome IN ('unknown_job', 'no_trigger'))
        THEN coalesce(final_at, now()) END
WHERE company_id = ? AND id = ?
RETURNING counts`, deliveryID, companyID, deliveryID).Row().Scan(&counts)
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
