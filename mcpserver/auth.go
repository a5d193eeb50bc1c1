package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/oauth"
	"github.com/recruitd/recruitd/internal/ratelimit"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

type authenticator struct {
	store        *store.Store
	oauth        *oauth.Server // verifies OAuth access tokens beside API keys
	log          *slog.Logger
	keyLimits    *ratelimit.Limit     // requests per key
	authFailures *ratelimit.Limit     // failed authentications per client IP
	calls        *ratelimit.CallSlots // requests in flight per key
	proxies      []netip.Prefix       // MCP_TRUSTED_PROXIES
	// base is the tool server's base address of a request: the challenge's realm.
	base func(*http.Request) string
}

// require re-validates the bearer token on every request; failures answer 401 with the
// WWW-Authenticate challenge of the spec (realm and resource_metadata), through refuse when the
// token was wrong. A valid token is served whatever other clients of its address did; a key over
// its request rate and a key with MCP_MAX_CONCURRENT_CALLS requests in flight get 429 with
// Retry-After.
func (a *authenticator) require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			a.challenge(w, r, "", "missing bearer token") // the first step of OAuth discovery: no failure
			return
		}
		if token = strings.TrimSpace(token); oauth.IsAccessToken(token) {
			a.requireUser(w, r, next, token)
			return
		}
		company, key, err := a.store.Authenticate(r.Context(), token)
		switch {
		case errors.Is(err, store.ErrUnknownKey), errors.Is(err, store.ErrRevokedKey):
			a.refuse(w, r, "invalid or revoked token")
			return
		case store.IsUnavailable(err):
			a.log.WarnContext(r.Context(), "mcp authentication: database unavailable", "err", err)
			w.Header().Set("Retry-After", "5")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "temporarily_unavailable", "error_description": "the database is unavailable for the moment; retry after the Retry-After delay"})
			return
		case err != nil:
			a.log.ErrorContext(r.Context(), "mcp authentication", "err", err)
			http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
			return
		}
		if !key.Has(models.ScopeMCPRead) {
			a.forbid(w, r, models.ScopeMCPRead)
			return
		}
		if ok, wait := a.keyLimits.Allow(r.Context(), key.ID.String()); !ok {
			tooMany(w, wait, "too many requests with this API key")
			return
		}
		ok, release := a.calls.Acquire(r.Context(), key.ID.String())
		if !ok {
			tooMany(w, time.Second, "too many tool calls in flight with this API key")
			return
		}
		defer release()
		if key.LastUsedAt == nil || time.Since(*key.LastUsedAt) > time.Minute {
			if err := a.store.TouchAPIKey(r.Context(), company.ID, key.ID, time.Now().UTC()); err != nil {
				a.log.WarnContext(r.Context(), "api key last-used not recorded", "err", err)
			}
		}
		caller := &toolkit.Caller{Kind: toolkit.CallerAPIKey, CompanyIDs: []uuid.UUID{company.ID}}
		next.ServeHTTP(w, toolkit.WithRequest(r, caller))
	})
}

// requireUser admits an OAuth access token: verified on every request (known, unexpired, not
// revoked, issued for this resource, user active), with the user's memberships read now. Rate
// and concurrency limits apply per sign-in (grant), as they do per API key. An expired token
// answers 401 without counting as a failed authentication.
func (a *authenticator) requireUser(w http.ResponseWriter, r *http.Request, next http.Handler, token string) {
	access, err := a.oauth.Verify(r.Context(), token, a.base(r)+"/mcp")
	switch {
	case errors.Is(err, oauth.ErrExpiredToken):
		// A token we issued that has run out: its client refreshes it (hourly), it guessed nothing.
		a.challenge(w, r, "invalid_token", err.Error())
		return
	case errors.Is(err, oauth.ErrInvalidToken), errors.Is(err, oauth.ErrWrongAudience):
		a.refuse(w, r, err.Error())
		return
	case err != nil && r.Context().Err() != nil:
		return // the client went away
	case err != nil:
		a.log.ErrorContext(r.Context(), "mcp authentication", "err", err)
		http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
		return
	}
	limitKey := "oauth:" + access.GrantID.String()
	if ok, wait := a.keyLimits.Allow(r.Context(), limitKey); !ok {
		tooMany(w, wait, "too many requests with this sign-in")
		return
	}
	ok, release := a.calls.Acquire(r.Context(), limitKey)
	if !ok {
		tooMany(w, time.Second, "too many tool calls in flight with this sign-in")
		return
	}
	defer release()
	caller := &toolkit.Caller{Kind: toolkit.CallerUser, CompanyIDs: access.CompanyIDs, PlatformAdmin: access.PlatformAdmin}
	next.ServeHTTP(w, toolkit.WithRequest(r, caller))
}

// refuse answers a token that failed (unknown, revoked, malformed, for another resource): 401
// invalid_token with the challenge while the client IP has failures left in its budget
// (AUTH_FAILURE_LIMIT), each failure spending one, and 429 once it is spent. Only failures
// consult the budget, so a valid token from the same address is served as if no one had failed.
func (a *authenticator) refuse(w http.ResponseWriter, r *http.Request, desc string) {
	ip := clientip.Of(r, a.proxies) // the peer, unless it is a trusted proxy: forwarded-for headers are the client's to forge
	if ok, wait := a.authFailures.Allow(r.Context(), ip); !ok {
		tooMany(w, wait, "too many failed authentications from this address")
		return
	}
	a.challenge(w, r, "invalid_token", desc)
}

// tooMany answers 429 with a Retry-After covering wait.
func tooMany(w http.ResponseWriter, wait time.Duration, desc string) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": "rate_limited", "error_description": desc + "; retry after the Retry-After delay"})
}

// forbid answers a valid key that lacks scope: 403 insufficient_scope with the challenge
// (RFC 6750 3.1), naming the scope the tool server needs.
func (a *authenticator) forbid(w http.ResponseWriter, r *http.Request, scope models.Scope) {
	base := a.base(r)
	desc := "this API key lacks the " + string(scope) + " scope"
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, resource_metadata=%q, error="insufficient_scope", scope=%q, error_description=%q`,
		base, base+"/.well-known/oauth-protected-resource", string(scope), desc))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": "insufficient_scope", "error_description": desc})
}

// challenge answers 401 with the spec's challenge (realm, resource_metadata); with an error code
// (a token that was refused) it also names the scope a new token needs.
func (a *authenticator) challenge(w http.ResponseWriter, r *http.Request, code, desc string) {
	base := a.base(r)
	h := fmt.Sprintf(`Bearer realm=%q, resource_metadata=%q`, base, base+"/.well-known/oauth-protected-resource")
	if code != "" {
		h += fmt.Sprintf(`, scope=%q, error=%q, error_description=%q`, oauth.Scope, code, desc)
	}
	w.Header().Set("WWW-Authenticate", h)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": "unauthorized", "error_description": desc})
}
