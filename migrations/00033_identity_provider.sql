-- Identity verification through a hosted provider (docs/integrity-checks.md, internal/identity).
--
-- identity_verifications gains the provider's side of a verification that recruitd started:
-- which provider (internal/idverify.ProviderName), its id there (unique per provider: the webhook
-- finds the row by it, together with recruitd's own id that the provider echoes as reference),
-- the hosted page the candidate is sent to, and when a verification still PENDING becomes
-- EXPIRED (the interview workflow's timer; the expiry is checked in SQL). Rows written before,
-- or by the demo seed, leave the four columns null. A session has at most one PENDING
-- verification at a provider, so two concurrent starts keep one.
--
-- identity_webhook_deliveries records each accepted webhook-id once (Standard Webhooks: the id
-- is the same on every retry of one delivery): a second delivery with the id is refused as a
-- replay, and one whose webhook-timestamp is outside the tolerance never gets here. The row
-- names the verification it concluded and what the delivery did to it.

-- +goose Up
ALTER TABLE identity_verifications
    ADD COLUMN provider                 text CHECK (length(provider) BETWEEN 1 AND 50),
    ADD COLUMN provider_verification_id text CHECK (length(provider_verification_id) BETWEEN 1 AND 200),
    ADD COLUMN hosted_url               text CHECK (length(hosted_url) BETWEEN 1 AND 2048),
    ADD COLUMN expires_at               timestamptz,
    ADD CONSTRAINT identity_verifications_provider_fields_check CHECK (
        (provider IS NULL AND provider_verification_id IS NULL AND hosted_url IS NULL AND expires_at IS NULL)
        OR (provider IS NOT NULL AND provider_verification_id IS NOT NULL AND hosted_url IS NOT NULL AND expires_at IS NOT NULL)),
    ADD CONSTRAINT identity_verifications_company_id_key UNIQUE (company_id, id);
CREATE UNIQUE INDEX identity_verifications_provider_id_idx ON identity_verifications (provider, provider_verification_id)
    WHERE provider IS NOT NULL;
CREATE UNIQUE INDEX identity_verifications_session_pending_idx ON identity_verifications (company_id, session_id)
    WHERE status = 'PENDING' AND provider IS NOT NULL;

CREATE TABLE identity_webhook_deliveries (
    provider        text NOT NULL CHECK (length(provider) BETWEEN 1 AND 50),
    webhook_id      text NOT NULL CHECK (length(webhook_id) BETWEEN 1 AND 200),
    company_id      uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    verification_id uuid NOT NULL,
    event_type      text NOT NULL CHECK (length(event_type) BETWEEN 1 AND 100),
    outcome         text NOT NULL CHECK (outcome IN ('applied', 'unchanged', 'ignored')),
    signed_at       timestamptz NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, webhook_id),
    FOREIGN KEY (company_id, verification_id) REFERENCES identity_verifications (company_id, id) ON DELETE CASCADE
);
CREATE INDEX identity_webhook_deliveries_verification_idx ON identity_webhook_deliveries (company_id, verification_id);

-- +goose Down
DROP TABLE identity_webhook_deliveries;
DROP INDEX identity_verifications_session_pending_idx;
DROP INDEX identity_verifications_provider_id_idx;
ALTER TABLE identity_verifications
    DROP CONSTRAINT identity_verifications_company_id_key,
    DROP CONSTRAINT identity_verifications_provider_fields_check,
    DROP COLUMN expires_at,
    DROP COLUMN hosted_url,
    DROP COLUMN provider_verification_id,
    DROP COLUMN provider;
