-- The HR-suite connection through an integration aggregator (issue 14).
--
-- aggregator_integrations is a company's connection card: one row per company, written when the
-- company first asks to connect. credentials (the aggregator's base URL and API key) and
-- webhook_secret (the Standard Webhooks secret of this integration's deliveries) are AES-GCM
-- ciphertexts bound to the company, like companies.ats_credentials. state is the card's state;
-- remote_state and setup_status are what the aggregator last said. import_cursor is the
-- updated_after of the next incremental import pass; import_requested_at is set by every
-- data-changed delivery, so an import that missed its signal still finds the request here.
--
-- aggregator_events records every signed delivery once per (company, event id) with its raw
-- body: duplicates are counted, not stored twice. aggregator_jobs is the aggregator's job record
-- (the ATS payload stays here, never in Temporal), one per remote job, pointing at the service
-- job it created or updated.

-- +goose Up
CREATE TABLE aggregator_integrations (
    company_id          uuid PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
    provider            text NOT NULL DEFAULT 'kombo',
    credentials         bytea,
    webhook_secret      bytea,
    integration_id      text UNIQUE,
    state               text NOT NULL DEFAULT 'not_connected'
                        CHECK (state IN ('not_connected', 'syncing', 'connected', 'needs_attention')),
    remote_state        text,
    setup_status        text,
    reason              text,
    state_since         timestamptz NOT NULL DEFAULT now(),
    state_event_at      timestamptz,
    connect_url         text,
    connected_at        timestamptz,
    last_sync_at        timestamptz,
    last_full_pass_at   timestamptz,
    import_cursor       timestamptz,
    import_requested_at timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER aggregator_integrations_set_updated_at BEFORE UPDATE ON aggregator_integrations
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE aggregator_events (
    company_id  uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    event_id    text NOT NULL,
    type        text NOT NULL,
    body        jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    deliveries  integer NOT NULL DEFAULT 1,
    outcome     text NOT NULL DEFAULT '',
    PRIMARY KEY (company_id, event_id)
);

CREATE TABLE aggregator_jobs (
    company_id        uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    remote_id         text NOT NULL,
    ats_job_id        text NOT NULL,
    job_id            uuid NOT NULL,
    name              text NOT NULL DEFAULT '',
    remote_status     text NOT NULL DEFAULT '',
    location          text NOT NULL DEFAULT '',
    remote_created_at timestamptz,
    changed_at        timestamptz,
    remote_deleted_at timestamptz,
    seen_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, remote_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX aggregator_jobs_created_idx ON aggregator_jobs (company_id, remote_created_at);

-- Customer keys may connect the HR suite (partner-bound keys keep only what they were given).
ALTER TABLE api_keys ALTER COLUMN scopes
    SET DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations}';
UPDATE api_keys SET scopes = array_append(scopes, 'integrations')
    WHERE partner_id IS NULL AND NOT ('integrations' = ANY (scopes));

-- +goose Down
UPDATE api_keys SET scopes = array_remove(scopes, 'integrations');
ALTER TABLE api_keys ALTER COLUMN scopes
    SET DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read}';
DROP TABLE aggregator_jobs;
DROP TABLE aggregator_events;
DROP TABLE aggregator_integrations;
