package oauth

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/pkg/client/rp"

	"github.com/recruitd/recruitd/internal/store"
)

// browserCookie binds a pending authorisation to the browser that was shown its consent page:
// the consent and the identity provider's callback are accepted only with it, so a link or a
// cross-site form cannot complete someone else's authorisation.
const browserCookie = "recruitd_oauth_browser"

// plainScope is a scope token an error description may repeat (RFC 6749 allows only printable
// ASCII there).
var plainScope = regexp.MustCompile(`^[A-Za-z0-9:._/-]{1,64}$`)

// pkceChallenge is an S256 challenge: base64url of 32 bytes.
var pkceChallenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// authorize validates an authorisation request and shows the consent page. Errors about the
// client or its redirect URI are shown here, never redirected (RFC 6749 4.1.2.1); others go back
// to the client's redirect URI.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	client, err := s.client(r, clientID)
	if err != nil {
		s.page(w, http.StatusBadRequest, "Unknown client", err.Error())
		return
	}
	redirectGiven := redirectURI != ""
	if !redirectGiven && len(client.RedirectURIs) == 1 {
		redirectURI = client.RedirectURIs[0]
	}
	if !redirectMatches(client.RedirectURIs, redirectURI) {
		s.page(w, http.StatusBadRequest, "Redirect URI not registered",
			"The redirect_uri "+redirectURI+" is not one of the redirect URIs registered for this client.")
		return
	}
	back := func(code, desc string) { s.redirectError(w, r, redirectURI, q.Get("state"), code, desc) }
	switch {
	case q.Get("response_type") != "code":
		back("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge_method") != "S256" || !pkceChallenge.MatchString(q.Get("code_challenge")):
		back("invalid_request", "PKCE is required: code_challenge (S256 of the verifier, base64url) and code_challenge_method=S256")
		return
	case !slicesContain(client.GrantTypes, "authorization_code"):
		back("unauthorized_client", "this client is not registered for the authorization_code grant")
		return
	}
	if bad := unknownScope(q.Get("scope")); bad != "" {
		if !plainScope.MatchString(bad) {
			bad = "(not shown)"
		}
		back("invalid_scope", "unknown scope "+bad+"; this server grants "+Scope)
		return
	}
	resource := q.Get("resource")
	if resource == "" {
		resource = s.Resource(r)
	}
	if !sameResource(resource, s.Resource(r)) {
		back("invalid_target", "resource must be "+s.Resource(r))
		return
	}
	if _, ok := s.signInParty(r, back); !ok {
		return
	}
	browser := newSecret("")
	a := &store.OAuthAuthorization{
		ClientID: client.ID, RedirectURI: redirectURI, RedirectURIGiven: redirectGiven, State: q.Get("state"), CodeChallenge: q.Get("code_challenge"),
		Resource: s.Resource(r), Scope: Scope, BrowserHash: hash(browser), ExpiresAt: s.o.Now().Add(AuthorizationTTL),
	}
	if err := s.o.Store.CreateOAuthAuthorization(ctx, a); err != nil {
		s.serverError(ctx, w, "create oauth authorization", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: browser, Path: "/oauth/", MaxAge: int(AuthorizationTTL.Seconds()),
		HttpOnly: true, Secure: strings.HasPrefix(s.o.Base(r), "https://"), SameSite: http.SameSiteLaxMode})
	name := displayText(client.Name)
	if name == "" {
		name = "An unnamed application"
	}
	s.render(w, http.StatusOK, consentPage, consentData{
		ID: a.ID.String(), ClientName: name, ClientID: displayText(client.ID), RedirectHost: displayText(redirectHost(redirectURI)),
		Resource: a.Resource, MetadataDocument: client.Kind == store.OAuthClientMetadataDocument,
	})
}

// client loads a registered client, or fetches the metadata document a URL client_id names.
func (s *Server) client(r *http.Request, clientID string) (*store.OAuthClient, error) {
	if clientID == "" {
		return nil, errors.New("client_id is required")
	}
	if IsMetadataDocumentID(clientID) {
		c, err := s.metadataClient(r.Context(), r, clientID)
		if err != nil {
			s.o.Log.WarnContext(r.Context(), "client metadata document refused", "client_id", clientID, "err", err)
			return nil, errors.New("the client metadata document at " + clientID + " could not be used: " + err.Error())
		}
		return c, nil
	}
	c, err := s.o.Store.OAuthClient(r.Context(), clientID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errors.New("client_id " + clientID + " is not registered (or its registration expired); register again")
	}
	return c, err
}

// consent handles the consent form: deny sends access_denied to the client; allow sends the
// browser to the identity provider with our own state and PKCE.
func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := uuid.Parse(r.PostFormValue("id"))
	if err != nil {
		s.page(w, http.StatusBadRequest, "Invalid request", "The consent form is incomplete.")
		return
	}
	a, err := s.o.Store.OAuthAuthorization(ctx, id)
	if !s.checkPending(w, r, a, err, "This authorization request expired or was already answered. Start again from your application.",
		"Consent not accepted", "The consent must be given in the browser that opened this authorization request.") {
		return
	}
	if r.PostFormValue("decision") != "allow" {
		_ = s.o.Store.DeleteOAuthAuthorization(ctx, a.ID)
		s.redirectError(w, r, a.RedirectURI, a.State, "access_denied", "the user declined the authorization")
		return
	}
	p, ok := s.signInParty(r, func(code, desc string) { s.redirectError(w, r, a.RedirectURI, a.State, code, desc) })
	if !ok {
		return
	}
	state, verifier := newSecret(""), newSecret("")
	if err := s.o.Store.ConsentOAuthAuthorization(ctx, a.ID, a.BrowserHash, hash(state), verifier); err != nil {
		s.page(w, http.StatusBadRequest, "Authorization expired", "This authorization request expired or was already answered. Start again from your application.")
		return
	}
	http.Redirect(w, r, rp.AuthURL(state, p, rp.WithCodeChallenge(s256(verifier))), http.StatusSeeOther)
}

// callback completes the sign-in at the identity provider: its code is exchanged, the verified
// e-mail matched to an active user, and the client receives our own single-use code.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	a, err := s.o.Store.TakeOAuthAuthorization(ctx, hash(q.Get("state")))
	if !s.checkPending(w, r, a, err, "This sign-in does not belong to a pending authorization request (expired or already used). Start again from your application.",
		"Sign-in not accepted", "The sign-in must finish in the browser that started it.") {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: "", Path: "/oauth/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	if e := q.Get("error"); e != "" {
		s.redirectError(w, r, a.RedirectURI, a.State, "access_denied", "the identity provider refused the sign-in ("+e+")")
		return
	}
	p, ok := s.signInParty(r, func(code, desc string) { s.redirectError(w, r, a.RedirectURI, a.State, code, desc) })
	if !ok {
		return
	}
	email, err := signedInEmail(ctx, p, q.Get("code"), a.UpstreamVerifier)
	if errors.Is(err, errUnverifiedEmail) {
		s.redirectError(w, r, a.RedirectURI, a.State, "access_denied", "the identity provider has not verified your e-mail address")
		return
	}
	if err != nil {
		s.o.Log.WarnContext(ctx, "oauth sign-in at the identity provider", "err", err)
		s.redirectError(w, r, a.RedirectURI, a.State, "server_error", "the sign-in at the identity provider could not be completed; retry")
		return
	}
	user, err := s.o.Store.ActiveUserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		s.o.Log.InfoContext(ctx, "oauth sign-in without an active account", "client_id", a.ClientID)
		s.redirectError(w, r, a.RedirectURI, a.State, "access_denied", NoAccountMessage)
		return
	}
	if err != nil {
		s.serverError(ctx, w, "find user", err)
		return
	}
	code := newSecret(codePrefix)
	g := &store.OAuthGrant{ClientID: a.ClientID, UserID: user.ID, Resource: a.Resource, Scope: a.Scope,
		RedirectURI: a.RedirectURI, RedirectURIGiven: a.RedirectURIGiven, CodeChallenge: a.CodeChallenge, CodeExpiresAt: s.o.Now().Add(CodeTTL)}
	if err := s.o.Store.CreateOAuthGrant(ctx, g, hash(code)); err != nil {
		s.serverError(ctx, w, "create oauth grant", err)
		return
	}
	s.o.Log.InfoContext(ctx, "oauth sign-in", "client_id", a.ClientID, "user_id", user.ID, "grant_id", g.ID)
	s.redirect(w, r, a.RedirectURI, url.Values{"code": {code}, "state": {a.State}})
}

// checkPending answers for a pending request that could not be loaded (err: expired shows
// expiredMsg) or that belongs to another browser (title, foreignMsg), and reports whether the
// request may go on.
func (s *Server) checkPending(w http.ResponseWriter, r *http.Request, a *store.OAuthAuthorization, err error, expiredMsg, title, foreignMsg string) bool {
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.page(w, http.StatusBadRequest, "Authorization expired", expiredMsg)
	case err != nil:
		s.serverError(r.Context(), w, "load oauth authorization", err)
	default:
		if c, err := r.Cookie(browserCookie); err == nil && equalHash(a.BrowserHash, c.Value) {
			return true
		}
		s.page(w, http.StatusForbidden, title, foreignMsg)
	}
	return false
}

// redirectError sends an authorisation error to the client's redirect URI.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, redirectURI, state, code, desc string) {
	s.redirect(w, r, redirectURI, url.Values{"error": {code}, "error_description": {desc}, "state": {state}})
}

// redirect sends the browser to redirectURI with params and iss (RFC 9207) added to its query.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, redirectURI string, params url.Values) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		s.page(w, http.StatusBadRequest, "Invalid redirect URI", "The client's redirect URI cannot be used.")
		return
	}
	q := u.Query()
	for k, v := range params {
		if len(v) > 0 && v[0] != "" {
			q[k] = v
		}
	}
	q.Set("iss", s.o.Base(r))
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// knownScopes are the scopes an authorisation request may name: Scope, which every sign-in
// is granted, and offline_access, which OpenID-minded clients add to ask for the refresh token
// that every sign-in gets anyway.
var knownScopes = []string{Scope, "offline_access"}

// unknownScope returns the first scope of a space-delimited scope parameter (RFC 6749 3.3) that
// is not in knownScopes, or "".
func unknownScope(param string) string {
	for _, sc := range strings.Fields(param) {
		if !slicesContain(knownScopes, sc) {
			return sc
		}
	}
	return ""
}

// sameResource compares resource indicators, ignoring one trailing slash.
func sameResource(got, want string) bool {
	return strings.TrimSuffix(got, "/") == strings.TrimSuffix(want, "/")
}

// redirectHost is what the consent page shows of a redirect URI: its host (with port), or its
// scheme for a native app's private-use URI.
func redirectHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

func slicesContain(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

type consentData struct {
	ID, ClientName, ClientID, RedirectHost, Resource string
	MetadataDocument                                 bool
}

type pageData struct{ Title, Message string }

// page shows a message page (errors that must not be redirected).
func (s *Server) page(w http.ResponseWriter, status int, title, msg string) {
	s.render(w, status, messagePage, pageData{title, msg})
}

func (s *Server) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if err := t.Execute(w, data); err != nil {
		s.o.Log.Warn("render oauth page", "err", err)
	}
}

const pageStyle = `<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:.1rem .3rem}.host{font-size:1.3rem;font-weight:bold}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem}</style>`

var consentPage = template.Must(template.New("consent").Parse(`<!doctype html><html><head><meta charset="utf-8">
<title>Allow access to recruitd?</title>` + pageStyle + `</head><body>
<h1>Allow {{.ClientName}} to read your recruitd data?</h1>
<p>After you sign in, you will be sent back to</p>
<p class="host">{{.RedirectHost}}</p>
<p>The application will be able to read, not change, the data of every company you belong to through the recruitd tool server
(<code>{{.Resource}}</code>) until you revoke it or your access ends.</p>
<p>Client: <code>{{.ClientID}}</code>{{if .MetadataDocument}} (identified by its published metadata document){{else}} (registered itself; its name is not verified){{end}}</p>
<p>Only continue if you started this from an application you trust.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="id" value="{{.ID}}">
<button type="submit" name="decision" value="allow">Allow and sign in</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`))

var messagePage = template.Must(template.New("message").Parse(`<!doctype html><html><head><meta charset="utf-8">
<title>{{.Title}}</title>` + pageStyle + `</head><body><h1>{{.Title}}</h1><p>{{.Message}}</p></body></html>`))

// signInParty is the identity provider's relying party for this server's callback. When the
// provider cannot be reached it logs why and sends the client temporarily_unavailable through
// fail.
func (s *Server) signInParty(r *http.Request, fail func(code, desc string)) (relyingParty, bool) {
	p, err := s.upstream(r.Context(), s.o.Base(r)+"/oauth/callback")
	if err != nil {
		s.o.Log.ErrorContext(r.Context(), "oauth upstream", "err", err)
		fail("temporarily_unavailable", "sign-in through the identity provider is unavailable; retry later")
		return nil, false
	}
	return p, true
}
