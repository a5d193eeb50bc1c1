-- Rollups for the company-wide tool-server statistics. At 3M sessions in one company every
-- all-time question read every session (count(*) alone: 210 ms; the all-time funnel: 5.2 s).
-- These tables hold the same figures pre-aggregated and are kept exact by statement-level
-- triggers on the source tables (one trigger run per statement, so a bulk insert or a cascaded
-- delete costs one grouped upsert, not one per row). Job-scoped questions still read the
-- sessions: one job holds a few thousand.
--
-- rollup_rebuild(company) recomputes a company's rollups from the source tables; the bulk demo
-- loader (triggers off) calls it after loading, and internal/rollup checks trigger-maintained
-- rows against it.
--
-- Days and 15-minute slots are UTC. Zero-count rows may remain after deletes; they add nothing.

-- +goose Up

-- Sessions by invitation day.
CREATE TABLE session_daily (
    company_id  uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day         date NOT NULL,
    status      text NOT NULL,
    medium_type text NOT NULL,
    decision    text NOT NULL,
    sessions    bigint NOT NULL,
    PRIMARY KEY (company_id, day, status, medium_type, decision)
);

-- Completed sessions by 15-minute slot of completion (15 minutes: every IANA zone's offset is a
-- multiple of it, so slots map to local hours exactly).
CREATE TABLE completion_slots (
    company_id   uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    slot         timestamptz NOT NULL,
    medium_type  text NOT NULL,
    completed    bigint NOT NULL,
    duration_n   bigint NOT NULL, -- completed sessions with a duration
    duration_sum bigint NOT NULL, -- seconds
    PRIMARY KEY (company_id, slot, medium_type)
);

-- All-time figures per job.
CREATE TABLE job_totals (
    company_id uuid NOT NULL,
    job_id     uuid NOT NULL,
    applicants bigint NOT NULL DEFAULT 0, -- distinct candidates with an application
    sessions   bigint NOT NULL DEFAULT 0,
    completed  bigint NOT NULL DEFAULT 0,
    evaluated  bigint NOT NULL DEFAULT 0, -- sessions with a cheating evaluation
    PRIMARY KEY (company_id, job_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- Per job and UTC day: sessions by invitation day (and how many of them are COMPLETED now), and
-- cheating evaluations by evaluation day. Windowed per-job breakdowns read it.
CREATE TABLE job_daily (
    company_id uuid NOT NULL,
    day        date NOT NULL,
    job_id     uuid NOT NULL,
    sessions   bigint NOT NULL DEFAULT 0,
    completed  bigint NOT NULL DEFAULT 0,
    evaluated  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (company_id, day, job_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX job_daily_job_idx ON job_daily (company_id, job_id);

-- Cheating evaluations by day of evaluation.
CREATE TABLE evaluation_daily (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day        date NOT NULL,
    evaluated  bigint NOT NULL,
    PRIMARY KEY (company_id, day)
);

-- Fraud checks by day of the check: counts per signal and per score band (bands of 25 points,
-- as getFraudVerificationStats reports them). Flagged counts depend on the caller's threshold
-- and read the (selective) low-score end of the score index instead.
CREATE TABLE fraud_daily (
    company_id        uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day               date NOT NULL,
    verifications     bigint NOT NULL,
    disposable_email  bigint NOT NULL,
    voip_phone        bigint NOT NULL,
    vpn_proxy_ip      bigint NOT NULL,
    thin_profile      bigint NOT NULL,
    footprint_anomaly bigint NOT NULL,
    band_0_25         bigint NOT NULL,
    band_25_50        bigint NOT NULL,
    band_50_75        bigint NOT NULL,
    band_75_100       bigint NOT NULL,
    PRIMARY KEY (company_id, day)
);

-- Candidates by creation day and status.
CREATE TABLE candidate_daily (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day        date NOT NULL,
    status     text NOT NULL,
    candidates bigint NOT NULL,
    PRIMARY KEY (company_id, day, status)
);

-- Identity verifications by start day, status and (for FAILED) failure reason: the trimmed reason
-- cut to 500 characters ('' for none and for the other statuses), so a key stays small.
CREATE TABLE identity_daily (
    company_id    uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day           date NOT NULL,
    status        text NOT NULL,
    reason        text NOT NULL,
    verifications bigint NOT NULL,
    PRIMARY KEY (company_id, day, status, reason)
);

-- One row per candidate with an application or a session: where the candidate entered the
-- company's pipeline, the furthest stages reached, and the span of completed interviews (which
-- answers "distinct candidates who completed an interview in a window" without a DISTINCT over
-- the sessions: see internal/rollup).
CREATE TABLE candidate_journeys (
    company_id         uuid NOT NULL,
    candidate_id       uuid NOT NULL,
    entered_at         timestamptz NOT NULL, -- first application or invitation
    invited            boolean NOT NULL,
    started            boolean NOT NULL,
    completed          boolean NOT NULL,
    positive           boolean NOT NULL, -- a decision of ACCEPTED, SUBMITTED, PLACED or HIRED
    hired              boolean NOT NULL,
    first_completed_at timestamptz,
    last_completed_at  timestamptz,
    completed_n        integer NOT NULL,
    PRIMARY KEY (company_id, candidate_id),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE
);
CREATE INDEX candidate_journeys_entered_idx ON candidate_journeys (company_id, entered_at)
    INCLUDE (invited, started, completed, positive, hired);
CREATE INDEX candidate_journeys_completed_idx ON candidate_journeys (company_id, last_completed_at)
    INCLUDE (first_completed_at, completed_n) WHERE completed_n > 0;

-- One row per candidate and medium with a completed interview: the span and number of those
-- completions, which answer "distinct candidates who completed an interview by this medium in a
-- window" as candidate_journeys does without a medium.
CREATE TABLE candidate_media (
    company_id         uuid NOT NULL,
    candidate_id       uuid NOT NULL,
    medium_type        text NOT NULL,
    first_completed_at timestamptz NOT NULL,
    last_completed_at  timestamptz NOT NULL,
    completed_n        integer NOT NULL,
    PRIMARY KEY (company_id, candidate_id, medium_type),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE
);
CREATE INDEX candidate_media_last_idx ON candidate_media (company_id, medium_type, last_completed_at)
    INCLUDE (first_completed_at, completed_n);
CREATE INDEX candidate_media_first_idx ON candidate_media (company_id, medium_type, first_completed_at)
    INCLUDE (last_completed_at, completed_n);

-- Journeys by entry day and the stages reached: the company-wide funnel of a cohort. Maintained
-- from candidate_journeys (a rollup of a rollup).
CREATE TABLE journey_daily (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    day        date NOT NULL,
    invited    boolean NOT NULL,
    started    boolean NOT NULL,
    completed  boolean NOT NULL,
    positive   boolean NOT NULL,
    hired      boolean NOT NULL,
    candidates bigint NOT NULL,
    PRIMARY KEY (company_id, day, invited, started, completed, positive, hired)
);

-- Cheating evaluations carry their session's candidate and job, so flagged counts per candidate
-- or job read only the (few) flagged evaluations.
ALTER TABLE cheating_evaluations ADD COLUMN candidate_id uuid, ADD COLUMN job_id uuid;
UPDATE cheating_evaluations ce SET candidate_id = s.candidate_id, job_id = s.job_id
    FROM interview_sessions s WHERE s.company_id = ce.company_id AND s.id = ce.session_id;
ALTER TABLE cheating_evaluations ALTER COLUMN candidate_id SET NOT NULL, ALTER COLUMN job_id SET NOT NULL;
DROP INDEX cheating_evaluations_company_score_idx;
CREATE INDEX cheating_evaluations_company_score_idx ON cheating_evaluations (company_id, cheating_score DESC, created_at DESC)
    INCLUDE (session_id, candidate_id, job_id);

-- +goose StatementBegin
CREATE FUNCTION cheating_evaluations_fill_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT s.candidate_id, s.job_id INTO NEW.candidate_id, NEW.job_id
    FROM interview_sessions s WHERE s.company_id = NEW.company_id AND s.id = NEW.session_id;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER cheating_evaluations_fill_session BEFORE INSERT OR UPDATE OF session_id ON cheating_evaluations
    FOR EACH ROW EXECUTE FUNCTION cheating_evaluations_fill_session();

-- rollup_signed returns the rows a statement-level trigger's statement changed, each with sign
-- -1 (old version) or +1 (new version); the triggers group them into net deltas.
-- +goose StatementBegin
CREATE FUNCTION rollup_signed(op text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE op
        WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n'
        WHEN 'DELETE' THEN 'SELECT o.*, -1 AS sign FROM old_rows o'
        ELSE 'SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n'
    END
$$;
-- +goose StatementEnd

-- rollup_attach creates the statement-level triggers that run a rollup trigger function after
-- each INSERT, UPDATE and DELETE on tbl with the statement's transition tables (one trigger per
-- event: a trigger with transition tables takes a single event).
-- +goose StatementBegin
CREATE FUNCTION rollup_attach(tbl text, fn text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_rollup_insert', tbl, fn);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_rollup_update', tbl, fn);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_rollup_delete', tbl, fn);
END $$;
-- +goose StatementEnd

-- rollup_journeys recomputes the journeys of the given candidates from their applications and
-- sessions (deleting those left with neither).
-- +goose StatementBegin
CREATE FUNCTION rollup_journeys(p_company uuid[], p_candidate uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    WITH c AS (
        SELECT DISTINCT company_id, candidate_id FROM unnest(p_company, p_candidate) AS t(company_id, candidate_id)
    ), j AS (
        SELECT c.company_id, c.candidate_id,
               least(a.entered, s.entered) AS entered_at,
               coalesce(s.invited, false) AS invited, coalesce(s.started, false) AS started,
               coalesce(s.completed, false) AS completed, coalesce(s.positive, false) AS positive,
               coalesce(s.hired, false) AS hired, s.first_completed_at, s.last_completed_at,
               coalesce(s.completed_n, 0) AS completed_n
        FROM c
        LEFT JOIN LATERAL (
            SELECT min(created_at) AS entered FROM applications
            WHERE company_id = c.company_id AND candidate_id = c.candidate_id
        ) a ON true
        LEFT JOIN LATERAL (
            SELECT min(invited_at) AS entered, true AS invited,
                   bool_or(started_at IS NOT NULL OR status IN ('STARTED', 'COMPLETED')) AS started,
                   bool_or(status = 'COMPLETED') AS completed,
                   bool_or(decision IN ('ACCEPTED', 'SUBMITTED', 'PLACED', 'HIRED')) AS positive,
                   bool_or(decision = 'HIRED') AS hired,
                   min(completed_at) FILTER (WHERE status = 'COMPLETED') AS first_completed_at,
                   max(completed_at) FILTER (WHERE status = 'COMPLETED') AS last_completed_at,
                   count(*) FILTER (WHERE status = 'COMPLETED') AS completed_n
            FROM interview_sessions
            WHERE company_id = c.company_id AND candidate_id = c.candidate_id
            HAVING count(*) > 0
        ) s ON true
    ), gone AS (
        DELETE FROM candidate_journeys cj USING j
        WHERE cj.company_id = j.company_id AND cj.candidate_id = j.candidate_id AND j.entered_at IS NULL
    )
    INSERT INTO candidate_journeys AS cj
    SELECT j.* FROM j
    WHERE j.entered_at IS NOT NULL
      AND EXISTS (SELECT 1 FROM candidates x WHERE x.company_id = j.company_id AND x.id = j.candidate_id)
    ORDER BY j.company_id, j.candidate_id
    ON CONFLICT (company_id, candidate_id) DO UPDATE SET
        entered_at = excluded.entered_at, invited = excluded.invited, started = excluded.started,
        completed = excluded.completed, positive = excluded.positive, hired = excluded.hired,
        first_completed_at = excluded.first_completed_at, last_completed_at = excluded.last_completed_at,
        completed_n = excluded.completed_n;
END $$;
-- +goose StatementEnd

-- rollup_candidate_media recomputes the candidate_media rows of the given candidates.
-- +goose StatementBegin
CREATE FUNCTION rollup_candidate_media(p_company uuid[], p_candidate uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM candidate_media m USING unnest(p_company, p_candidate) AS c(company_id, candidate_id)
    WHERE m.company_id = c.company_id AND m.candidate_id = c.candidate_id;
    INSERT INTO candidate_media
    SELECT s.company_id, s.candidate_id, s.medium_type, min(s.completed_at), max(s.completed_at), count(*)
    FROM (SELECT DISTINCT company_id, candidate_id FROM unnest(p_company, p_candidate) AS t(company_id, candidate_id)) c
    JOIN interview_sessions s ON s.company_id = c.company_id AND s.candidate_id = c.candidate_id AND s.status = 'COMPLETED'
    WHERE EXISTS (SELECT 1 FROM candidates x WHERE x.company_id = c.company_id AND x.id = c.candidate_id)
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION rollup_sessions_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
SELECT rollup_attach('interview_sessions', 'rollup_sessions_trigger');

-- +goose StatementBegin
CREATE FUNCTION rollup_applications_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
SELECT rollup_attach('applications', 'rollup_applications_trigger');

-- +goose StatementBegin
CREATE FUNCTION rollup_evaluations_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
SELECT rollup_attach('cheating_evaluations', 'rollup_evaluations_trigger');

-- +goose StatementBegin
CREATE FUNCTION rollup_fraud_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Net deltas per day and kind of row (signals, score band), then per day.
    EXECUTE format($q$
        INSERT INTO fraud_daily AS d
        SELECT company_id, day, sum(n),
               coalesce(sum(n) FILTER (WHERE disposable_email), 0), coalesce(sum(n) FILTER (WHERE voip_phone), 0),
               coalesce(sum(n) FILTER (WHERE vpn_proxy_ip), 0), coalesce(sum(n) FILTER (WHERE thin_profile), 0),
               coalesce(sum(n) FILTER (WHERE footprint_anomaly), 0),
               coalesce(sum(n) FILTER (WHERE band = 0), 0), coalesce(sum(n) FILTER (WHERE band = 1), 0),
               coalesce(sum(n) FILTER (WHERE band = 2), 0), coalesce(sum(n) FILTER (WHERE band = 3), 0)
        FROM (
            SELECT company_id, (created_at AT TIME ZONE 'UTC')::date AS day, disposable_email, voip_phone, vpn_proxy_ip,
                   thin_profile, footprint_anomaly,
                   width_bucket(overall_verification_score, array[25, 50, 75]::numeric[]) AS band, sum(sign) AS n
            FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(sign) <> 0
        ) g
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET verifications = d.verifications + excluded.verifications,
            disposable_email = d.disposable_email + excluded.disposable_email, voip_phone = d.voip_phone + excluded.voip_phone,
            vpn_proxy_ip = d.vpn_proxy_ip + excluded.vpn_proxy_ip, thin_profile = d.thin_profile + excluded.thin_profile,
            footprint_anomaly = d.footprint_anomaly + excluded.footprint_anomaly,
            band_0_25 = d.band_0_25 + excluded.band_0_25, band_25_50 = d.band_25_50 + excluded.band_25_50,
            band_50_75 = d.band_50_75 + excluded.band_50_75, band_75_100 = d.band_75_100 + excluded.band_75_100
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
SELECT rollup_attach('fraud_verifications', 'rollup_fraud_trigger');

-- +goose StatementBegin
CREATE FUNCTION rollup_candidates_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO candidate_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, day, status) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
SELECT rollup_attach('candidates', 'rollup_candidates_trigger');

-- +goose StatementBegin
CREATE FUNCTION rollup_journey_daily_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
-- +goose StatementEnd
SELECT rollup_attach('candidate_journeys', 'rollup_journey_daily_trigger');

-- identity_reason is identity_daily's reason of an identity verification.
-- +goose StatementBegin
CREATE FUNCTION identity_reason(status text, failure_reason text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN status = 'FAILED' THEN left(coalesce(btrim(failure_reason), ''), 500) ELSE '' END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION rollup_identity_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO identity_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, day, status, reason) DO UPDATE SET verifications = d.verifications + excluded.verifications
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd
SELECT rollup_attach('identity_verifications', 'rollup_identity_trigger');

-- rollup_rebuild recomputes every rollup of one company from the source tables.
-- +goose StatementBegin
CREATE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
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

SELECT rollup_rebuild(id) FROM companies;

-- +goose Down
-- Dropping a trigger function with CASCADE drops the triggers that run it.
DROP FUNCTION rollup_sessions_trigger(), rollup_applications_trigger(), rollup_evaluations_trigger(),
    rollup_fraud_trigger(), rollup_identity_trigger(), rollup_candidates_trigger(), rollup_journey_daily_trigger(),
    cheating_evaluations_fill_session() CASCADE;
DROP FUNCTION rollup_attach(text, text), rollup_rebuild(uuid, text), rollup_journeys(uuid[], uuid[]),
    rollup_candidate_media(uuid[], uuid[]), rollup_signed(text), identity_reason(text, text);
DROP INDEX cheating_evaluations_company_score_idx;
CREATE INDEX cheating_evaluations_company_score_idx ON cheating_evaluations (company_id, cheating_score DESC, created_at DESC)
    INCLUDE (session_id);
ALTER TABLE cheating_evaluations DROP COLUMN candidate_id, DROP COLUMN job_id;
DROP TABLE candidate_media, job_daily, journey_daily, candidate_journeys, candidate_daily, identity_daily, fraud_daily, evaluation_daily, job_totals, completion_slots, session_daily;
