package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/recruitd/recruitd/internal/store"
)

// Verification failures of an access token; each answers 401 with the challenge.
var (
	ErrInvalidToken  = errors.New("unknown or revoked access token")
	ErrExpiredToken  = errors.New("the access token expired; refresh it or sign in again")
	ErrWrongAudience = errors.New("the access token was issued for another resource")
)

// IsAccessToken reports whether a bearer token has the form of our access tokens (and so is not
// an API key).
func IsAccessToken(token string) bool { return strings.HasPrefix(token, AccessTokenPrefix) }

// Verify resolves an access token presented to resource: known, unexpired, its sign-in not
// revoked, issued for resource (RFC 8707 audience), its user active. The user's companies are
// read now, so a removed membership counts from the next request on.
func (s *Server) Verify(ctx context.Context, token, resource string) (*store.OAuthAccess, error) {
	if !IsAccessToken(token) || len(token) != len(AccessTokenPrefix)+43 {
		return nil, ErrInvalidToken
	}
	a, err := s.o.Store.OAuthAccessToken(ctx, hash(token))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, ErrInvalidToken
	case err != nil:
		return nil, err
	case a.Expired:
		return nil, ErrExpiredToken
	case !sameResource(a.Resource, resource):
		return nil, ErrWrongAudience
	}
	return a, nil
}
