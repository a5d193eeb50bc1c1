-- HR-suite deliveries have bounds (issue 21).
--
-- A Job Req Id matches only a job imported from the HR suite: the ingest looks up each candidate
-- job's aggregator record by (company, job), which aggregator_jobs_job_idx serves.
--
-- Bodies are stored compressed: body holds body_encoding ('gzip' for new deliveries; rows
-- stored before this migration stay 'identity') of body_bytes bytes as received; stored_bytes is
-- what the body takes, and a company's sum of it is held under HRSUITE_STORAGE_QUOTA_BYTES
-- (hrsuite_deliveries_storage_idx answers the sum from the index). A duplicate delivery stores
-- no body: it is byte for byte its first delivery's (same SHA-256).
--
-- final_at is when every row of a processed delivery got a final outcome (none unknown_job or
-- no_trigger, which a replay may still change); the reconciler deletes deliveries final for
-- longer than the retention (internal/outbox), and hrsuite_deliveries_final_idx finds them. The
-- dedupe record hrsuite_applications outlives the delivery that recorded it, so its foreign key
-- to the delivery goes (delivery_id stays, naming a delivery that may be deleted). A delivery a
-- replay has yet to reprocess is kept until the replay is done with it.

-- +goose Up
CREATE INDEX aggregator_jobs_job_idx ON aggregator_jobs (company_id, job_id);

ALTER TABLE hrsuite_deliveries
    ADD COLUMN body_encoding text NOT NULL DEFAULT 'identity' CHECK (body_encoding IN ('identity', 'gzip')),
    ADD COLUMN body_bytes bigint,
    ADD COLUMN stored_bytes bigint GENERATED ALWAYS AS (octet_length(body)) STORED,
    ADD COLUMN final_at timestamptz;
UPDATE hrsuite_deliveries SET body_bytes = octet_length(body);
UPDATE hrsuite_deliveries d SET final_at = d.processed_at
WHERE d.processed_at IS NOT NULL AND d.duplicate_of IS NULL
  AND (SELECT count(*) FROM hrsuite_rows r WHERE r.delivery_id = d.id) = d.row_count
  AND NOT EXISTS (SELECT 1 FROM hrsuite_rows r WHERE r.delivery_id = d.id AND r.outcome IN ('unknown_job', 'no_trigger'));
ALTER TABLE hrsuite_deliveries ALTER COLUMN body_bytes SET NOT NULL,
    ADD CONSTRAINT hrsuite_deliveries_body_bytes_check CHECK (body_bytes >= 0);
CREATE INDEX hrsuite_deliveries_storage_idx ON hrsuite_deliveries (company_id) INCLUDE (stored_bytes);
CREATE INDEX hrsuite_deliveries_final_idx ON hrsuite_deliveries (final_at) WHERE final_at IS NOT NULL;
-- Deleting a delivery finds its duplicates and replay entries (the cascades, and the prune's
-- check for a replay still to come) by index.
CREATE INDEX hrsuite_deliveries_duplicate_idx ON hrsuite_deliveries (duplicate_of) WHERE duplicate_of IS NOT NULL;
CREATE INDEX hrsuite_replay_deliveries_delivery_idx ON hrsuite_replay_deliveries (delivery_id);

ALTER TABLE hrsuite_applications DROP CONSTRAINT hrsuite_applications_company_id_delivery_id_fkey;

-- +goose Down
-- The dedupe records of pruned deliveries are kept (losing them would invite those candidates
-- again): the foreign key comes back NOT VALID. Bodies stored gzip stay so; the release before
-- this one cannot replay them.
ALTER TABLE hrsuite_applications ADD CONSTRAINT hrsuite_applications_company_id_delivery_id_fkey
    FOREIGN KEY (company_id, delivery_id) REFERENCES hrsuite_deliveries (company_id, id) ON DELETE CASCADE NOT VALID;
DROP INDEX hrsuite_replay_deliveries_delivery_idx;
DROP INDEX hrsuite_deliveries_duplicate_idx;
DROP INDEX hrsuite_deliveries_final_idx;
DROP INDEX hrsuite_deliveries_storage_idx;
ALTER TABLE hrsuite_deliveries DROP COLUMN final_at, DROP COLUMN stored_bytes, DROP COLUMN body_bytes, DROP COLUMN body_encoding;
DROP INDEX aggregator_jobs_job_idx;
