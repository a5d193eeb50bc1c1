-- A message sent by an activity carries the identity of that activity in its workflow run
-- (send_key): the same for every retry of the activity. A retry that finds its message already
-- sent returns it instead of sending again; one that finds it queued or failed sends on that row.
-- This is what keeps a worker that stops between sending and reporting from inviting twice.

-- +goose Up
ALTER TABLE messages ADD COLUMN send_key text CHECK (length(send_key) <= 1000);
CREATE UNIQUE INDEX messages_send_key ON messages (company_id, send_key) WHERE send_key IS NOT NULL;

-- +goose Down
DROP INDEX messages_send_key;
ALTER TABLE messages DROP COLUMN send_key;
