package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/store"
)

// maxRegistrationBytes bounds a registration request or a client metadata document.
const maxRegistrationBytes = 16 << 10

// Registration is a validated RFC 7591 registration request.
type Registration struct {
	RedirectURIs    []string
	GrantTypes      []string
	AuthMethod      string
	Name            string
	ClientURI       string
	SoftwareID      string
	SoftwareVersion string
}

// RegistrationError is an RFC 7591 3.2.2 error: Code is invalid_redirect_uri or
// invalid_client_metadata.
type RegistrationError struct{ Code, Description string }

func (e *RegistrationError) Error() string { return e.Code + ": " + e.Description }

func badMetadata(format string, args ...any) error {
	return &RegistrationError{"invalid_client_metadata", fmt.Sprintf(format, args...)}
}

func badRedirect(format string, args ...any) error {
	return &RegistrationError{"invalid_redirect_uri", fmt.Sprintf(format, args...)}
}

// clientMetadata is the JSON of a registration request and of a Client ID Metadata Document.
type clientMetadata struct {
	ClientID                string   `json:"client_id"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	Scope                   string   `json:"scope"`
	SoftwareID              string   `json:"software_id"`
	SoftwareVersion         string   `json:"software_version"`
	ClientSecret            string   `json:"client_secret"`
	JWKS                    any      `json:"jwks"`
	JWKSURI                 string   `json:"jwks_uri"`
}

// ParseRegistration validates a registration request body: redirect URIs https, loopback http
// or a private-use scheme (never javascript:, data:, file: and the like), grant types
// authorization_code and refresh_token, response type code, token endpoint authentication none
// (the default: public clients), client_secret_post or client_secret_basic.
func ParseRegistration(body []byte) (*Registration, error) {
	m, err := decodeMetadata(body)
	if err != nil {
		return nil, err
	}
	return m.validate(false)
}

func decodeMetadata(body []byte) (*clientMetadata, error) {
	if len(body) > maxRegistrationBytes {
		return nil, badMetadata("the metadata exceeds %d bytes", maxRegistrationBytes)
	}
	var m clientMetadata
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil {
		return nil, badMetadata("the body is not a JSON object of client metadata: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badMetadata("the body has data after the JSON object")
	}
	return &m, nil
}

// validate checks m; document is true for a Client ID Metadata Document, which may only
// describe a public client.
func (m *clientMetadata) validate(document bool) (*Registration, error) {
	if len(m.RedirectURIs) == 0 {
		return nil, badRedirect("redirect_uris is required")
	}
	if len(m.RedirectURIs) > 20 {
		return nil, badRedirect("at most 20 redirect_uris")
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return nil, err
		}
	}
	reg := &Registration{RedirectURIs: slices.Compact(slices.Clone(m.RedirectURIs)), AuthMethod: m.TokenEndpointAuthMethod}
	if reg.AuthMethod == "" {
		reg.AuthMethod = "none"
	}
	switch {
	case document && reg.AuthMethod != "none":
		return nil, badMetadata("token_endpoint_auth_method %q: a client metadata document describes a public client (none)", reg.AuthMethod)
	case !slices.Contains(authMethods, reg.AuthMethod):
		return nil, badMetadata("token_endpoint_auth_method %q: want one of %s", reg.AuthMethod, strings.Join(authMethods, ", "))
	}
	if document && (m.ClientSecret != "" || m.JWKS != nil || m.JWKSURI != "") {
		return nil, badMetadata("a client metadata document must not carry client_secret, jwks or jwks_uri")
	}
	reg.GrantTypes = m.GrantTypes
	if len(reg.GrantTypes) == 0 {
		reg.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, badMetadata("grant type %q is not supported: want authorization_code and refresh_token", g)
		}
	}
	if !slices.Contains(reg.GrantTypes, "authorization_code") {
		return nil, badMetadata("grant_types must include authorization_code")
	}
	reg.GrantTypes = slices.Compact(slices.Sorted(slices.Values(reg.GrantTypes)))
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return nil, badMetadata("response type %q is not supported: want code", rt)
		}
	}
	var err error
	if reg.Name, err = text("client_name", m.ClientName, 200); err != nil {
		return nil, err
	}
	if reg.SoftwareID, err = text("software_id", m.SoftwareID, 200); err != nil {
		return nil, err
	}
	if reg.SoftwareVersion, err = text("software_version", m.SoftwareVersion, 100); err != nil {
		return nil, err
	}
	if m.ClientURI != "" {
		u, err := url.Parse(m.ClientURI)
		if err != nil || u.Scheme != "https" || u.Host == "" || len(m.ClientURI) > 2000 {
			return nil, badMetadata("client_uri must be an https URL")
		}
		reg.ClientURI = m.ClientURI
	}
	return reg, nil
}

// text checks a display string: valid UTF-8, no control characters, at most n bytes.
func text(field, v string, n int) (string, error) {
	if len(v) > n || !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", badMetadata("%s must be printable text of at most %d bytes", field, n)
	}
	return strings.TrimSpace(v), nil
}

// refusedSchemes are never redirect targets: they run code in the browser, read local files or
// leave the OAuth flow for another protocol.
var refusedSchemes = []string{"javascript", "data", "vbscript", "file", "about", "blob", "filesystem", "view-source",
	"ftp", "ws", "wss", "mailto", "tel", "sms", "intent", "jar"}

// checkRedirectURI accepts https URLs, http URLs on a loopback host (RFC 8252 7.3) and
// private-use schemes of native apps (RFC 8252 7.1, for example cursor://); never a fragment,
// user info or one of refusedSchemes.
func checkRedirectURI(raw string) error {
	if len(raw) > 2000 {
		return badRedirect("a redirect URI is longer than 2000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return badRedirect("%q is not an absolute URI", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return badRedirect("%q: a redirect URI must not have a fragment", raw)
	}
	if u.User != nil {
		return badRedirect("%q: a redirect URI must not carry user info", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "https":
		if u.Host == "" {
			return badRedirect("%q has no host", raw)
		}
	case scheme == "http":
		if !isLoopback(u.Hostname()) {
			return badRedirect("%q: http redirect URIs must be on a loopback host (127.0.0.1, [::1] or localhost); use https otherwise", raw)
		}
	case slices.Contains(refusedSchemes, scheme):
		return badRedirect("%q: the %s scheme is not allowed for redirect URIs", raw, scheme)
	}
	return nil
}

// isLoopback reports a loopback host: localhost or a loopback IP literal.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether presented is one of registered: exactly, except that an http
// loopback URI may use any port (RFC 8252 7.3).
func redirectMatches(registered []string, presented string) bool {
	if slices.Contains(registered, presented) {
		return true
	}
	p, err := url.Parse(presented)
	if err != nil || p.Scheme != "http" || !isLoopback(p.Hostname()) {
		return false
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) {
			continue
		}
		if strings.EqualFold(u.Hostname(), p.Hostname()) && u.EscapedPath() == p.EscapedPath() &&
			u.RawQuery == p.RawQuery && u.User == nil && p.User == nil && p.Fragment == "" {
			return true
		}
	}
	return false
}

// registrationResponse is the RFC 7591 3.2.1 answer.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	Scope                   string   `json:"scope"`
	SoftwareID              string   `json:"software_id,omitempty"`
	SoftwareVersion         string   `json:"software_version,omitempty"`
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if ok, wait := s.o.Registrations.Allow(r.Context(), clientIP(r, s.o.TrustedProxies)); !ok {
		tooMany(w, wait)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("the body exceeds %d bytes", maxRegistrationBytes))
		return
	}
	reg, err := ParseRegistration(body)
	var re *RegistrationError
	if errors.As(err, &re) {
		writeError(w, http.StatusBadRequest, re.Code, re.Description)
		return
	}
	ctx := r.Context()
	now := s.o.Now().UTC()
	if _, err := s.o.Store.DeleteUnusedOAuthClients(ctx, now.Add(-UnusedClientTTL)); err != nil {
		s.o.Log.WarnContext(ctx, "expire unused oauth clients", "err", err)
	}
	c := &store.OAuthClient{
		ID: newSecret(clientIDPrefix)[:len(clientIDPrefix)+22], Kind: store.OAuthClientRegistered, Name: reg.Name, ClientURI: reg.ClientURI,
		RedirectURIs: reg.RedirectURIs, GrantTypes: reg.GrantTypes, AuthMethod: reg.AuthMethod,
		SoftwareID: reg.SoftwareID, SoftwareVersion: reg.SoftwareVersion,
	}
	var secret string
	if reg.AuthMethod != "none" {
		secret = newSecret(clientSecretPrefix)
		c.SecretHash = hash(secret)
	}
	if err := s.o.Store.CreateOAuthClient(ctx, c); err != nil {
		s.serverError(ctx, w, "register oauth client", err)
		return
	}
	s.o.Log.InfoContext(ctx, "oauth client registered", "client_id", c.ID, "client_name", c.Name, "auth_method", c.AuthMethod)
	resp := registrationResponse{
		ClientID: c.ID, ClientSecret: secret, ClientIDIssuedAt: c.CreatedAt.Unix(),
		RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: c.AuthMethod, ClientName: c.Name, ClientURI: c.ClientURI, Scope: Scope,
		SoftwareID: c.SoftwareID, SoftwareVersion: c.SoftwareVersion,
	}
	if secret != "" {
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	writeJSON(w, http.StatusCreated, resp)
}
