package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/store"
)

// Caller is who a request acts for. An API key is one company; an OAuth user (a later issue)
// covers every active company it belongs to, re-checked on each request.
type Caller struct {
	// Kind is "api_key" or "user".
	Kind string
	// CompanyIDs are the accessible companies, primary first.
	CompanyIDs []uuid.UUID
	// PlatformAdmin callers may use any company.
	PlatformAdmin bool
}

// ErrForeignCompany is the tool error for a companyId outside the caller's list.
var ErrForeignCompany = errors.New("companyId is not in your accessible companies; run listCompanies and retry with a listed id")

// Company resolves a tool's optional companyId argument: empty means the primary company.
func (c *Caller) Company(requested string) (uuid.UUID, error) {
	if requested == "" {
		if len(c.CompanyIDs) == 0 {
			return uuid.Nil, errors.New("you have no accessible companies")
		}
		return c.CompanyIDs[0], nil
	}
	id, err := uuid.Parse(requested)
	if err != nil {
		return uuid.Nil, fmt.Errorf("companyId %q is not a UUID; run listCompanies to see valid ids", requested)
	}
	if !c.PlatformAdmin && !slices.Contains(c.CompanyIDs, id) {
		return uuid.Nil, ErrForeignCompany
	}
	return id, nil
}

type callerKey struct{}

func callerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

type authenticator struct {
	store       *store.Store
	log         *slog.Logger
	realm       string
	metadataURL string
}

// require re-validates the bearer token on every request; failures answer 401 with the
// WWW-Authenticate challenge of the spec (realm and resource_metadata).
func (a *authenticator) require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			a.challenge(w, "", "missing bearer token")
			return
		}
		company, _, err := a.store.Authenticate(r.Context(), strings.TrimSpace(token))
		switch {
		case errors.Is(err, store.ErrUnknownKey), errors.Is(err, store.ErrRevokedKey):
			a.challenge(w, "invalid_token", "invalid or revoked token")
			return
		case err != nil:
			a.log.ErrorContext(r.Context(), "mcp authentication", "err", err)
			http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
			return
		}
		caller := &Caller{Kind: "api_key", CompanyIDs: []uuid.UUID{company.ID}}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, caller)))
	})
}

func (a *authenticator) challenge(w http.ResponseWriter, code, desc string) {
	h := fmt.Sprintf(`Bearer realm=%q, resource_metadata=%q`, a.realm, a.metadataURL)
	if code != "" {
		h += fmt.Sprintf(`, error=%q, error_description=%q`, code, desc)
	}
	w.Header().Set("WWW-Authenticate", h)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": "unauthorized", "error_description": desc})
}
