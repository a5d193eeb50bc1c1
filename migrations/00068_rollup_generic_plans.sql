-- The per-candidate and per-guide rollup functions take their keys as arrays, which their
-- triggers collect from the transition tables. PL/pgSQL keeps a statement's plan per
-- connection, but under plan_cache_mode = auto Postgres compares the generic plan's cost with
-- the custom plans' and keeps planning custom ones while the generic plan looks dearer; with an
-- array parameter it always does (a custom plan sees one key, the generic plan assumes ten
-- rows of unnest), so rollup_journeys planned its statement again on every call: in the partner
-- bench, 0.75 ms of planning per call, two calls per application (pg_stat_statements, plans per
-- call 1.00). The generic plan is the one these statements want at any size: a probe per key
-- into the key's own index (tested with 1 and 10,000 keys, docs/decisions.md).
-- +goose Up
ALTER FUNCTION rollup_journeys(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION rollup_candidate_media(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION rollup_candidate_scores(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION guide_from_template_refresh(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan;

-- +goose Down
ALTER FUNCTION guide_from_template_refresh(uuid[], uuid[]) RESET plan_cache_mode;
ALTER FUNCTION rollup_candidate_scores(uuid[], uuid[]) RESET plan_cache_mode;
ALTER FUNCTION rollup_candidate_media(uuid[], uuid[]) RESET plan_cache_mode;
ALTER FUNCTION rollup_journeys(uuid[], uuid[]) RESET plan_cache_mode;
