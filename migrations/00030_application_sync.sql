-- Candidates and applications from the ATS through the integration aggregator (issue 25).
--
-- A company that connects its ATS (not an HR suite) through the aggregator gets its candidates
-- and applications synced in its job import's passes: candidates by (company, external id =
-- the ATS candidate id), applications as source 'ats' with external id = the ATS application id
-- (what an assessment provider pushes for ATS-D). aggregator_applications is the aggregator's
-- record of each application that has a service application (the ATS payload stays here and in
-- candidates, never in Temporal): upstream_status is what the ATS last said of the
-- application's fate ('' in process, hired, declined, closed = deleted upstream), so the
-- service status changes only when the ATS's does. aggregator_integrations gains the sync's
-- cursor and times for the connection card.
--
-- workflow_definitions gains the 'New Application from ATS' trigger.

-- +goose Up
ALTER TABLE workflow_definitions DROP CONSTRAINT workflow_definitions_trigger_check;
ALTER TABLE workflow_definitions ADD CONSTRAINT workflow_definitions_trigger_check
    CHECK (trigger IN ('partner_application', 'new_application_webhook', 'new_job_from_ats', 'manual_invite', 'new_application_ats'));

ALTER TABLE aggregator_integrations
    ADD COLUMN application_cursor        timestamptz,
    ADD COLUMN applications_synced_at    timestamptz,
    ADD COLUMN applications_full_pass_at timestamptz;

CREATE TABLE aggregator_applications (
    company_id          uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    remote_id           text NOT NULL,
    ats_application_id  text NOT NULL,
    application_id      uuid NOT NULL,
    candidate_remote_id text NOT NULL DEFAULT '',
    ats_candidate_id    text NOT NULL DEFAULT '',
    job_remote_id       text NOT NULL DEFAULT '',
    outcome             text NOT NULL DEFAULT '',
    stage               text NOT NULL DEFAULT '',
    upstream_status     text NOT NULL DEFAULT '',
    remote_created_at   timestamptz,
    changed_at          timestamptz,
    remote_deleted_at   timestamptz,
    seen_at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, remote_id),
    FOREIGN KEY (company_id, application_id) REFERENCES applications (company_id, id) ON DELETE CASCADE
);
CREATE INDEX aggregator_applications_application_idx ON aggregator_applications (company_id, application_id);
CREATE INDEX aggregator_applications_seen_idx ON aggregator_applications (company_id, seen_at);

-- +goose Down
DROP TABLE aggregator_applications;
ALTER TABLE aggregator_integrations
    DROP COLUMN application_cursor,
    DROP COLUMN applications_synced_at,
    DROP COLUMN applications_full_pass_at;
DELETE FROM workflow_definitions WHERE trigger = 'new_application_ats';
ALTER TABLE workflow_definitions DROP CONSTRAINT workflow_definitions_trigger_check;
ALTER TABLE workflow_definitions ADD CONSTRAINT workflow_definitions_trigger_check
    CHECK (trigger IN ('partner_application', 'new_application_webhook', 'new_job_from_ats', 'manual_invite'));
