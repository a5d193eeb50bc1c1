-- Imported jobs get their interview (issue 29).
--
-- jobs.guide_version counts the versions of a job's description: 1 when the job is created, one
-- more each time an import brings a changed description. interview_guides.version is the
-- description version a guide was generated from, so a late generation of an older version
-- never replaces a newer guide (sessions already started keep their own plan).
--
-- companies.invitation_wait_seconds: how long an invitation to a job whose interview is not
-- ready yet waits, in the flow's run, for it (then the run ends, nothing sent).
--
-- job_ready_waits: the customer-flow runs whose invitation waits for a job; the job's generation
-- signals them when the guide is stored (a timer in the run looks again in any case).

-- +goose Up
ALTER TABLE jobs ADD COLUMN guide_version integer NOT NULL DEFAULT 1 CHECK (guide_version >= 1);
ALTER TABLE interview_guides ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);
ALTER TABLE companies ADD COLUMN invitation_wait_seconds integer NOT NULL DEFAULT 259200
    CHECK (invitation_wait_seconds BETWEEN 60 AND 2592000);

CREATE TABLE job_ready_waits (
    company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    workflow_id text NOT NULL CHECK (length(workflow_id) BETWEEN 1 AND 1000),
    job_id      uuid NOT NULL,
    since       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, workflow_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX job_ready_waits_job ON job_ready_waits (company_id, job_id);

-- +goose Down
DROP TABLE job_ready_waits;
ALTER TABLE companies DROP COLUMN invitation_wait_seconds;
ALTER TABLE interview_guides DROP COLUMN version;
ALTER TABLE jobs DROP COLUMN guide_version;
