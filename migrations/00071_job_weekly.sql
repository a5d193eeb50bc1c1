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
-- S has nothing in the window and is not read (job_daily_latest, job_score_latest). The same
-- holds for a window's end. The counts of job_daily_* are in their indexes (index-only scans);
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

-- rollup_job_weekly rewrites the weekly rows (table p_weekly, value columns p_values) of the
-- company's given jobs from the running rows (table p_running) of each job's last day before its
-- given day on (p_days parallel to p_jobs); all of the company's when p_jobs is NULL. The Mondays
-- after a running row and up to the next one's day take its values.
-- +goose StatementBegin
CREATE FUNCTION rollup_job_weekly(p_running text, p_weekly text, p_values text, p_company uuid, p_jobs uuid[], p_days date[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    -- The weekly rows of the running rows r (with each one's next day) of a FROM clause.
    weekly_of text := format($q$
        INSERT INTO %1$I (company_id, job_id, week, %2$s)
        SELECT r.company_id, r.job_id, w.week::date, %3$s FROM %%s
        CROSS JOIN LATERAL generate_series((r.day + 8 - extract(isodow FROM r.day)::int)::timestamp, r.next::timestamp, interval '7 days') w(week)
        WHERE r.next IS NOT NULL$q$, p_weekly, p_values, 'r.' || replace(p_values, ', ', ', r.'));
    -- Each given job's last running row before its earliest given day (or that day).
    from_days text := format($q$(
        SELECT ch.job_id, coalesce((SELECT r.day FROM %I r WHERE r.company_id = $1 AND r.job_id = ch.job_id AND r.day < ch.day
                                    ORDER BY r.day DESC LIMIT 1), ch.day) AS day
        FROM (SELECT j AS job_id, min(d) AS day FROM unnest($2::uuid[], $3::date[]) x(j, d) GROUP BY 1) ch) f$q$, p_running);
BEGIN
    IF p_jobs IS NULL THEN
        EXECUTE format('DELETE FROM %I WHERE company_id = $1', p_weekly) USING p_company;
        -- In the order of the Mondays, as the folds write them: a reader of one Monday's rows
        -- reads adjacent rows.
        EXECUTE format(weekly_of, format('(SELECT r.*, lead(r.day) OVER (PARTITION BY r.job_id ORDER BY r.day) AS next FROM %I r WHERE r.company_id = $1) r',
            p_running)) || ' ORDER BY 3, 2' USING p_company;
        RETURN;
    END IF;
    EXECUTE format('DELETE FROM %I w USING %s WHERE w.company_id = $1 AND w.job_id = f.job_id AND w.week > f.day', p_weekly, from_days)
        USING p_company, p_jobs, p_days;
    EXECUTE format(weekly_of, format('%s CROSS JOIN LATERAL (SELECT r.*, lead(r.day) OVER (ORDER BY r.day) AS next FROM %I r
        WHERE r.company_id = $1 AND r.job_id = f.job_id AND r.day >= f.day) r', from_days, p_running)) USING p_company, p_jobs, p_days;
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_job_daily_running(uuid[], uuid[], date[]) RENAME TO rollup_job_daily_running_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    c uuid;
BEGIN
    PERFORM rollup_job_daily_running_before_00071(p_companies, p_jobs, p_days);
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        PERFORM rollup_job_weekly('job_daily_running', 'job_daily_weekly', 'sessions, completed, evaluated', c,
            (SELECT array_agg(j) FROM unnest(p_companies, p_jobs) x(k, j) WHERE k = c),
            (SELECT array_agg(d) FROM unnest(p_companies, p_days) x(k, d) WHERE k = c));
    END LOOP;
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_job_daily_running_rebuild(uuid) RENAME TO rollup_job_daily_running_rebuild_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_daily_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_job_daily_running_rebuild_before_00071(p_company);
    PERFORM rollup_job_weekly('job_daily_running', 'job_daily_weekly', 'sessions, completed, evaluated', p_company, NULL, NULL);
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_job_score_running(uuid[], uuid[], date[]) RENAME TO rollup_job_score_running_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    c uuid;
BEGIN
    PERFORM rollup_job_score_running_before_00071(p_companies, p_jobs, p_days);
    FOR c IN SELECT DISTINCT x FROM unnest(p_companies) x ORDER BY 1 LOOP
        PERFORM rollup_job_weekly('job_score_running', 'job_score_weekly', 'at_least', c,
            (SELECT array_agg(j) FROM unnest(p_companies, p_jobs) x(k, j) WHERE k = c),
            (SELECT array_agg(d) FROM unnest(p_companies, p_days) x(k, d) WHERE k = c));
    END LOOP;
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_job_score_running_rebuild(uuid) RENAME TO rollup_job_score_running_rebuild_before_00071;
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_job_score_running_rebuild_before_00071(p_company);
    PERFORM rollup_job_weekly('job_score_running', 'job_score_weekly', 'at_least', p_company, NULL, NULL);
END $$;
-- +goose StatementEnd

SELECT rollup_job_weekly('job_daily_running', 'job_daily_weekly', 'sessions, completed, evaluated', id, NULL, NULL),
       rollup_job_weekly('job_score_running', 'job_score_weekly', 'at_least', id, NULL, NULL)
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
DROP FUNCTION rollup_job_weekly(text, text, text, uuid, uuid[], date[]);
DROP INDEX job_score_running_day_idx;
DROP INDEX job_daily_running_day_idx;
DROP TABLE job_score_weekly;
DROP TABLE job_daily_weekly;
