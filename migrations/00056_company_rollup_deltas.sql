-- The company-wide rollups without a hot row. session_daily, completion_slots,
-- completion_slot_totals, journey_daily, journey_last_daily, media_candidates and candidate_daily
-- were rows per company (and day, slot, status or medium) that every interview's consent and
-- completion, every application and every new candidate updated in place: 100 candidates of one
-- company taking interviews at once queued on the company's row of the day (a third of the
-- samples of pg_stat_activity during `recruitd bench interview` had lock waiters), and so did
-- the candidates an HR-suite delivery or a partner submission creates (issue 32).
--
-- Migration 00050's scheme, for each of them: the triggers append their deltas to <table>_deltas,
-- insert-only, on which no two transactions wait; the rows folded so far live in <table>_folded
-- (the former table, renamed, with its rows); <table> is a view adding the pending deltas to the
-- folded rows, so readers stay exact at every moment and do not change. rollup_fold moves every
-- pending delta (job_rollup_deltas and the tables of rollup_folded) into the folded rows, each
-- table in one statement; recruitd's workers call it every few seconds (internal/rollup.FoldLoop).

-- +goose Up
-- The company-wide rollups kept as folded rows and deltas: their grouping columns (the folded
-- table's primary key, in column order) and their counts (bigint, summed).
CREATE TABLE rollup_folded (
    name text PRIMARY KEY,
    keys text[] NOT NULL,
    vals text[] NOT NULL
);
INSERT INTO rollup_folded VALUES
    ('session_daily', '{company_id,day,status,medium_type,decision}', '{sessions}'),
    ('completion_slots', '{company_id,slot,medium_type}', '{completed,duration_n,duration_sum}'),
    ('completion_slot_totals', '{company_id,slot}', '{completed,duration_n,duration_sum}'),
    ('journey_daily', '{company_id,day,invited,started,completed,positive,hired}', '{candidates}'),
    ('journey_last_daily', '{company_id,day}', '{candidates}'),
    ('media_candidates', '{company_id,medium_type}', '{candidates}'),
    ('candidate_daily', '{company_id,day,status}', '{candidates}');

-- Each table becomes <name>_folded (its rows stay: the backfill), <name>_deltas takes its columns
-- without a key, and the view <name> keeps the table's columns in their order. A filter on a
-- grouping column (company_id, day, slot) reaches both sides of the UNION, so a company's read
-- scans its own rows.
-- +goose StatementBegin
DO $$
DECLARE
    t record;
    k text;
BEGIN
    FOR t IN SELECT * FROM rollup_folded ORDER BY name LOOP
        k := array_to_string(t.keys, ', ');
        EXECUTE format('ALTER TABLE %I RENAME TO %I', t.name, t.name || '_folded');
        EXECUTE format('CREATE TABLE %I (LIKE %I, FOREIGN KEY (company_id) REFERENCES companies (id) ON DELETE CASCADE)',
            t.name || '_deltas', t.name || '_folded');
        EXECUTE format('CREATE INDEX %I ON %I (%s)', t.name || '_deltas_idx', t.name || '_deltas', k);
        EXECUTE format('CREATE VIEW %I AS SELECT %s, %s FROM (SELECT %s, %s FROM %I UNION ALL SELECT %s, %s FROM %I) x GROUP BY %s',
            t.name, k, (SELECT string_agg(format('sum(%1$I)::bigint AS %1$I', v), ', ') FROM unnest(t.vals) v),
            k, array_to_string(t.vals, ', '), t.name || '_folded',
            k, array_to_string(t.vals, ', '), t.name || '_deltas', k);
    END LOOP;
END $$;
-- +goose StatementEnd

-- rollup_fold_table moves the pending deltas of one table of rollup_folded (of one company, or
-- of all when p_company is NULL) into its folded rows in one statement, so a reader sees each
-- delta on one side or the other, never on both. Returns the number of deltas folded.
-- +goose StatementBegin
CREATE FUNCTION rollup_fold_table(p_table text, p_company uuid DEFAULT NULL) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    t rollup_folded;
    k text;
    n bigint;
BEGIN
    SELECT * INTO STRICT t FROM rollup_folded WHERE name = p_table;
    k := array_to_string(t.keys, ', ');
    EXECUTE format($q$
        WITH d AS (
            DELETE FROM %I WHERE $1 IS NULL OR company_id = $1 RETURNING *
        ), i AS (
            INSERT INTO %I AS f SELECT %s, %s FROM d GROUP BY %s ORDER BY %s
            ON CONFLICT (%s) DO UPDATE SET %s
        )
        SELECT count(*) FROM d
    $q$, t.name || '_deltas', t.name || '_folded', k,
        (SELECT string_agg(format('sum(%I)', v), ', ') FROM unnest(t.vals) v), k, k, k,
        (SELECT string_agg(format('%1$I = f.%1$I + excluded.%1$I', v), ', ') FROM unnest(t.vals) v))
    INTO n USING p_company;
    RETURN n;
END $$;
-- +goose StatementEnd

-- rollup_fold folds every pending delta: the per-job ones (rollup_fold_jobs, migration 00050)
-- and those of rollup_folded's tables. Folds of all companies run one at a time (a second
-- returns -1 at once); a company's fold (a rebuild's) waits for a running one's rows.
-- +goose StatementBegin
CREATE FUNCTION rollup_fold(p_company uuid DEFAULT NULL) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    t text;
    n bigint;
BEGIN
    IF p_company IS NULL AND NOT pg_try_advisory_xact_lock(hashtext('rollup_fold')) THEN
        RETURN -1;
    END IF;
    n := greatest(rollup_fold_jobs(p_company), 0);
    FOR t IN SELECT name FROM rollup_folded ORDER BY name LOOP
        n := n + rollup_fold_table(t, p_company);
    END LOOP;
    RETURN n;
END $$;
-- +goose StatementEnd

-- The triggers append to the deltas; a rebuild writes the folded rows and drops the company's
-- deltas (those its own statements appended included) right before it recomputes a table.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_sessions_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    src text := rollup_signed(TG_OP);
    companies uuid[];
    candidates uuid[];
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO session_daily_deltas
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, status, medium_type, decision, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0
    $q$, src);
    EXECUTE format($q$
        INSERT INTO completion_slots_deltas
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'), medium_type,
               sum(sign), coalesce(sum(sign) FILTER (WHERE duration_seconds IS NOT NULL), 0), coalesce(sum(sign * duration_seconds), 0)
        FROM (%s) r WHERE status = 'COMPLETED' AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3
        HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE duration_seconds IS NOT NULL) <> 0 OR sum(sign * duration_seconds) <> 0
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_completion_slot_totals_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO completion_slot_totals_deltas
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'),
               sum(sign), coalesce(sum(sign) FILTER (WHERE duration_seconds IS NOT NULL), 0), coalesce(sum(sign * duration_seconds), 0)
        FROM (%s) r WHERE status = 'COMPLETED' AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2
        HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE duration_seconds IS NOT NULL) <> 0 OR sum(sign * duration_seconds) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_journey_daily_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO journey_daily_deltas
        SELECT company_id, (entered_at AT TIME ZONE 'UTC')::date, invited, started, completed, positive, hired, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_journey_last_daily_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO journey_last_daily_deltas
        SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE completed_n > 0 AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_media_candidates_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO media_candidates_deltas
        SELECT company_id, medium_type, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_candidates_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO candidate_daily_deltas
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_rebuild_before_00052(p_company uuid, p_part text DEFAULT NULL::text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
        DELETE FROM session_daily_deltas WHERE company_id = p_company;
        DELETE FROM session_daily_folded WHERE company_id = p_company;
        DELETE FROM completion_slots_deltas WHERE company_id = p_company;
        DELETE FROM completion_slots_folded WHERE company_id = p_company;
        DELETE FROM job_daily_folded WHERE company_id = p_company;
        INSERT INTO session_daily_folded
        SELECT company_id, (invited_at AT TIME ZONE 'UTC')::date, status, medium_type, decision, count(*)
        FROM interview_sessions WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5;
        INSERT INTO completion_slots_folded
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
        DELETE FROM media_candidates_deltas WHERE company_id = p_company;
        DELETE FROM media_candidates_folded WHERE company_id = p_company;
        INSERT INTO media_candidates_folded
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
        DELETE FROM journey_daily_deltas WHERE company_id = p_company;
        DELETE FROM journey_daily_folded WHERE company_id = p_company;
        INSERT INTO journey_daily_folded
        SELECT company_id, (entered_at AT TIME ZONE 'UTC')::date, invited, started, completed, positive, hired, count(*)
        FROM candidate_journeys WHERE company_id = p_company GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM journey_last_daily_deltas WHERE company_id = p_company;
        DELETE FROM journey_last_daily_folded WHERE company_id = p_company;
        INSERT INTO journey_last_daily_folded
        SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, count(*)
        FROM candidate_journeys WHERE company_id = p_company AND completed_n > 0 GROUP BY 1, 2;
    END IF;
    IF p_part IS NULL OR p_part = 'other' THEN
        DELETE FROM evaluation_daily WHERE company_id = p_company;
        DELETE FROM fraud_daily WHERE company_id = p_company;
        DELETE FROM identity_daily WHERE company_id = p_company;
        DELETE FROM candidate_daily_deltas WHERE company_id = p_company;
        DELETE FROM candidate_daily_folded WHERE company_id = p_company;
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
        INSERT INTO candidate_daily_folded
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
        DELETE FROM completion_slot_totals_deltas WHERE company_id = p_company;
        DELETE FROM completion_slot_totals_folded WHERE company_id = p_company;
        INSERT INTO completion_slot_totals_folded
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
END $function$;
-- +goose StatementEnd

-- +goose Down
SELECT rollup_fold(id) FROM companies;
-- +goose StatementBegin
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM rollup_folded ORDER BY name LOOP
        EXECUTE format('DROP VIEW %I', t.name);
        EXECUTE format('DROP TABLE %I', t.name || '_deltas');
        EXECUTE format('ALTER TABLE %I RENAME TO %I', t.name || '_folded', t.name);
    END LOOP;
END $$;
-- +goose StatementEnd
DROP FUNCTION rollup_fold(uuid);
DROP FUNCTION rollup_fold_table(text, uuid);
DROP TABLE rollup_folded;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_sessions_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_completion_slot_totals_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO completion_slot_totals AS d
        SELECT company_id, date_bin('15 minutes', completed_at, timestamptz '2000-01-01 00:00Z'),
               sum(sign), coalesce(sum(sign) FILTER (WHERE duration_seconds IS NOT NULL), 0), coalesce(sum(sign * duration_seconds), 0)
        FROM (%s) r WHERE status = 'COMPLETED' AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2
        HAVING sum(sign) <> 0 OR sum(sign) FILTER (WHERE duration_seconds IS NOT NULL) <> 0 OR sum(sign * duration_seconds) <> 0
        ORDER BY 1, 2
        ON CONFLICT (company_id, slot) DO UPDATE SET completed = d.completed + excluded.completed,
            duration_n = d.duration_n + excluded.duration_n, duration_sum = d.duration_sum + excluded.duration_sum
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_journey_daily_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO journey_daily AS d
        SELECT company_id, (entered_at AT TIME ZONE 'UTC')::date, invited, started, completed, positive, hired, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7
        ON CONFLICT (company_id, day, invited, started, completed, positive, hired)
        DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_journey_last_daily_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO journey_last_daily AS d
        SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE completed_n > 0 AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_media_candidates_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO media_candidates AS d
        SELECT company_id, medium_type, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, medium_type) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_candidates_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO candidate_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, day, status) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_rebuild_before_00052(p_company uuid, p_part text DEFAULT NULL::text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
END $function$;
-- +goose StatementEnd
