-- A per-job window with a start (getInterviewStats byInterviewer and the other readers of
-- toolkit's JobDays, getCheatingDetectionStats byJob through JobScores) read each active job's
-- lower bound, its last running row before the start, by a B-tree descent of job_daily_running
-- or job_score_running per job: 18,000 descents (about 6 us each, 108 ms) per call at the 20,000
-- jobs of 10M candidates of the demo seed, where every job is active in a quarter's window.
--
-- job_daily_weekly and job_score_weekly hold, for each job and each Monday strictly after its
-- first running row and on or before its last one, the job's running row of the last day before
-- that Monday. The last running row before a start S is then the job's last running row in
-- [M, S), M being the Monday on or before S, or else its weekly row of M, or else none: the rows
-- of at most six days and one weekly row per job, read by day in one range scan each (the new
-- indexes by company and day), not a descent per job. A job whose last running row is before
-- S has nothing in the window and is not read (job_daily_latest, job_score_latest). A window's
-- end is read the same way for the jobs with a running row on or after it (the others end at
-- their latest row). The counts of job_daily_* are in their indexes (index-only scans);
-- the score arrays of job_score_* are not (101 integers a row), so their rows are written in
-- the order of their days, as the folds write them, and a day's rows share pages.
--
-- They are written where the running rows are: rollup_job_daily_running and
-- rollup_job_score_running (the folds' triggers) rewrite the weekly rows of the jobs they
-- recomputed after the job's last running row before its earliest recomputed day (a fold of
-- today's deltas writes at most one), the rebuilds those of the company, each after its body of
-- migrations 00070 and 00066 and under its advisory lock. The parallel seed writes
-- job_score_weekly with the running rows (internal/seed/scale_jobscores.go) and job_daily_weekly
-- through rollup_job_daily_running_rebuild. rollups check compares them with a rebuild.

-- +goose Up
CREATE TABLE job_daily_weekly (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    week       date NOT NULL, -- a Monday
    sessions   bigint NOT NULL,
    completed  bigint NOT NULL,
    evaluated  bigint NOT NULL,
    PRIMARY KEY (company_id, week, job_id) INCLUDE (sessions, completed, evaluated),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX job_daily_weekly_job_idx ON job_daily_weekly (company_id, job_id, week);
CREATE TABLE job_score_weekly (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    week       date NOT NULL, -- a Monday
    at_least   integer[] NOT NULL,
    PRIMARY KEY (company_id, week, job_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX job_score_weekly_job_idx ON job_score_weekly (company_id, job_id, week);

-- The running rows of a few days of every job, by day.
CREATE INDEX job_daily_running_day_idx ON job_daily_running (company_id, day) INCLUDE (job_id, sessions, completed, evaluated);
CREATE INDEX job_score_running_day_idx ON job_score_running (company_id, day) INCLUDE (job_id);

-- rollup_job_weekly rewrites the weekly rows (table <p_table>_weekly, value columns p_values) of
-- the given jobs (parallel arrays) from the running rows (<p_table>_running) of each job's last day
-- before its earliest given day on; all of the given companies' when p_jobs is NULL. The Mondays
-- after a running row and up to the next one's day take its values.
-- +goose StatementBegin
CREATE FUNCTION rollup_job_weekly(p_table text, p_values text, p_companies uuid[], p_jobs uuid[], p_days date[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    -- The weekly rows of the running rows r (with each one's next day) of a FROM clause.
    weekly_of text := format($q$
        INSERT INTO %1$I (company_id, job_id, week, %2$s)
        SELECT r.company_id, r.job_id, w.week::date, %3$s FROM %%s
        CROSS JOIN LATERAL generate_series((r.day + 8 - extract(isodow FROM r.day)::int)::timestamp, r.next::timestamp, interval '7 days') w(week)
        WHERE r.next IS NOT NULL$q$, p_table || '_weekly', p_values, 'r.' || replace(p_values, ', ', ', r.'));
    -- Each given job's last running row before its earliest given day (or that day).
    from_days text := format($q$(
        SELECT ch.job_id, coalesce((SELECT r.day FROM %I r WHERE r.company_id = $1 AND r.job_id = ch.job_id AND r.day < ch.day
                                    ORDER BY r.day DESC LIMIT 1), ch.day) AS day
        FROM (SELECT j AS job_id, min(d) AS day FROM unnest($2::uuid[], $3::date[]) x(j, d) GROUP BY 1) ch) f$q$, p_table || '_running');
    c uuid;
    jobs uuid[];
    days date[];
BEGIN
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        IF p_jobs IS NULL THEN
            EXECUTE format('DELETE FROM %I WHERE company_id = $1', p_table || '_weekly') USING c;
            -- In the order of the Mondays, as the folds write them: a reader of one Monday's rows
            -- reads adjacent rows.
            EXECUTE format(weekly_of, format('(SELECT r.*, lead(r.day) OVER (PARTITION BY r.job_id ORDER BY r.day) AS next FROM %I r WHERE r.company_id = $1) r',
                p_table || '_running')) || ' ORDER BY 3, 2' USING c;
            CONTINUE;
        END IF;
        SELECT array_agg(j), array_agg(d) INTO jobs, days FROM unnest(p_companies, p_jobs, p_days) x(k, j, d) WHERE k = c;
        EXECUTE format('DELETE FROM %I w USING %s WHERE w.company_id = $1 AND w.job_id = f.job_id AND w.week > f.day', p_table || '_weekly', from_days)
            USING c, jobs, days;
        EXECUTE format(weekly_of, format('%s CROSS JOIN LATERAL (SELECT r.*, lead(r.day) OVER (ORDER BY r.day) AS next FROM %I r
            WHERE r.company_id = $1 AND r.job_id = f.job_id AND r.day >= f.day) r', from_days, p_table || '_running')) USING c, jobs, days;
    END LOOP;
END $$;
-- +goose StatementEnd

-- The fold's recomputations and the rebuilds keep their bodies of migrations 00070 and 00066
-- under new names and rewrite the weekly rows after them, still under the company's advisory
-- lock (held to the end of the transaction).
ALTER FUNCTION rollup_job_daily_running(uuid[], uuid[], date[]) RENAME TO rollup_job_daily_running_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE sql AS $$
    SELECT rollup_job_daily_running_before_00071(p_companies, p_jobs, p_days);
    SELECT rollup_job_weekly('job_daily', 'sessions, completed, evaluated', p_companies, p_jobs, p_days);
$$;
-- +goose StatementEnd
ALTER FUNCTION rollup_job_daily_running_rebuild(uuid) RENAME TO rollup_job_daily_running_rebuild_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running_rebuild(p_company uuid) RETURNS void LANGUAGE sql AS $$
    SELECT rollup_job_daily_running_rebuild_before_00071(p_company);
    SELECT rollup_job_weekly('job_daily', 'sessions, completed, evaluated', ARRAY[p_company], NULL, NULL);
$$;
-- +goose StatementEnd
ALTER FUNCTION rollup_job_score_running(uuid[], uuid[], date[]) RENAME TO rollup_job_score_running_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE sql AS $$
    SELECT rollup_job_score_running_before_00071(p_companies, p_jobs, p_days);
    SELECT rollup_job_weekly('job_score', 'at_least', p_companies, p_jobs, p_days);
$$;
-- +goose StatementEnd
ALTER FUNCTION rollup_job_score_running_rebuild(uuid) RENAME TO rollup_job_score_running_rebuild_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running_rebuild(p_company uuid) RETURNS void LANGUAGE sql AS $$
    SELECT rollup_job_score_running_rebuild_before_00071(p_company);
    SELECT rollup_job_weekly('job_score', 'at_least', ARRAY[p_company], NULL, NULL);
$$;
-- +goose StatementEnd

SELECT rollup_job_weekly('job_daily', 'sessions, completed, evaluated', array_agg(id), NULL, NULL),
       rollup_job_weekly('job_score', 'at_least', array_agg(id), NULL, NULL)
FROM companies;
ANALYZE job_daily_weekly;
ANALYZE job_score_weekly;

-- +goose Down
DROP FUNCTION rollup_job_score_running_rebuild(uuid);
ALTER FUNCTION rollup_job_score_running_rebuild_before_00071(uuid) RENAME TO rollup_job_score_running_rebuild;
DROP FUNCTION rollup_job_score_running(uuid[], uuid[], date[]);
ALTER FUNCTION rollup_job_score_running_before_00071(uuid[], uuid[], date[]) RENAME TO rollup_job_score_running;
DROP FUNCTION rollup_job_daily_running_rebuild(uuid);
ALTER FUNCTION rollup_job_daily_running_rebuild_before_00071(uuid) RENAME TO rollup_job_daily_running_rebuild;
DROP FUNCTION rollup_job_daily_running(uuid[], uuid[], date[]);
ALTER FUNCTION rollup_job_daily_running_before_00071(uuid[], uuid[], date[]) RENAME TO rollup_job_daily_running;
DROP FUNCTION rollup_job_weekly(text, text, uuid[], uuid[], date[]);
DROP INDEX job_score_running_day_idx;
DROP INDEX job_daily_running_day_idx;
DROP TABLE job_score_weekly;
DROP TABLE job_daily_weekly;
