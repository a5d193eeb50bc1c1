-- Results written back to the ATS (issue 25 point 3): one row per write, its key unique per
-- company (the send-key pattern: a retried or repeated activity finds the row and does not write
-- twice). op 'note' is a session's report note (with its link); 'stage' a recruiter's decision
-- moving the ATS record to the company's field/value pair. target is how the record is reached:
-- ATS-A, ATS-B, ATS-C through their adapters, 'aggregator' through its write endpoints; ref is
-- the ATS record's id (the aggregator's application id for 'aggregator'), ref_job the ATS job
-- id that ATS-C records live under. status: pending (committed, not yet tried), sending (an
-- attempt began: the ATS may have it), done, failed (a permanent refusal, or retries given up).
-- HR-suite companies never get a row: the HR-suite connection is read-only.

-- +goose Up
CREATE TABLE ats_writes (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id     uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    session_id     uuid NOT NULL,
    application_id uuid NOT NULL,
    key            text NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
    op             text NOT NULL CHECK (op IN ('note', 'stage')),
    target         text NOT NULL CHECK (target IN ('ATS-A', 'ATS-B', 'ATS-C', 'aggregator')),
    ref            text NOT NULL CHECK (length(ref) BETWEEN 1 AND 200),
    ref_job        text NOT NULL DEFAULT '',
    decision       text CHECK (decision IN ('NONE', 'ACCEPTED', 'REJECTED', 'SUBMITTED', 'PLACED', 'HIRED')),
    field          text NOT NULL DEFAULT '',
    value          text NOT NULL DEFAULT '',
    status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'done', 'failed')),
    attempts       integer NOT NULL DEFAULT 0,
    last_error     text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    done_at        timestamptz,
    UNIQUE (company_id, key),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id) ON DELETE CASCADE
);
CREATE INDEX ats_writes_company_idx ON ats_writes (company_id, created_at DESC);

-- +goose Down
DROP TABLE ats_writes;
