package oauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// relyingParty is our client at the identity provider for one callback URL.
type relyingParty = rp.RelyingParty

// upstream returns the relying party whose redirect URI is callback, discovering the identity
// provider on first use (and again after a failed discovery).
func (s *Server) upstream(ctx context.Context, callback string) (relyingParty, error) {
	if s.o.Issuer == "" {
		return nil, errNoUpstream
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.parties[callback]; ok {
		return p, nil
	}
	p, err := rp.NewRelyingPartyOIDC(ctx, s.o.Issuer, s.o.ClientID, s.o.ClientSecret, callback,
		[]string{oidc.ScopeOpenID, oidc.ScopeEmail, oidc.ScopeProfile}, rp.WithHTTPClient(s.o.UpstreamClient))
	if err != nil {
		return nil, fmt.Errorf("discover identity provider %s: %w", s.o.Issuer, err)
	}
	s.parties[callback] = p
	return p, nil
}

// errUnverifiedEmail: the identity provider did not vouch for the e-mail address.
var errUnverifiedEmail = errors.New("the identity provider did not report a verified e-mail address")

// signedInEmail exchanges the identity provider's code (with our PKCE verifier) and returns the
// user's verified e-mail, from the ID token or else the userinfo endpoint. The provider's tokens
// are dropped here.
func signedInEmail(ctx context.Context, p relyingParty, code, verifier string) (string, error) {
	tokens, err := rp.CodeExchange[*oidc.IDTokenClaims](ctx, code, p, rp.WithCodeVerifier(verifier))
	if err != nil {
		return "", fmt.Errorf("exchange the identity provider's code: %w", err)
	}
	if c := tokens.IDTokenClaims; c != nil && c.Email != "" {
		if !bool(c.EmailVerified) {
			return "", errUnverifiedEmail
		}
		return c.Email, nil
	}
	info, err := rp.Userinfo[*oidc.UserInfo](ctx, tokens.AccessToken, tokens.TokenType, tokens.IDTokenClaims.GetSubject(), p)
	if err != nil {
		return "", fmt.Errorf("identity provider userinfo: %w", err)
	}
	if info.Email == "" || !bool(info.EmailVerified) {
		return "", errUnverifiedEmail
	}
	return info.Email, nil
}
