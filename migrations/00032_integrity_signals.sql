-- Integrity signals that recruitd computes itself (docs/integrity-checks.md).
--
-- interview_answer_signals: what the interview page reported with an answer (parsed by
-- internal/integrity/pagesignal, bounded as there): counts and times, never text. One row per
-- answered turn; the first report is kept. The session's cheating evaluation is computed from
-- these rows when the interview completes.
--
-- cheating_evaluations.evidence: the per-answer evidence of an evaluation recruitd computed, with
-- the version of its rules (internal/integrity CheatingEvidence); null for evaluations made
-- elsewhere, such as the demo seed's.
--
-- Fraud verifications need no new column: the signals and their evidence go to the existing
-- signals jsonb, and a refresh updates the row of its candidate and session (internal/store
-- SaveFraudVerification).

-- +goose Up
CREATE TABLE interview_answer_signals (
    company_id   uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    session_id   uuid        NOT NULL,
    seq          integer     NOT NULL,
    pasted_chars integer     NOT NULL CHECK (pasted_chars BETWEEN 0 AND 1000000),
    paste_events integer     NOT NULL CHECK (paste_events BETWEEN 0 AND 100000),
    hidden_ms    integer     NOT NULL CHECK (hidden_ms BETWEEN 0 AND 604800000),
    hidden_count integer     NOT NULL CHECK (hidden_count BETWEEN 0 AND 100000),
    blur_ms      integer     NOT NULL CHECK (blur_ms BETWEEN 0 AND 604800000),
    blur_count   integer     NOT NULL CHECK (blur_count BETWEEN 0 AND 100000),
    keystrokes   integer     NOT NULL CHECK (keystrokes BETWEEN 0 AND 1000000),
    typing_ms    integer     NOT NULL CHECK (typing_ms BETWEEN 0 AND 604800000),
    answer_chars integer     NOT NULL CHECK (answer_chars BETWEEN 0 AND 1000000),
    received_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, session_id, seq),
    FOREIGN KEY (company_id, session_id, seq) REFERENCES interview_turns (company_id, session_id, seq) ON DELETE CASCADE
);

ALTER TABLE cheating_evaluations ADD COLUMN evidence jsonb CHECK (jsonb_typeof(evidence) = 'object');

-- +goose Down
ALTER TABLE cheating_evaluations DROP COLUMN evidence;
DROP TABLE interview_answer_signals;
