-- Whether the authorisation request named its redirect_uri. A client with one registered redirect
-- URI may leave it out (RFC 6749 4.1.1), and then its token request may leave it out too (4.1.3):
-- the token endpoint compares redirect_uri only when the authorisation request had one. Rows from
-- before this migration had one (the effective URI was stored), so the default is true.

-- +goose Up
ALTER TABLE oauth_authorizations ADD COLUMN redirect_uri_given boolean NOT NULL DEFAULT true;
ALTER TABLE oauth_grants ADD COLUMN redirect_uri_given boolean NOT NULL DEFAULT true;

-- +goose Down
ALTER TABLE oauth_grants DROP COLUMN redirect_uri_given;
ALTER TABLE oauth_authorizations DROP COLUMN redirect_uri_given;
