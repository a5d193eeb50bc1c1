-- Why a session was cancelled (POST /v1/api/sessions/{sessionId}/cancel, a flow's cancel_session
-- step, recruitd sessions cancel --reason): the recruiter's or the flow's words, kept for the
-- company and never shown to the candidate. Who cancelled is the cancelled event's "by".

-- +goose Up
ALTER TABLE interview_sessions ADD COLUMN cancel_reason text;

-- +goose Down
ALTER TABLE interview_sessions DROP COLUMN cancel_reason;
