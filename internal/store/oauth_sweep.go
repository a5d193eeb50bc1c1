package store

import (
	"context"
	"fmt"
	"time"
)

// OAuthSweep counts what SweepOAuth deleted.
type OAuthSweep struct {
	// Tokens are access and refresh tokens expired before the cutoff.
	Tokens int64
	// Grants are sign-ins left with no token whose authorisation code expired before the cutoff:
	// codes never redeemed, and sign-ins whose tokens all expired or were revoked.
	Grants int64
	// Authorizations are pending authorisations (between /oauth/authorize and the identity
	// provider's callback) expired before the cutoff.
	Authorizations int64
	// Clients are registered clients created before the client cutoff that never obtained a grant.
	Clients int64
}

// SweepOAuth deletes what the authorisation server no longer needs: tokens expired before cutoff
// (DeleteExpiredOAuthTokens), then grants left without tokens whose code expired before cutoff,
// pending authorisations expired before cutoff, and registered clients created before
// clientCutoff that never obtained a grant. Live tokens, the grants they belong to and
// unexpired codes stay.
func (s *Store) SweepOAuth(ctx context.Context, cutoff, clientCutoff time.Time) (OAuthSweep, error) {
	var n OAuthSweep
	var err error
	if n.Tokens, err = s.DeleteExpiredOAuthTokens(ctx, cutoff); err != nil {
		return n, err
	}
	del := func(what, query string, arg time.Time) (int64, error) {
		res, err := s.sql.ExecContext(ctx, query, arg)
		if err != nil {
			return 0, fmt.Errorf("sweep %s: %w", what, err)
		}
		return res.RowsAffected()
	}
	if n.Grants, err = del("expired oauth grants", `
		DELETE FROM oauth_grants g WHERE g.code_expires_at < $1
		    AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id)`, cutoff); err != nil {
		return n, err
	}
	if n.Authorizations, err = del("expired oauth authorizations", `DELETE FROM oauth_authorizations WHERE expires_at < $1`, cutoff); err != nil {
		return n, err
	}
	if n.Clients, err = del("unused oauth clients", `
		DELETE FROM oauth_clients WHERE kind = 'registered' AND last_used_at IS NULL AND created_at < $1`, clientCutoff); err != nil {
		return n, err
	}
	return n, nil
}
