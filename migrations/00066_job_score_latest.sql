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
-- the company, each after its body of migration 00061 and under its advisory lock; the parallel seed writes them with the running rows
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

-- The fold's recomputation and the rebuild keep their bodies of migration 00061 under a new name
-- and refresh the latest rows after them, still under the company's advisory lock (held to the
-- end of the transaction); the trigger calls rollup_job_score_running by name.
ALTER FUNCTION rollup_job_score_running(uuid[], uuid[], date[]) RENAME TO rollup_job_score_running_before_00066;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    c uuid;
BEGIN
    PERFORM rollup_job_score_running_before_00066(p_companies, p_jobs, p_days);
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        PERFORM rollup_job_score_latest(c, (SELECT array_agg(j) FROM unnest(p_companies, p_jobs) x(k, j) WHERE k = c));
    END LOOP;
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_job_score_running_rebuild(uuid) RENAME TO rollup_job_score_running_rebuild_before_00066;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_job_score_running_rebuild_before_00066(p_company);
    PERFORM rollup_job_score_latest(p_company, NULL);
END $$;
-- +goose StatementEnd

SELECT rollup_job_score_latest(id, NULL) FROM companies;
ANALYZE job_score_latest;

-- +goose Down
DROP FUNCTION rollup_job_score_running_rebuild(uuid);
ALTER FUNCTION rollup_job_score_running_rebuild_before_00066(uuid) RENAME TO rollup_job_score_running_rebuild;
DROP FUNCTION rollup_job_score_running(uuid[], uuid[], date[]);
ALTER FUNCTION rollup_job_score_running_before_00066(uuid[], uuid[], date[]) RENAME TO rollup_job_score_running;
DROP FUNCTION rollup_job_score_latest(uuid, uuid[]);
DROP TABLE job_score_latest;
