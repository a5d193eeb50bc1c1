-- interview_sessions_company_completed_idx, (company_id, completed_at) over every session, served
-- no query: each statement that bounds completed_at also asks for status = 'COMPLETED' (the tool
-- server's statistics, time of day, top candidates; the rollups' rebuilds), which the partial
-- interview_sessions_company_completed_cover_idx of migration 00006 answers with the same key and
-- only the completed rows. The planner picked the plain index only for a completed_at range
-- without the status, which no code issues (the bench's own count of a company's sessions uses
-- another index now). Building it took 0.6 CPU-s of `recruitd seed demo` at 200k candidates
-- (so about 3-4 at a million), and every session insert and completion wrote it.

-- +goose Up
DROP INDEX interview_sessions_company_completed_idx;

-- +goose Down
CREATE INDEX interview_sessions_company_completed_idx ON interview_sessions (company_id, completed_at);
