-- getInterviewStats byInterviewer and every other per-job window of job_daily_running (migration
-- 00059, toolkit's JobDays) probed the running rows once per job for the window's lower bound:
-- 18,000 probes (68,000 buffers) per call at the 20,000 jobs of 10M candidates of the demo seed,
-- though a job whose last running row is before the window's start has nothing in the window.
-- job_daily_latest holds the day of each job's last running row, so a window with a start reads
-- only the jobs with a day in it or after it: the work follows the jobs active since the start.
--
-- It is written where job_daily_running is, as job_score_latest is (migration 00066):
-- rollup_job_daily_running (the fold's trigger) refreshes the latest days of the jobs it
-- recomputed, rollup_job_daily_running_rebuild those of the company (the parallel seed's "jobs"
-- load part calls it), each after its body of migration 00059 and under its advisory lock.
-- rollups check compares them with a rebuild.

-- +goose Up
CREATE TABLE job_daily_latest (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL, -- the day of the job's last job_daily_running row
    PRIMARY KEY (company_id, job_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- rollup_job_daily_latest rewrites the latest days of the company's given jobs (all of them when
-- p_jobs is NULL) from job_daily_running.
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_latest(p_company uuid, p_jobs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_jobs IS NULL THEN
        DELETE FROM job_daily_latest WHERE company_id = p_company;
        INSERT INTO job_daily_latest
        SELECT company_id, job_id, max(day) FROM job_daily_running WHERE company_id = p_company GROUP BY 1, 2;
        RETURN;
    END IF;
    DELETE FROM job_daily_latest WHERE company_id = p_company AND job_id = ANY (p_jobs);
    INSERT INTO job_daily_latest
    SELECT p_company, j.id, r.day FROM (SELECT DISTINCT x FROM unnest(p_jobs) x) j(id)
    CROSS JOIN LATERAL (SELECT r.day FROM job_daily_running r
                        WHERE r.company_id = p_company AND r.job_id = j.id ORDER BY r.day DESC LIMIT 1) r;
END $$;
-- +goose StatementEnd

-- The fold's recomputation and the rebuild keep their bodies of migration 00059 under a new name
-- and refresh the latest days after them, still under the company's advisory lock (held to the
-- end of the transaction); the trigger calls rollup_job_daily_running by name.
ALTER FUNCTION rollup_job_daily_running(uuid[], uuid[], date[]) RENAME TO rollup_job_daily_running_before_00070;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    c uuid;
BEGIN
    PERFORM rollup_job_daily_running_before_00070(p_companies, p_jobs, p_days);
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        PERFORM rollup_job_daily_latest(c, (SELECT array_agg(j) FROM unnest(p_companies, p_jobs) x(k, j) WHERE k = c));
    END LOOP;
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_job_daily_running_rebuild(uuid) RENAME TO rollup_job_daily_running_rebuild_before_00070;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_job_daily_running_rebuild_before_00070(p_company);
    PERFORM rollup_job_daily_latest(p_company, NULL);
END $$;
-- +goose StatementEnd

SELECT rollup_job_daily_latest(id, NULL) FROM companies;
ANALYZE job_daily_latest;

-- +goose Down
DROP FUNCTION rollup_job_daily_running_rebuild(uuid);
ALTER FUNCTION rollup_job_daily_running_rebuild_before_00070(uuid) RENAME TO rollup_job_daily_running_rebuild;
DROP FUNCTION rollup_job_daily_running(uuid[], uuid[], date[]);
ALTER FUNCTION rollup_job_daily_running_before_00070(uuid[], uuid[], date[]) RENAME TO rollup_job_daily_running;
DROP FUNCTION rollup_job_daily_latest(uuid, uuid[]);
DROP TABLE job_daily_latest;
