-- Interviews in the candidate's text thread (issue 31, first part).
--
-- inbound_messages: each provider message id handled once (a webhook Twilio retries, or a
-- replayed one, changes nothing). No text, no number: ids and the time.
-- channel_opt_outs: a number that said STOP (or asked in words) to a company: no more texts or
-- calls from that company to it, reminders included, until START. The keyword is recorded with
-- its time.
-- messages_thread: finds the session a number's reply belongs to (the latest text sent to it).

-- +goose Up
CREATE TABLE inbound_messages (
    provider    text NOT NULL CHECK (length(provider) BETWEEN 1 AND 40),
    message_id  text NOT NULL CHECK (length(message_id) BETWEEN 1 AND 100),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, message_id)
);

CREATE TABLE channel_opt_outs (
    company_id   uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    address      text NOT NULL CHECK (length(address) BETWEEN 1 AND 64),
    keyword      text NOT NULL CHECK (length(keyword) BETWEEN 1 AND 40),
    opted_out_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, address)
);

CREATE INDEX messages_thread ON messages (to_address, created_at DESC)
    WHERE session_id IS NOT NULL AND channel IN ('sms', 'whatsapp') AND direction = 'outbound';

-- +goose Down
DROP INDEX messages_thread;
DROP TABLE channel_opt_outs;
DROP TABLE inbound_messages;
