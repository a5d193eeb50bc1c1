-- Rollups whose reads do not grow with the pool (issue 32): score histograms for
-- getCheatingDetectionStats and getFraudVerificationStats, completions by slot without the medium
-- for getInterviewTimeOfDayBreakdown, candidates per medium for getInterviewStats. Their
-- flagged counts read the evaluations and verifications on the flagged side of a threshold (a
-- range of the score index), which grows with the pool: at 1M candidates of recruitd seed demo,
-- 137k cheating evaluations (128k candidates) are at or above the default threshold and 70k fraud
-- checks below 50; the histograms hold at most 101 rows per day. These tables count them by whole score
-- point (floor of the score, 0..100), so a count over a threshold t reads the whole points past
-- it from the rollup and only the fraction of a point between t and the next whole point from the
-- source rows (nothing when t is whole, as the company default 70 is). flaggedCandidates for all
-- time reads each candidate's extreme score the same way (candidate_scores, candidate_score_counts).
-- Kept exact by
-- statement-level triggers like the rollups of 00007; rollup_rebuild's part 'scores' recomputes
-- them.

-- +goose Up

-- Cheating evaluations by whole score point and UTC day of the evaluation.
CREATE TABLE evaluation_scores (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    score      smallint NOT NULL, -- floor(cheating_score)
    day        date NOT NULL,
    evaluated  bigint NOT NULL,
    PRIMARY KEY (company_id, score, day)
);

-- Cheating evaluations by whole score point and job, all time (byJob's flagged counts).
CREATE TABLE job_evaluation_scores (
    company_id uuid NOT NULL,
    score      smallint NOT NULL,
    job_id     uuid NOT NULL,
    evaluated  bigint NOT NULL,
    PRIMARY KEY (company_id, score, job_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- Fraud verifications by whole score point and UTC day of the verification.
CREATE TABLE fraud_scores (
    company_id    uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    score         smallint NOT NULL, -- floor(overall_verification_score)
    day           date NOT NULL,
    verifications bigint NOT NULL,
    PRIMARY KEY (company_id, score, day)
);

-- +goose StatementBegin
CREATE FUNCTION rollup_evaluation_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := rollup_signed(TG_OP);
BEGIN
    EXECUTE format($q$
        INSERT INTO evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated
    $q$, src);
    EXECUTE format($q$
        INSERT INTO job_evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, job_id, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, job_id) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated
    $q$, src);
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER cheating_evaluations_scores_insert AFTER INSERT ON cheating_evaluations REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_evaluation_scores_trigger();
CREATE TRIGGER cheating_evaluations_scores_update AFTER UPDATE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_evaluation_scores_trigger();
CREATE TRIGGER cheating_evaluations_scores_delete AFTER DELETE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_evaluation_scores_trigger();

-- +goose StatementBegin
CREATE FUNCTION rollup_fraud_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO fraud_scores AS d
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET verifications = d.verifications + excluded.verifications
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER fraud_verifications_scores_insert AFTER INSERT ON fraud_verifications REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_fraud_scores_trigger();
CREATE TRIGGER fraud_verifications_scores_update AFTER UPDATE ON fraud_verifications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_fraud_scores_trigger();
CREATE TRIGGER fraud_verifications_scores_delete AFTER DELETE ON fraud_verifications REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_fraud_scores_trigger();

-- Each candidate's highest cheating score and lowest fraud score (flaggedCandidates for all
-- time: a candidate is flagged when its extreme is past the threshold), and those extremes
-- counted by whole score point.
CREATE TABLE candidate_scores (
    company_id   uuid NOT NULL,
    candidate_id uuid NOT NULL,
    max_cheating numeric(5,2), -- NULL: no cheating evaluation
    min_fraud    numeric(5,2), -- NULL: no fraud verification
    PRIMARY KEY (company_id, candidate_id),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE
);
CREATE INDEX candidate_scores_cheating_idx ON candidate_scores (company_id, max_cheating) WHERE max_cheating IS NOT NULL;
CREATE INDEX candidate_scores_fraud_idx ON candidate_scores (company_id, min_fraud) WHERE min_fraud IS NOT NULL;
CREATE TABLE candidate_score_counts (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    kind       text NOT NULL, -- 'cheating' (floor of max_cheating) or 'fraud' (floor of min_fraud)
    score      smallint NOT NULL,
    candidates bigint NOT NULL,
    PRIMARY KEY (company_id, kind, score)
);
-- The changed candidates' evaluations are found by candidate.
CREATE INDEX cheating_evaluations_company_candidate_idx ON cheating_evaluations (company_id, candidate_id) INCLUDE (cheating_score);

-- rollup_candidate_scores recomputes the candidate_scores rows of the given candidates.
-- +goose StatementBegin
CREATE FUNCTION rollup_candidate_scores(p_company uuid[], p_candidate uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    WITH c AS (
        SELECT DISTINCT company_id, candidate_id FROM unnest(p_company, p_candidate) AS t(company_id, candidate_id)
    ), x AS (
        SELECT c.company_id, c.candidate_id,
               (SELECT max(ce.cheating_score) FROM cheating_evaluations ce WHERE ce.company_id = c.company_id AND ce.candidate_id = c.candidate_id) AS max_cheating,
               (SELECT min(f.overall_verification_score) FROM fraud_verifications f WHERE f.company_id = c.company_id AND f.candidate_id = c.candidate_id) AS min_fraud
        FROM c
    ), gone AS (
        DELETE FROM candidate_scores cs USING x
        WHERE cs.company_id = x.company_id AND cs.candidate_id = x.candidate_id AND x.max_cheating IS NULL AND x.min_fraud IS NULL
    )
    INSERT INTO candidate_scores AS cs
    SELECT x.* FROM x
    WHERE (x.max_cheating IS NOT NULL OR x.min_fraud IS NOT NULL)
      AND EXISTS (SELECT 1 FROM candidates k WHERE k.company_id = x.company_id AND k.id = x.candidate_id)
    ORDER BY x.company_id, x.candidate_id
    ON CONFLICT (company_id, candidate_id) DO UPDATE SET max_cheating = excluded.max_cheating, min_fraud = excluded.min_fraud
    WHERE (cs.max_cheating, cs.min_fraud) IS DISTINCT FROM (excluded.max_cheating, excluded.min_fraud);
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION rollup_candidate_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies uuid[];
    candidates uuid[];
BEGIN
    EXECUTE format($q$
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT DISTINCT company_id, candidate_id FROM (%s) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)) x
    $q$, rollup_signed(TG_OP)) INTO companies, candidates;
    IF companies IS NOT NULL THEN
        PERFORM rollup_candidate_scores(companies, candidates);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER cheating_evaluations_candidate_scores_insert AFTER INSERT ON cheating_evaluations REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_candidate_scores_trigger();
CREATE TRIGGER cheating_evaluations_candidate_scores_update AFTER UPDATE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_candidate_scores_trigger();
CREATE TRIGGER cheating_evaluations_candidate_scores_delete AFTER DELETE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_candidate_scores_trigger();
CREATE TRIGGER fraud_verifications_candidate_scores_insert AFTER INSERT ON fraud_verifications REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_candidate_scores_trigger();
CREATE TRIGGER fraud_verifications_candidate_scores_update AFTER UPDATE ON fraud_verifications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_candidate_scores_trigger();
CREATE TRIGGER fraud_verifications_candidate_scores_delete AFTER DELETE ON fraud_verifications REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_candidate_scores_trigger();
-- +goose StatementBegin
CREATE FUNCTION rollup_candidate_score_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO candidate_score_counts AS d
        SELECT company_id, kind, score, sum(sign) FROM (
            SELECT company_id, 'cheating' AS kind, floor(max_cheating)::smallint AS score, sign FROM (%1$s) r WHERE max_cheating IS NOT NULL
            UNION ALL
            SELECT company_id, 'fraud', floor(min_fraud)::smallint, sign FROM (%1$s) r WHERE min_fraud IS NOT NULL
        ) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, kind, score) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
SELECT rollup_attach('candidate_scores', 'rollup_candidate_score_counts_trigger');

-- Completed sessions by 15-minute slot of completion, all media together: the time-of-day
-- breakdown and the completion counts and durations without a medium filter read it, and completion_slots holds up to 8 rows per slot (one per
-- medium): a year of it was 225k rows at 1M candidates, this is at most 35k whatever the pool.
CREATE TABLE completion_slot_totals (
    company_id   uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    slot         timestamptz NOT NULL,
    completed    bigint NOT NULL,
    duration_n   bigint NOT NULL, -- completed sessions with a duration
    duration_sum bigint NOT NULL, -- seconds
    PRIMARY KEY (company_id, slot)
);
-- +goose StatementBegin
CREATE FUNCTION rollup_completion_slot_totals_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
-- +goose StatementEnd
CREATE TRIGGER interview_sessions_slot_totals_insert AFTER INSERT ON interview_sessions REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_completion_slot_totals_trigger();
CREATE TRIGGER interview_sessions_slot_totals_update AFTER UPDATE ON interview_sessions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_completion_slot_totals_trigger();
CREATE TRIGGER interview_sessions_slot_totals_delete AFTER DELETE ON interview_sessions REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_completion_slot_totals_trigger();

-- Candidates with a completed interview per medium, all time (the rows of candidate_media per
-- medium: 600k for VIDEO at 1M candidates, counted on every call before).
CREATE TABLE media_candidates (
    company_id  uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    medium_type text NOT NULL,
    candidates  bigint NOT NULL,
    PRIMARY KEY (company_id, medium_type)
);
-- +goose StatementBegin
CREATE FUNCTION rollup_media_candidates_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO media_candidates AS d
        SELECT company_id, medium_type, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, medium_type) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
SELECT rollup_attach('candidate_media', 'rollup_media_candidates_trigger');

-- Candidates with a completed interview by the UTC day of their last completion: the
-- candidates whose last completion falls in a window (completedCandidates in a window, the
-- part that is most of them: 478k journeys for a quarter at 1M candidates).
CREATE TABLE journey_last_daily (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day        date NOT NULL,
    candidates bigint NOT NULL,
    PRIMARY KEY (company_id, day)
);
-- +goose StatementBegin
CREATE FUNCTION rollup_journey_last_daily_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO journey_last_daily AS d
        SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE completed_n > 0 AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER candidate_journeys_last_daily_insert AFTER INSERT ON candidate_journeys REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_journey_last_daily_trigger();
CREATE TRIGGER candidate_journeys_last_daily_update AFTER UPDATE ON candidate_journeys REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_journey_last_daily_trigger();
CREATE TRIGGER candidate_journeys_last_daily_delete AFTER DELETE ON candidate_journeys REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_journey_last_daily_trigger();

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
SELECT rollup_rebuild(id, 'scores') FROM companies;
DELETE FROM media_candidates;
INSERT INTO media_candidates SELECT company_id, medium_type, count(*) FROM candidate_media GROUP BY 1, 2;
DELETE FROM journey_last_daily;
INSERT INTO journey_last_daily SELECT company_id, (last_completed_at AT TIME ZONE 'UTC')::date, count(*)
FROM candidate_journeys WHERE completed_n > 0 GROUP BY 1, 2;

-- +goose Down
DROP FUNCTION rollup_evaluation_scores_trigger(), rollup_fraud_scores_trigger(), rollup_candidate_scores_trigger(),
    rollup_candidate_score_counts_trigger(), rollup_completion_slot_totals_trigger(), rollup_media_candidates_trigger(),
    rollup_journey_last_daily_trigger() CASCADE;
DROP FUNCTION rollup_candidate_scores(uuid[], uuid[]);
DROP INDEX cheating_evaluations_company_candidate_idx;
DROP TABLE evaluation_scores, job_evaluation_scores, fraud_scores, candidate_score_counts, candidate_scores, completion_slot_totals,
    media_candidates, journey_last_daily;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- Independent parts (a loader may run them on separate connections at once): journeys
    -- (candidate_journeys, then journey_daily from it), candidate_media, the other session
    -- rollups, and the other sources.
    IF p_part IS NOT NULL AND p_part NOT IN ('journeys', 'media', 'sessions', 'other') THEN
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
END $$;
-- +goose StatementEnd
