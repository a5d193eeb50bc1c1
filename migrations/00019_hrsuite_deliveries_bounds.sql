-- HR-suite deliveries (issue 21).
--
-- A Job Req Id matches only a job imported from the HR suite: the ingest looks up each candidate
-- job's aggregator record by (company, job), which this index serves.

-- +goose Up
CREATE INDEX aggregator_jobs_job_idx ON aggregator_jobs (company_id, job_id);

-- +goose Down
DROP INDEX aggregator_jobs_job_idx;
