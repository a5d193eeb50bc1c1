-- Delivery reports of the texts recruitd sends (issue 31): Twilio's status callbacks.
--
-- provider_status is the provider's last status of the message (queued, sent, delivered, read,
-- undelivered, failed...), status_at when it was recorded. A callback moves it forward only
-- (channels.MessageStatus.Supersedes): a late or repeated callback changes nothing. messages.status
-- follows: delivered and read are delivered, undelivered, failed and canceled are failed.

-- +goose Up
ALTER TABLE messages
    ADD COLUMN provider_status text CHECK (length(provider_status) <= 32),
    ADD COLUMN status_at timestamptz;

-- +goose Down
ALTER TABLE messages DROP COLUMN status_at, DROP COLUMN provider_status;
