-- Partner applications: partners and their callback endpoints, API keys bound to a partner,
-- one application per (company, ATS applicant), and every callback with its delivery attempts.

-- +goose Up
CREATE TABLE partners (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id      uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name            text        NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    callback_url    text        NOT NULL CHECK (callback_url ~ '^https?://'),
    callback_secret bytea       NOT NULL, -- sealed with RECRUITD_ENCRYPTION_KEY
    signing_secret  bytea       NOT NULL, -- sealed with RECRUITD_ENCRYPTION_KEY
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, name),
    UNIQUE (company_id, id)
);

ALTER TABLE api_keys ADD COLUMN partner_id uuid;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_partner_fkey
    FOREIGN KEY (company_id, partner_id) REFERENCES partners (company_id, id) ON DELETE SET NULL (partner_id);

ALTER TABLE companies ADD COLUMN partner_deadline_seconds integer NOT NULL DEFAULT 600
    CHECK (partner_deadline_seconds BETWEEN 10 AND 86400);

CREATE TABLE partner_applications (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    partner_id       uuid        NOT NULL,
    ats_applicant_id text        NOT NULL,
    ats_job_id       text        NOT NULL,
    ats_candidate_id text,
    job_id           uuid        NOT NULL,
    candidate_id     uuid,
    application_id   uuid,
    status           text        NOT NULL DEFAULT 'in_flight' CHECK (status IN ('in_flight', 'invited', 'not_eligible', 'error')),
    interview_link   text,
    reason           text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    settled_at       timestamptz,
    UNIQUE (company_id, ats_applicant_id),
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, partner_id) REFERENCES partners (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE SET NULL (candidate_id),
    FOREIGN KEY (company_id, application_id) REFERENCES applications (company_id, id) ON DELETE SET NULL (application_id)
);
CREATE INDEX partner_applications_company_status_idx ON partner_applications (company_id, status, created_at);

-- One row per callback (the id is the Standard Webhooks webhook-id, stable across retries):
-- the terminal callback of an application, and one replay per repeat submission after settlement.
CREATE TABLE callbacks (
    id                     uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id             uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    partner_application_id uuid        NOT NULL,
    partner_id             uuid        NOT NULL,
    status                 text        NOT NULL CHECK (status IN ('invited', 'not_eligible', 'error')),
    reason                 text,
    interview_link         text,
    replay                 boolean     NOT NULL DEFAULT false,
    state                  text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'gave_up')),
    attempts               integer     NOT NULL DEFAULT 0,
    created_at             timestamptz NOT NULL DEFAULT now(),
    delivered_at           timestamptz,
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, partner_application_id) REFERENCES partner_applications (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, partner_id) REFERENCES partners (company_id, id) ON DELETE CASCADE
);
-- At most one terminal (non-replay) callback per application: the database enforces "exactly one".
CREATE UNIQUE INDEX callbacks_one_terminal_key ON callbacks (partner_application_id) WHERE NOT replay;
CREATE INDEX callbacks_company_created_idx ON callbacks (company_id, created_at DESC);

CREATE TABLE callback_attempts (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id    uuid        NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    callback_id   uuid        NOT NULL,
    number        integer     NOT NULL CHECK (number > 0),
    at            timestamptz NOT NULL,
    duration_ms   integer     NOT NULL,
    status_code   integer,
    error_class   text,
    response_body text,
    UNIQUE (callback_id, number),
    FOREIGN KEY (company_id, callback_id) REFERENCES callbacks (company_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE callback_attempts;
DROP TABLE callbacks;
DROP TABLE partner_applications;
ALTER TABLE companies DROP COLUMN partner_deadline_seconds;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_partner_fkey;
ALTER TABLE api_keys DROP COLUMN partner_id;
DROP TABLE partners;
