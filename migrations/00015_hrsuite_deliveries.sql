-- HR-suite webhook deliveries, stored whole before anything else and reprocessable by support.
--
-- hrsuite_deliveries holds each POST /webhook/hrsuite body exactly as received (it holds names and
-- contact details, like candidates does). A body identical to an earlier one of the company is
-- stored too, marked duplicate_of that first delivery, and never processed: its rows are the
-- first one's. counts are the row outcomes of the delivery's latest processing.
--
-- hrsuite_rows is every row's outcome in its delivery's latest processing: accepted, duplicate,
-- do_not_hire, unknown_job, no_trigger or invalid:<reason>.
--
-- hrsuite_applications is the permanent deduplication record, per company and Job Posting
-- Application Id, for ever (not a time window): an application recorded accepted or do_not_hire
-- is never processed again, by a later delivery or a replay. no_trigger is recorded too, and
-- upgraded to accepted when a replay finds the trigger enabled. Unknown-job applications are not
-- recorded, so a replay after their job is imported picks them up.
--
-- hrsuite_replays records each support replay: who asked, when, the filter, the counts and its
-- progress.
--
-- support_tokens are platform-admin credentials for the support endpoints: only the SHA-256 of a
-- token is stored, with its clear prefix to find it, like api_keys.

-- +goose Up
CREATE TABLE hrsuite_deliveries (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id   uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    received_at  timestamptz NOT NULL DEFAULT now(),
    body         bytea NOT NULL,
    body_sha256  bytea NOT NULL CHECK (octet_length(body_sha256) = 32),
    row_count    integer NOT NULL CHECK (row_count >= 0),
    duplicate_of uuid REFERENCES hrsuite_deliveries (id) ON DELETE CASCADE,
    api_key_id   uuid,
    request_id   text,
    processed_at timestamptz,
    counts       jsonb NOT NULL DEFAULT '{}',
    UNIQUE (company_id, id)
);
CREATE UNIQUE INDEX hrsuite_deliveries_body_key ON hrsuite_deliveries (company_id, body_sha256)
    WHERE duplicate_of IS NULL;
CREATE INDEX hrsuite_deliveries_company_received_idx ON hrsuite_deliveries (company_id, received_at);
CREATE INDEX hrsuite_deliveries_received_idx ON hrsuite_deliveries (received_at);

CREATE TABLE hrsuite_rows (
    delivery_id     uuid NOT NULL,
    row_index       integer NOT NULL CHECK (row_index >= 0),
    company_id      uuid NOT NULL,
    application_ref text CHECK (length(application_ref) <= 1000),
    outcome         text NOT NULL CHECK (outcome IN ('accepted', 'duplicate', 'do_not_hire', 'unknown_job', 'no_trigger')
                                         OR outcome LIKE 'invalid:%'),
    application_id  uuid,
    processed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (delivery_id, row_index),
    FOREIGN KEY (company_id, delivery_id) REFERENCES hrsuite_deliveries (company_id, id) ON DELETE CASCADE
);
CREATE INDEX hrsuite_rows_company_outcome_idx ON hrsuite_rows (company_id, outcome, delivery_id);

CREATE TABLE hrsuite_applications (
    company_id      uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    application_ref text NOT NULL CHECK (length(application_ref) <= 1000),
    delivery_id     uuid NOT NULL,
    outcome         text NOT NULL CHECK (outcome IN ('accepted', 'do_not_hire', 'no_trigger')),
    application_id  uuid,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, application_ref),
    FOREIGN KEY (company_id, delivery_id) REFERENCES hrsuite_deliveries (company_id, id) ON DELETE CASCADE
);

CREATE TABLE hrsuite_replays (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    requested_by         text NOT NULL,
    requested_at         timestamptz NOT NULL DEFAULT now(),
    filter               jsonb NOT NULL,
    deliveries           integer NOT NULL DEFAULT 0,
    rows                 integer NOT NULL DEFAULT 0,
    applications         integer NOT NULL DEFAULT 0,
    deliveries_done      integer NOT NULL DEFAULT 0,
    counts               jsonb NOT NULL DEFAULT '{}',
    finished_at          timestamptz
);

CREATE TABLE hrsuite_replay_deliveries (
    replay_id   uuid NOT NULL REFERENCES hrsuite_replays (id) ON DELETE CASCADE,
    delivery_id uuid NOT NULL REFERENCES hrsuite_deliveries (id) ON DELETE CASCADE,
    company_id  uuid NOT NULL,
    done_at     timestamptz,
    PRIMARY KEY (replay_id, delivery_id)
);

CREATE TABLE support_tokens (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '',
    prefix       text NOT NULL,
    key_hash     bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX support_tokens_prefix_idx ON support_tokens (prefix);

-- +goose Down
DROP TABLE support_tokens;
DROP TABLE hrsuite_replay_deliveries;
DROP TABLE hrsuite_replays;
DROP TABLE hrsuite_applications;
DROP TABLE hrsuite_rows;
DROP TABLE hrsuite_deliveries;
