package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// Upstream statuses of a synced application (aggregator_applications.upstream_status): what the
// ATS last said of the application's fate. The service application's status takes the value
// when it changes, so a status a customer flow set meanwhile stays until the ATS decides.
const (
	UpstreamInProcess = ""         // in process at the ATS
	UpstreamHired     = "hired"    // the ATS reports it hired
	UpstreamDeclined  = "declined" // rejected or withdrawn
	UpstreamClosed    = "closed"   // deleted at the ATS (or gone without a trace: a full pass)
)

// SyncedApplication is one ATS application of a sync page, with its candidate. RemoteID is the
// aggregator's id, ExternalID the ATS's (applications.external_id); JobRemoteID the
// aggregator's id of its job (aggregator_jobs.remote_id). The candidate is found or created by
// CandidateExternalID (candidates.external_id); empty names and contacts keep the stored ones.
type SyncedApplication struct {
	RemoteID, ExternalID, JobRemoteID      string
	Outcome, Stage                         string
	UpstreamStatus                         string
	CandidateRemoteID, CandidateExternalID string
	FirstName, LastName, Email, Phone      string
	RemoteCreatedAt, RemoteDeletedAt       *time.Time
	ChangedAt                              time.Time
}

// SyncCounts counts what a sync did to service applications: created, updated (the ATS record
// changed), closed (deleted at the ATS), and skipped (its job is not imported, yet). Re-reading
// an unchanged record counts nothing.
type SyncCounts struct {
	Created, Updated, Closed, Skipped int
}

// CreatedApplication is an application a sync page created, with what its 'New Application
// from ATS' start names.
type CreatedApplication struct {
	ApplicationID, CandidateID, JobID uuid.UUID
	ExternalID, InterviewerID         string
}

type syncedJob struct {
	id            uuid.UUID
	interviewerID string
}

type syncedExisting struct {
	id       uuid.UUID
	status   string
	upstream string
	changed  *time.Time
	recorded bool
}

// SyncApplications writes a page of ATS applications within the transaction, seen at seen (the
// pass's start, which a full pass compares with): their candidates by external id (created,
// or names and contacts updated), the service applications (source ats, external id = the
// ATS's), created for jobs the import brought in and not deleted at the ATS, and the
// aggregator's records. An existing application follows its record's job and candidate, and
// takes UpstreamStatus as its status when that differs from the recorded one. Applications
// must have distinct ExternalIDs and RemoteIDs. It returns the counts and the applications it
// created (their starts are the caller's).
func (t *Tx) SyncApplications(co *models.Company, apps []SyncedApplication, seen time.Time) (SyncCounts, []CreatedApplication, error) {
	var counts SyncCounts
	if len(apps) == 0 {
		return counts, nil, nil
	}
	tx, companyID := t.db, co.ID
	jobRefs, exts := make([]string, len(apps)), make([]string, len(apps))
	for i, a := range apps {
		jobRefs[i], exts[i] = a.JobRemoteID, a.ExternalID
	}
	jobs := map[string]syncedJob{}
	rows, err := tx.Raw(`SELECT a.remote_id, j.id, j.interviewer_id FROM aggregator_jobs a
JOIN jobs j ON j.company_id = a.company_id AND j.id = a.job_id
WHERE a.company_id = ? AND a.remote_id = ANY (?::text[]) AND NOT j.is_deleted`, companyID, textArray(jobRefs)).Rows()
	if err != nil {
		return counts, nil, fmt.Errorf("match synced applications to jobs: %w", err)
	}
	for rows.Next() {
		var ref string
		var j syncedJob
		if err := rows.Scan(&ref, &j.id, &j.interviewerID); err != nil {
			rows.Close()
			return counts, nil, fmt.Errorf("read job of a synced application: %w", err)
		}
		jobs[ref] = j
	}
	rows.Close()
	existing := map[string]syncedExisting{}
	rows, err = tx.Raw(`SELECT ap.external_id, ap.id, ap.status, coalesce(r.upstream_status, ''), r.changed_at, r.company_id IS NOT NULL
FROM applications ap LEFT JOIN aggregator_applications r ON r.company_id = ap.company_id AND r.application_id = ap.id
WHERE ap.company_id = ? AND ap.source = ? AND ap.external_id = ANY (?::text[])`, companyID, models.ApplicationSourceATS, textArray(exts)).Rows()
	if err != nil {
		return counts, nil, fmt.Errorf("read synced applications: %w", err)
	}
	for rows.Next() {
		var ext string
		var e syncedExisting
		if err := rows.Scan(&ext, &e.id, &e.status, &e.upstream, &e.changed, &e.recorded); err != nil {
			rows.Close()
			return counts, nil, fmt.Errorf("read synced application: %w", err)
		}
		existing[ext] = e
	}
	rows.Close()

	// What each application does: create (job known, alive at the ATS), update, or nothing.
	var create, update []int
	for i, a := range apps {
		_, hasJob := jobs[a.JobRemoteID]
		switch _, ok := existing[a.ExternalID]; {
		case ok:
			update = append(update, i)
		case a.UpstreamStatus == UpstreamClosed:
			// Deleted at the ATS before recruitd saw it: nothing to keep.
		case !hasJob:
			counts.Skipped++
		default:
			create = append(create, i)
		}
	}
	keep := append(append([]int(nil), create...), update...)
	if len(keep) == 0 {
		return counts, nil, nil
	}
	cands, err := upsertSyncedCandidates(tx, companyID, apps, keep)
	if err != nil {
		return counts, nil, err
	}

	var created []CreatedApplication
	if len(create) > 0 {
		var ids, cand, job, ext, status []string
		for _, i := range create {
			a := apps[i]
			st := a.UpstreamStatus
			if st == UpstreamInProcess {
				st = "new"
			}
			ids, cand, job = append(ids, uuid.NewString()), append(cand, cands[a.CandidateExternalID].String()), append(job, jobs[a.JobRemoteID].id.String())
			ext, status = append(ext, a.ExternalID), append(status, st)
		}
		rows, err := tx.Raw(`
INSERT INTO applications (id, company_id, candidate_id, job_id, external_id, source, status)
SELECT t.id, ?, t.cand, t.job, t.ext, ?, t.status
FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[]) AS t(id, cand, job, ext, status)
ON CONFLICT (company_id, external_id, source) WHERE external_id IS NOT NULL DO NOTHING
RETURNING id, external_id, candidate_id, job_id`, companyID, models.ApplicationSourceATS,
			textArray(ids), textArray(cand), textArray(job), textArray(ext), textArray(status)).Rows()
		if err != nil {
			return counts, nil, fmt.Errorf("create synced applications: %w", err)
		}
		for rows.Next() {
			var c CreatedApplication
			if err := rows.Scan(&c.ApplicationID, &c.ExternalID, &c.CandidateID, &c.JobID); err != nil {
				rows.Close()
				return counts, nil, fmt.Errorf("read created application: %w", err)
			}
			created = append(created, c)
		}
		rows.Close()
		byRef := make(map[string]int, len(apps))
		for i, a := range apps {
			byRef[a.ExternalID] = i
		}
		for k := range created {
			created[k].InterviewerID = jobs[apps[byRef[created[k].ExternalID]].JobRemoteID].interviewerID
			existing[created[k].ExternalID] = syncedExisting{id: created[k].ApplicationID}
		}
		counts.Created = len(created)
	}

	if len(update) > 0 {
		var ids, status, cand, job []string
		for _, i := range update {
			a, e := apps[i], existing[apps[i].ExternalID]
			st := "" // kept: a customer flow may be setting it right now
			if a.UpstreamStatus != UpstreamInProcess && a.UpstreamStatus != e.upstream {
				st = a.UpstreamStatus
			}
			jobID := ""
			if j, ok := jobs[a.JobRemoteID]; ok {
				jobID = j.id.String()
			}
			ids, status, cand, job = append(ids, e.id.String()), append(status, st), append(cand, cands[a.CandidateExternalID].String()), append(job, jobID)
			switch {
			case st == UpstreamClosed && e.status != UpstreamClosed:
				counts.Closed++
			case !e.recorded || e.changed == nil || !e.changed.Equal(a.ChangedAt):
				counts.Updated++
			}
		}
		err := tx.Exec(`
UPDATE applications ap
SET status = coalesce(nullif(t.status, ''), ap.status), candidate_id = t.cand, job_id = coalesce(nullif(t.job, '')::uuid, ap.job_id)
FROM unnest(?::uuid[], ?::text[], ?::uuid[], ?::text[]) AS t(id, status, cand, job)
WHERE ap.company_id = ? AND ap.id = t.id
  AND (ap.status, ap.candidate_id, ap.job_id) IS DISTINCT FROM
      (coalesce(nullif(t.status, ''), ap.status), t.cand, coalesce(nullif(t.job, '')::uuid, ap.job_id))`,
			textArray(ids), textArray(status), textArray(cand), textArray(job), companyID).Error
		if err != nil {
			return counts, nil, fmt.Errorf("update synced applications: %w", err)
		}
	}

	if err := recordSyncedApplications(tx, companyID, apps, keep, existing, seen); err != nil {
		return counts, nil, err
	}
	return counts, created, nil
}

// upsertSyncedCandidates creates or updates the candidates of apps[keep] by external id (the
// page's latest application of a candidate gives the names and contacts; empty ones keep what
// is stored) and returns their ids by external id.
func upsertSyncedCandidates(tx *gorm.DB, companyID uuid.UUID, apps []SyncedApplication, keep []int) (map[string]uuid.UUID, error) {
	idx := map[string]int{}
	var ext, first, last, email, phone models.StringArray
	var at []time.Time
	for _, i := range keep {
		a := apps[i]
		k, ok := idx[a.CandidateExternalID]
		if !ok {
			k = len(ext)
			idx[a.CandidateExternalID] = k
			ext, first, last, email, phone = append(ext, a.CandidateExternalID), append(first, ""), append(last, ""), append(email, ""), append(phone, "")
			at = append(at, time.Time{})
		}
		if a.ChangedAt.Before(at[k]) {
			continue
		}
		at[k] = a.ChangedAt
		first[k], last[k], email[k], phone[k] = a.FirstName, a.LastName, a.Email, a.Phone
	}
	sortTogether(ext, first, last, email, phone) // rows locked in one order, whoever else upserts them
	out, err := upsertCandidates(tx, companyID, ext, first, last, email, phone)
	if err != nil {
		return nil, fmt.Errorf("upsert synced candidates: %w", err)
	}
	ids := make([]uuid.UUID, len(ext))
	for i, e := range ext {
		ids[i] = out[e]
	}
	return out, recordContactSources(tx, companyID, string(models.ApplicationSourceATS), ids, email, phone)
}

// recordSyncedApplications upserts the aggregator's records of apps[keep] that have a service
// application (in existing, by external id), seen at seen.
func recordSyncedApplications(tx *gorm.DB, companyID uuid.UUID, apps []SyncedApplication, keep []int, existing map[string]syncedExisting, seen time.Time) error {
	ts := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	var rem, ext, appID, crem, cext, jrem, outcome, stage, upstream, created, changed, deleted []string
	for _, i := range keep {
		a := apps[i]
		e, ok := existing[a.ExternalID]
		if !ok {
			continue // another sync created it between the read and the insert: the next pass records it
		}
		rem, ext, appID, crem, cext, jrem = append(rem, a.RemoteID), append(ext, a.ExternalID), append(appID, e.id.String()),
			append(crem, a.CandidateRemoteID), append(cext, a.CandidateExternalID), append(jrem, a.JobRemoteID)
		outcome, stage, upstream = append(outcome, a.Outcome), append(stage, a.Stage), append(upstream, a.UpstreamStatus)
		created, changed, deleted = append(created, ts(a.RemoteCreatedAt)), append(changed, ts(&a.ChangedAt)), append(deleted, ts(a.RemoteDeletedAt))
	}
	if len(rem) == 0 {
		return nil
	}
	err := tx.Exec(`
INSERT INTO aggregator_applications AS r (company_id, remote_id, ats_application_id, application_id, candidate_remote_id, ats_candidate_id,
                                          job_remote_id, outcome, stage, upstream_status, remote_created_at, changed_at, remote_deleted_at, seen_at)
SELECT ?, t.rem, t.ext, t.app, t.crem, t.cext, t.jrem, t.outcome, t.stage, t.upstream,
       nullif(t.created, '')::timestamptz, nullif(t.changed, '')::timestamptz, nullif(t.deleted, '')::timestamptz, ?
FROM unnest(?::text[], ?::text[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
    AS t(rem, ext, app, crem, cext, jrem, outcome, stage, upstream, created, changed, deleted)
ON CONFLICT (company_id, remote_id) DO UPDATE
    SET ats_application_id = EXCLUDED.ats_application_id, application_id = EXCLUDED.application_id,
        candidate_remote_id = EXCLUDED.candidate_remote_id, ats_candidate_id = EXCLUDED.ats_candidate_id,
        job_remote_id = EXCLUDED.job_remote_id, outcome = EXCLUDED.outcome, stage = EXCLUDED.stage,
        upstream_status = EXCLUDED.upstream_status, remote_created_at = EXCLUDED.remote_created_at,
        changed_at = EXCLUDED.changed_at, remote_deleted_at = EXCLUDED.remote_deleted_at, seen_at = EXCLUDED.seen_at`,
		companyID, seen.UTC(), textArray(rem), textArray(ext), textArray(appID), textArray(crem), textArray(cext), textArray(jrem),
		textArray(outcome), textArray(stage), textArray(upstream), textArray(created), textArray(changed), textArray(deleted)).Error
	if err != nil {
		return fmt.Errorf("record synced applications: %w", err)
	}
	return nil
}

// FinishApplicationSync records a completed application pass that began at began: the next
// incremental pass asks for changes after cursor (unchanged when nil). A full pass also closes
// the applications whose record it did not see (gone from the ATS without a trace) and returns
// how many it closed. pending reports a data-changed recorded after the pass began.
func (s *Store) FinishApplicationSync(ctx context.Context, companyID uuid.UUID, began time.Time, cursor *time.Time, full bool) (closed int, pending bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if full {
			// The records first, by their (company, seen_at) index, then their applications by
			// primary key: no plan reads every application of the company.
			res := tx.Exec(`
WITH gone AS (
    UPDATE aggregator_applications SET upstream_status = ?, remote_deleted_at = coalesce(remote_deleted_at, now())
    WHERE company_id = ? AND seen_at < ? AND upstream_status <> ?
    RETURNING application_id
)
UPDATE applications ap SET status = ? FROM gone WHERE ap.company_id = ? AND ap.id = gone.application_id AND ap.status <> ?`,
				UpstreamClosed, companyID, began.UTC(), UpstreamClosed, UpstreamClosed, companyID, UpstreamClosed)
			if res.Error != nil {
				return fmt.Errorf("close unseen applications: %w", res.Error)
			}
			closed = int(res.RowsAffected)
		}
		upd := map[string]any{"applications_synced_at": time.Now().UTC()}
		if cursor != nil {
			upd["application_cursor"] = gorm.Expr("greatest(application_cursor, ?)", *cursor)
		}
		if full {
			upd["applications_full_pass_at"] = began
		}
		if err := tx.Model(&models.AggregatorIntegration{}).Where("company_id = ?", companyID).Updates(upd).Error; err != nil {
			return fmt.Errorf("finish application pass: %w", err)
		}
		return tx.Raw(`SELECT coalesce(import_requested_at > ?, false) FROM aggregator_integrations WHERE company_id = ?`, began, companyID).Row().Scan(&pending)
	})
	return closed, pending, err
}

// SyncsApplications reports whether the company's applications come from its ATS through the
// aggregator: it has an integration that was ever authorised and is not an HR suite's (whose
// applications come by webhook).
func (s *Store) SyncsApplications(ctx context.Context, companyID uuid.UUID) (bool, error) {
	var ok bool
	err := s.db.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM aggregator_integrations ai JOIN companies c ON c.id = ai.company_id
		WHERE ai.company_id = ? AND ai.integration_id IS NOT NULL AND NOT c.hr_suite_account)`, companyID).Row().Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check application sync of %s: %w", companyID, err)
	}
	return ok, nil
}

// AnalyzeGrownApplications refreshes the planner statistics of candidates, applications and
// their aggregator records when created, the applications a sync page just added, is more than a
// quarter of the rows the statistics know of it (none on a new database): a first sync filling young tables. Without
// them Postgres plans the page's lookups by (company, external id) and the rollup trigger's
// recounts as if the tables were empty, and each page reads every row the company has: a
// 10,000-application first sync took 11 s of database time instead of under 2. Best effort,
// after the commit, as analyzeGrownJobs.
func (s *Store) AnalyzeGrownApplications(ctx context.Context, created int) {
	if created == 0 {
		return
	}
	var young []string
	err := s.db.WithContext(ctx).Raw(`SELECT relname FROM pg_class
		WHERE oid IN ('candidates'::regclass, 'applications'::regclass, 'aggregator_applications'::regclass) AND reltuples < ?
		ORDER BY relname`, 4*created).Scan(&young).Error
	if err != nil || len(young) == 0 {
		return
	}
	_ = s.db.WithContext(ctx).Exec(`ANALYZE (SKIP_LOCKED) ` + strings.Join(young, ", ")).Error
}
