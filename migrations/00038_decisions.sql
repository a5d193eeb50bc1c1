-- Decisions written to the ATS (issue 30). Moving a candidate's ATS stage is its own permission,
-- the decisions scope (PUT /v1/api/sessions/{sessionId}/decision): keys that hold every earlier
-- scope (a company's own keys) get it; keys made for one purpose keep what they were given.
-- A stage write whose decision is no longer the session's current one is 'superseded': it is
-- never sent (docs/ats.md, "Write-back").

-- +goose Up
ALTER TABLE api_keys ALTER COLUMN scopes
    SET DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations,reports,decisions}';
UPDATE api_keys SET scopes = array_append(scopes, 'decisions')
    WHERE scopes @> '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations,reports}'
      AND NOT ('decisions' = ANY (scopes));
ALTER TABLE ats_writes DROP CONSTRAINT ats_writes_status_check;
ALTER TABLE ats_writes ADD CONSTRAINT ats_writes_status_check
    CHECK (status IN ('pending', 'sending', 'done', 'failed', 'superseded'));
CREATE INDEX ats_writes_session_idx ON ats_writes (company_id, session_id, created_at DESC);

-- +goose Down
DROP INDEX ats_writes_session_idx;
UPDATE ats_writes SET status = 'failed' WHERE status = 'superseded';
ALTER TABLE ats_writes DROP CONSTRAINT ats_writes_status_check;
ALTER TABLE ats_writes ADD CONSTRAINT ats_writes_status_check
    CHECK (status IN ('pending', 'sending', 'done', 'failed'));
UPDATE api_keys SET scopes = array_remove(scopes, 'decisions');
ALTER TABLE api_keys ALTER COLUMN scopes
    SET DEFAULT '{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations,reports}';
