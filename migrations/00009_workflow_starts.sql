-- The start outbox: one row per workflow that a request (or the CLI) committed work for. The row
-- is written in the transaction that writes the work's own rows, and the workflow is started after
-- the commit, so no database connection is held across a Temporal call. started_at is set once the
-- start succeeded; refused_at once the request that wrote it answered 503 because Temporal did not
-- take the start (only a repeat of that request starts it then, except for kinds whose late run
-- reaches nobody outside, such as a job's generation). The reconciler in the worker starts rows
-- that are neither, which a crash between commit and start leaves behind.

-- +goose Up
CREATE TABLE workflow_starts (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id   uuid NOT NULL REFERENCES companies (id),
    kind         text NOT NULL,
    workflow_id  text NOT NULL UNIQUE,
    company_slug text NOT NULL,
    attributes   jsonb NOT NULL DEFAULT '{}',
    input        jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    refused_at   timestamptz,
    attempts     integer NOT NULL DEFAULT 0,
    last_error   text
);
CREATE INDEX workflow_starts_pending_idx ON workflow_starts (created_at)
    WHERE started_at IS NULL;

-- +goose Down
DROP TABLE workflow_starts;
