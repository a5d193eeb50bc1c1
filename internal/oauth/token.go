package oauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/recruitd/recruitd/internal/store"
)

// tokenResponse is RFC 6749 5.1.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// tokenError is an answer of the token endpoint other than success.
type tokenError struct {
	status       int
	code, desc   string
	unauthClient bool
}

func (e *tokenError) Error() string { return e.code + ": " + e.desc }

func invalidGrant(desc string) *tokenError {
	return &tokenError{http.StatusBadRequest, "invalid_grant", desc, false}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
		return
	}
	if r.URL.Query().Get("code") != "" || r.URL.Query().Get("refresh_token") != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "credentials belong in the body, not the query string")
		return
	}
	client, terr := s.authenticateClient(r)
	var resp *tokenResponse
	if terr == nil {
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			resp, terr = s.exchangeCode(r, client)
		case "refresh_token":
			resp, terr = s.refresh(r, client)
		case "":
			terr = &tokenError{http.StatusBadRequest, "invalid_request", "grant_type is required", false}
		default:
			terr = &tokenError{http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token", false}
		}
	}
	var te *tokenError
	switch {
	case errors.As(terr, &te):
		if te.unauthClient {
			w.Header().Set("WWW-Authenticate", `Basic realm="recruitd"`)
		}
		writeError(w, te.status, te.code, te.desc)
	case terr != nil:
		s.serverError(r.Context(), w, "oauth token", terr)
	default:
		writeJSON(w, http.StatusOK, resp)
	}
}

// authenticateClient identifies the client: client_secret_basic, client_secret_post, or a
// public client's client_id alone. A client registered with a secret must present it.
func (s *Server) authenticateClient(r *http.Request) (*store.OAuthClient, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, &tokenError{http.StatusUnauthorized, "invalid_client", "malformed client credentials", true}
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		return nil, &tokenError{http.StatusUnauthorized, "invalid_client", "client_id is required", basic}
	}
	c, err := s.o.Store.OAuthClient(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &tokenError{http.StatusUnauthorized, "invalid_client", "unknown client", basic}
	}
	if err != nil {
		return nil, err
	}
	if c.AuthMethod != "none" && !equalHash(c.SecretHash, secret) {
		return nil, &tokenError{http.StatusUnauthorized, "invalid_client", "client authentication failed", true}
	}
	return c, nil
}

// exchangeCode redeems an authorisation code: single use (a replay revokes the grant), same
// client, unexpired, redirect URI as in the authorisation request (which may be left out when
// that request left it out, RFC 6749 4.1.3), PKCE verifier, resource.
func (s *Server) exchangeCode(r *http.Request, c *store.OAuthClient) (*tokenResponse, error) {
	f := r.PostForm
	code := f.Get("code")
	if code == "" || f.Get("code_verifier") == "" {
		return nil, &tokenError{http.StatusBadRequest, "invalid_request", "code and code_verifier are required", false}
	}
	ctx := r.Context()
	g, err := s.o.Store.RedeemOAuthCode(ctx, hash(code))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, invalidGrant("unknown authorization code")
	case errors.Is(err, store.ErrOAuthCodeReplayed):
		s.o.Log.WarnContext(ctx, "oauth code replayed; grant revoked", "client_id", c.ID)
		return nil, invalidGrant("authorization code already used; every token issued from it is revoked")
	case err != nil:
		return nil, err
	}
	switch {
	case g.ClientID != c.ID:
		return nil, invalidGrant("the authorization code was issued to another client")
	case !s.o.Now().Before(g.CodeExpiresAt):
		return nil, invalidGrant("the authorization code expired")
	case g.RedirectURIGiven && f.Get("redirect_uri") == "":
		return nil, &tokenError{http.StatusBadRequest, "invalid_request", "redirect_uri is required: the authorization request had one", false}
	case f.Get("redirect_uri") != "" && f.Get("redirect_uri") != g.RedirectURI:
		return nil, invalidGrant("redirect_uri differs from the authorization request's")
	case !equalString(s256(f.Get("code_verifier")), g.CodeChallenge):
		return nil, invalidGrant("code_verifier does not match the code_challenge")
	case f.Get("resource") != "" && !sameResource(f.Get("resource"), g.Resource):
		return nil, &tokenError{http.StatusBadRequest, "invalid_target", "resource must be " + g.Resource, false}
	}
	resp, pair := s.newPair(g.Scope)
	if err := s.o.Store.IssueOAuthTokens(ctx, g.ID, pair); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, invalidGrant("the authorization was revoked")
		}
		return nil, err
	}
	return resp, nil
}

// refresh rotates a refresh token. The successor of a rotated token is returned again within
// RefreshGrace; later, presenting a rotated token revokes the whole sign-in (RFC 9700 4.14.2).
func (s *Server) refresh(r *http.Request, c *store.OAuthClient) (*tokenResponse, error) {
	presented := r.PostForm.Get("refresh_token")
	if presented == "" {
		return nil, &tokenError{http.StatusBadRequest, "invalid_request", "refresh_token is required", false}
	}
	resource := r.PostForm.Get("resource")
	ctx := r.Context()
	var resp *tokenResponse
	err := s.o.Store.RotateOAuthRefreshToken(ctx, hash(presented), func(t *store.OAuthRefreshToken) (*store.OAuthRotation, error) {
		switch {
		case t.Grant.ClientID != c.ID:
			return nil, invalidGrant("the refresh token was issued to another client")
		case !t.Now.Before(t.ExpiresAt):
			return nil, invalidGrant("the refresh token expired; sign in again")
		case !t.UserActive:
			return &store.OAuthRotation{Revoke: true}, invalidGrant(NoAccountMessage)
		case resource != "" && !sameResource(resource, t.Grant.Resource):
			return nil, &tokenError{http.StatusBadRequest, "invalid_target", "resource must be " + t.Grant.Resource, false}
		case t.RotatedAt != nil && t.Now.Sub(*t.RotatedAt) <= RefreshGrace:
			prev, err := unseal(presented, t.SuccessorSealed)
			if err != nil {
				return nil, err
			}
			resp = &tokenResponse{AccessToken: prev.Access, TokenType: "Bearer", RefreshToken: prev.Refresh, Scope: t.Grant.Scope,
				ExpiresIn: max(0, prev.AccessExpires-s.o.Now().Unix())}
			return nil, nil
		case t.RotatedAt != nil:
			s.o.Log.WarnContext(ctx, "oauth refresh token reused after rotation; grant revoked", "client_id", c.ID, "grant_id", t.Grant.ID)
			return &store.OAuthRotation{Revoke: true}, invalidGrant("refresh token already used; every token of this sign-in is revoked, sign in again")
		}
		next, pair := s.newPair(t.Grant.Scope)
		sealed, err := seal(presented, successor{next.AccessToken, next.RefreshToken, pair.AccessExpires.Unix()})
		if err != nil {
			return nil, err
		}
		resp = next
		return &store.OAuthRotation{Pair: &pair, Successor: sealed}, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalidGrant("unknown or revoked refresh token")
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// newPair makes a fresh access and refresh token.
func (s *Server) newPair(scope string) (*tokenResponse, store.OAuthTokenPair) {
	now := s.o.Now()
	access, refresh := newSecret(AccessTokenPrefix), newSecret(refreshTokenPrefix)
	return &tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(AccessTokenTTL.Seconds()), RefreshToken: refresh, Scope: scope},
		store.OAuthTokenPair{AccessHash: hash(access), RefreshHash: hash(refresh),
			AccessExpires: now.Add(AccessTokenTTL), RefreshExpires: now.Add(RefreshTokenTTL)}
}

// successor is the pair a rotation issued, kept sealed under the rotated token.
type successor struct {
	Access, Refresh string
	AccessExpires   int64
}

func successorKey(token string) cipher.AEAD {
	k := sha256.Sum256([]byte("recruitd oauth successor\x00" + token))
	block, _ := aes.NewCipher(k[:])
	aead, _ := cipher.NewGCM(block)
	return aead
}

// seal encrypts v with AES-256-GCM under a key derived from token.
func seal(token string, v successor) ([]byte, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	aead := successorKey(token)
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plain, nil), nil
}

func unseal(token string, sealed []byte) (successor, error) {
	var v successor
	aead := successorKey(token)
	if len(sealed) < aead.NonceSize() {
		return v, errors.New("sealed successor too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], nil)
	if err != nil {
		return v, errors.New("open sealed successor: " + err.Error())
	}
	return v, json.Unmarshal(plain, &v)
}

func equalString(a, b string) bool { return equalHash(hash(a), b) }
