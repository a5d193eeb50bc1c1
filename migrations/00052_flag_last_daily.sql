-- (The end of this file also orders the candidates' e-mail and phone indexes by creation, for
-- the fraud evidence's shared contacts.)
--
-- A rollup that bounds the windowed flagged-candidate counts of getCheatingDetectionStats and
-- getFraudVerificationStats by the window, not the pool (issue 32): at 1M candidates of recruitd
-- seed demo, "candidates with a fraud score below 30 since a quarter ago" read every flagged
-- verification of the quarter to count their distinct candidates.
--
-- For a candidate and a whole threshold t (cheating: flagged when floor(score) >= t; fraud:
-- floor(score) < t), let L(t) be the time of its last flagged row. The candidate is flagged in
-- [since, now) exactly when L(t) >= since. t -> L(t) is a step function with a step per row of
-- the candidate: a row is the last flagged one for the thresholds t with lo < t <= hi, where
-- cheating: lo = highest floor of the candidate's later rows (-1: none), hi = floor of its score;
-- fraud: lo = floor of its score, hi = lowest floor of the later rows (100: none). Such a range
-- counts +1 at point hi and -1 at point lo (lo < t <= hi is [t <= hi] - [t <= lo]) on the UTC
-- day of the row, so the candidates flagged at t since day D are the sum of the rows of this
-- table with day >= D and point >= t: at most 101 rows per day, whatever the pool. "Later" is by
-- (created_at, id). Kept exact by statement-level triggers that recompute the changed
-- candidates' steps before and after the statement; rollup_rebuild's part 'scores' recomputes it.

-- +goose Up

CREATE TABLE flag_last_daily (
    company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    kind       text NOT NULL, -- 'cheating' (cheating_evaluations) or 'fraud' (fraud_verifications)
    day        date NOT NULL,
    point      smallint NOT NULL,
    candidates bigint NOT NULL, -- signed: +1 for a step's hi, -1 for its lo
    PRIMARY KEY (company_id, kind, day, point)
);

-- flag_steps is the statement yielding (company_id, kind, day, point, n) for the rows of rel
-- (company_id, candidate_id, id, score, created_at, sign) of the given kind: the steps of each
-- candidate's rows of one sign, counted with that sign.
-- +goose StatementBegin
CREATE FUNCTION flag_steps(kind text, rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT format($q$
        WITH steps AS (
            SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, %1$s FROM (
                SELECT r.*, floor(r.score)::int AS f,
                       %2$s(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                           ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                FROM (%3$s) r) r)
        SELECT company_id, %4$L::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
            SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
            UNION ALL
            SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
        ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
    $q$,
        CASE kind WHEN 'cheating' THEN 'coalesce(later, -1) AS lo, f AS hi' ELSE 'f AS lo, least(coalesce(later, 100), 100) AS hi' END,
        CASE kind WHEN 'cheating' THEN 'max' ELSE 'min' END,
        rel, kind)
$$;
-- +goose StatementEnd

-- The trigger of both tables (TG_ARGV[0]: the kind): the changed candidates' steps after the
-- statement count +1, before it -1 (their rows now, but the statement's new rows, and its old
-- rows).
-- +goose StatementBegin
CREATE FUNCTION rollup_flag_last_daily_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    kind text := TG_ARGV[0];
    score text := CASE TG_ARGV[0] WHEN 'cheating' THEN 'cheating_score' ELSE 'overall_verification_score' END;
BEGIN
    EXECUTE format($q$
        INSERT INTO flag_last_daily AS d
        SELECT * FROM (%s) s ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates
    $q$, flag_steps(kind, format($r$
        WITH ch AS MATERIALIZED (
            SELECT company_id, candidate_id, id, %1$I AS score, created_at, sign FROM (%3$s) c
            WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
        ), cands AS (
            SELECT DISTINCT company_id, candidate_id FROM ch
        ), cur AS (
            SELECT t.company_id, t.candidate_id, t.id, t.%1$I AS score, t.created_at
            FROM %2$I t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
        )
        SELECT cur.*, 1 AS sign FROM cur
        UNION ALL
        SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
        UNION ALL
        SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
    $r$, score, TG_TABLE_NAME, rollup_signed(TG_OP))));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER cheating_evaluations_flag_last_insert AFTER INSERT ON cheating_evaluations REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_flag_last_daily_trigger('cheating');
CREATE TRIGGER cheating_evaluations_flag_last_update AFTER UPDATE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_flag_last_daily_trigger('cheating');
CREATE TRIGGER cheating_evaluations_flag_last_delete AFTER DELETE ON cheating_evaluations REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_flag_last_daily_trigger('cheating');
CREATE TRIGGER fraud_verifications_flag_last_insert AFTER INSERT ON fraud_verifications REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_flag_last_daily_trigger('fraud');
CREATE TRIGGER fraud_verifications_flag_last_update AFTER UPDATE ON fraud_verifications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_flag_last_daily_trigger('fraud');
CREATE TRIGGER fraud_verifications_flag_last_delete AFTER DELETE ON fraud_verifications REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rollup_flag_last_daily_trigger('fraud');

-- rollup_flag_last_daily_rebuild recomputes a company's flag_last_daily from its rows.
-- +goose StatementBegin
CREATE FUNCTION rollup_flag_last_daily_rebuild(p_company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM flag_last_daily WHERE company_id = p_company;
    EXECUTE 'INSERT INTO flag_last_daily SELECT * FROM (' || flag_steps('cheating', format(
        'SELECT company_id, candidate_id, id, cheating_score AS score, created_at, 1 AS sign FROM cheating_evaluations WHERE company_id = %L',
        p_company)) || ') s';
    EXECUTE 'INSERT INTO flag_last_daily SELECT * FROM (' || flag_steps('fraud', format(
        'SELECT company_id, candidate_id, id, overall_verification_score AS score, created_at, 1 AS sign FROM fraud_verifications WHERE company_id = %L',
        p_company)) || ') s';
END $$;
-- +goose StatementEnd

-- rollup_rebuild's part 'scores' (and a whole rebuild) recomputes flag_last_daily too.
ALTER FUNCTION rollup_rebuild(uuid, text) RENAME TO rollup_rebuild_before_00052;
-- +goose StatementBegin
CREATE FUNCTION rollup_rebuild(p_company uuid, p_part text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_rebuild_before_00052(p_company, p_part);
    IF p_part IS NULL OR p_part = 'scores' THEN
        PERFORM rollup_flag_last_daily_rebuild(p_company);
    END IF;
END $$;
-- +goose StatementEnd

SELECT rollup_flag_last_daily_rebuild(id) FROM companies;

-- The fraud evidence lists the first ten candidates (by created_at, id) sharing a candidate's
-- e-mail or phone; at 1M candidates of the seed a common number is shared by about 800, all read
-- and sorted for those ten. In that order per e-mail and per phone, the walk stops at ten.
DROP INDEX candidates_company_email_idx;
CREATE INDEX candidates_company_email_idx ON candidates (company_id, lower(email), created_at, id);
DROP INDEX candidates_company_phone_idx;
CREATE INDEX candidates_company_phone_idx ON candidates (company_id, phone, created_at, id);
-- A dropped expression index takes the statistics of lower(email) with it: without them an
-- e-mail lookup is estimated at 0.5% of the candidates and walks another index.
ANALYZE candidates;

-- +goose Down
DROP INDEX candidates_company_email_idx;
CREATE INDEX candidates_company_email_idx ON candidates (company_id, lower(email));
DROP INDEX candidates_company_phone_idx;
CREATE INDEX candidates_company_phone_idx ON candidates (company_id, phone);
ANALYZE candidates;
DROP FUNCTION rollup_rebuild(uuid, text);
ALTER FUNCTION rollup_rebuild_before_00052(uuid, text) RENAME TO rollup_rebuild;
DROP FUNCTION rollup_flag_last_daily_rebuild(uuid);
DROP FUNCTION rollup_flag_last_daily_trigger() CASCADE;
DROP FUNCTION flag_steps(text, text);
DROP TABLE flag_last_daily;
