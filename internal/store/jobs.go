package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/models"
)

// CreateJob inserts j and the start of its generation workflow in one statement (one round
// trip, atomic without a transaction of its own). ErrConflict when the company already has
// j.ExternalID (or the start's workflow id is taken): the unique indexes decide, so concurrent
// duplicates cannot both succeed. It sets the ids and times of j and start that are not set.
func (s *Store) CreateJob(ctx context.Context, j *models.Job, start *models.WorkflowStart) error {
	now := time.Now().UTC()
	if j.ID == uuid.Nil {
		j.ID = uuid.New()
	}
	if j.GuideVersion == 0 {
		j.GuideVersion = 1
	}
	if j.Status == "" {
		j.Status = models.JobStatusGenerating
	}
	j.CreatedAt, j.UpdatedAt = now, now
	opts, err := j.GenerationOptions.Value()
	if err != nil {
		return fmt.Errorf("create job %s: %w", j.InterviewerID, err)
	}
	startArgs, err := chainedStartArgs(start, now)
	if err != nil {
		return fmt.Errorf("create job %s: %w", j.InterviewerID, err)
	}
	err = s.db.WithContext(ctx).Exec(`WITH j AS (
	INSERT INTO jobs (id, company_id, external_id, interviewer_id, title, external_title, description, status, failure_reason,
		is_open, is_deleted, enable_identity_verification, resume_fit_template_id, created_by_user_id, generation_options,
		created_at, updated_at, guide_version)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
	RETURNING id)
`+insertChainedStart+` j`,
		append([]any{j.ID, j.CompanyID, j.ExternalID, j.InterviewerID, j.Title, j.ExternalTitle, j.Description, j.Status, j.FailureReason,
			j.IsOpen, j.IsDeleted, j.EnableIdentityVerification, j.ResumeFitTemplateID, j.CreatedByUserID, opts,
			now, now, j.GuideVersion}, startArgs...)...).Error
	if err != nil {
		return notFound(err, "create job "+j.InterviewerID)
	}
	return nil
}

// Job loads a company's job by id, deleted ones included.
func (s *Store) Job(ctx context.Context, companyID, jobID uuid.UUID) (*models.Job, error) {
	var j models.Job
	if err := s.db.WithContext(ctx).First(&j, "company_id = ? AND id = ?", companyID, jobID).Error; err != nil {
		return nil, notFound(err, "job "+jobID.String())
	}
	return &j, nil
}

// JobByInterviewerID loads a company's job that is not deleted.
func (s *Store) JobByInterviewerID(ctx context.Context, companyID uuid.UUID, interviewerID string) (*models.Job, error) {
	var j models.Job
	err := s.db.WithContext(ctx).First(&j, "company_id = ? AND interviewer_id = ? AND NOT is_deleted", companyID, interviewerID).Error
	if err != nil {
		return nil, notFound(err, "interviewer "+interviewerID)
	}
	return &j, nil
}

// JobFilter narrows ListJobs.
type JobFilter struct {
	Status *models.JobStatus // nil: jobs whose generation completed (ACTIVE and PAUSED)
	Cursor string            // from the previous page's next cursor
	Limit  int
}

// ErrBadCursor means a pagination cursor was not made by ListJobs.
var ErrBadCursor = errors.New("invalid cursor")

// ListJobs returns a page of the company's jobs, newest first, and the cursor of the next page
// ("" on the last page). Keyset pagination on (created_at, id): pages stay stable while jobs are
// added. Without a status filter only generated jobs are listed (spec: a job "appears in the
// interviewer listing when done"); GENERATING and FAILED jobs need their status named.
func (s *Store) ListJobs(ctx context.Context, companyID uuid.UUID, f JobFilter) ([]models.Job, string, error) {
	q := s.db.WithContext(ctx).Where("company_id = ? AND NOT is_deleted", companyID)
	if f.Status != nil {
		q = q.Where("status = ?", *f.Status)
	} else {
		q = q.Where("status IN ?", []models.JobStatus{models.JobStatusActive, models.JobStatusPaused})
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q = q.Where("(created_at, id) < (?, ?)", at, id)
	}
	var jobs []models.Job
	if err := q.Order("created_at DESC, id DESC").Limit(f.Limit + 1).Find(&jobs).Error; err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	next := ""
	if len(jobs) > f.Limit {
		jobs = jobs[:f.Limit]
		last := jobs[len(jobs)-1]
		next = encodeCursor(last.CreatedAt, last.ID)
	}
	return jobs, next, nil
}

func encodeCursor(at time.Time, id uuid.UUID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.UTC().Format(time.RFC3339Nano) + "|" + id.String()))
}

func decodeCursor(c string) (time.Time, uuid.UUID, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, uuid.Nil, ErrBadCursor
	}
	ts, idStr, ok := strings.Cut(string(b), "|")
	at, err1 := time.Parse(time.RFC3339Nano, ts)
	id, err2 := uuid.Parse(idStr)
	if !ok || err1 != nil || err2 != nil {
		return time.Time{}, uuid.Nil, ErrBadCursor
	}
	return at, id, nil
}

// GuideContent is a generated interview guide ready to store.
type GuideContent struct {
	Title, ExternalTitle string
	Guide                models.InterviewGuide
	Questions            []models.InterviewQuestion
	Criteria             []models.GradingCriterion
}

// ErrGuideCurrent means SaveGuide found a guide of the same or a newer version than the one it
// was given: nothing was saved.
var ErrGuideCurrent = errors.New("the job's guide is as new as this one")

// SavedGuide is what SaveGuide did: the job's status, and the runs waiting for the job's
// interview (job_ready_waits) to wake now that it has one.
type SavedGuide struct {
	Status  models.JobStatus
	Waiters []string
}

// SaveGuide stores g as the job's interview guide for description version, replacing the one it
// has. A GENERATING job moves to its wanted status (GenerationOptions.Active, set by createJob's
// `active` or by a flow's set_status while it was generating) or else to defaultStatus, or the
// company's default job status when defaultStatus is ""; an ACTIVE or PAUSED job (a new version
// of an imported job's description) keeps its status, and a guide as new as version is kept
// (ErrGuideCurrent, with the job's status). A FAILED or missing job is ErrNotFound.
//
// It costs four round trips whatever the guide's size (the lock, one statement writing the guide,
// its questions and criteria and the job and reading the waiters, and the commit; a fifth deletes
// the guide it replaces).
func (s *Store) SaveGuide(ctx context.Context, companyID, jobID uuid.UUID, g GuideContent, version int, defaultStatus models.JobStatus) (SavedGuide, error) {
	var out SavedGuide
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur struct {
			Status         models.JobStatus
			Active         *bool
			CompanyDefault models.JobStatus
			Current        int
		}
		res := tx.Raw(`SELECT j.status, (j.generation_options->>'active')::boolean AS active, c.default_job_status AS company_default,
	coalesce((SELECT max(g.version) FROM interview_guides g WHERE g.company_id = j.company_id AND g.job_id = j.id), 0) AS current
FROM jobs j JOIN companies c ON c.id = j.company_id
WHERE j.company_id = ? AND j.id = ? AND j.status IN ('GENERATING', 'ACTIVE', 'PAUSED')
FOR UPDATE OF j`, companyID, jobID).Scan(&cur)
		if res.Error != nil {
			return fmt.Errorf("lock job to generate %s: %w", jobID, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("job to generate %s: %w", jobID, ErrNotFound)
		}
		out.Status = cur.Status
		switch {
		case cur.Status != models.JobStatusGenerating:
			if cur.Current >= version {
				return ErrGuideCurrent
			}
		case cur.Active != nil && *cur.Active:
			out.Status = models.JobStatusActive
		case cur.Active != nil:
			out.Status = models.JobStatusPaused
		case defaultStatus != "":
			out.Status = defaultStatus
		default:
			out.Status = cur.CompanyDefault
		}
		if cur.Current > 0 {
			// interview_guides.job_id is unique: the old guide goes before the new one comes.
			if err := tx.Exec(`DELETE FROM interview_guides WHERE company_id = ? AND job_id = ?`, companyID, jobID).Error; err != nil {
				return fmt.Errorf("replace guide: %w", err)
			}
		}
		var q guideRows
		for i, x := range g.Questions {
			q.pos = append(q.pos, int32(i+1))
			q.text, q.source = append(q.text, x.Text), append(q.source, string(x.Source))
			q.skill, q.tagName, q.tagInstructions = append(q.skill, nullText(x.Skill)), append(q.tagName, nullText(x.TagName)), append(q.tagInstructions, nullText(x.TagInstructions))
			answers, err := json.Marshal(nonNilStrings(x.Answers))
			if err != nil {
				return fmt.Errorf("encode answers: %w", err)
			}
			q.answers = append(q.answers, string(answers))
			q.template = append(q.template, nullUUID(x.TemplateID))
		}
		var c guideRows
		for i, x := range g.Criteria {
			c.pos = append(c.pos, int32(i+1))
			c.text, c.source = append(c.text, x.Name), append(c.source, x.Description)
			c.template = append(c.template, nullUUID(x.TemplateID))
		}
		err := tx.Raw(`WITH g AS (
	INSERT INTO interview_guides (company_id, job_id, version, intro, outro, learning_objectives, skills)
	VALUES (@co, @job, @version, @intro, @outro, @objectives, @skills)
	RETURNING id),
q AS (
	INSERT INTO interview_questions (company_id, guide_id, position, text, source, skill, answers, tag_name, tag_instructions, template_id)
	SELECT @co, g.id, t.pos, t.text, t.source, t.skill, ARRAY(SELECT jsonb_array_elements_text(t.answers::jsonb)), t.tag_name, t.tag_instructions, t.template_id::uuid
	FROM g, unnest(CAST(@qpos AS int[]), CAST(@qtext AS text[]), CAST(@qsource AS text[]), CAST(@qskill AS text[]), CAST(@qanswers AS text[]), CAST(@qtag AS text[]), CAST(@qinstr AS text[]), CAST(@qtemplate AS text[]))
		AS t(pos, text, source, skill, answers, tag_name, tag_instructions, template_id)),
c AS (
	INSERT INTO grading_criteria (company_id, guide_id, position, name, description, template_id)
	SELECT @co, g.id, t.pos, t.name, t.description, t.template_id::uuid
	FROM g, unnest(CAST(@cpos AS int[]), CAST(@cname AS text[]), CAST(@cdesc AS text[]), CAST(@ctemplate AS text[])) AS t(pos, name, description, template_id)),
u AS (
	UPDATE jobs SET title = @title, external_title = @external, status = @status, generated_at = @now, failure_reason = NULL
	WHERE company_id = @co AND id = @job)
SELECT workflow_id FROM job_ready_waits WHERE company_id = @co AND job_id = @job ORDER BY since`,
			map[string]any{
				"co": companyID, "job": jobID, "version": version, "intro": g.Guide.Intro, "outro": g.Guide.Outro,
				"objectives": textArray(nonNilStrings(g.Guide.LearningObjectives)), "skills": textArray(nonNilStrings(g.Guide.Skills)),
				"qpos": intArray(q.pos), "qtext": textArray(q.text), "qsource": textArray(q.source), "qskill": nullTextArray(q.skill),
				"qanswers": textArray(q.answers), "qtag": nullTextArray(q.tagName), "qinstr": nullTextArray(q.tagInstructions),
				"qtemplate": nullTextArray(q.template),
				"cpos":      intArray(c.pos), "cname": textArray(c.text), "cdesc": textArray(c.source), "ctemplate": nullTextArray(c.template),
				"title": g.Title, "external": g.ExternalTitle, "status": out.Status, "now": time.Now().UTC(),
			}).Scan(&out.Waiters).Error
		if err != nil {
			return fmt.Errorf("store guide of job %s: %w", jobID, err)
		}
		return nil
	})
	return out, err
}

// guideRows are the columns of a guide's questions or criteria, one array each, for unnest.
type guideRows struct {
	pos                             []int32
	text, source, answers           []string
	skill, tagName, tagInstructions []pgtype.Text
	template                        []pgtype.Text
}

func nullText(s *string) pgtype.Text {
	if s == nil {
		return pgtype.Text{}
	}
	return pgtype.Text{String: *s, Valid: true}
}

func nullUUID(id *uuid.UUID) pgtype.Text {
	if id == nil {
		return pgtype.Text{}
	}
	return pgtype.Text{String: id.String(), Valid: true}
}

func nonNilStrings(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// FailJob records that the job's generation failed for good: a GENERATING job becomes FAILED
// with reason; an ACTIVE or PAUSED one (a new version of its description) keeps its status and
// the guide it has, and its failure reason says so.
func (s *Store) FailJob(ctx context.Context, companyID, jobID uuid.UUID, reason string) error {
	err := s.db.WithContext(ctx).Exec(`UPDATE jobs SET
		status = CASE WHEN status = 'GENERATING' THEN 'FAILED' ELSE status END,
		failure_reason = CASE WHEN status = 'GENERATING' THEN ?
			ELSE left('the interview for the changed description could not be generated (the previous one stays in use): ' || ?, 1000) END
		WHERE company_id = ? AND id = ? AND status IN ('GENERATING', 'ACTIVE', 'PAUSED')`, reason, reason, companyID, jobID).Error
	if err != nil {
		return fmt.Errorf("fail job %s: %w", jobID, err)
	}
	return nil
}

// GuideView is a job's stored interview guide.
type GuideView struct {
	Guide     models.InterviewGuide
	Questions []models.InterviewQuestion
	Criteria  []models.GradingCriterion
}

// Guide loads the job's guide; ErrNotFound while none is generated.
func (s *Store) Guide(ctx context.Context, companyID, jobID uuid.UUID) (*GuideView, error) {
	var v GuideView
	db := s.db.WithContext(ctx)
	if err := db.First(&v.Guide, "company_id = ? AND job_id = ?", companyID, jobID).Error; err != nil {
		return nil, notFound(err, "guide of job "+jobID.String())
	}
	if err := db.Where("company_id = ? AND guide_id = ?", companyID, v.Guide.ID).Order("position").Find(&v.Questions).Error; err != nil {
		return nil, fmt.Errorf("load questions: %w", err)
	}
	if err := db.Where("company_id = ? AND guide_id = ?", companyID, v.Guide.ID).Order("position").Find(&v.Criteria).Error; err != nil {
		return nil, fmt.Errorf("load criteria: %w", err)
	}
	return &v, nil
}

// JobByExternalID loads the company's job with the ATS job id, not deleted.
func (s *Store) JobByExternalID(ctx context.Context, companyID uuid.UUID, externalID string) (*models.Job, error) {
	var j models.Job
	err := s.db.WithContext(ctx).First(&j, "company_id = ? AND external_id = ? AND NOT is_deleted", companyID, externalID).Error
	if err != nil {
		return nil, notFound(err, "job "+externalID)
	}
	return &j, nil
}

// SetJobStatus moves a generated job between ACTIVE and PAUSED. A job whose interview is being
// generated keeps GENERATING and gets status when its guide is stored (GenerationOptions.Active).
func (s *Store) SetJobStatus(ctx context.Context, companyID, id uuid.UUID, status models.JobStatus) error {
	if status != models.JobStatusActive && status != models.JobStatusPaused {
		return fmt.Errorf("job status %q: want ACTIVE or PAUSED", status)
	}
	res := s.db.WithContext(ctx).Exec(`UPDATE jobs SET
		status = CASE WHEN status = 'GENERATING' THEN status ELSE ? END,
		generation_options = CASE WHEN status = 'GENERATING' THEN jsonb_set(generation_options, '{active}', to_jsonb(?::boolean)) ELSE generation_options END,
		updated_at = now()
		WHERE company_id = ? AND id = ? AND status IN ('ACTIVE', 'PAUSED', 'GENERATING')`,
		status, status == models.JobStatusActive, companyID, id)
	if res.Error != nil {
		return fmt.Errorf("set job status: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("generated job %s: %w", id, ErrNotFound)
	}
	return nil
}

// intArray passes ns for an int[] parameter.
func intArray(ns []int32) pgtype.Array[int32] {
	return pgtype.Array[int32]{Elements: ns, Dims: []pgtype.ArrayDimension{{Length: int32(len(ns)), LowerBound: 1}}, Valid: true}
}

// nullTextArray passes ts for a text[] parameter whose elements may be NULL.
func nullTextArray(ts []pgtype.Text) pgtype.Array[pgtype.Text] {
	return pgtype.Array[pgtype.Text]{Elements: ts, Dims: []pgtype.ArrayDimension{{Length: int32(len(ts)), LowerBound: 1}}, Valid: true}
}
