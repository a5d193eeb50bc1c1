-- The rollup triggers migration 00063 left with dynamic SQL: identity verifications, fraud
-- verifications, cheating evaluations, candidate scores and jobs. Each built its statements
-- with EXECUTE format(...) around rollup_signed(TG_OP), so Postgres parsed and planned every
-- statement again on every call: the report of one interview inserts a cheating evaluation,
-- which ran seven such plans (its daily and per-job counts, score histograms, flag steps and
-- the candidate's scores), and each completion with a skipped identity step one more. The same
-- statements are now static, one branch per operation as in 00063, so PL/pgSQL keeps their
-- plans per connection. rollup_flag_last_daily_trigger's statements are the ones flag_steps
-- builds for each of its two tables (cheating evaluations, fraud verifications) and operation,
-- written out. Same statements, same rows written (TestTriggersKeepRollupsExact, rollups check).
-- Generated from the functions' definitions; the Down restores them.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_identity_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO identity_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, day, status, reason) DO UPDATE SET verifications = d.verifications + excluded.verifications;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO identity_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, day, status, reason) DO UPDATE SET verifications = d.verifications + excluded.verifications;
    ELSE
        INSERT INTO identity_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, day, status, reason) DO UPDATE SET verifications = d.verifications + excluded.verifications;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_fraud_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Net deltas per day and kind of row (signals, score band), then per day.
    IF TG_OP = 'INSERT' THEN
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
            FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(sign) <> 0
        ) g
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET verifications = d.verifications + excluded.verifications,
            disposable_email = d.disposable_email + excluded.disposable_email, voip_phone = d.voip_phone + excluded.voip_phone,
            vpn_proxy_ip = d.vpn_proxy_ip + excluded.vpn_proxy_ip, thin_profile = d.thin_profile + excluded.thin_profile,
            footprint_anomaly = d.footprint_anomaly + excluded.footprint_anomaly,
            band_0_25 = d.band_0_25 + excluded.band_0_25, band_25_50 = d.band_25_50 + excluded.band_25_50,
            band_50_75 = d.band_50_75 + excluded.band_50_75, band_75_100 = d.band_75_100 + excluded.band_75_100;
    ELSIF TG_OP = 'DELETE' THEN
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
            FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(sign) <> 0
        ) g
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET verifications = d.verifications + excluded.verifications,
            disposable_email = d.disposable_email + excluded.disposable_email, voip_phone = d.voip_phone + excluded.voip_phone,
            vpn_proxy_ip = d.vpn_proxy_ip + excluded.vpn_proxy_ip, thin_profile = d.thin_profile + excluded.thin_profile,
            footprint_anomaly = d.footprint_anomaly + excluded.footprint_anomaly,
            band_0_25 = d.band_0_25 + excluded.band_0_25, band_25_50 = d.band_25_50 + excluded.band_25_50,
            band_50_75 = d.band_50_75 + excluded.band_50_75, band_75_100 = d.band_75_100 + excluded.band_75_100;
    ELSE
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
            FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(sign) <> 0
        ) g
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET verifications = d.verifications + excluded.verifications,
            disposable_email = d.disposable_email + excluded.disposable_email, voip_phone = d.voip_phone + excluded.voip_phone,
            vpn_proxy_ip = d.vpn_proxy_ip + excluded.vpn_proxy_ip, thin_profile = d.thin_profile + excluded.thin_profile,
            footprint_anomaly = d.footprint_anomaly + excluded.footprint_anomaly,
            band_0_25 = d.band_0_25 + excluded.band_0_25, band_25_50 = d.band_25_50 + excluded.band_25_50,
            band_50_75 = d.band_50_75 + excluded.band_50_75, band_75_100 = d.band_75_100 + excluded.band_75_100;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_fraud_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO fraud_scores AS d
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET verifications = d.verifications + excluded.verifications;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO fraud_scores AS d
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET verifications = d.verifications + excluded.verifications;
    ELSE
        INSERT INTO fraud_scores AS d
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET verifications = d.verifications + excluded.verifications;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_evaluations_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO evaluation_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
        -- Per-job counts: the insert-only deltas, as the sessions' trigger.
        INSERT INTO job_rollup_deltas (company_id, job_id, day, evaluated)
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO evaluation_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
        -- Per-job counts: the insert-only deltas, as the sessions' trigger.
        INSERT INTO job_rollup_deltas (company_id, job_id, day, evaluated)
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0;
    ELSE
        INSERT INTO evaluation_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
        -- Per-job counts: the insert-only deltas, as the sessions' trigger.
        INSERT INTO job_rollup_deltas (company_id, job_id, day, evaluated)
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_evaluation_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
        INSERT INTO job_evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, job_id, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, job_id) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
        INSERT INTO job_evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, job_id, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, job_id) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
    ELSE
        INSERT INTO evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
        INSERT INTO job_evaluation_scores AS d
        SELECT company_id, floor(cheating_score)::smallint, job_id, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, job_id) DO UPDATE SET evaluated = d.evaluated + excluded.evaluated;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_job_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Rows of jobs being deleted (a cascade) are skipped: their rollups go with them.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO job_score_daily_deltas
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, floor(cheating_score)::smallint, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO job_score_daily_deltas
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, floor(cheating_score)::smallint, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
    ELSE
        INSERT INTO job_score_daily_deltas
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, floor(cheating_score)::smallint, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_candidate_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
DECLARE
    companies uuid[];
    candidates uuid[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT DISTINCT company_id, candidate_id FROM (SELECT n.*, 1 AS sign FROM new_rows n) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)) x INTO companies, candidates;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT DISTINCT company_id, candidate_id FROM (SELECT o.*, -1 AS sign FROM old_rows o) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)) x INTO companies, candidates;
    ELSE
        SELECT array_agg(company_id), array_agg(candidate_id) FROM (
            SELECT DISTINCT company_id, candidate_id FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r
            WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)) x INTO companies, candidates;
    END IF;
    IF companies IS NOT NULL THEN
        PERFORM rollup_candidate_scores(companies, candidates);
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_candidate_score_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO candidate_score_counts AS d
        SELECT company_id, kind, score, sum(sign) FROM (
            SELECT company_id, 'cheating' AS kind, floor(max_cheating)::smallint AS score, sign FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE max_cheating IS NOT NULL
            UNION ALL
            SELECT company_id, 'fraud', floor(min_fraud)::smallint, sign FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE min_fraud IS NOT NULL
        ) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, kind, score) DO UPDATE SET candidates = d.candidates + excluded.candidates;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO candidate_score_counts AS d
        SELECT company_id, kind, score, sum(sign) FROM (
            SELECT company_id, 'cheating' AS kind, floor(max_cheating)::smallint AS score, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE max_cheating IS NOT NULL
            UNION ALL
            SELECT company_id, 'fraud', floor(min_fraud)::smallint, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE min_fraud IS NOT NULL
        ) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, kind, score) DO UPDATE SET candidates = d.candidates + excluded.candidates;
    ELSE
        INSERT INTO candidate_score_counts AS d
        SELECT company_id, kind, score, sum(sign) FROM (
            SELECT company_id, 'cheating' AS kind, floor(max_cheating)::smallint AS score, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE max_cheating IS NOT NULL
            UNION ALL
            SELECT company_id, 'fraud', floor(min_fraud)::smallint, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE min_fraud IS NOT NULL
        ) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, kind, score) DO UPDATE SET candidates = d.candidates + excluded.candidates;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO job_counts_deltas
        SELECT company_id, status, is_open, is_deleted, enable_identity_verification, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO job_counts_deltas
        SELECT company_id, status, is_open, is_deleted, enable_identity_verification, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0;
    ELSE
        INSERT INTO job_counts_deltas
        SELECT company_id, status, is_open, is_deleted, enable_identity_verification, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_template_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO resume_fit_jobs_deltas
        SELECT company_id, resume_fit_template_id, status, is_deleted, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE resume_fit_template_id IS NOT NULL AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
        INSERT INTO guide_template_jobs_deltas
        SELECT company_id, status, is_deleted, sum(sign)
        FROM (SELECT n.*, 1 AS sign FROM new_rows n) r WHERE guide_from_template AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO resume_fit_jobs_deltas
        SELECT company_id, resume_fit_template_id, status, is_deleted, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE resume_fit_template_id IS NOT NULL AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
        INSERT INTO guide_template_jobs_deltas
        SELECT company_id, status, is_deleted, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o) r WHERE guide_from_template AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0;
    ELSE
        INSERT INTO resume_fit_jobs_deltas
        SELECT company_id, resume_fit_template_id, status, is_deleted, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE resume_fit_template_id IS NOT NULL AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
        INSERT INTO guide_template_jobs_deltas
        SELECT company_id, status, is_deleted, sum(sign)
        FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) r WHERE guide_from_template AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0;
    END IF;
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_flag_last_daily_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- The statements flag_steps builds for each table, kind and operation.
    IF TG_TABLE_NAME = 'cheating_evaluations' AND TG_ARGV[0] = 'cheating' THEN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO flag_last_daily AS d
            SELECT * FROM (
                WITH steps AS (
                    SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, coalesce(later, -1) AS lo, f AS hi FROM (
                        SELECT r.*, floor(r.score)::int AS f,
                               max(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                        FROM (
                            WITH ch AS MATERIALIZED (
                                SELECT company_id, candidate_id, id, cheating_score AS score, created_at, sign FROM (SELECT n.*, 1 AS sign FROM new_rows n) c
                                WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
                            ), cands AS (
                                SELECT DISTINCT company_id, candidate_id FROM ch
                            ), cur AS (
                                SELECT t.company_id, t.candidate_id, t.id, t.cheating_score AS score, t.created_at
                                FROM cheating_evaluations t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
                            )
                            SELECT cur.*, 1 AS sign FROM cur
                            UNION ALL
                            SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
                            UNION ALL
                            SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
                        ) r) r)
                SELECT company_id, 'cheating'::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
                    SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
                    UNION ALL
                    SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
                ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
            ) s ORDER BY 1, 2, 3, 4
            ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO flag_last_daily AS d
            SELECT * FROM (
                WITH steps AS (
                    SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, coalesce(later, -1) AS lo, f AS hi FROM (
                        SELECT r.*, floor(r.score)::int AS f,
                               max(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                        FROM (
                            WITH ch AS MATERIALIZED (
                                SELECT company_id, candidate_id, id, cheating_score AS score, created_at, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o) c
                                WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
                            ), cands AS (
                                SELECT DISTINCT company_id, candidate_id FROM ch
                            ), cur AS (
                                SELECT t.company_id, t.candidate_id, t.id, t.cheating_score AS score, t.created_at
                                FROM cheating_evaluations t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
                            )
                            SELECT cur.*, 1 AS sign FROM cur
                            UNION ALL
                            SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
                            UNION ALL
                            SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
                        ) r) r)
                SELECT company_id, 'cheating'::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
                    SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
                    UNION ALL
                    SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
                ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
            ) s ORDER BY 1, 2, 3, 4
            ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates;
        ELSE
            INSERT INTO flag_last_daily AS d
            SELECT * FROM (
                WITH steps AS (
                    SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, coalesce(later, -1) AS lo, f AS hi FROM (
                        SELECT r.*, floor(r.score)::int AS f,
                               max(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                        FROM (
                            WITH ch AS MATERIALIZED (
                                SELECT company_id, candidate_id, id, cheating_score AS score, created_at, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) c
                                WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
                            ), cands AS (
                                SELECT DISTINCT company_id, candidate_id FROM ch
                            ), cur AS (
                                SELECT t.company_id, t.candidate_id, t.id, t.cheating_score AS score, t.created_at
                                FROM cheating_evaluations t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
                            )
                            SELECT cur.*, 1 AS sign FROM cur
                            UNION ALL
                            SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
                            UNION ALL
                            SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
                        ) r) r)
                SELECT company_id, 'cheating'::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
                    SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
                    UNION ALL
                    SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
                ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
            ) s ORDER BY 1, 2, 3, 4
            ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates;
        END IF;
    ELSIF TG_TABLE_NAME = 'fraud_verifications' AND TG_ARGV[0] = 'fraud' THEN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO flag_last_daily AS d
            SELECT * FROM (
                WITH steps AS (
                    SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, f AS lo, least(coalesce(later, 100), 100) AS hi FROM (
                        SELECT r.*, floor(r.score)::int AS f,
                               min(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                        FROM (
                            WITH ch AS MATERIALIZED (
                                SELECT company_id, candidate_id, id, overall_verification_score AS score, created_at, sign FROM (SELECT n.*, 1 AS sign FROM new_rows n) c
                                WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
                            ), cands AS (
                                SELECT DISTINCT company_id, candidate_id FROM ch
                            ), cur AS (
                                SELECT t.company_id, t.candidate_id, t.id, t.overall_verification_score AS score, t.created_at
                                FROM fraud_verifications t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
                            )
                            SELECT cur.*, 1 AS sign FROM cur
                            UNION ALL
                            SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
                            UNION ALL
                            SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
                        ) r) r)
                SELECT company_id, 'fraud'::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
                    SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
                    UNION ALL
                    SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
                ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
            ) s ORDER BY 1, 2, 3, 4
            ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO flag_last_daily AS d
            SELECT * FROM (
                WITH steps AS (
                    SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, f AS lo, least(coalesce(later, 100), 100) AS hi FROM (
                        SELECT r.*, floor(r.score)::int AS f,
                               min(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                        FROM (
                            WITH ch AS MATERIALIZED (
                                SELECT company_id, candidate_id, id, overall_verification_score AS score, created_at, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o) c
                                WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
                            ), cands AS (
                                SELECT DISTINCT company_id, candidate_id FROM ch
                            ), cur AS (
                                SELECT t.company_id, t.candidate_id, t.id, t.overall_verification_score AS score, t.created_at
                                FROM fraud_verifications t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
                            )
                            SELECT cur.*, 1 AS sign FROM cur
                            UNION ALL
                            SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
                            UNION ALL
                            SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
                        ) r) r)
                SELECT company_id, 'fraud'::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
                    SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
                    UNION ALL
                    SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
                ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
            ) s ORDER BY 1, 2, 3, 4
            ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates;
        ELSE
            INSERT INTO flag_last_daily AS d
            SELECT * FROM (
                WITH steps AS (
                    SELECT company_id, sign, (created_at AT TIME ZONE 'UTC')::date AS day, f AS lo, least(coalesce(later, 100), 100) AS hi FROM (
                        SELECT r.*, floor(r.score)::int AS f,
                               min(floor(r.score)::int) OVER (PARTITION BY r.sign, r.company_id, r.candidate_id ORDER BY r.created_at, r.id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
                        FROM (
                            WITH ch AS MATERIALIZED (
                                SELECT company_id, candidate_id, id, overall_verification_score AS score, created_at, sign FROM (SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n) c
                                WHERE EXISTS (SELECT 1 FROM companies k WHERE k.id = c.company_id)
                            ), cands AS (
                                SELECT DISTINCT company_id, candidate_id FROM ch
                            ), cur AS (
                                SELECT t.company_id, t.candidate_id, t.id, t.overall_verification_score AS score, t.created_at
                                FROM fraud_verifications t JOIN cands c ON t.company_id = c.company_id AND t.candidate_id = c.candidate_id
                            )
                            SELECT cur.*, 1 AS sign FROM cur
                            UNION ALL
                            SELECT cur.*, -1 FROM cur WHERE NOT EXISTS (SELECT 1 FROM ch WHERE ch.sign = 1 AND ch.id = cur.id)
                            UNION ALL
                            SELECT company_id, candidate_id, id, score, created_at, -1 FROM ch WHERE sign = -1
                        ) r) r)
                SELECT company_id, 'fraud'::text AS kind, day, point::smallint, sum(n)::bigint AS n FROM (
                    SELECT company_id, day, hi AS point, sign AS n FROM steps WHERE hi > lo AND hi >= 0
                    UNION ALL
                    SELECT company_id, day, lo, -sign FROM steps WHERE hi > lo AND lo >= 0
                ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
            ) s ORDER BY 1, 2, 3, 4
            ON CONFLICT (company_id, kind, day, point) DO UPDATE SET candidates = d.candidates + excluded.candidates;
        END IF;
    ELSE
        RAISE EXCEPTION 'rollup_flag_last_daily_trigger: no statement for % of %', TG_ARGV[0], TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_flag_last_daily_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_template_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
DECLARE
    src text := rollup_signed(TG_OP);
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO resume_fit_jobs_deltas
        SELECT company_id, resume_fit_template_id, status, is_deleted, sum(sign)
        FROM (%s) r WHERE resume_fit_template_id IS NOT NULL AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0
    $q$, src);
    EXECUTE format($q$
        INSERT INTO guide_template_jobs_deltas
        SELECT company_id, status, is_deleted, sum(sign)
        FROM (%s) r WHERE guide_from_template AND EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0
    $q$, src);
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Rows of companies being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO job_counts_deltas
        SELECT company_id, status, is_open, is_deleted, enable_identity_verification, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_candidate_score_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_candidate_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_job_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Rows of jobs being deleted (a cascade) are skipped: their rollups go with them.
    EXECUTE format($q$
        INSERT INTO job_score_daily_deltas
        SELECT company_id, job_id, (created_at AT TIME ZONE 'UTC')::date, floor(cheating_score)::smallint, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = r.company_id AND j.id = r.job_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_evaluation_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_evaluations_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_fraud_scores_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO fraud_scores AS d
        SELECT company_id, floor(overall_verification_score)::smallint, (created_at AT TIME ZONE 'UTC')::date, sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, score, day) DO UPDATE SET verifications = d.verifications + excluded.verifications
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_fraud_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
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
END $function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rollup_identity_trigger() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    EXECUTE format($q$
        INSERT INTO identity_daily AS d
        SELECT company_id, (created_at AT TIME ZONE 'UTC')::date, status, identity_reason(status, failure_reason), sum(sign)
        FROM (%s) r WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
        GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, day, status, reason) DO UPDATE SET verifications = d.verifications + excluded.verifications
    $q$, rollup_signed(TG_OP));
    RETURN NULL;
END $function$;
-- +goose StatementEnd
