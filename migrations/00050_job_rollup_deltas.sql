-- The per-job rollups without a hot row. job_totals and job_daily were one row per job (and
-- day) that every session change of the job updated: 200 candidates interviewing for one job at
-- once queued on that row (and the sessions' transactions locked it first, to keep one lock
-- order with invitations), so consents and completions waited seconds and timed out (issue 32).
--
-- Now the triggers of interview_sessions and cheating_evaluations append their per-job deltas to
-- job_rollup_deltas, an insert-only table on which no two transactions wait; the folded rows live
-- in job_totals_folded and job_daily_folded (the former tables, renamed); job_totals and
-- job_daily are views that add the pending deltas to the folded rows, so every reader stays exact
-- at every moment. rollup_fold_jobs moves the deltas into the folded rows in one statement
-- (recruitd's workers call it every few seconds: internal/rollup.FoldLoop); how often it runs
-- bounds only how many deltas a read adds up, never what it answers.
--
-- The distinct applicants were a recount of the job's applications upserted into the job's row:
-- a hot row for invitations to one job, and not exact under concurrency (two invitations at once
-- each counted without the other's uncommitted application, and the second's count overwrote the
-- first's). Now job_applicants counts each (job, candidate) pair's applications and a pair that
-- becomes (or stops being) an applicant appends +1 (or -1) to the job's deltas.

-- +goose Up
ALTER TABLE job_totals RENAME TO job_totals_folded;
ALTER TABLE job_daily RENAME TO job_daily_folded;

-- Applications per job and candidate: the job's applicants are its pairs with applications > 0.
CREATE TABLE job_applicants (
    company_id   uuid NOT NULL,
    job_id       uuid NOT NULL,
    candidate_id uuid NOT NULL,
    applications bigint NOT NULL,
    PRIMARY KEY (company_id, job_id, candidate_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
INSERT INTO job_applicants
SELECT company_id, job_id, candidate_id, count(*) FROM applications WHERE job_id IS NOT NULL GROUP BY 1, 2, 3;

-- Per-job deltas: a session's counts by its invitation day, an evaluation's by its day.
CREATE TABLE job_rollup_deltas (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    day        date NOT NULL,
    applicants bigint NOT NULL DEFAULT 0, -- job_totals only
    sessions   bigint NOT NULL DEFAULT 0,
    completed  bigint NOT NULL DEFAULT 0,
    evaluated  bigint NOT NULL DEFAULT 0,
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX job_rollup_deltas_job_idx ON job_rollup_deltas (company_id, job_id, day);

-- The views keep the tables' columns in their order. A filter on company_id or job_id reaches
-- both sides of the UNION (they are grouping columns), so a company's read scans its own rows.
CREATE VIEW job_totals AS
SELECT company_id, job_id, sum(applicants)::bigint AS applicants, sum(sessions)::bigint AS sessions,
       sum(completed)::bigint AS completed, sum(evaluated)::bigint AS evaluated
FROM (SELECT company_id, job_id, applicants, sessions, completed, evaluated FROM job_totals_folded
      UNION ALL
      SELECT company_id, job_id, applicants, sessions, completed, evaluated FROM job_rollup_deltas) x
GROUP BY company_id, job_id;

CREATE VIEW job_daily AS
SELECT company_id, day, job_id, sum(sessions)::bigint AS sessions, sum(completed)::bigint AS completed,
       sum(evaluated)::bigint AS evaluated
FROM (SELECT company_id, day, job_id, sessions, completed, evaluated FROM job_daily_folded
      UNION ALL
      SELECT company_id, day, job_id, sessions, completed, evaluated FROM job_rollup_deltas
      WHERE sessions <> 0 OR completed <> 0 OR evaluated <> 0) x
GROUP BY company_id, day, job_id;

-- rollup_fold_jobs moves the pending deltas (of one company, or of all when p_company is NULL)
-- into the folded rows in one statement: a reader sees each delta on one side or the other,
-- never on both. Folds of all companies run one at a time (a second returns -1 at once); a
-- company's fold (a rebuild's) waits for a running one. Returns the number of deltas folded.
-- +goose StatementBegin
CREATE FUNCTION rollup_fold_jobs(p_company uuid DEFAULT NULL) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    IF p_company IS NULL AND NOT pg_try_advisory_xact_lock(hashtext('rollup_fold_jobs')) THEN
        RETURN -1;
    END IF;
    WITH d AS (
        DELETE FROM job_rollup_deltas WHERE p_company IS NULL OR company_id = p_company
        RETURNING company_id, job_id, day, applicants, sessions, completed, evaluated
    ), t AS (
        INSERT INTO job_totals_folded AS f (company_id, job_id, applicants, sessions, completed, evaluated)
        SELECT company_id, job_id, sum(applicants), sum(sessions), sum(completed), sum(evaluated) FROM d
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, job_id) DO UPDATE SET applicants = f.applicants + excluded.applicants, sessions = f.sessions + excluded.sessions,
            completed = f.completed + excluded.completed, evaluated = f.evaluated + excluded.evaluated
    ), j AS (
        INSERT INTO job_daily_folded AS f (company_id, day, job_id, sessions, completed, evaluated)
        SELECT company_id, day, job_id, sum(sessions), sum(completed), sum(evaluated) FROM d
        WHERE sessions <> 0 OR completed <> 0 OR evaluated <> 0
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, day, job_id) DO UPDATE SET sessions = f.sessions + excluded.sessions,
            completed = f.completed + excluded.completed, evaluated = f.evaluated + excluded.evaluated
    )
    SELECT count(*) INTO n FROM d;
    RETURN n;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_sessions_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
    companies uuid[];
    candidates uuid[];
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO session_daily AS d
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, status, medium_type, decision, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (company_id, day, status, medium_type, decision) DO UPDATE SET sessions = d.sessions + excluded.sessions
    $q$, src);
    EXECUTE format($q$
        INSERT INTO completion_slots AS d
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), medium_type,
               sum(sign), coalesce(sum(sign) FILTER (WHERE duration_seconds IS NOT NULL), 0), coalesce(sum(sign * duration_seconds), 0)
        FROM (%s) r WHERE status = 'COMPLETED' AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3
        HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE duration_seconds IS NOT NULL) <> 0 OR sum(sign * duration_seconds) <> 0
        ORDER BY 1, 2, 3
        ON CONFLICT (company_id, slot, medium_type) DO UPDATE SET completed = d.completed + excluded.completed,
            duration_n = d.duration_n + excluded.duration_n, duration_sum = d.duration_sum + excluded.duration_sum
    $q$, src);
    -- Per-job counts go to the insert-only deltas (no row shared by the job's sessions); the
    -- views job_totals and job_daily add them to the folded rows.
    EXECUTE format($q$
        INSERT INTO job_rollup_deltas (company_id, job_id, day, sessions, completed)
        SELECT company_id, job_id, (invited_at AT TIME ZONE 'UTC')::date, sum(sign), coalesce(sum(sign) FILTER (WHERE status = 'COMPLETED'), 0)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE status = 'COMPLETED') <> 0
    $q$, src);
    -- Journeys depend on more than one row per candidate: recompute the changed candidates'.
    EXECUTE format($q$
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT company_id, candidate_id FROM (%s) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, r.invited_at, r.started_at, r.status, r.decision, r.completed_at, r.medium_type
            HAVING sum(sign) <> 0) x
    $q$, src) INTO companies, candidates;
    IF companies IS NOT NULL THEN
        PERFORM rollup_journeys(companies, candidates);
        PERFORM rollup_candidate_media(companies, candidates);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_applications_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
    companies uuid[];
    candidates uuid[];
BEGIN
    -- Distinct applicants per job: each (job, candidate) pair counts its applications in
    -- job_applicants (a row per pair, so no two candidates' applications wait on one row); a
    -- pair whose count leaves or reaches zero appends +1 or -1 to the job's deltas. Pairs left
    -- at zero stay (a later application counts from zero again).
    EXECUTE format($q$
        WITH c AS (
            SELECT company_id, job_id, candidate_id, sum(sign) AS n FROM (%s) r
            WHERE job_id IS NOT NULL AND EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
            GROUP BY 1, 2, 3 HAVING sum(sign) <> 0
        ), u AS (
            INSERT INTO job_applicants AS p SELECT company_id, job_id, candidate_id, n FROM c ORDER BY 1, 2, 3
            ON CONFLICT (company_id, job_id, candidate_id) DO UPDATE SET applications = p.applications + excluded.applications
            RETURNING p.company_id, p.job_id, p.candidate_id, p.applications
        )
        INSERT INTO job_rollup_deltas (company_id, job_id, day, applicants)
        SELECT u.company_id, u.job_id, current_date, sum((u.applications > 0)::int - (u.applications - c.n > 0)::int)
        FROM u JOIN c USING (company_id, job_id, candidate_id)
        GROUP BY 1, 2 HAVING sum((u.applications > 0)::int - (u.applications - c.n > 0)::int) <> 0
    $q$, src);
    EXECUTE format($q$
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT company_id, candidate_id FROM (%s) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, r.created_at HAVING sum(sign) <> 0) x
    $q$, src) INTO companies, candidates;
    IF companies IS NOT NULL THEN
        PERFORM rollup_journeys(companies, candidates);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_evaluations_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
BEGIN
    EXECUTE format($q$
        INSERT INTO evaluation_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated
    $q$, src);
    -- Per-job counts: the insert-only deltas, as the sessions' trigger.
    EXECUTE format($q$
        INSERT INTO job_rollup_deltas (company_id, job_id, day, evaluated)
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0
    $q$, src);
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- Independent parts (a loader may run them on separate connections at once): journeys
    -- (candidate_journeys, then journey_daily from it), candidate_media, the other session
    -- rollups, the other sources, and the score histograms (migration 00047).
    IF p_part IS NOT NULL AND p_part NOT IN ('journeys', 'media', 'sessions', 'other', 'scores') THEN
        RAISE EXCEPTION 'rollup_rebuild: unknown part %', p_part;
    END IF;
    -- The parts that recompute job_totals_folded and job_daily_folded fold the company's pending
    -- deltas first (migration 00050), so each part alone leaves its view exact.
    IF p_part IS NULL OR p_part IN ('sessions', 'other') THEN
        PERFORM rollup_fold_jobs(p_company);
    END IF;
    IF p_part IS NULL OR p_part = 'sessions' THEN
        DELETE FROM session_daily WHERE company_id = p_company;
        DELETE FROM completion_slots WHERE company_id = p_company;
        DELETE FROM job_daily_folded WHERE company_id = p_company;
        INSERT INTO session_daily
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, status, medium_type, decision, count(*)
        FROM interview_sessions WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5;
        INSERT INTO completion_slots
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), medium_type,
               count(*), count(duration_seconds), coalesce(sum(duration_seconds), 0)
        FROM interview_sessions WHERE company_id = p_company AND status = 'COMPLETED' GROUP BY 1, 2, 3;
        INSERT INTO job_daily_folded
        SELECT p_company, day, job_id, coalesce(s.n, 0), coalesce(s.completed, 0), coalesce(e.n, 0)
        FROM (SELECT (invited_at AT TIME ZONE 'UTC')::date AS day, job_id, count(*) AS n,
                     count(*) FILTER (WHERE status = 'COMPLETED') AS completed
              FROM interview_sessions WHERE company_id = p_company GROUP BY 1, 2) s
        FULL JOIN (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, job_id, count(*) AS n
                   FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2) e USING (day, job_id);
    END IF;
    IF p_part IS NULL OR p_part = 'media' THEN
        DELETE FROM candidate_media WHERE company_id = p_company;
        INSERT INTO candidate_media
        SELECT company_id, candidate_id, medium_type, min(completed_at), max(completed_at), count(*)
        FROM interview_sessions WHERE company_id = p_company AND status = 'COMPLETED' GROUP BY 1, 2, 3;
        -- After candidate_media (whose triggers update media_candidates only when triggers are on).
        DELETE FROM media_candidates WHERE company_id = p_company;
        INSERT INTO media_candidates
        SELECT company_id, medium_type, count(*) FROM candidate_media WHERE company_id = p_company GROUP BY 1, 2;
    END IF;
    IF p_part IS NULL OR p_part = 'journeys' THEN
        DELETE FROM candidate_journeys WHERE company_id = p_company;
        INSERT INTO candidate_journeys
        SELECT p_company, candidate_id, min(entered),
               bool_or(invited), bool_or(started), bool_or(completed), bool_or(positive), bool_or(hired),
               min(completed_at) FILTER (WHERE completed), max(completed_at) FILTER (WHERE completed),
               count(*) FILTER (WHERE completed)
        FROM (
            SELECT candidate_id, created_at AS entered, false AS invited, false AS started, false AS completed,
                   false AS positive, false AS hired, NULL::timestamptz AS completed_at
            FROM applications WHERE company_id = p_company
            UNION ALL
            SELECT candidate_id, invited_at, true, started_at IS NOT NULL OR status IN ('STARTED', 'COMPLETED'),
                   status = 'COMPLETED', decision IN ('ACCEPTED', 'SUBMITTED', 'PLACED', 'HIRED'), decision = 'HIRED',
                   completed_at
            FROM interview_sessions WHERE company_id = p_company
        ) x
        GROUP BY candidate_id;
        -- After the journeys (whose triggers update journey_daily only when triggers are on).
        DELETE FROM journey_daily WHERE company_id = p_company;
        INSERT INTO journey_daily
        SELECT company_id, (entered_at AT TIME ZONE 'UTC')::date, invited, started, completed, positive, hired, count(*)
        FROM candidate_journeys WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM journey_last_daily WHERE company_id = p_company;
        INSERT INTO journey_last_daily
        SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, count(*)
        FROM candidate_journeys WHERE company_id = p_company AND completed_n > 0 GROUP BY 1, 2;
    END IF;
    IF p_part IS NULL OR p_part = 'other' THEN
        DELETE FROM evaluation_daily WHERE company_id = p_company;
        DELETE FROM fraud_daily WHERE company_id = p_company;
        DELETE FROM identity_daily WHERE company_id = p_company;
        DELETE FROM candidate_daily WHERE company_id = p_company;
        DELETE FROM job_totals_folded WHERE company_id = p_company;
        DELETE FROM job_applicants WHERE company_id = p_company;
        INSERT INTO job_applicants
        SELECT company_id, job_id, candidate_id, count(*) FROM applications
        WHERE company_id = p_company AND job_id IS NOT NULL GROUP BY 1, 2, 3;
        INSERT INTO evaluation_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, count(*)
        FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2;
        INSERT INTO fraud_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, count(*),
               count(*) FILTER (WHERE disposable_email), count(*) FILTER (WHERE voip_phone),
               count(*) FILTER (WHERE vpn_proxy_ip), count(*) FILTER (WHERE thin_profile),
               count(*) FILTER (WHERE footprint_anomaly),
               count(*) FILTER (WHERE overall_verification_score < 25),
               count(*) FILTER (WHERE overall_verification_score >= 25 AND overall_verification_score < 50),
               count(*) FILTER (WHERE overall_verification_score >= 50 AND overall_verification_score < 75),
               count(*) FILTER (WHERE overall_verification_score >= 75)
        FROM fraud_verifications WHERE company_id = p_company GROUP BY 1, 2;
        INSERT INTO identity_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), count(*)
        FROM identity_verifications WHERE company_id = p_company GROUP BY 1, 2, 3, 4;
        INSERT INTO candidate_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, count(*)
        FROM candidates WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO job_totals_folded
        SELECT p_company, j.id, coalesce(a.n, 0), coalesce(s.n, 0), coalesce(s.completed, 0), coalesce(e.n, 0)
        FROM jobs j
        LEFT JOIN (SELECT job_id, count(DISTINCT candidate_id) AS n FROM applications
                   WHERE company_id = p_company AND job_id IS NOT NULL GROUP BY 1) a ON a.job_id = j.id
        LEFT JOIN (SELECT job_id, count(*) AS n, count(*) FILTER (WHERE status = 'COMPLETED') AS completed
                   FROM interview_sessions WHERE company_id = p_company GROUP BY 1) s ON s.job_id = j.id
        LEFT JOIN (SELECT job_id, count(*) AS n FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1) e ON e.job_id = j.id
        WHERE j.company_id = p_company AND (a.n IS NOT NULL OR s.n IS NOT NULL OR e.n IS NOT NULL);
    END IF;
    IF p_part IS NULL OR p_part = 'scores' THEN
        DELETE FROM evaluation_scores WHERE company_id = p_company;
        DELETE FROM job_evaluation_scores WHERE company_id = p_company;
        DELETE FROM fraud_scores WHERE company_id = p_company;
        DELETE FROM candidate_scores WHERE company_id = p_company;
        DELETE FROM candidate_score_counts WHERE company_id = p_company;
        DELETE FROM completion_slot_totals WHERE company_id = p_company;
        INSERT INTO completion_slot_totals
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), count(*),
               count(duration_seconds), coalesce(sum(duration_seconds), 0)
        FROM interview_sessions WHERE company_id = p_company AND status = 'COMPLETED' GROUP BY 1, 2;
        INSERT INTO evaluation_scores
        SELECT company_id, floor(cheating_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, count(*)
        FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO job_evaluation_scores
        SELECT company_id, floor(cheating_score)::smallint, job_id, count(*)
        FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO fraud_scores
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, count(*)
        FROM fraud_verifications WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO candidate_scores
        SELECT p_company, candidate_id, max(cheating), min(fraud) FROM (
            SELECT candidate_id, cheating_score AS cheating, NULL::numeric AS fraud FROM cheating_evaluations WHERE company_id = p_company
            UNION ALL
            SELECT candidate_id, NULL, overall_verification_score FROM fraud_verifications WHERE company_id = p_company
        ) x
        WHERE EXISTS (SELECT 1 FROM candidates k WHERE k.company_id = p_company AND k.id = x.candidate_id)
        GROUP BY candidate_id;
        -- After candidate_scores (whose triggers update candidate_score_counts only when triggers are on).
        DELETE FROM candidate_score_counts WHERE company_id = p_company;
        INSERT INTO candidate_score_counts
        SELECT company_id, 'cheating', floor(max_cheating)::smallint, count(*) FROM candidate_scores
        WHERE company_id = p_company AND max_cheating IS NOT NULL GROUP BY 1, 2, 3
        UNION ALL
        SELECT company_id, 'fraud', floor(min_fraud)::smallint, count(*) FROM candidate_scores
        WHERE company_id = p_company AND min_fraud IS NOT NULL GROUP BY 1, 2, 3;
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
SELECT rollup_fold_jobs(id) FROM companies;
DROP VIEW job_totals, job_daily;
DROP FUNCTION rollup_fold_jobs(uuid);
DROP TABLE job_rollup_deltas, job_applicants;
ALTER TABLE job_totals_folded RENAME TO job_totals;
ALTER TABLE job_daily_folded RENAME TO job_daily;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_sessions_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
    companies uuid[];
    candidates uuid[];
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO session_daily AS d
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, status, medium_type, decision, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (company_id, day, status, medium_type, decision) DO UPDATE SET sessions = d.sessions + excluded.sessions
    $q$, src);
    EXECUTE format($q$
        INSERT INTO completion_slots AS d
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), medium_type,
               sum(sign), coalesce(sum(sign) FILTER (WHERE duration_seconds IS NOT NULL), 0), coalesce(sum(sign * duration_seconds), 0)
        FROM (%s) r WHERE status = 'COMPLETED' AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3
        HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE duration_seconds IS NOT NULL) <> 0 OR sum(sign * duration_seconds) <> 0
        ORDER BY 1, 2, 3
        ON CONFLICT (company_id, slot, medium_type) DO UPDATE SET completed = d.completed + excluded.completed,
            duration_n = d.duration_n + excluded.duration_n, duration_sum = d.duration_sum + excluded.duration_sum
    $q$, src);
    EXECUTE format($q$
        INSERT INTO job_totals AS d (company_id, job_id, sessions, completed)
        SELECT company_id, job_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status = 'COMPLETED'), 0)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE status = 'COMPLETED') <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, job_id) DO UPDATE SET sessions = d.sessions + excluded.sessions, completed = d.completed + excluded.completed
    $q$, src);
    EXECUTE format($q$
        INSERT INTO job_daily AS d (company_id, day, job_id, sessions, completed)
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, job_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status = 'COMPLETED'), 0)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE status = 'COMPLETED') <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, day, job_id) DO UPDATE SET sessions = d.sessions + excluded.sessions, completed = d.completed + excluded.completed
    $q$, src);
    -- Journeys depend on more than one row per candidate: recompute the changed candidates'.
    EXECUTE format($q$
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT company_id, candidate_id FROM (%s) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, r.invited_at, r.started_at, r.status, r.decision, r.completed_at, r.medium_type
            HAVING sum(sign) <> 0) x
    $q$, src) INTO companies, candidates;
    IF companies IS NOT NULL THEN
        PERFORM rollup_journeys(companies, candidates);
        PERFORM rollup_candidate_media(companies, candidates);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_applications_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
    companies uuid[];
    candidates uuid[];
BEGIN
    -- Distinct applicants per job: recount the changed jobs (a few thousand rows each at most).
    EXECUTE format($q$
        INSERT INTO job_totals AS d (company_id, job_id, applicants)
        SELECT k.company_id, k.job_id,
               (SELECT count(DISTINCT a.candidate_id) FROM applications a WHERE a.company_id = k.company_id AND a.job_id = k.job_id)
        FROM (SELECT DISTINCT company_id, job_id FROM (%s) r WHERE job_id IS NOT NULL
              GROUP BY company_id, job_id, candidate_id HAVING sum(sign) <> 0) k
        WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = k.company_id AND j.id = k.job_id)
        ORDER BY 1, 2
        ON CONFLICT (company_id, job_id) DO UPDATE SET applicants = excluded.applicants
    $q$, src);
    EXECUTE format($q$
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT company_id, candidate_id FROM (%s) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, r.created_at HAVING sum(sign) <> 0) x
    $q$, src) INTO companies, candidates;
    IF companies IS NOT NULL THEN
        PERFORM rollup_journeys(companies, candidates);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_evaluations_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
BEGIN
    EXECUTE format($q$
        INSERT INTO evaluation_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated
    $q$, src);
    EXECUTE format($q$
        INSERT INTO job_totals AS d (company_id, job_id, evaluated)
        SELECT company_id, job_id, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, job_id) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated
    $q$, src);
    EXECUTE format($q$
        INSERT INTO job_daily AS d (company_id, day, job_id, evaluated)
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, job_id, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, day, job_id) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated
    $q$, src);
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- Independent parts (a loader may run them on separate connections at once): journeys
    -- (candidate_journeys, then journey_daily from it), candidate_media, the other session
    -- rollups, the other sources, and the score histograms (migration 00047).
    IF p_part IS NOT NULL AND p_part NOT IN ('journeys', 'media', 'sessions', 'other', 'scores') THEN
        RAISE EXCEPTION 'rollup_rebuild: unknown part %', p_part;
    END IF;
    IF p_part IS NULL OR p_part = 'sessions' THEN
        DELETE FROM session_daily WHERE company_id = p_company;
        DELETE FROM completion_slots WHERE company_id = p_company;
        DELETE FROM job_daily WHERE company_id = p_company;
        INSERT INTO session_daily
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, status, medium_type, decision, count(*)
        FROM interview_sessions WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5;
        INSERT INTO completion_slots
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), medium_type,
               count(*), count(duration_seconds), coalesce(sum(duration_seconds), 0)
        FROM interview_sessions WHERE company_id = p_company AND status = 'COMPLETED' GROUP BY 1, 2, 3;
        INSERT INTO job_daily
        SELECT p_company, day, job_id, coalesce(s.n, 0), coalesce(s.completed, 0), coalesce(e.n, 0)
        FROM (SELECT (invited_at AT TIME ZONE 'UTC')::date AS day, job_id, count(*) AS n,
                     count(*) FILTER (WHERE status = 'COMPLETED') AS completed
              FROM interview_sessions WHERE company_id = p_company GROUP BY 1, 2) s
        FULL JOIN (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, job_id, count(*) AS n
                   FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2) e USING (day, job_id);
    END IF;
    IF p_part IS NULL OR p_part = 'media' THEN
        DELETE FROM candidate_media WHERE company_id = p_company;
        INSERT INTO candidate_media
        SELECT company_id, candidate_id, medium_type, min(completed_at), max(completed_at), count(*)
        FROM interview_sessions WHERE company_id = p_company AND status = 'COMPLETED' GROUP BY 1, 2, 3;
        -- After candidate_media (whose triggers update media_candidates only when triggers are on).
        DELETE FROM media_candidates WHERE company_id = p_company;
        INSERT INTO media_candidates
        SELECT company_id, medium_type, count(*) FROM candidate_media WHERE company_id = p_company GROUP BY 1, 2;
    END IF;
    IF p_part IS NULL OR p_part = 'journeys' THEN
        DELETE FROM candidate_journeys WHERE company_id = p_company;
        INSERT INTO candidate_journeys
        SELECT p_company, candidate_id, min(entered),
               bool_or(invited), bool_or(started), bool_or(completed), bool_or(positive), bool_or(hired),
               min(completed_at) FILTER (WHERE completed), max(completed_at) FILTER (WHERE completed),
               count(*) FILTER (WHERE completed)
        FROM (
            SELECT candidate_id, created_at AS entered, false AS invited, false AS started, false AS completed,
                   false AS positive, false AS hired, NULL::timestamptz AS completed_at
            FROM applications WHERE company_id = p_company
            UNION ALL
            SELECT candidate_id, invited_at, true, started_at IS NOT NULL OR status IN ('STARTED', 'COMPLETED'),
                   status = 'COMPLETED', decision IN ('ACCEPTED', 'SUBMITTED', 'PLACED', 'HIRED'), decision = 'HIRED',
                   completed_at
            FROM interview_sessions WHERE company_id = p_company
        ) x
        GROUP BY candidate_id;
        -- After the journeys (whose triggers update journey_daily only when triggers are on).
        DELETE FROM journey_daily WHERE company_id = p_company;
        INSERT INTO journey_daily
        SELECT company_id, (entered_at AT TIME ZONE 'UTC')::date, invited, started, completed, positive, hired, count(*)
        FROM candidate_journeys WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM journey_last_daily WHERE company_id = p_company;
        INSERT INTO journey_last_daily
        SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, count(*)
        FROM candidate_journeys WHERE company_id = p_company AND completed_n > 0 GROUP BY 1, 2;
    END IF;
    IF p_part IS NULL OR p_part = 'other' THEN
        DELETE FROM evaluation_daily WHERE company_id = p_company;
        DELETE FROM fraud_daily WHERE company_id = p_company;
        DELETE FROM identity_daily WHERE company_id = p_company;
        DELETE FROM candidate_daily WHERE company_id = p_company;
        DELETE FROM job_totals WHERE company_id = p_company;
        INSERT INTO evaluation_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, count(*)
        FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2;
        INSERT INTO fraud_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, count(*),
               count(*) FILTER (WHERE disposable_email), count(*) FILTER (WHERE voip_phone),
               count(*) FILTER (WHERE vpn_proxy_ip), count(*) FILTER (WHERE thin_profile),
               count(*) FILTER (WHERE footprint_anomaly),
               count(*) FILTER (WHERE overall_verification_score < 25),
               count(*) FILTER (WHERE overall_verification_score >= 25 AND overall_verification_score < 50),
               count(*) FILTER (WHERE overall_verification_score >= 50 AND overall_verification_score < 75),
               count(*) FILTER (WHERE overall_verification_score >= 75)
        FROM fraud_verifications WHERE company_id = p_company GROUP BY 1, 2;
        INSERT INTO identity_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), count(*)
        FROM identity_verifications WHERE company_id = p_company GROUP BY 1, 2, 3, 4;
        INSERT INTO candidate_daily
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, count(*)
        FROM candidates WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO job_totals
        SELECT p_company, j.id, coalesce(a.n, 0), coalesce(s.n, 0), coalesce(s.completed, 0), coalesce(e.n, 0)
        FROM jobs j
        LEFT JOIN (SELECT job_id, count(DISTINCT candidate_id) AS n FROM applications
                   WHERE company_id = p_company AND job_id IS NOT NULL GROUP BY 1) a ON a.job_id = j.id
        LEFT JOIN (SELECT job_id, count(*) AS n, count(*) FILTER (WHERE status = 'COMPLETED') AS completed
                   FROM interview_sessions WHERE company_id = p_company GROUP BY 1) s ON s.job_id = j.id
        LEFT JOIN (SELECT job_id, count(*) AS n FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1) e ON e.job_id = j.id
        WHERE j.company_id = p_company AND (a.n IS NOT NULL OR s.n IS NOT NULL OR e.n IS NOT NULL);
    END IF;
    IF p_part IS NULL OR p_part = 'scores' THEN
        DELETE FROM evaluation_scores WHERE company_id = p_company;
        DELETE FROM job_evaluation_scores WHERE company_id = p_company;
        DELETE FROM fraud_scores WHERE company_id = p_company;
        DELETE FROM candidate_scores WHERE company_id = p_company;
        DELETE FROM candidate_score_counts WHERE company_id = p_company;
        DELETE FROM completion_slot_totals WHERE company_id = p_company;
        INSERT INTO completion_slot_totals
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), count(*),
               count(duration_seconds), coalesce(sum(duration_seconds), 0)
        FROM interview_sessions WHERE company_id = p_company AND status = 'COMPLETED' GROUP BY 1, 2;
        INSERT INTO evaluation_scores
        SELECT company_id, floor(cheating_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, count(*)
        FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO job_evaluation_scores
        SELECT company_id, floor(cheating_score)::smallint, job_id, count(*)
        FROM cheating_evaluations WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO fraud_scores
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, count(*)
        FROM fraud_verifications WHERE company_id = p_company GROUP BY 1, 2, 3;
        INSERT INTO candidate_scores
        SELECT p_company, candidate_id, max(cheating), min(fraud) FROM (
            SELECT candidate_id, cheating_score AS cheating, NULL::numeric AS fraud FROM cheating_evaluations WHERE company_id = p_company
            UNION ALL
            SELECT candidate_id, NULL, overall_verification_score FROM fraud_verifications WHERE company_id = p_company
        ) x
        WHERE EXISTS (SELECT 1 FROM candidates k WHERE k.company_id = p_company AND k.id = x.candidate_id)
        GROUP BY candidate_id;
        -- After candidate_scores (whose triggers update candidate_score_counts only when triggers are on).
        DELETE FROM candidate_score_counts WHERE company_id = p_company;
        INSERT INTO candidate_score_counts
        SELECT company_id, 'cheating', floor(max_cheating)::smallint, count(*) FROM candidate_scores
        WHERE company_id = p_company AND max_cheating IS NOT NULL GROUP BY 1, 2, 3
        UNION ALL
        SELECT company_id, 'fraud', floor(min_fraud)::smallint, count(*) FROM candidate_scores
        WHERE company_id = p_company AND min_fraud IS NOT NULL GROUP BY 1, 2, 3;
    END IF;
END $$;
-- +goose StatementEnd
