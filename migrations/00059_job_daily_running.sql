-- Per-job counts in a date window read in one or two rows per job, not one per job and day
-- (issue 32): getCheatingDetectionStats byJob and getInterviewStats byInterviewer since a date
-- summed job_daily over the window, 382k rows at 1M candidates of recruitd seed demo (a job per
-- 500 candidates, active on ~190 days each).
--
-- job_daily_running holds, for each job and each day of job_daily_folded with a count, the job's
-- counts of that day and every earlier one. A job's counts over the whole days [S, U) are its row
-- with the last day before U minus its row with the last day before S (no row: zero), plus the
-- pending deltas of job_rollup_deltas in [S, U): job_daily_running covers the folded rows of the
-- view job_daily (migration 00050) only.
--
-- A statement-level trigger on job_daily_folded recomputes the changed jobs' rows from the
-- earliest changed day on, in the statement that changed them (a fold moves deltas into
-- job_daily_folded and job_daily_running at once, so a reader of both sides stays exact). A fold
-- of today's deltas rewrites one row per job. rollup_rebuild's part 'sessions' (and a whole
-- rebuild) recomputes the company's rows after job_daily_folded.
--
-- job_counts counts the company's jobs by status, open, deleted and identity verification, so
-- getCompanyFeatures counts its active jobs (and getPositionStats its positions without a
-- creation window) in a few rows, not one per job (3,029 rows at 1M).
-- As job_totals (migration 00050) it is a view over folded rows (job_counts_folded) plus the
-- insert-only deltas of job_counts_deltas that the jobs' statement-level trigger appends (no row
-- shared by concurrent job writes); it is one of the tables of rollup_folded (migration 00056),
-- so rollup_fold folds it with the others; rollup_rebuild's part 'other' recomputes it.

-- +goose Up
CREATE TABLE job_daily_running (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL,
    sessions   bigint NOT NULL,
    completed  bigint NOT NULL,
    evaluated  bigint NOT NULL,
    PRIMARY KEY (company_id, job_id, day),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- rollup_job_daily_running recomputes the rows of the given jobs (parallel arrays) from the given
-- days on. Recomputations of one company run one at a time (each sees the folded rows the one
-- before committed).
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('job_daily_running'), hashtext(c::text))
    FROM (SELECT DISTINCT c FROM unnest(p_companies) c ORDER BY 1) x;
    DELETE FROM job_daily_running r USING (
        SELECT c AS company_id, j AS job_id, min(d) AS day FROM unnest(p_companies, p_jobs, p_days) x(c, j, d) GROUP BY 1, 2) ch
    WHERE r.company_id = ch.company_id AND r.job_id = ch.job_id AND r.day >= ch.day;
    INSERT INTO job_daily_running
    SELECT f.company_id, f.job_id, f.day,
           b.sessions + sum(f.sessions) OVER w, b.completed + sum(f.completed) OVER w, b.evaluated + sum(f.evaluated) OVER w
    FROM (SELECT c AS company_id, j AS job_id, min(d) AS day FROM unnest(p_companies, p_jobs, p_days) x(c, j, d) GROUP BY 1, 2) ch
    CROSS JOIN LATERAL (
        SELECT coalesce(max(r.sessions), 0) AS sessions, coalesce(max(r.completed), 0) AS completed, coalesce(max(r.evaluated), 0) AS evaluated
        FROM (SELECT * FROM job_daily_running r WHERE r.company_id = ch.company_id AND r.job_id = ch.job_id AND r.day < ch.day
              ORDER BY r.day DESC LIMIT 1) r) b
    JOIN job_daily_folded f ON f.company_id = ch.company_id AND f.job_id = ch.job_id AND f.day >= ch.day
    WHERE f.sessions <> 0 OR f.completed <> 0 OR f.evaluated <> 0
    WINDOW w AS (PARTITION BY f.company_id, f.job_id ORDER BY f.day);
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies uuid[];
    jobs uuid[];
    days date[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(company_id), array_agg(job_id), array_agg(day) INTO companies, jobs, days FROM new_rows;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT array_agg(company_id), array_agg(job_id), array_agg(day) INTO companies, jobs, days FROM (
            SELECT company_id, job_id, day FROM new_rows UNION SELECT company_id, job_id, day FROM old_rows) x;
    ELSE
        -- Rows of jobs being deleted (a cascade) are skipped: their running rows go with them.
        SELECT array_agg(company_id), array_agg(job_id), array_agg(day) INTO companies, jobs, days FROM old_rows o
        WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = o.company_id AND j.id = o.job_id);
    END IF;
    IF companies IS NOT NULL THEN
        PERFORM rollup_job_daily_running(companies, jobs, days);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER job_daily_folded_running_insert AFTER INSERT ON job_daily_folded REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_daily_running_trigger();
CREATE TRIGGER job_daily_folded_running_update AFTER UPDATE ON job_daily_folded REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_daily_running_trigger();
CREATE TRIGGER job_daily_folded_running_delete AFTER DELETE ON job_daily_folded REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_daily_running_trigger();

-- rollup_job_daily_running_rebuild recomputes a company's job_daily_running from job_daily_folded.
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('job_daily_running'), hashtext(p_company::text));
    DELETE FROM job_daily_running WHERE company_id = p_company;
    INSERT INTO job_daily_running
    SELECT company_id, job_id, day, sum(sessions) OVER w, sum(completed) OVER w, sum(evaluated) OVER w
    FROM job_daily_folded
    WHERE company_id = p_company AND (sessions <> 0 OR completed <> 0 OR evaluated <> 0)
    WINDOW w AS (PARTITION BY job_id ORDER BY day);
END $$;
-- +goose StatementEnd

CREATE TABLE job_counts_folded (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    status     text NOT NULL,
    is_open    boolean NOT NULL,
    is_deleted boolean NOT NULL,
    identity   boolean NOT NULL, -- enable_identity_verification
    jobs       bigint NOT NULL,
    PRIMARY KEY (company_id, status, is_open, is_deleted, identity)
);
CREATE TABLE job_counts_deltas (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    status     text NOT NULL,
    is_open    boolean NOT NULL,
    is_deleted boolean NOT NULL,
    identity   boolean NOT NULL,
    jobs       bigint NOT NULL
);
CREATE INDEX job_counts_deltas_idx ON job_counts_deltas (company_id, status, is_open, is_deleted, identity);
CREATE VIEW job_counts AS
SELECT company_id, status, is_open, is_deleted, identity, sum(jobs)::bigint AS jobs
FROM (SELECT * FROM job_counts_folded UNION ALL SELECT * FROM job_counts_deltas) x
GROUP BY company_id, status, is_open, is_deleted, identity;

-- +goose StatementBegin
CREATE FUNCTION rollup_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO job_counts_deltas
        SELECT company_id, status, is_open, is_deleted, enable_identity_verification, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
SELECT rollup_attach('jobs', 'rollup_jobs_trigger');

INSERT INTO rollup_folded VALUES ('job_counts', '{company_id,status,is_open,is_deleted,identity}', '{jobs}');

-- +goose StatementBegin
CREATE FUNCTION rollup_job_counts_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_counts_deltas WHERE company_id = p_company;
    DELETE FROM job_counts_folded WHERE company_id = p_company;
    INSERT INTO job_counts_folded
    SELECT company_id, status, is_open, is_deleted, enable_identity_verification, count(*)
    FROM jobs WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5;
END $$;
-- +goose StatementEnd

-- rollup_rebuild's part 'sessions' (and a whole rebuild) recomputes job_daily_running too; part
-- 'other' job_counts.
ALTER FUNCTION rollup_rebuild(uuid, text) RENAME TO rollup_rebuild_before_00059;
-- +goose StatementBegin
CREATE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_rebuild_before_00059(p_company, p_part);
    IF p_part IS NULL OR p_part = 'sessions' THEN
        PERFORM rollup_job_daily_running_rebuild(p_company);
    END IF;
    IF p_part IS NULL OR p_part = 'other' THEN
        PERFORM rollup_job_counts_rebuild(p_company);
    END IF;
END $$;
-- +goose StatementEnd

SELECT rollup_job_daily_running_rebuild(id) FROM companies;
SELECT rollup_job_counts_rebuild(id) FROM companies;
ANALYZE job_daily_running;
ANALYZE job_counts_folded;

-- +goose Down
DROP TRIGGER jobs_rollup_insert ON jobs;
DROP TRIGGER jobs_rollup_update ON jobs;
DROP TRIGGER jobs_rollup_delete ON jobs;
DROP FUNCTION rollup_jobs_trigger();
DELETE FROM rollup_folded WHERE name = 'job_counts';
DROP FUNCTION rollup_job_counts_rebuild(uuid);
DROP VIEW job_counts;
DROP TABLE job_counts_deltas;
DROP TABLE job_counts_folded;
DROP FUNCTION rollup_rebuild(uuid, text);
ALTER FUNCTION rollup_rebuild_before_00059(uuid, text) RENAME TO rollup_rebuild;
DROP FUNCTION rollup_job_daily_running_rebuild(uuid);
DROP FUNCTION rollup_job_daily_running_trigger() CASCADE;
DROP FUNCTION rollup_job_daily_running(uuid[], uuid[], date[]);
DROP TABLE job_daily_running;
