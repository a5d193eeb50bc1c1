-- getCheatingDetectionStats byJob in a window without reading the window's flagged evaluations
-- (issue 32, point 6). Its evaluated counts per job read job_daily_running (migration 00059): one
-- or two rows per job; its flagged counts read every evaluation of the window at or above the
-- threshold (about 52k rows for a quarter at 1M candidates of recruitd seed demo, through the
-- score index, with a heap visit each for the job).
--
-- job_score_daily counts the cheating evaluations by job, UTC day of the evaluation and whole
-- score point (floor of the score, 0..100). Like the tables of migration 00056 it is folded rows
-- plus insert-only deltas behind a view (registered in rollup_folded, folded by rollup_fold), so
-- no two evaluations wait on each other's row.
--
-- job_score_running holds, for each job and each day of job_score_daily_folded, the job's
-- evaluations of that day and every earlier one at or above each whole point:
-- at_least[p + 1] = evaluations with floor(cheating_score) >= p (p = 0..100). A job's flagged
-- evaluations over the whole days [S, U) at a threshold whose next whole point is P are
-- at_least[P + 1] of its last row before U minus that of its last row before S, plus the pending
-- deltas of the window at points >= P (and the source rows of a fractional threshold's partial
-- point): two index lookups per job whatever the window, as job_daily_running for the evaluated
-- counts. A statement-level trigger on job_score_daily_folded rewrites the changed jobs' rows
-- from the earliest changed day on, in the statement that changed them (a fold of today's deltas
-- rewrites one row per job), so a reader of both sides stays exact.
-- rollup_rebuild's part 'scores' recomputes both (rollup_job_scores_rebuild: about 4 minutes at
-- 1M candidates on a loaded machine, mostly the PL/pgSQL pass, so this migration takes that long
-- on such a database); the parallel seed's generator counts both itself
-- (internal/seed/scale_jobscores.go).

-- +goose Up
CREATE TABLE job_score_daily_folded (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL,
    score      smallint NOT NULL, -- floor(cheating_score)
    evaluated  bigint NOT NULL,
    PRIMARY KEY (company_id, job_id, day, score),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE TABLE job_score_daily_deltas (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL,
    score      smallint NOT NULL,
    evaluated  bigint NOT NULL,
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX job_score_daily_deltas_idx ON job_score_daily_deltas (company_id, job_id, day, score);
INSERT INTO rollup_folded VALUES ('job_score_daily', '{company_id,job_id,day,score}', '{evaluated}');
-- The view as migration 00060 makes those of rollup_folded.
CREATE VIEW job_score_daily AS
SELECT f.company_id, f.job_id, f.day, f.score, (f.evaluated + coalesce(d.evaluated, 0))::bigint AS evaluated
FROM job_score_daily_folded f
LEFT JOIN (SELECT company_id, job_id, day, score, sum(evaluated)::bigint AS evaluated FROM job_score_daily_deltas
           GROUP BY company_id, job_id, day, score) d
    ON d.company_id = f.company_id AND d.job_id = f.job_id AND d.day = f.day AND d.score = f.score
UNION ALL
SELECT d.company_id, d.job_id, d.day, d.score, sum(d.evaluated)::bigint AS evaluated
FROM job_score_daily_deltas d
WHERE NOT EXISTS (SELECT 1 FROM job_score_daily_folded f
                  WHERE d.company_id = f.company_id AND d.job_id = f.job_id AND d.day = f.day AND d.score = f.score)
GROUP BY d.company_id, d.job_id, d.day, d.score;

-- +goose StatementBegin
CREATE FUNCTION rollup_job_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Rows of jobs being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO job_score_daily_deltas
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, floor(cheating_score)::smallint, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER cheating_evaluations_job_scores_insert AFTER INSERT ON cheating_evaluations REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_scores_trigger();
CREATE TRIGGER cheating_evaluations_job_scores_update AFTER UPDATE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_scores_trigger();
CREATE TRIGGER cheating_evaluations_job_scores_delete AFTER DELETE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_scores_trigger();

CREATE TABLE job_score_running (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL,
    at_least   integer[] NOT NULL, -- [p + 1]: evaluations up to day with floor(cheating_score) >= p, p = 0..100
    PRIMARY KEY (company_id, job_id, day),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- job_score_running_rows computes the rows of job_score_running of the company's given jobs from
-- the given days on (p_days parallel to p_jobs; all of the company's jobs from their first day
-- when p_jobs is NULL), from each job's row before that day and job_score_daily_folded.
-- +goose StatementBegin
CREATE FUNCTION job_score_running_rows(p_company uuid, p_jobs uuid[], p_days date[])
RETURNS TABLE (job_id uuid, day date, at_least integer[]) LANGUAGE plpgsql AS $$
DECLARE
    f record;
    per integer[]; -- the evaluations of each point (not at or above it) up to the current day
    cur_job uuid;
    cur_day date;
BEGIN
    FOR f IN
        SELECT ch.job_id AS job, ch.day AS from_day, s.day, s.score, s.evaluated
        FROM (SELECT j AS job_id, min(d) AS day FROM unnest(p_jobs, p_days) x(j, d) GROUP BY 1
              UNION ALL
              (SELECT DISTINCT ON (s.job_id) s.job_id, s.day FROM job_score_daily_folded s
               WHERE p_jobs IS NULL AND s.company_id = p_company ORDER BY s.job_id, s.day)) ch
        CROSS JOIN LATERAL (SELECT s.day, s.score, s.evaluated FROM job_score_daily_folded s
            WHERE s.company_id = p_company AND s.job_id = ch.job_id AND s.day >= ch.day AND s.evaluated <> 0
            ORDER BY s.day, s.score) s
        ORDER BY ch.job_id, s.day
    LOOP
        IF cur_job IS DISTINCT FROM f.job OR cur_day IS DISTINCT FROM f.day THEN
            IF cur_day IS NOT NULL THEN
                job_id := cur_job; day := cur_day;
                at_least := ARRAY(SELECT sum(x) OVER (ORDER BY i DESC) FROM unnest(per) WITH ORDINALITY u(x, i) ORDER BY i);
                RETURN NEXT;
            END IF;
            IF cur_job IS DISTINCT FROM f.job THEN
                -- The job's row before the first recomputed day, back to counts per point.
                SELECT ARRAY(SELECT u.x - coalesce(r.at_least[u.i::int + 1], 0) FROM unnest(r.at_least) WITH ORDINALITY u(x, i) ORDER BY u.i)
                INTO per FROM job_score_running r
                WHERE r.company_id = p_company AND r.job_id = f.job AND r.day < f.from_day ORDER BY r.day DESC LIMIT 1;
                IF per IS NULL THEN
                    per := array_fill(0, ARRAY[101]);
                END IF;
            END IF;
            cur_job := f.job; cur_day := f.day;
        END IF;
        per[f.score + 1] := per[f.score + 1] + f.evaluated;
    END LOOP;
    IF cur_day IS NOT NULL THEN
        job_id := cur_job; day := cur_day;
        at_least := ARRAY(SELECT sum(x) OVER (ORDER BY i DESC) FROM unnest(per) WITH ORDINALITY u(x, i) ORDER BY i);
        RETURN NEXT;
    END IF;
END $$;
-- +goose StatementEnd

-- rollup_job_score_running recomputes the rows of the given jobs (parallel arrays) from the given
-- days on. Recomputations of one company run one at a time (each sees the folded rows the one
-- before committed).
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running(p_companies uuid[], p_jobs uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
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
CREATE FUNCTION rollup_job_score_running_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
        PERFORM rollup_job_score_running(companies, jobs, days);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER job_score_daily_folded_running_insert AFTER INSERT ON job_score_daily_folded REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_score_running_trigger();
CREATE TRIGGER job_score_daily_folded_running_update AFTER UPDATE ON job_score_daily_folded REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_score_running_trigger();
CREATE TRIGGER job_score_daily_folded_running_delete AFTER DELETE ON job_score_daily_folded REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_job_score_running_trigger();

-- rollup_job_score_running_rebuild recomputes a company's job_score_running from
-- job_score_daily_folded.
-- +goose StatementBegin
CREATE FUNCTION rollup_job_score_running_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('job_score_running'), hashtext(p_company::text));
    DELETE FROM job_score_running WHERE company_id = p_company;
    INSERT INTO job_score_running SELECT p_company, r.* FROM job_score_running_rows(p_company, NULL, NULL) r;
END $$;
-- +goose StatementEnd

-- rollup_job_scores_rebuild recomputes a company's job_score_daily from its evaluations, and
-- job_score_running from it (the folded rows' trigger does, or with triggers off the rebuild).
-- +goose StatementBegin
CREATE FUNCTION rollup_job_scores_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- The folded rows' triggers recompute job_score_running: the company's rows go first, the
    -- inserted rows' jobs are recomputed from their first day.
    PERFORM pg_advisory_xact_lock(hashtext('job_score_running'), hashtext(p_company::text));
    DELETE FROM job_score_daily_deltas WHERE company_id = p_company;
    DELETE FROM job_score_running WHERE company_id = p_company;
    DELETE FROM job_score_daily_folded WHERE company_id = p_company;
    INSERT INTO job_score_daily_folded
    SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, floor(cheating_score)::smallint, count(*)
    FROM cheating_evaluations e
    WHERE company_id = p_company AND EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = e.company_id AND j.id = e.job_id)
    GROUP BY 1, 2, 3, 4;
    -- A loader's rebuild runs with triggers off (session_replication_role replica).
    IF NOT EXISTS (SELECT 1 FROM job_score_running WHERE company_id = p_company) THEN
        PERFORM rollup_job_score_running_rebuild(p_company);
    END IF;
END $$;
-- +goose StatementEnd

ALTER FUNCTION rollup_rebuild(uuid, text) RENAME TO rollup_rebuild_before_00061;
-- +goose StatementBegin
CREATE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_rebuild_before_00061(p_company, p_part);
    IF p_part IS NULL OR p_part = 'scores' THEN
        PERFORM rollup_job_scores_rebuild(p_company);
    END IF;
END $$;
-- +goose StatementEnd

SELECT rollup_job_scores_rebuild(id) FROM companies;
ANALYZE job_score_daily_folded;
ANALYZE job_score_running;

-- +goose Down
DROP FUNCTION rollup_rebuild(uuid, text);
ALTER FUNCTION rollup_rebuild_before_00061(uuid, text) RENAME TO rollup_rebuild;
DROP FUNCTION rollup_job_scores_rebuild(uuid);
DROP FUNCTION rollup_job_score_running_rebuild(uuid);
DROP TRIGGER cheating_evaluations_job_scores_insert ON cheating_evaluations;
DROP TRIGGER cheating_evaluations_job_scores_update ON cheating_evaluations;
DROP TRIGGER cheating_evaluations_job_scores_delete ON cheating_evaluations;
DROP FUNCTION rollup_job_scores_trigger();
DROP TABLE job_score_running;
DROP FUNCTION rollup_job_score_running_trigger() CASCADE;
DROP FUNCTION rollup_job_score_running(uuid[], uuid[], date[]);
DROP FUNCTION job_score_running_rows(uuid, uuid[], date[]);
DELETE FROM rollup_folded WHERE name = 'job_score_daily';
DROP VIEW job_score_daily;
DROP TABLE job_score_daily_deltas;
DROP TABLE job_score_daily_folded;
