-- Support tokens expire (issue 21). A token is refused after expires_at; `recruitd support token
-- create` sets it (30 days by default). Tokens created before this migration expire 30 days
-- after it runs, so nobody is locked out at once; the column has no default after that.

-- +goose Up
ALTER TABLE support_tokens ADD COLUMN expires_at timestamptz NOT NULL DEFAULT now() + interval '30 days';
ALTER TABLE support_tokens ALTER COLUMN expires_at DROP DEFAULT;
ALTER TABLE support_tokens ADD CONSTRAINT support_tokens_expiry_check CHECK (expires_at > created_at);

-- +goose Down
ALTER TABLE support_tokens DROP COLUMN expires_at;
