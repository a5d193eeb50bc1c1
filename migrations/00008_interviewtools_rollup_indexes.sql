-- Indexes for the interview tools next to the rollups of 00007 (statement times measured on 3M
-- sessions and 2M cheating evaluations in one company):
-- - topCandidates: the whole ranking order, so a LIMIT walks the index instead of sorting a tie
--   group of the coarse ratings (decision ACCEPTED or HIRED, limit 100: 87-166 ms -> 4 ms).
--   Replaces the rating index of 00006.
-- - completedCandidates in a window: the candidates whose first completion is in or before it,
--   index-only, with the candidate for the check of those spanning it (a month: 232 -> 110 ms).
-- - getCheatingDetectionStats byJob in a window: evaluations by time with their job, index-only
--   (a month: 227 -> 83 ms). Nothing reads session_id from this index any more.
-- - The duration index of 00006 served the median, minimum and maximum durations, which
--   getInterviewStats no longer reports (averages come from completion_slots): dropped.

-- +goose Up
DROP INDEX interview_sessions_company_duration_idx;
DROP INDEX interview_sessions_company_rating_idx;
CREATE INDEX interview_sessions_company_rank_idx ON interview_sessions
    (company_id, recruiter_rating DESC NULLS LAST, service_rating DESC NULLS LAST, completed_at DESC, id)
    WHERE status = 'COMPLETED' AND (recruiter_rating IS NOT NULL OR service_rating IS NOT NULL);
CREATE INDEX candidate_journeys_first_completed_idx ON candidate_journeys (company_id, first_completed_at)
    INCLUDE (last_completed_at, completed_n, candidate_id) WHERE completed_n > 0;
DROP INDEX cheating_evaluations_company_created_idx;
CREATE INDEX cheating_evaluations_company_created_idx ON cheating_evaluations (company_id, created_at)
    INCLUDE (cheating_score, job_id);

-- +goose Down
CREATE INDEX interview_sessions_company_duration_idx ON interview_sessions (company_id, duration_seconds)
    WHERE status = 'COMPLETED';
DROP INDEX cheating_evaluations_company_created_idx;
CREATE INDEX cheating_evaluations_company_created_idx ON cheating_evaluations (company_id, created_at)
    INCLUDE (cheating_score, session_id);
DROP INDEX candidate_journeys_first_completed_idx;
DROP INDEX interview_sessions_company_rank_idx;
CREATE INDEX interview_sessions_company_rating_idx ON interview_sessions
    (company_id, recruiter_rating DESC NULLS LAST, service_rating DESC NULLS LAST) WHERE status = 'COMPLETED';
