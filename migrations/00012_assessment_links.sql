-- Assessment links pushed by an assessment provider for applications recruitd manages. One row
-- per accepted push; the application's current link is the one not replaced (at most one, by
-- assessment_links_current_key). received_at decides which of two pushes is the later one.
-- A link's state is read from its timestamps: sent (sent_at), failed on every channel (failed_at),
-- replaced before it was sent (replaced_at without sent_at), else waiting to be sent. The URL
-- opens the candidate's assessment: it lives here and in the message that delivered it, never
-- in Temporal. Links of applications recruitd does not manage are never stored.

-- +goose Up
CREATE TABLE assessment_links (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id     uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    application_id uuid NOT NULL,
    assessment_url text NOT NULL CHECK (assessment_url LIKE 'https://%' AND length(assessment_url) <= 2048),
    order_id       text CHECK (length(order_id) <= 128),
    received_at    timestamptz NOT NULL,
    replaced_at    timestamptz,
    sent_at        timestamptz,
    failed_at      timestamptz,
    message_id     uuid REFERENCES messages (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, application_id) REFERENCES applications (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX assessment_links_current_key ON assessment_links (application_id)
    WHERE replaced_at IS NULL;
CREATE INDEX assessment_links_company_application_idx ON assessment_links (company_id, application_id, received_at);
CREATE INDEX assessment_links_message_idx ON assessment_links (message_id) WHERE message_id IS NOT NULL;

-- +goose Down
DROP TABLE assessment_links;
