-- Integrity with its evidence (docs/integrity-checks.md; issue 30, points 8 to 11).
--
-- identity_verifications:
--   * status SKIPPED: a session of a job with enable_identity_verification that completed or
--     ended without any verification recorded (an answer posted past the identity screen). The
--     outcome of the step is then stated, never missing.
--   * return_key_hash, return_used_at: the provider sends the candidate back to a single-use
--     address (/interview/identity-return/<id>) instead of the interview link, which is the
--     session's credential. Only the SHA-256 of the one-time id is kept; the first visit marks it
--     used and redirects to the page, later visits open nothing.
--
-- candidate_contact_sources: the contact each source gave for a candidate (invitation, partner
-- lookup, HR-suite row, ATS sync, other applications), latest per source, so the fraud check
-- compares the stored contact with what every source said ("contact details that changed
-- between sources").
--
-- interview_turns_answer_print_idx: finds identical answers of other sessions of the company
-- (whitespace and case ignored) for the cheating evaluation, without reading the transcripts.

-- +goose Up
ALTER TABLE identity_verifications DROP CONSTRAINT identity_verifications_status_check;
ALTER TABLE identity_verifications
    ADD CONSTRAINT identity_verifications_status_check CHECK (status IN ('PENDING', 'VERIFIED', 'FAILED', 'EXPIRED', 'SKIPPED')),
    ADD COLUMN return_key_hash bytea CHECK (length(return_key_hash) = 32),
    ADD COLUMN return_used_at  timestamptz;
CREATE UNIQUE INDEX identity_verifications_return_key_idx ON identity_verifications (return_key_hash)
    WHERE return_key_hash IS NOT NULL;

CREATE TABLE candidate_contact_sources (
    company_id   uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    candidate_id uuid        NOT NULL,
    source       text        NOT NULL CHECK (length(source) BETWEEN 1 AND 50),
    email        text        CHECK (length(email) BETWEEN 1 AND 320),
    phone        text        CHECK (length(phone) BETWEEN 1 AND 40),
    seen_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, candidate_id, source),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE
);

CREATE INDEX interview_turns_answer_print_idx ON interview_turns
    (company_id, md5(lower(regexp_replace(answer, '\s+', ' ', 'g'))))
    WHERE answer IS NOT NULL AND length(answer) >= 40;

-- +goose Down
DROP INDEX interview_turns_answer_print_idx;
DROP TABLE candidate_contact_sources;
DROP INDEX identity_verifications_return_key_idx;
DELETE FROM identity_verifications WHERE status = 'SKIPPED';
ALTER TABLE identity_verifications
    DROP COLUMN return_used_at,
    DROP COLUMN return_key_hash,
    DROP CONSTRAINT identity_verifications_status_check;
ALTER TABLE identity_verifications
    ADD CONSTRAINT identity_verifications_status_check CHECK (status IN ('PENDING', 'VERIFIED', 'FAILED', 'EXPIRED'));
