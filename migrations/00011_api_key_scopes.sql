-- API key scopes: what a key may do. A customer's key keeps every scope (the spec's default: one
-- key covers the public API and the tool server); a key bound to a partner may only submit
-- partner applications unless it was created with more.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN scopes text[] NOT NULL
    DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read}';
UPDATE api_keys SET scopes = '{partner-applications}'
    WHERE partner_id IS NOT NULL;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN scopes;
