-- Assessment links that arrive before their application is ingested (issue 21): held for 15
-- minutes in case the application appears, then discarded. One hold per company and pushed
-- application id (a later push replaces it: last write wins, by received_at), seen by nothing but
-- the hold's workflow (assessment-link-hold/<slug>/<hold id>), which looks for the application
-- and either turns the hold into the application's assessment link or deletes it at expires_at.
-- The URL lives here only, never in Temporal. The reconciler's hourly upkeep deletes a hold an
-- hour past its expiry whose workflow never ran, so none outlives the window by much.

-- +goose Up
CREATE TABLE assessment_link_holds (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id      uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    application_ref text NOT NULL CHECK (length(application_ref) BETWEEN 1 AND 128),
    assessment_url  text NOT NULL CHECK (assessment_url LIKE 'https://%' AND length(assessment_url) <= 2048),
    candidate_ref   text NOT NULL DEFAULT '' CHECK (length(candidate_ref) <= 128),
    job_ref         text NOT NULL DEFAULT '' CHECK (length(job_ref) <= 128),
    order_id        text CHECK (length(order_id) <= 128),
    received_at     timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    UNIQUE (company_id, application_ref)
);
CREATE INDEX assessment_link_holds_expires_idx ON assessment_link_holds (expires_at);

-- +goose Down
DROP TABLE assessment_link_holds;
