-- listTemplates counts the active jobs that use templates in a few rows per company, not one or
-- more per job (issue 32): its interview-guide adoption read every active job, its guide and the
-- template-marked questions and criteria (13,398 rows at 3M candidates of the demo seed, growing
-- tenfold per tenfold data), and its resume-fit ranking joined every job with a template.
--
-- jobs.guide_from_template says that the job's interview guide has a question or grading
-- criterion copied from a template (their template_id). Statement-level triggers on the
-- questions, the criteria and the guides keep it: after a statement changes some guides' items
-- they recompute those guides' mark and update the jobs whose mark changed (a guide is written
-- whole, by one transaction at a time: internal/store SaveGuide under the job's row lock).
-- The rollups count jobs by it:
--
-- * resume_fit_jobs: jobs by resume-fit template, status and deleted (resumeFit's exact
--   per-template counts);
-- * guide_template_jobs: jobs whose guide is from a template, by status and deleted
--   (interviewGuide's proxy).
--
-- As job_counts (migration 00059) they are views over folded rows plus insert-only deltas that
-- the jobs' statement-level triggers append, listed in rollup_folded so that rollup_fold folds
-- them; rollup_job_counts_rebuild (rollup_rebuild's part 'other', the seed's part 'jobs')
-- recomputes them, guide_template_jobs from the questions and criteria themselves, so that
-- rollups check also finds a wrong guide_from_template. No foreign key to templates: a deleted
-- template sets its jobs' resume_fit_template_id to NULL, whose trigger takes them off its row.

-- +goose Up
ALTER TABLE jobs ADD COLUMN guide_from_template boolean NOT NULL DEFAULT false;
-- The backfill is no change of the jobs: no updated_at, no trigger (the rollups are rebuilt below).
ALTER TABLE jobs DISABLE TRIGGER USER;
UPDATE jobs j SET guide_from_template = true
WHERE EXISTS (SELECT 1 FROM interview_guides g WHERE g.company_id = j.company_id AND g.job_id = j.id AND (
    EXISTS (SELECT 1 FROM interview_questions q WHERE q.company_id = g.company_id AND q.guide_id = g.id AND q.template_id IS NOT NULL)
    OR EXISTS (SELECT 1 FROM grading_criteria c WHERE c.company_id = g.company_id AND c.guide_id = g.id AND c.template_id IS NOT NULL)));
ALTER TABLE jobs ENABLE TRIGGER USER;

-- guide_from_template_refresh sets the mark of the jobs of the given guides from their
-- questions and criteria; a job whose guide is gone (replaced, or deleted with the job) loses it.
-- +goose StatementBegin
CREATE FUNCTION guide_from_template_refresh(p_companies uuid[], p_guides uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE jobs j SET guide_from_template = m.marked
    FROM (SELECT g.company_id, g.job_id,
                 EXISTS (SELECT 1 FROM interview_questions q WHERE q.company_id = g.company_id AND q.guide_id = g.id AND q.template_id IS NOT NULL)
                 OR EXISTS (SELECT 1 FROM grading_criteria c WHERE c.company_id = g.company_id AND c.guide_id = g.id AND c.template_id IS NOT NULL) AS marked
          FROM (SELECT DISTINCT c, g FROM unnest(p_companies, p_guides) x(c, g)) a
          JOIN interview_guides g ON g.company_id = a.c AND g.id = a.g) m
    WHERE j.company_id = m.company_id AND j.id = m.job_id AND j.guide_from_template IS DISTINCT FROM m.marked;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION guide_items_mark_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies uuid[];
    guides uuid[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(company_id), array_agg(guide_id) INTO companies, guides FROM new_rows WHERE template_id IS NOT NULL;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(company_id), array_agg(guide_id) INTO companies, guides FROM old_rows WHERE template_id IS NOT NULL;
    ELSE
        SELECT array_agg(company_id), array_agg(guide_id) INTO companies, guides FROM (
            SELECT company_id, guide_id FROM old_rows UNION SELECT company_id, guide_id FROM new_rows) x;
    END IF;
    IF companies IS NOT NULL THEN
        PERFORM guide_from_template_refresh(companies, guides);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- Only marked rows change a mark when inserted or deleted; an update may move or unmark any.
CREATE TRIGGER interview_questions_mark_insert AFTER INSERT ON interview_questions REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guide_items_mark_trigger();
CREATE TRIGGER interview_questions_mark_update AFTER UPDATE ON interview_questions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guide_items_mark_trigger();
CREATE TRIGGER interview_questions_mark_delete AFTER DELETE ON interview_questions REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guide_items_mark_trigger();
CREATE TRIGGER grading_criteria_mark_insert AFTER INSERT ON grading_criteria REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guide_items_mark_trigger();
CREATE TRIGGER grading_criteria_mark_update AFTER UPDATE ON grading_criteria REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guide_items_mark_trigger();
CREATE TRIGGER grading_criteria_mark_delete AFTER DELETE ON grading_criteria REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guide_items_mark_trigger();

-- A deleted guide takes its job's mark with it (its items' own triggers find the guide gone); a
-- guide moved to another job marks both by their items.
-- +goose StatementBegin
CREATE FUNCTION guides_mark_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies uuid[];
    guides uuid[];
BEGIN
    UPDATE jobs j SET guide_from_template = false FROM old_rows o
    WHERE j.company_id = o.company_id AND j.id = o.job_id AND j.guide_from_template
      AND NOT EXISTS (SELECT 1 FROM interview_guides g WHERE g.company_id = o.company_id AND g.job_id = o.job_id);
    IF TG_OP = 'UPDATE' THEN
        SELECT array_agg(company_id), array_agg(id) INTO companies, guides FROM new_rows;
        PERFORM guide_from_template_refresh(companies, guides);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER interview_guides_mark_update AFTER UPDATE ON interview_guides REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guides_mark_trigger();
CREATE TRIGGER interview_guides_mark_delete AFTER DELETE ON interview_guides REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION guides_mark_trigger();

-- The mark is derived: a job whose only change is its mark keeps its updated_at (the guide
-- details' default job is the one updated last).
DROP TRIGGER jobs_set_updated_at ON jobs;
CREATE TRIGGER jobs_set_updated_at BEFORE UPDATE ON jobs FOR EACH ROW
    WHEN (OLD.guide_from_template IS NOT DISTINCT FROM NEW.guide_from_template
          OR OLD IS DISTINCT FROM jsonb_populate_record(NEW, jsonb_build_object('guide_from_template', OLD.guide_from_template)))
    EXECUTE FUNCTION set_updated_at();

CREATE TABLE resume_fit_jobs_folded (
    company_id  uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    template_id uuid NOT NULL,
    status      text NOT NULL,
    is_deleted  boolean NOT NULL,
    jobs        bigint NOT NULL,
    PRIMARY KEY (company_id, template_id, status, is_deleted)
);
CREATE TABLE resume_fit_jobs_deltas (
    company_id  uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    template_id uuid NOT NULL,
    status      text NOT NULL,
    is_deleted  boolean NOT NULL,
    jobs        bigint NOT NULL
);
CREATE INDEX resume_fit_jobs_deltas_idx ON resume_fit_jobs_deltas (company_id, template_id, status, is_deleted);
CREATE VIEW resume_fit_jobs AS
SELECT company_id, template_id, status, is_deleted, sum(jobs)::bigint AS jobs
FROM (SELECT * FROM resume_fit_jobs_folded UNION ALL SELECT * FROM resume_fit_jobs_deltas) x
GROUP BY company_id, template_id, status, is_deleted;

CREATE TABLE guide_template_jobs_folded (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    status     text NOT NULL,
    is_deleted boolean NOT NULL,
    jobs       bigint NOT NULL,
    PRIMARY KEY (company_id, status, is_deleted)
);
CREATE TABLE guide_template_jobs_deltas (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    status     text NOT NULL,
    is_deleted boolean NOT NULL,
    jobs       bigint NOT NULL
);
CREATE INDEX guide_template_jobs_deltas_idx ON guide_template_jobs_deltas (company_id, status, is_deleted);
CREATE VIEW guide_template_jobs AS
SELECT company_id, status, is_deleted, sum(jobs)::bigint AS jobs
FROM (SELECT * FROM guide_template_jobs_folded UNION ALL SELECT * FROM guide_template_jobs_deltas) x
GROUP BY company_id, status, is_deleted;

INSERT INTO rollup_folded VALUES
    ('resume_fit_jobs', '{company_id,template_id,status,is_deleted}', '{jobs}'),
    ('guide_template_jobs', '{company_id,status,is_deleted}', '{jobs}');

-- +goose StatementBegin
CREATE FUNCTION rollup_template_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO resume_fit_jobs_deltas
        SELECT company_id, resume_fit_template_id, status, is_deleted, sum(sign)
        FROM (%s) r WHERE resume_fit_template_id IS NOT NULL AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0
    $q$, src);
    EXECUTE format($q$
        INSERT INTO guide_template_jobs_deltas
        SELECT company_id, status, is_deleted, sum(sign)
        FROM (%s) r WHERE guide_from_template AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0
    $q$, src);
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- Triggers of their own beside the jobs' rollup triggers of migration 00059 (rollup_attach
-- names them after the table).
CREATE TRIGGER jobs_template_rollup_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_template_jobs_trigger();
CREATE TRIGGER jobs_template_rollup_update AFTER UPDATE ON jobs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_template_jobs_trigger();
CREATE TRIGGER jobs_template_rollup_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_template_jobs_trigger();

-- rollup_template_jobs_rebuild recomputes a company's two rollups, the guides' adoption from
-- their questions and criteria.
-- +goose StatementBegin
CREATE FUNCTION rollup_template_jobs_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM resume_fit_jobs_deltas WHERE company_id = p_company;
    DELETE FROM resume_fit_jobs_folded WHERE company_id = p_company;
    INSERT INTO resume_fit_jobs_folded
    SELECT company_id, resume_fit_template_id, status, is_deleted, count(*)
    FROM jobs WHERE company_id = p_company AND resume_fit_template_id IS NOT NULL GROUP BY 1, 2, 3, 4;
    DELETE FROM guide_template_jobs_deltas WHERE company_id = p_company;
    DELETE FROM guide_template_jobs_folded WHERE company_id = p_company;
    INSERT INTO guide_template_jobs_folded
    SELECT j.company_id, j.status, j.is_deleted, count(*)
    FROM jobs j JOIN interview_guides g ON g.company_id = j.company_id AND g.job_id = j.id
    WHERE j.company_id = p_company AND g.id IN (
        SELECT q.guide_id FROM interview_questions q WHERE q.company_id = p_company AND q.template_id IS NOT NULL
        UNION
        SELECT c.guide_id FROM grading_criteria c WHERE c.company_id = p_company AND c.template_id IS NOT NULL)
    GROUP BY 1, 2, 3;
END $$;
-- +goose StatementEnd

-- rollup_job_counts_rebuild (rollup_rebuild's part 'other', the seed's load part) rebuilds them
-- too.
ALTER FUNCTION rollup_job_counts_rebuild(uuid) RENAME TO rollup_job_counts_rebuild_before_00067;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_counts_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_job_counts_rebuild_before_00067(p_company);
    PERFORM rollup_template_jobs_rebuild(p_company);
END $$;
-- +goose StatementEnd

SELECT rollup_template_jobs_rebuild(id) FROM companies;
ANALYZE resume_fit_jobs_folded;
ANALYZE guide_template_jobs_folded;

-- +goose Down
DROP TRIGGER interview_guides_mark_update ON interview_guides;
DROP TRIGGER interview_guides_mark_delete ON interview_guides;
DROP FUNCTION guides_mark_trigger();
DROP TRIGGER interview_questions_mark_insert ON interview_questions;
DROP TRIGGER interview_questions_mark_update ON interview_questions;
DROP TRIGGER interview_questions_mark_delete ON interview_questions;
DROP TRIGGER grading_criteria_mark_insert ON grading_criteria;
DROP TRIGGER grading_criteria_mark_update ON grading_criteria;
DROP TRIGGER grading_criteria_mark_delete ON grading_criteria;
DROP FUNCTION guide_items_mark_trigger();
DROP FUNCTION guide_from_template_refresh(uuid[], uuid[]);
DROP TRIGGER jobs_set_updated_at ON jobs;
CREATE TRIGGER jobs_set_updated_at BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION set_updated_at();
DROP FUNCTION rollup_job_counts_rebuild(uuid);
ALTER FUNCTION rollup_job_counts_rebuild_before_00067(uuid) RENAME TO rollup_job_counts_rebuild;
DROP FUNCTION rollup_template_jobs_rebuild(uuid);
DROP TRIGGER jobs_template_rollup_insert ON jobs;
DROP TRIGGER jobs_template_rollup_update ON jobs;
DROP TRIGGER jobs_template_rollup_delete ON jobs;
DROP FUNCTION rollup_template_jobs_trigger();
DELETE FROM rollup_folded WHERE name IN ('resume_fit_jobs', 'guide_template_jobs');
DROP VIEW guide_template_jobs;
DROP TABLE guide_template_jobs_deltas;
DROP TABLE guide_template_jobs_folded;
DROP VIEW resume_fit_jobs;
DROP TABLE resume_fit_jobs_deltas;
DROP TABLE resume_fit_jobs_folded;
ALTER TABLE jobs DROP COLUMN guide_from_template;
