-- Versioned customer workflow definitions, one series per company and trigger.

-- +goose Up
CREATE TABLE workflow_definitions (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    trigger     text        NOT NULL CHECK (trigger IN ('partner_application', 'new_application_webhook', 'new_job_from_ats', 'manual_invite')),
    version     integer     NOT NULL CHECK (version > 0),
    enabled     boolean     NOT NULL,
    definition  jsonb       NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
    hash        text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, trigger, version)
);

-- +goose Down
DROP TABLE workflow_definitions;
