-- getCheatingDetectionStats byJob read each job's last row of job_score_running (migration
-- 00061) by an index probe per job: one random page of a table of 549 MB at 3M candidates of
-- the demo seed (101 integers a row, a row per job and day), cold on most calls. job_score_latest
-- holds that last row of every job (3 MB at 3M), so all-time byJob, and the upper bound of a
-- window that runs to now, read the company's rows in one range scan: 45-65 -> 16 ms for one
-- call at 3M. A window that starts later than the job's first day still probes the running
-- rows once per job for its lower bound.
--
-- It is written where job_score_running is: rollup_job_score_running (the fold's trigger)
-- refreshes the latest rows of the jobs it recomputed, rollup_job_score_running_rebuild those of
-- the company, under the same advisory lock; the parallel seed writes them with the running rows
-- (internal/seed/scale_jobscores.go). rollups check compares them with a rebuild.

-- +goose Up
CREATE TABLE job_score_latest (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL,
    at_least   integer[] NOT NULL, -- job_score_running's at_least of the job's last day
    PRIMARY KEY (company_id, job_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- rollup_job_score_latest rewrites the latest rows of the company's given jobs (all of them when
-- p_jobs is NULL) from job_score_running.
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_latest(p_company uuid, p_jobs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_jobs IS NULL THEN
        DELETE FROM job_score_latest WHERE company_id = p_company;
        INSERT INTO job_score_latest
        SELECT DISTINCT ON (r.job_id) r.company_id, r.job_id, r.day, r.at_least FROM job_score_running r
        WHERE r.company_id = p_company ORDER BY r.job_id, r.day DESC;
        RETURN;
    END IF;
    DELETE FROM job_score_latest WHERE company_id = p_company AND job_id = ANY (p_jobs);
    INSERT INTO job_score_latest
    SELECT p_company, j.id, r.day, r.at_least FROM (SELECT DISTINCT x FROM unnest(p_jobs) x) j(id)
    CROSS JOIN LATERAL (SELECT r.day, r.at_least FROM job_score_running r
                        WHERE r.company_id = p_company AND r.job_id = j.id ORDER BY r.day DESC LIMIT 1) r;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_job_score_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    c uuid;
    jobs uuid[];
    days date[];
BEGIN
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(hashtext('job_score_running'), hashtext(c::text));
        SELECT array_agg(j), array_agg(d) INTO jobs, days FROM unnest(p_companies, p_jobs, p_days) x(k, j, d) WHERE k = c;
        -- Each job's rows from its earliest changed day on; the new ones start from its row before.
        DELETE FROM job_score_running r USING (SELECT j AS job_id, min(d) AS day FROM unnest(jobs, days) x(j, d) GROUP BY 1) ch
        WHERE r.company_id = c AND r.job_id = ch.job_id AND r.day >= ch.day;
        INSERT INTO job_score_running SELECT c, n.job_id, n.day, n.at_least FROM job_score_running_rows(c, jobs, days) n;
        PERFORM rollup_job_score_latest(c, jobs);
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_job_score_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('job_score_running'), hashtext(p_company::text));
    DELETE FROM job_score_running WHERE company_id = p_company;
    INSERT INTO job_score_running SELECT p_company, r.* FROM job_score_running_rows(p_company, NULL, NULL) r;
    PERFORM rollup_job_score_latest(p_company, NULL);
END $$;
-- +goose StatementEnd

SELECT rollup_job_score_latest(id, NULL) FROM companies;
ANALYZE job_score_latest;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_job_score_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    c uuid;
    jobs uuid[];
    days date[];
BEGIN
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(hashtext('job_score_running'), hashtext(c::text));
        SELECT array_agg(j), array_agg(d) INTO jobs, days FROM unnest(p_companies, p_jobs, p_days) x(k, j, d) WHERE k = c;
        -- Each job's rows from its earliest changed day on; the new ones start from its row before.
        DELETE FROM job_score_running r USING (SELECT j AS job_id, min(d) AS day FROM unnest(jobs, days) x(j, d) GROUP BY 1) ch
        WHERE r.company_id = c AND r.job_id = ch.job_id AND r.day >= ch.day;
        INSERT INTO job_score_running SELECT c, n.job_id, n.day, n.at_least FROM job_score_running_rows(c, jobs, days) n;
    END LOOP;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_job_score_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('job_score_running'), hashtext(p_company::text));
    DELETE FROM job_score_running WHERE company_id = p_company;
    INSERT INTO job_score_running SELECT p_company, r.* FROM job_score_running_rows(p_company, NULL, NULL) r;
END $$;
-- +goose StatementEnd
DROP FUNCTION rollup_job_score_latest(uuid, uuid[]);
DROP TABLE job_score_latest;
