package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// The OAuth tables belong to the tool server's authorisation server (internal/oauth), which
// writes them through the methods below; tool calls never do. Every code, token and secret
// arrives here already hashed.

// ErrOAuthCodeReplayed is returned by RedeemOAuthCode for a code used before; the grant it
// created has been revoked with every token issued from it.
var ErrOAuthCodeReplayed = errors.New("authorization code already used")

// OAuthClient is a registered client, or a client named by its metadata document URL.
type OAuthClient struct {
	ID              string
	Kind            string // "registered" or "metadata_document"
	Name            string
	ClientURI       string
	RedirectURIs    []string
	GrantTypes      []string
	AuthMethod      string // none, client_secret_post or client_secret_basic
	SecretHash      []byte
	SoftwareID      string
	SoftwareVersion string
	CreatedAt       time.Time
	FetchedAt       *time.Time
}

// OAuth client kinds.
const (
	OAuthClientRegistered       = models.OAuthClientRegistered
	OAuthClientMetadataDocument = models.OAuthClientMetadataDocument
)

// CreateOAuthClient inserts a dynamically registered client.
func (s *Store) CreateOAuthClient(ctx context.Context, c *OAuthClient) error {
	err := s.sql.QueryRowContext(ctx, `
		INSERT INTO oauth_clients (id, kind, name, client_uri, redirect_uris, grant_types, token_endpoint_auth_method,
		                           secret_hash, software_id, software_version, fetched_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING created_at`,
		c.ID, c.Kind, c.Name, c.ClientURI, models.StringArray(c.RedirectURIs), models.StringArray(c.GrantTypes), c.AuthMethod,
		nullBytes(c.SecretHash), c.SoftwareID, c.SoftwareVersion, c.FetchedAt).Scan(&c.CreatedAt)
	if err != nil {
		return fmt.Errorf("create oauth client: %w", err)
	}
	return nil
}

// SaveOAuthMetadataClient inserts or refreshes the cached metadata document of a client whose
// id is its document's URL.
func (s *Store) SaveOAuthMetadataClient(ctx context.Context, c *OAuthClient) error {
	_, err := s.sql.ExecContext(ctx, `
		INSERT INTO oauth_clients (id, kind, name, client_uri, redirect_uris, grant_types, token_endpoint_auth_method, fetched_at)
		VALUES ($1, 'metadata_document', $2, $3, $4, $5, 'none', $6)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, client_uri = excluded.client_uri,
		    redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types, fetched_at = excluded.fetched_at
		WHERE oauth_clients.kind = 'metadata_document'`,
		c.ID, c.Name, c.ClientURI, models.StringArray(c.RedirectURIs), models.StringArray(c.GrantTypes), c.FetchedAt)
	if err != nil {
		return fmt.Errorf("save oauth client %s: %w", c.ID, err)
	}
	return nil
}

// OAuthClient loads a client by id; ErrNotFound when there is none.
func (s *Store) OAuthClient(ctx context.Context, id string) (*OAuthClient, error) {
	var c OAuthClient
	var uris, grants models.StringArray
	err := s.sql.QueryRowContext(ctx, `
		SELECT id, kind, name, client_uri, redirect_uris, grant_types, token_endpoint_auth_method, secret_hash,
		       software_id, software_version, created_at, fetched_at
		FROM oauth_clients WHERE id = $1`, id).Scan(&c.ID, &c.Kind, &c.Name, &c.ClientURI, &uris, &grants, &c.AuthMethod,
		&c.SecretHash, &c.SoftwareID, &c.SoftwareVersion, &c.CreatedAt, &c.FetchedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("oauth client: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load oauth client: %w", err)
	}
	c.RedirectURIs, c.GrantTypes = uris, grants
	return &c, nil
}

// DeleteUnusedOAuthClients removes registered clients created before cutoff that never obtained
// a grant, and pending authorisations past their expiry.
func (s *Store) DeleteUnusedOAuthClients(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.sql.ExecContext(ctx, `
		DELETE FROM oauth_clients WHERE kind = 'registered' AND last_used_at IS NULL AND created_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("expire unused oauth clients: %w", err)
	}
	if _, err := s.sql.ExecContext(ctx, `DELETE FROM oauth_authorizations WHERE expires_at < now()`); err != nil {
		return 0, fmt.Errorf("expire oauth authorizations: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// OAuthAuthorization is a pending authorisation request, between /oauth/authorize and the
// identity provider's callback.
type OAuthAuthorization struct {
	ID               uuid.UUID
	ClientID         string
	RedirectURI      string
	State            string
	CodeChallenge    string
	Resource         string
	Scope            string
	BrowserHash      []byte
	UpstreamVerifier string
	ConsentedAt      *time.Time
	ExpiresAt        time.Time

	// RedirectURIGiven is false when the request left redirect_uri out and RedirectURI is the
	// client's one registered URI.
	RedirectURIGiven bool
}

// CreateOAuthAuthorization inserts a pending request and fills its id.
func (s *Store) CreateOAuthAuthorization(ctx context.Context, a *OAuthAuthorization) error {
	err := s.sql.QueryRowContext(ctx, `
		INSERT INTO oauth_authorizations (client_id, redirect_uri, redirect_uri_given, state, code_challenge, resource, scope, browser_hash, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		a.ClientID, a.RedirectURI, a.RedirectURIGiven, a.State, a.CodeChallenge, a.Resource, a.Scope, a.BrowserHash, a.ExpiresAt).Scan(&a.ID)
	if err != nil {
		return fmt.Errorf("create oauth authorization: %w", err)
	}
	return nil
}

const authorizationColumns = `id, client_id, redirect_uri, redirect_uri_given, state, code_challenge, resource, scope, browser_hash,
	coalesce(upstream_verifier, ''), consented_at, expires_at`

func scanAuthorization(row *sql.Row) (*OAuthAuthorization, error) {
	var a OAuthAuthorization
	err := row.Scan(&a.ID, &a.ClientID, &a.RedirectURI, &a.RedirectURIGiven, &a.State, &a.CodeChallenge, &a.Resource, &a.Scope, &a.BrowserHash,
		&a.UpstreamVerifier, &a.ConsentedAt, &a.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("oauth authorization: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load oauth authorization: %w", err)
	}
	return &a, nil
}

// OAuthAuthorization loads an unexpired pending request that has not been consented to yet.
func (s *Store) OAuthAuthorization(ctx context.Context, id uuid.UUID) (*OAuthAuthorization, error) {
	return scanAuthorization(s.sql.QueryRowContext(ctx, `SELECT `+authorizationColumns+`
		FROM oauth_authorizations WHERE id = $1 AND expires_at > now() AND consented_at IS NULL`, id))
}

// ConsentOAuthAuthorization records the user's consent to the pending request id, once, from
// the browser that was shown the consent page (browserHash), with the state and PKCE verifier
// of the request sent on to the identity provider. ErrNotFound when the request is unknown,
// expired, already consented to or was shown to another browser.
func (s *Store) ConsentOAuthAuthorization(ctx context.Context, id uuid.UUID, browserHash, upstreamStateHash []byte, upstreamVerifier string) error {
	res, err := s.sql.ExecContext(ctx, `
		UPDATE oauth_authorizations SET consented_at = now(), upstream_state_hash = $3, upstream_verifier = $4
		WHERE id = $1 AND browser_hash = $2 AND consented_at IS NULL AND expires_at > now()`,
		id, browserHash, upstreamStateHash, upstreamVerifier)
	if err != nil {
		return fmt.Errorf("record oauth consent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("oauth authorization %s: %w", id, ErrNotFound)
	}
	return nil
}

// TakeOAuthAuthorization removes and returns the consented, unexpired request the identity
// provider's callback names by its state; a second call finds nothing (ErrNotFound).
func (s *Store) TakeOAuthAuthorization(ctx context.Context, upstreamStateHash []byte) (*OAuthAuthorization, error) {
	return scanAuthorization(s.sql.QueryRowContext(ctx, `DELETE FROM oauth_authorizations
		WHERE upstream_state_hash = $1 AND consented_at IS NOT NULL AND expires_at > now()
		RETURNING `+authorizationColumns, upstreamStateHash))
}

// DeleteOAuthAuthorization removes a pending request (declined).
func (s *Store) DeleteOAuthAuthorization(ctx context.Context, id uuid.UUID) error {
	if _, err := s.sql.ExecContext(ctx, `DELETE FROM oauth_authorizations WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete oauth authorization %s: %w", id, err)
	}
	return nil
}

// ActiveUserByEmail returns the user whose e-mail is email, ignoring case; soft-deleted users
// do not match (ErrNotFound).
func (s *Store) ActiveUserByEmail(ctx context.Context, email string) (*models.User, error) {
	var u models.User
	err := s.db.WithContext(ctx).Where("lower(email) = ?", strings.ToLower(strings.TrimSpace(email))).Take(&u).Error
	if err != nil {
		return nil, notFound(err, "user")
	}
	return &u, nil
}

// OAuthGrant is one sign-in of a user into a client: its authorisation code and every token
// issued from it.
type OAuthGrant struct {
	ID            uuid.UUID
	ClientID      string
	UserID        uuid.UUID
	Resource      string
	Scope         string
	RedirectURI   string
	CodeChallenge string
	CodeExpiresAt time.Time
	RevokedAt     *time.Time

	// RedirectURIGiven: the authorisation request named RedirectURI, so the token request must
	// repeat it.
	RedirectURIGiven bool
}

// CreateOAuthGrant inserts g with the hash of its authorisation code, fills its id and marks
// the client used.
func (s *Store) CreateOAuthGrant(ctx context.Context, g *OAuthGrant, codeHash []byte) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `
			INSERT INTO oauth_grants (client_id, user_id, resource, scope, redirect_uri, redirect_uri_given, code_hash, code_challenge, code_expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			g.ClientID, g.UserID, g.Resource, g.Scope, g.RedirectURI, g.RedirectURIGiven, codeHash, g.CodeChallenge, g.CodeExpiresAt).Scan(&g.ID)
		if err != nil {
			return fmt.Errorf("create oauth grant: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_clients SET last_used_at = now() WHERE id = $1`, g.ClientID); err != nil {
			return fmt.Errorf("mark oauth client used: %w", err)
		}
		return nil
	})
}

const grantColumns = `g.id, g.client_id, g.user_id, g.resource, g.scope, g.redirect_uri, g.redirect_uri_given, g.code_challenge, g.code_expires_at, g.revoked_at`

func grantDest(g *OAuthGrant) []any {
	return []any{&g.ID, &g.ClientID, &g.UserID, &g.Resource, &g.Scope, &g.RedirectURI, &g.RedirectURIGiven, &g.CodeChallenge, &g.CodeExpiresAt, &g.RevokedAt}
}

// RedeemOAuthCode marks the code used and returns its grant, which the caller checks (client,
// expiry, PKCE, redirect URI, resource) before issuing tokens. A code used before revokes its
// grant and everything issued from it, and returns ErrOAuthCodeReplayed; an unknown code is
// ErrNotFound.
func (s *Store) RedeemOAuthCode(ctx context.Context, codeHash []byte) (*OAuthGrant, error) {
	var g OAuthGrant
	var usedAt *time.Time
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT `+grantColumns+`, g.code_used_at FROM oauth_grants g WHERE g.code_hash = $1 FOR UPDATE`,
			codeHash).Scan(append(grantDest(&g), &usedAt)...)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("authorization code: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("load oauth grant: %w", err)
		}
		if usedAt != nil {
			return revokeGrant(ctx, tx, g.ID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET code_used_at = now() WHERE id = $1`, g.ID); err != nil {
			return fmt.Errorf("redeem authorization code: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if usedAt != nil {
		return nil, ErrOAuthCodeReplayed
	}
	return &g, nil
}

func revokeGrant(ctx context.Context, tx *sql.Tx, id uuid.UUID) error {
	if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, id); err != nil {
		return fmt.Errorf("revoke oauth grant %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE grant_id = $1`, id); err != nil {
		return fmt.Errorf("delete tokens of oauth grant %s: %w", id, err)
	}
	return nil
}

// RevokeOAuthGrant revokes a grant and deletes every token issued from it.
func (s *Store) RevokeOAuthGrant(ctx context.Context, id uuid.UUID) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return revokeGrant(ctx, tx, id) })
}

// OAuthTokenPair is an access and a refresh token to store, by hash.
type OAuthTokenPair struct {
	AccessHash, RefreshHash       []byte
	AccessExpires, RefreshExpires time.Time
}

// IssueOAuthTokens stores a token pair of an unrevoked grant; ErrNotFound when the grant is
// revoked.
func (s *Store) IssueOAuthTokens(ctx context.Context, grantID uuid.UUID, p OAuthTokenPair) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var revoked *time.Time
		if err := tx.QueryRowContext(ctx, `SELECT revoked_at FROM oauth_grants WHERE id = $1 FOR UPDATE`, grantID).Scan(&revoked); err != nil {
			return fmt.Errorf("lock oauth grant %s: %w", grantID, err)
		}
		if revoked != nil {
			return fmt.Errorf("oauth grant %s is revoked: %w", grantID, ErrNotFound)
		}
		return insertPair(ctx, tx, grantID, p)
	})
}

func insertPair(ctx context.Context, tx *sql.Tx, grantID uuid.UUID, p OAuthTokenPair) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at)
		VALUES ($1, $2, 'access', $3), ($4, $2, 'refresh', $5)`, p.AccessHash, grantID, p.AccessExpires, p.RefreshHash, p.RefreshExpires)
	if err != nil {
		return fmt.Errorf("store oauth tokens: %w", err)
	}
	return nil
}

// OAuthRefreshToken is a presented refresh token with its grant, as RotateOAuthRefreshToken
// hands it to the caller's decision.
type OAuthRefreshToken struct {
	Grant           OAuthGrant
	ExpiresAt       time.Time
	RotatedAt       *time.Time
	SuccessorSealed []byte
	// Now is the database's clock, the one expiry and rotation times are compared with.
	Now time.Time
	// UserActive is false once the grant's user is soft-deleted.
	UserActive bool
}

// OAuthRotation is the caller's decision about a presented refresh token: nothing to write
// (nil), revoke the whole grant, or rotate it into a new pair whose clear values are sealed
// under the presented token (Successor).
type OAuthRotation struct {
	Revoke    bool
	Pair      *OAuthTokenPair
	Successor []byte
}

// RotateOAuthRefreshToken locks the refresh token with hash, lets decide choose what happens
// to it, writes that decision and returns decide's error. Concurrent presentations of one token
// are serialised, so exactly one of them rotates it. ErrNotFound when the token is unknown or its
// grant revoked.
func (s *Store) RotateOAuthRefreshToken(ctx context.Context, hash []byte, decide func(*OAuthRefreshToken) (*OAuthRotation, error)) error {
	var decision error
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var t OAuthRefreshToken
		err := tx.QueryRowContext(ctx, `SELECT `+grantColumns+`, t.expires_at, t.rotated_at, t.successor_sealed, now(),
			       EXISTS (SELECT 1 FROM users u WHERE u.id = g.user_id AND u.deleted_at IS NULL)
			FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
			WHERE t.hash = $1 AND t.kind = 'refresh' AND g.revoked_at IS NULL FOR UPDATE OF t`, hash).
			Scan(append(grantDest(&t.Grant), &t.ExpiresAt, &t.RotatedAt, &t.SuccessorSealed, &t.Now, &t.UserActive)...)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("refresh token: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("load refresh token: %w", err)
		}
		rot, derr := decide(&t)
		decision = derr
		switch {
		case rot == nil:
			return nil
		case rot.Revoke:
			return revokeGrant(ctx, tx, t.Grant.ID)
		}
		if err := insertPair(ctx, tx, t.Grant.ID, *rot.Pair); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET rotated_at = now(), successor_sealed = $2 WHERE hash = $1`,
			hash, rot.Successor); err != nil {
			return fmt.Errorf("rotate refresh token: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return decision
}

// OAuthAccess is what an access token stands for at the moment of a request.
type OAuthAccess struct {
	GrantID       uuid.UUID
	UserID        uuid.UUID
	ClientID      string
	Resource      string
	Scope         string
	ExpiresAt     time.Time
	Expired       bool
	PlatformAdmin bool
	// CompanyIDs are the user's companies now, oldest membership first.
	CompanyIDs []uuid.UUID
}

// OAuthAccessToken resolves an access token by hash in one query: its grant (not revoked), its
// user (not deleted) and the user's current memberships. ErrNotFound otherwise.
func (s *Store) OAuthAccessToken(ctx context.Context, hash []byte) (*OAuthAccess, error) {
	var a OAuthAccess
	var companies models.StringArray
	err := s.sql.QueryRowContext(ctx, `
		SELECT g.id, g.user_id, g.client_id, g.resource, g.scope, t.expires_at, t.expires_at <= now(), u.is_platform_admin,
		       ARRAY(SELECT m.company_id::text FROM company_memberships m WHERE m.user_id = u.id ORDER BY m.created_at, m.company_id)
		FROM oauth_tokens t
		JOIN oauth_grants g ON g.id = t.grant_id AND g.revoked_at IS NULL
		JOIN users u ON u.id = g.user_id AND u.deleted_at IS NULL
		WHERE t.hash = $1 AND t.kind = 'access'`, hash).
		Scan(&a.GrantID, &a.UserID, &a.ClientID, &a.Resource, &a.Scope, &a.ExpiresAt, &a.Expired, &a.PlatformAdmin, &companies)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("access token: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("look up access token: %w", err)
	}
	for _, c := range companies {
		id, err := uuid.Parse(c)
		if err != nil {
			return nil, fmt.Errorf("membership company id %q: %w", c, err)
		}
		a.CompanyIDs = append(a.CompanyIDs, id)
	}
	return &a, nil
}

// DeleteExpiredOAuthTokens removes tokens expired before cutoff and returns how many.
func (s *Store) DeleteExpiredOAuthTokens(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.sql.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE expires_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("delete expired oauth tokens: %w", err)
	}
	return res.RowsAffected()
}

func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
