-- Each answer's channel and the thread's timings (issue 31, point 8; docs/interviews.md,
-- "Integrity in a text thread").
--
-- interview_turns.channel: the surface that received the answer (web: the interview page; sms,
-- whatsapp: the candidate's text thread), set with the answer; null while the turn is
-- unanswered. Answers stored before this migration came from the page.
--
-- interview_thread_signals: when the thread handed a turn's question to the provider (the first
-- time; a repeated prompt keeps it) and when the answer to it arrived in the same thread. Times
-- only, never text or numbers. Recorded when the company's model_cheat_detection_enabled is on;
-- the session's cheating evaluation reads them with the answer's length (internal/integrity).

-- +goose Up
ALTER TABLE interview_turns ADD COLUMN channel text CHECK (channel IN ('web', 'sms', 'whatsapp'));
UPDATE interview_turns SET channel = 'web' WHERE answer IS NOT NULL;

CREATE TABLE interview_thread_signals (
    company_id  uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    session_id  uuid        NOT NULL,
    seq         integer     NOT NULL,
    channel     text        NOT NULL CHECK (channel IN ('sms', 'whatsapp')),
    sent_at     timestamptz NOT NULL,
    received_at timestamptz,
    PRIMARY KEY (company_id, session_id, seq),
    FOREIGN KEY (company_id, session_id, seq) REFERENCES interview_turns (company_id, session_id, seq) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE interview_thread_signals;
ALTER TABLE interview_turns DROP COLUMN channel;
