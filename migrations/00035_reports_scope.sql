-- The reports scope (GET /v1/api/sessions/{sessionId}/report). Keys that hold every earlier
-- scope (a company's own keys) get it too; keys made for one purpose keep what they were given.

-- +goose Up
ALTER TABLE api_keys ALTER COLUMN scopes
    SET DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations,reports}';
UPDATE api_keys SET scopes = array_append(scopes, 'reports')
    WHERE scopes @> '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations}'
      AND NOT ('reports' = ANY (scopes));

-- +goose Down
UPDATE api_keys SET scopes = array_remove(scopes, 'reports');
ALTER TABLE api_keys ALTER COLUMN scopes
    SET DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations}';
