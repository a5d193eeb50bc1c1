// Package oauth is the tool server's OAuth 2.1 authorisation server (the MCP authorization
// specification of 2025-11-25): RFC 8414 metadata, RFC 7591 dynamic registration and Client ID
// Metadata Documents, the authorization endpoint with PKCE S256, RFC 8707 resource indicators, a
// consent page, sign-in delegated to an OpenID provider (OIDC_ISSUER) through zitadel/oidc's rp,
// and a token endpoint issuing its own opaque tokens with refresh rotation.
//
// The identity provider's tokens never leave this package: they are used once, to learn the
// user's verified e-mail, and dropped. Codes, tokens and client secrets are 256-bit random values
// stored only as SHA-256 hashes; a refresh token is rotated on every use, a rotated one presented
// again within RefreshGrace returns the same successor, and after it revokes the whole sign-in.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/ratelimit"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Lifetimes (spec "Limits") and windows.
const (
	AccessTokenTTL   = time.Hour
	RefreshTokenTTL  = 7 * 24 * time.Hour
	CodeTTL          = 5 * time.Minute
	AuthorizationTTL = 10 * time.Minute
	// RefreshGrace is how long a rotated refresh token still returns its successor (clients that
	// refresh from two hosts at once); presented later, it revokes the whole sign-in.
	RefreshGrace = 60 * time.Second
	// UnusedClientTTL is how long a registered client that never completed a sign-in is kept.
	UnusedClientTTL = 24 * time.Hour
)

// Scope is the one scope the tool server knows: read access to the signed-in user's companies,
// the same name as the API-key scope.
const Scope = "mcp:read"

// Token prefixes tell our tokens apart from API keys (rk_) and from anything else.
const (
	AccessTokenPrefix  = "rmcp_at_"
	refreshTokenPrefix = "rmcp_rt_"
	codePrefix         = "rmcp_ac_"
	clientSecretPrefix = "rmcp_cs_"
	clientIDPrefix     = "rmcp_c_"
)

// NoAccountMessage is the spec's message when the signed-in e-mail matches no active user.
const NoAccountMessage = "No active account is associated with this email"

// Options configure a Server.
type Options struct {
	Store *store.Store
	Log   *slog.Logger
	// Base returns the tool server's base URL ({mcp_url}) of a request: the issuer; the
	// protected resource is Base + "/mcp".
	Base func(*http.Request) string
	// Issuer, ClientID and ClientSecret name the upstream OpenID provider (OIDC_*). An empty
	// Issuer leaves sign-in unavailable (authorize answers temporarily_unavailable).
	Issuer, ClientID, ClientSecret string
	// UpstreamClient is the HTTP client toward the identity provider (nil: a default one).
	UpstreamClient *http.Client
	// Registrations limits client registrations and metadata-document fetches per client IP
	// (fleet-wide when its counter is the shared store).
	Registrations *ratelimit.Limit
	// TrustedProxies are the peers whose X-Forwarded-For names the client (MCP_TRUSTED_PROXIES).
	TrustedProxies []netip.Prefix
	// MetadataClient fetches Client ID Metadata Documents; nil: one dialing through the SSRF guard.
	MetadataClient *http.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Server serves the OAuth endpoints and verifies access tokens.
type Server struct {
	o       Options
	meta    *http.Client
	mu      sync.Mutex
	parties map[string]relyingParty // by callback URL
}

// New returns a Server.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Registrations == nil {
		o.Registrations = ratelimit.NewShared(nil, nil).Limit("oauth-registration", 0, 0)
	}
	if o.UpstreamClient == nil {
		o.UpstreamClient = &http.Client{Timeout: 15 * time.Second}
	}
	s := &Server{o: o, meta: o.MetadataClient, parties: map[string]relyingParty{}}
	if s.meta == nil {
		s.meta = guardedClient()
	}
	return s
}

// Register mounts the metadata document and the OAuth endpoints on mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("POST /oauth/register", s.register)
	mux.HandleFunc("GET /oauth/authorize", s.authorize)
	mux.HandleFunc("POST /oauth/authorize", s.consent)
	mux.HandleFunc("GET /oauth/callback", s.callback)
	mux.HandleFunc("POST /oauth/token", s.token)
}

// Resource is the canonical URI of the protected resource of a request (RFC 8707): tokens are
// issued for it and only accepted there.
func (s *Server) Resource(r *http.Request) string { return s.o.Base(r) + "/mcp" }

// metadataDoc is the RFC 8414 document.
type metadataDoc struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	ServiceDocumentation              string   `json:"service_documentation,omitempty"`
}

func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	base := s.o.Base(r)
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, metadataDoc{
		Issuer:                            base,
		AuthorizationEndpoint:             base + "/oauth/authorize",
		TokenEndpoint:                     base + "/oauth/token",
		RegistrationEndpoint:              base + "/oauth/register",
		ScopesSupported:                   []string{Scope},
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: authMethods,
		CodeChallengeMethodsSupported:     []string{"S256"},
		ClientIDMetadataDocumentSupported: true,
		IssParameterSupported:             true,
	})
}

var authMethods = models.AllTokenEndpointAuthMethods()

// newSecret returns prefix and 256 random bits, base64url.
func newSecret(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// hash is the stored form of a code, token or secret.
func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// equalHash compares a presented secret with a stored hash in constant time.
func equalHash(stored []byte, presented string) bool {
	return len(stored) == sha256.Size && subtle.ConstantTimeCompare(stored, hash(presented)) == 1
}

// s256 is the PKCE S256 challenge of verifier (RFC 7636 4.2).
func s256(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError is an RFC 6749 5.2 error body.
type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, oauthError{code, desc})
}

// tooMany answers 429 with Retry-After.
func tooMany(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(wait.Seconds()+0.999))))
	writeError(w, http.StatusTooManyRequests, "rate_limited", "too many registrations from this address; retry after the Retry-After delay")
}

// clientIP is the request's client address (clientip.Of): the peer, unless it is a trusted proxy.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	return clientip.Of(r, trusted)
}

// serverError logs err and answers 500 without detail.
func (s *Server) serverError(ctx context.Context, w http.ResponseWriter, what string, err error) {
	s.o.Log.ErrorContext(ctx, what, "err", err)
	writeError(w, http.StatusInternalServerError, "server_error", "internal error")
}

var errNoUpstream = errors.New("sign-in through an identity provider is not configured on this server (OIDC_ISSUER)")
