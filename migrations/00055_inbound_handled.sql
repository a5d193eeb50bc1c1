-- A candidate's text is recorded when its webhook arrives and marked handled once its answer is
-- written (issue 32: an api killed between the two left the id recorded and the text unhandled,
-- so the redelivery the front or Twilio made was dropped as a duplicate). turn_seq is the
-- question the text answered, kept before the answer is stored, so a redelivery after a crash
-- answers that question again (a repeat) instead of the next one.

-- +goose Up
ALTER TABLE inbound_messages
    ADD COLUMN handled_at timestamptz,
    ADD COLUMN turn_seq integer;
UPDATE inbound_messages SET handled_at = received_at;

-- +goose Down
ALTER TABLE inbound_messages DROP COLUMN turn_seq, DROP COLUMN handled_at;
