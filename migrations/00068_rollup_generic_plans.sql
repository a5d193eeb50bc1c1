-- The per-candidate and per-guide rollup functions take their keys as arrays, which their
-- triggers collect from the transition tables. PL/pgSQL keeps a statement's plan per
-- connection, but under plan_cache_mode = auto Postgres compares the generic plan's cost with
-- the custom plans' and keeps planning custom ones while the generic plan looks dearer; with an
-- array parameter it always does (a custom plan sees one key, the generic plan assumes ten
-- rows of unnest), so rollup_journeys planned its statement again on every call: in the partner
-- bench, 0.75 ms of planning per call, two calls per application (pg_stat_statements, plans per
-- call 1.00). The plan these statements want at any size is a probe per key into the key's own
-- index (with 10,000 keys it costs what the custom plan does, docs/decisions.md), so each
-- function keeps one generic plan, and without sequential scans: a generic plan made while a
-- table is small (a new database) would otherwise scan it on every call as it grows, until
-- autovacuum's next analyze.
-- +goose Up
ALTER FUNCTION rollup_journeys(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION rollup_journeys(uuid[], uuid[]) SET enable_seqscan = off;
ALTER FUNCTION rollup_candidate_media(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION rollup_candidate_media(uuid[], uuid[]) SET enable_seqscan = off;
ALTER FUNCTION rollup_candidate_scores(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION rollup_candidate_scores(uuid[], uuid[]) SET enable_seqscan = off;
ALTER FUNCTION guide_from_template_refresh(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION guide_from_template_refresh(uuid[], uuid[]) SET enable_seqscan = off;

-- +goose Down
ALTER FUNCTION guide_from_template_refresh(uuid[], uuid[]) RESET ALL;
ALTER FUNCTION rollup_candidate_scores(uuid[], uuid[]) RESET ALL;
ALTER FUNCTION rollup_candidate_media(uuid[], uuid[]) RESET ALL;
ALTER FUNCTION rollup_journeys(uuid[], uuid[]) RESET ALL;
