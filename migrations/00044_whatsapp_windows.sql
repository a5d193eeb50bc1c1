-- WhatsApp's 24-hour window, tracked per thread (issue 31, point 5): a company's thread with a
-- candidate's number on a channel, and when the candidate's last message in it came. Free-form
-- messages go only within 24 hours of last_inbound_at; outside it, approved templates only.
-- No text: the address (already in messages.to_address) and a time.

-- +goose Up
CREATE TABLE thread_windows (
    company_id      uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    channel         text NOT NULL CHECK (channel IN ('sms', 'whatsapp')),
    address         text NOT NULL CHECK (length(address) BETWEEN 1 AND 64),
    last_inbound_at timestamptz NOT NULL,
    PRIMARY KEY (company_id, channel, address)
);

-- +goose Down
DROP TABLE thread_windows;
