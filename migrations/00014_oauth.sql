-- MCP OAuth 2.1: the tool server's own authorisation server. Clients (dynamically registered or
-- named by a Client ID Metadata Document URL), pending authorisations (between /oauth/authorize
-- and the identity provider's callback), grants (one per sign-in: the single-use authorisation
-- code and everything issued from it) and tokens. Codes, tokens and client secrets are stored only
-- as SHA-256 hashes. Not tenant data: a grant names a user, whose memberships are re-read on
-- every tool call.

-- +goose Up
CREATE TABLE oauth_clients (
    id                         text PRIMARY KEY,
    kind                       text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
    name                       text NOT NULL DEFAULT '',
    client_uri                 text NOT NULL DEFAULT '',
    redirect_uris              text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 20),
    grant_types                text[] NOT NULL,
    token_endpoint_auth_method text NOT NULL
        CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
    secret_hash                bytea CHECK (octet_length(secret_hash) = 32),
    software_id                text NOT NULL DEFAULT '',
    software_version           text NOT NULL DEFAULT '',
    created_at                 timestamptz NOT NULL DEFAULT now(),
    fetched_at                 timestamptz,
    last_used_at               timestamptz,
    CHECK ((token_endpoint_auth_method = 'none') = (secret_hash IS NULL))
);
CREATE INDEX oauth_clients_unused_idx ON oauth_clients (created_at) WHERE last_used_at IS NULL;

CREATE TABLE oauth_authorizations (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    client_id           text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    redirect_uri        text NOT NULL,
    state               text NOT NULL DEFAULT '',
    code_challenge      text NOT NULL,
    resource            text NOT NULL,
    scope               text NOT NULL DEFAULT '',
    browser_hash        bytea NOT NULL CHECK (octet_length(browser_hash) = 32),
    upstream_state_hash bytea UNIQUE CHECK (octet_length(upstream_state_hash) = 32),
    upstream_verifier   text,
    consented_at        timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    expires_at          timestamptz NOT NULL
);
CREATE INDEX oauth_authorizations_expires_idx ON oauth_authorizations (expires_at);

CREATE TABLE oauth_grants (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    client_id       text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    user_id         uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    resource        text NOT NULL,
    scope           text NOT NULL DEFAULT '',
    redirect_uri    text NOT NULL,
    code_hash       bytea NOT NULL UNIQUE CHECK (octet_length(code_hash) = 32),
    code_challenge  text NOT NULL,
    code_expires_at timestamptz NOT NULL,
    code_used_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz
);
CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id);
CREATE INDEX oauth_grants_client_idx ON oauth_grants (client_id);

-- successor_sealed: the pair issued when a refresh token was rotated, encrypted under a key
-- derived from the rotated token itself, so that a client presenting it again within the grace
-- window gets the same successor and nobody without the token can read it.
CREATE TABLE oauth_tokens (
    hash             bytea PRIMARY KEY CHECK (octet_length(hash) = 32),
    grant_id         uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('access', 'refresh')),
    expires_at       timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    rotated_at       timestamptz,
    successor_sealed bytea,
    CHECK (kind = 'refresh' OR rotated_at IS NULL)
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires_idx ON oauth_tokens (expires_at);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE oauth_grants;
DROP TABLE oauth_authorizations;
DROP TABLE oauth_clients;
