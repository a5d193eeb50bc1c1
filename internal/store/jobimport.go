package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/models"
)

// AggregatorIntegration loads the company's integration (its HR-suite connection card);
// ErrNotFound before the company has credentials or asked to connect.
func (s *Store) AggregatorIntegration(ctx context.Context, companyID uuid.UUID) (*models.AggregatorIntegration, error) {
	var in models.AggregatorIntegration
	if err := s.db.WithContext(ctx).First(&in, "company_id = ?", companyID).Error; err != nil {
		return nil, notFound(err, "aggregator integration of "+companyID.String())
	}
	return &in, nil
}

// IntegrationForEvent finds the integration an aggregator webhook is about: by the aggregator's
// integration id, else (the first event of a new integration) by originID, the company id given
// with the connect link, when that company's row has no integration id yet. It is a lookup
// that establishes the tenant, so it takes no company.
func (s *Store) IntegrationForEvent(ctx context.Context, integrationID, originID string) (*models.AggregatorIntegration, error) {
	var in models.AggregatorIntegration
	err := s.db.WithContext(ctx).First(&in, "integration_id = ?", integrationID).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		if id, perr := uuid.Parse(originID); perr == nil {
			err = s.db.WithContext(ctx).First(&in, "company_id = ? AND integration_id IS NULL", id).Error
		}
	}
	if err != nil {
		return nil, notFound(err, "aggregator integration "+integrationID)
	}
	return &in, nil
}

// SetAggregatorCredentials seals creds (base URL and API key) for the company, creating its
// not_connected integration row when it has none.
func (s *Store) SetAggregatorCredentials(ctx context.Context, companyID uuid.UUID, box *secretbox.Box, creds map[string]string) error {
	plain, err := json.Marshal(creds)
	if err != nil {
		return fmt.Errorf("encode aggregator credentials: %w", err)
	}
	sealed, err := box.Seal(plain, companyID[:])
	if err != nil {
		return err
	}
	row := models.AggregatorIntegration{CompanyID: companyID, Credentials: sealed, State: models.IntegrationNotConnected}
	err = s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "company_id"}}, DoUpdates: clause.AssignmentColumns([]string{"credentials"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("store aggregator credentials: %w", err)
	}
	return nil
}

// OpenAggregatorSecrets decrypts an integration's credentials and webhook secret ("" when unset).
func OpenAggregatorSecrets(box *secretbox.Box, in *models.AggregatorIntegration) (map[string]string, string, error) {
	creds := map[string]string{}
	if len(in.Credentials) > 0 {
		plain, err := box.Open(in.Credentials, in.CompanyID[:])
		if err != nil {
			return nil, "", fmt.Errorf("aggregator credentials of %s: %w", in.CompanyID, err)
		}
		if err := json.Unmarshal(plain, &creds); err != nil {
			return nil, "", fmt.Errorf("decode aggregator credentials of %s: %w", in.CompanyID, err)
		}
	}
	secret := ""
	if len(in.WebhookSecret) > 0 {
		plain, err := box.Open(in.WebhookSecret, in.CompanyID[:])
		if err != nil {
			return nil, "", fmt.Errorf("webhook secret of %s: %w", in.CompanyID, err)
		}
		secret = string(plain)
	}
	return creds, secret, nil
}

// SaveConnectLink records a Connect action: the link where the company authorises, and the
// integration's webhook secret when it has none yet (a repeated Connect keeps the secret, so
// deliveries signed before the new authorisation still verify).
func (s *Store) SaveConnectLink(ctx context.Context, companyID uuid.UUID, box *secretbox.Box, link, secret string) error {
	sealed, err := box.Seal([]byte(secret), companyID[:])
	if err != nil {
		return err
	}
	res := s.db.WithContext(ctx).Model(&models.AggregatorIntegration{}).Where("company_id = ?", companyID).
		Updates(map[string]any{"connect_url": link, "webhook_secret": gorm.Expr("coalesce(webhook_secret, ?)", sealed)})
	if res.Error != nil {
		return fmt.Errorf("save connect link: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("aggregator integration of %s: %w", companyID, ErrNotFound)
	}
	return nil
}

// AggregatorEvent is a verified webhook delivery to record.
type AggregatorEvent struct {
	ID, Type, IntegrationID string
	State, SetupStatus      string
	Body                    []byte
	// SignedAt is the delivery's signed webhook-timestamp: older state changes do not override
	// newer ones.
	SignedAt time.Time
	// Card is the card state State and SetupStatus map to (state changes only), and Reason its
	// needs_attention text.
	Card   models.IntegrationState
	Reason string
}

// EventResult is what recording an event did.
type EventResult struct {
	Duplicate bool
	// Outcome is stored with the event and counted in metrics: applied, stale, duplicate,
	// import_requested, ignored.
	Outcome string
	State   models.IntegrationState
	// BecameConnected is set when this event moved the card to connected.
	BecameConnected bool
	// ImportStart is the company's import start when the card is connected after this event
	// (inserted with the transition, or found from an earlier one): the caller launches it.
	ImportStart *models.WorkflowStart
}

// RecordAggregatorEvent stores a verified delivery once per event id and applies it in the same
// transaction: integration-created sets the integration id and Syncing…; a state change moves
// the card (never back from connected to syncing, never to an older signed state); data-changed
// records an import request. importStart is the company's import workflow start, inserted when
// the card first becomes connected.
func (s *Store) RecordAggregatorEvent(ctx context.Context, companyID uuid.UUID, ev AggregatorEvent, importStart models.WorkflowStart) (EventResult, error) {
	var res EventResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var in models.AggregatorIntegration
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&in, "company_id = ?", companyID).Error; err != nil {
			return notFound(err, "aggregator integration of "+companyID.String())
		}
		var inserted bool
		err := tx.Raw(`INSERT INTO aggregator_events (company_id, event_id, type, body) VALUES (?, ?, ?, ?)
			ON CONFLICT (company_id, event_id) DO UPDATE SET deliveries = aggregator_events.deliveries + 1
			RETURNING (xmax = 0)`, companyID, ev.ID, ev.Type, string(ev.Body)).Row().Scan(&inserted)
		if err != nil {
			return fmt.Errorf("record aggregator event %s: %w", ev.ID, err)
		}
		res.State = in.State
		if !inserted {
			res.Duplicate, res.Outcome = true, "duplicate"
		} else if res.Outcome, err = applyEvent(tx, &in, ev, &res); err != nil {
			return err
		} else if err := tx.Exec(`UPDATE aggregator_events SET outcome = ? WHERE company_id = ? AND event_id = ?`, res.Outcome, companyID, ev.ID).Error; err != nil {
			return fmt.Errorf("record outcome of %s: %w", ev.ID, err)
		}
		if res.State != models.IntegrationConnected || ev.Type == "data-changed" {
			return nil
		}
		res.ImportStart, err = insertOrFindStart(tx, importStart)
		return err
	})
	return res, err
}

func applyEvent(tx *gorm.DB, in *models.AggregatorIntegration, ev AggregatorEvent, res *EventResult) (string, error) {
	now := time.Now().UTC()
	upd := map[string]any{}
	outcome := "applied"
	switch ev.Type {
	case "integration-created":
		upd["integration_id"] = ev.IntegrationID
		if in.State == models.IntegrationNotConnected {
			upd["state"], upd["state_since"], upd["reason"] = models.IntegrationSyncing, now, nil
			res.State = models.IntegrationSyncing
		}
	case "integration-state-changed":
		next := ev.Card
		stale := in.StateEventAt != nil && ev.SignedAt.Before(*in.StateEventAt)
		backwards := in.State == models.IntegrationConnected && next == models.IntegrationSyncing
		if stale || backwards {
			return "stale", nil
		}
		upd["integration_id"], upd["remote_state"], upd["setup_status"], upd["state_event_at"] = ev.IntegrationID, ev.State, ev.SetupStatus, ev.SignedAt
		if next != in.State {
			upd["state"], upd["state_since"] = next, now
		}
		upd["reason"] = nil
		if ev.Reason != "" {
			upd["reason"] = ev.Reason
		}
		if next == models.IntegrationConnected && in.State != models.IntegrationConnected {
			res.BecameConnected = true
			upd["connected_at"] = now
		}
		res.State = next
	case "data-changed":
		if in.State != models.IntegrationConnected {
			return "ignored", nil
		}
		upd["import_requested_at"] = now
		outcome = "import_requested"
	default:
		return "ignored", nil
	}
	if err := tx.Model(&models.AggregatorIntegration{}).Where("company_id = ?", in.CompanyID).Updates(upd).Error; err != nil {
		return "", fmt.Errorf("apply %s to the integration of %s: %w", ev.Type, in.CompanyID, err)
	}
	return outcome, nil
}

// SetIntegrationAttention moves the card to needs_attention with reason (the import found the
// aggregator refusing the integration).
func (s *Store) SetIntegrationAttention(ctx context.Context, companyID uuid.UUID, reason string) error {
	err := s.db.WithContext(ctx).Model(&models.AggregatorIntegration{}).
		Where("company_id = ? AND state <> ?", companyID, models.IntegrationNeedsAttention).
		Updates(map[string]any{"state": models.IntegrationNeedsAttention, "state_since": time.Now().UTC(), "reason": truncateText(reason, 500)}).Error
	if err != nil {
		return fmt.Errorf("mark the integration of %s: %w", companyID, err)
	}
	return nil
}

// ImportedJob is one aggregator job to upsert; ExternalID is the service job's external id.
// ID and InterviewerID are what a job the upsert creates gets (an existing job keeps its own),
// and Start is the start of that new job's 'New Job from ATS' run, written only if it is created.
type ImportedJob struct {
	ID                                                               uuid.UUID
	InterviewerID                                                    string
	Start                                                            models.WorkflowStart
	RemoteID, ExternalID, Title, Description, RemoteStatus, Location string
	Open                                                             bool
	RemoteCreatedAt, RemoteDeletedAt                                 *time.Time
	ChangedAt                                                        time.Time
}

// ImportCounts counts what an upsert did to service jobs; Generating counts the generations
// it queued (new jobs with a description, and changed descriptions).
type ImportCounts struct {
	Created, Updated, Closed, Generating int
}

// NoDescriptionReason is the failure reason of an imported job whose ATS record has no
// description: nothing to generate its interview from.
const NoDescriptionReason = "the job has no description in the ATS: its interview is generated when the ATS gives it one"

// UpsertImportedJobs writes a page of aggregator jobs in one transaction: service jobs by
// (company, external id), created GENERATING (FAILED with NoDescriptionReason when the
// description is blank) or updated where title, description or openness changed (never
// deleted, never undeleted; a changed description is a new GuideVersion, and a FAILED job that
// gets a description is GENERATING again); the aggregator's records; and for every job created
// here its Start, so each new job has exactly one (the start's workflow id is unique). Jobs must
// have distinct ExternalIDs. It returns the starts it wrote and the jobs whose interview is to be
// generated (created with, or given, a new non-blank description), whose generation starts the
// caller writes in the same transaction (Tx.InsertStarts).
func (t *Tx) UpsertImportedJobs(co *models.Company, jobs []ImportedJob) (ImportCounts, []models.WorkflowStart, []GenerationDue, error) {
	var counts ImportCounts
	var starts []models.WorkflowStart
	var due []GenerationDue
	if len(jobs) == 0 {
		return counts, nil, nil, nil
	}
	n := len(jobs)
	ids, rem, ext, iid, title, descr, open, status, loc, created, changed, deleted :=
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ts := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	byExt := make(map[string]int, n)
	for i, j := range jobs {
		byExt[j.ExternalID] = i
		ids[i], rem[i], ext[i], iid[i] = j.ID.String(), j.RemoteID, j.ExternalID, j.InterviewerID
		title[i], descr[i], open[i], status[i], loc[i] = j.Title, j.Description, strconv.FormatBool(j.Open), j.RemoteStatus, j.Location
		created[i], changed[i], deleted[i] = ts(j.RemoteCreatedAt), ts(&j.ChangedAt), ts(j.RemoteDeletedAt)
	}
	err := func(tx *gorm.DB) error {
		rows, err := tx.Raw(`
WITH input AS (
    SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[])
        AS t(id, ext, iid, title, descr, open)
), old AS (
    SELECT external_id, is_open, description FROM jobs WHERE company_id = ? AND external_id = ANY (?::text[])
), up AS (
    INSERT INTO jobs AS j (id, company_id, external_id, interviewer_id, title, external_title, description, status, failure_reason, is_open)
    SELECT id, ?, ext, iid, title, title, descr,
           CASE WHEN btrim(descr) = '' THEN 'FAILED' ELSE 'GENERATING' END,
           CASE WHEN btrim(descr) = '' THEN ?::text END, open
    FROM input
    ON CONFLICT (company_id, external_id) DO UPDATE
        SET title = EXCLUDED.title, external_title = EXCLUDED.title, description = EXCLUDED.description, is_open = EXCLUDED.is_open,
            guide_version = j.guide_version + (j.description IS DISTINCT FROM EXCLUDED.description)::int,
            status = CASE WHEN j.status = 'FAILED' AND j.description IS DISTINCT FROM EXCLUDED.description
                               AND btrim(EXCLUDED.description) <> '' THEN 'GENERATING' ELSE j.status END,
            failure_reason = CASE WHEN j.status = 'FAILED' AND j.description IS DISTINCT FROM EXCLUDED.description
                               AND btrim(EXCLUDED.description) <> '' THEN NULL ELSE j.failure_reason END
        WHERE (j.title, j.description, j.is_open) IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.description, EXCLUDED.is_open)
    RETURNING j.id, j.external_id, j.interviewer_id, (xmax = 0) AS inserted, j.is_open, j.description, j.is_deleted
)
SELECT up.id, up.external_id, up.interviewer_id, up.inserted, up.is_open, coalesce(old.is_open, false),
       NOT up.is_deleted AND btrim(up.description) <> '' AND (up.inserted OR old.description IS DISTINCT FROM up.description)
FROM up LEFT JOIN old USING (external_id)`,
			textArray(ids), textArray(ext), textArray(iid), textArray(title), textArray(descr), textArray(open), co.ID, textArray(ext), co.ID, NoDescriptionReason).Rows()
		if err != nil {
			return fmt.Errorf("upsert imported jobs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id uuid.UUID
			var extID, interviewerID string
			var inserted, isOpen, wasOpen, generate bool
			if err := rows.Scan(&id, &extID, &interviewerID, &inserted, &isOpen, &wasOpen, &generate); err != nil {
				return fmt.Errorf("read upserted job: %w", err)
			}
			switch {
			case inserted:
				counts.Created++
				starts = append(starts, jobs[byExt[extID]].Start)
			case wasOpen && !isOpen:
				counts.Closed++
			default:
				counts.Updated++
			}
			if generate {
				counts.Generating++
				due = append(due, GenerationDue{JobID: id, ExternalID: extID, InterviewerID: interviewerID, ChangedAt: jobs[byExt[extID]].ChangedAt})
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read upserted jobs: %w", err)
		}
		err = tx.Exec(`
INSERT INTO aggregator_jobs AS a (company_id, remote_id, ats_job_id, job_id, name, remote_status, location,
                                  remote_created_at, changed_at, remote_deleted_at, seen_at)
SELECT ?, t.rem, t.ext, j.id, t.title, t.status, t.loc,
       nullif(t.created, '')::timestamptz, nullif(t.changed, '')::timestamptz, nullif(t.deleted, '')::timestamptz, now()
FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
    AS t(rem, ext, title, status, loc, created, changed, deleted)
JOIN (SELECT id, external_id FROM jobs WHERE company_id = ? AND external_id = ANY (?::text[])) j ON j.external_id = t.ext
ON CONFLICT (company_id, remote_id) DO UPDATE
    SET ats_job_id = EXCLUDED.ats_job_id, job_id = EXCLUDED.job_id, name = EXCLUDED.name,
        remote_status = EXCLUDED.remote_status, location = EXCLUDED.location,
        remote_created_at = EXCLUDED.remote_created_at, changed_at = EXCLUDED.changed_at,
        remote_deleted_at = EXCLUDED.remote_deleted_at, seen_at = now()`,
			co.ID, textArray(rem), textArray(ext), textArray(title), textArray(status), textArray(loc),
			textArray(created), textArray(changed), textArray(deleted), co.ID, textArray(ext)).Error
		if err != nil {
			return fmt.Errorf("upsert aggregator jobs: %w", err)
		}
		if len(starts) > 0 {
			starts, err = insertStarts(tx, starts)
			return err
		}
		return nil
	}(t.db)
	if err != nil {
		return ImportCounts{}, nil, nil, err
	}
	return counts, starts, due, nil
}

// GenerationDue is an imported job whose interview is to be generated for the description it
// got when the ATS changed it at ChangedAt.
type GenerationDue struct {
	JobID                     uuid.UUID
	ExternalID, InterviewerID string
	ChangedAt                 time.Time
}

// AnalyzeGrownJobs refreshes the planner statistics of jobs after a commit that created
// created jobs (see analyzeGrownJobs).
func (s *Store) AnalyzeGrownJobs(ctx context.Context, created int) {
	if created > 0 {
		s.analyzeGrownJobs(ctx, created)
	}
}

// analyzeGrownJobs refreshes the planner statistics of jobs when created, the jobs a page just
// added, is more than a quarter of the rows the statistics know (none on a new database): an
// import filling a young table. Without statistics Postgres caches generic plans that find a job
// by company and id, or by company and external id, through another (company_id, …) index and
// filter the company's rows: the foreign-key check of every aggregator_jobs row (its SPI plan)
// and the upsert's own lookups then read every job the company has, and a 10,000-job first
// import took 6 s instead of under 1 (43 million index tuples fetched by 28,000 index scans).
// Autovacuum would analyze too, but only after a minute or more. Best effort, after the commit:
// a table another ANALYZE or autovacuum holds is skipped, and a role that does not own jobs only
// gets a warning.
func (s *Store) analyzeGrownJobs(ctx context.Context, created int) {
	var known float64
	if err := s.db.WithContext(ctx).Raw(`SELECT reltuples FROM pg_class WHERE oid = 'jobs'::regclass`).Row().Scan(&known); err != nil {
		return
	}
	if known >= 4*float64(created) {
		return
	}
	_ = s.db.WithContext(ctx).Exec(`ANALYZE (SKIP_LOCKED) jobs`).Error
}

// FinishImportPass records a completed pass that began at began: the next incremental pass
// asks for changes after cursor (unchanged when nil). A full pass also closes the service jobs
// of aggregator records it did not see (deleted at the HR suite without a trace), and returns
// how many it closed. pending reports a data-changed recorded after the pass began.
func (s *Store) FinishImportPass(ctx context.Context, companyID uuid.UUID, began time.Time, cursor *time.Time, full bool) (closed int, pending bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if full {
			res := tx.Exec(`UPDATE jobs j SET is_open = false FROM aggregator_jobs a
				WHERE a.company_id = ? AND a.seen_at < ? AND j.company_id = a.company_id AND j.id = a.job_id AND j.is_open`, companyID, began)
			if res.Error != nil {
				return fmt.Errorf("close unseen jobs: %w", res.Error)
			}
			closed = int(res.RowsAffected)
			if err := tx.Exec(`UPDATE aggregator_jobs SET remote_deleted_at = coalesce(remote_deleted_at, now())
				WHERE company_id = ? AND seen_at < ?`, companyID, began).Error; err != nil {
				return fmt.Errorf("mark unseen aggregator jobs: %w", err)
			}
		}
		upd := map[string]any{"last_sync_at": time.Now().UTC()}
		if cursor != nil {
			upd["import_cursor"] = gorm.Expr("greatest(import_cursor, ?)", *cursor)
		}
		if full {
			upd["last_full_pass_at"] = began
		}
		if err := tx.Model(&models.AggregatorIntegration{}).Where("company_id = ?", companyID).Updates(upd).Error; err != nil {
			return fmt.Errorf("finish import pass: %w", err)
		}
		return tx.Raw(`SELECT coalesce(import_requested_at > ?, false) FROM aggregator_integrations WHERE company_id = ?`, began, companyID).Row().Scan(&pending)
	})
	return closed, pending, err
}

// IntegrationCounts are the imported-job figures of the card.
type IntegrationCounts struct {
	JobsImported, OpenJobs, ClosedJobs int
}

// AggregatorJobCounts counts the company's jobs that came through the aggregator.
func (s *Store) AggregatorJobCounts(ctx context.Context, companyID uuid.UUID) (IntegrationCounts, error) {
	var c IntegrationCounts
	err := s.db.WithContext(ctx).Raw(`SELECT count(*), count(*) FILTER (WHERE j.is_open), count(*) FILTER (WHERE NOT j.is_open)
		FROM aggregator_jobs a JOIN jobs j ON j.company_id = a.company_id AND j.id = a.job_id
		WHERE a.company_id = ? AND NOT j.is_deleted`, companyID).Row().Scan(&c.JobsImported, &c.OpenJobs, &c.ClosedJobs)
	if err != nil {
		return c, fmt.Errorf("count imported jobs: %w", err)
	}
	return c, nil
}
