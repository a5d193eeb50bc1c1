-- The reconciler prunes start-outbox rows started long ago (internal/outbox, Launcher.Prune):
-- this index finds them without reading the whole table.

-- +goose Up
CREATE INDEX workflow_starts_started_idx ON workflow_starts (started_at) WHERE started_at IS NOT NULL;

-- +goose Down
DROP INDEX workflow_starts_started_idx;
