package toolkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/google/uuid"
)

// Caller is who a request acts for. An API key is one company; an OAuth user (a later issue)
// covers every active company it belongs to, re-checked on each request.
type Caller struct {
	// Kind is CallerAPIKey or CallerUser.
	Kind string
	// CompanyIDs are the accessible companies, primary first.
	CompanyIDs []uuid.UUID
	// PlatformAdmin callers may use any company.
	PlatformAdmin bool
}

// Caller kinds.
const (
	CallerAPIKey = "api_key"
	CallerUser   = "user"
)

// ErrForeignCompany is the tool error for a companyId outside the caller's list.
var ErrForeignCompany = errors.New("companyId is not in your accessible companies; run listCompanies and retry with a listed id")

// ErrNoDefaultCompany is the tool error for a call without companyId by a caller who has no
// company of their own, so no default.
var ErrNoDefaultCompany = errors.New("you have no accessible companies")

// errAdminNeedsCompany is ErrNoDefaultCompany for a platform admin without memberships (support
// admins are created so): they may query any company, but must name it.
var errAdminNeedsCompany = fmt.Errorf("%w of your own: as a platform admin, pass companyId (listCompanies lists every company, query filters it by name)", ErrNoDefaultCompany)

// Company resolves a tool's optional companyId argument: empty means the primary company.
func (c *Caller) Company(requested string) (uuid.UUID, error) {
	if requested == "" {
		if len(c.CompanyIDs) == 0 {
			if c.PlatformAdmin {
				return uuid.Nil, errAdminNeedsCompany
			}
			return uuid.Nil, ErrNoDefaultCompany
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

// WithCaller returns ctx carrying c; the transport's authentication sets it per request.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the request's caller, or nil.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

type requestKey struct{}

// WithRequest returns r with its own context recorded as the request that tool calls made by r
// belong to. The go-sdk runs stateless handlers on a context that outlives the HTTP request
// (for protocol versions before 2026-07-28), so Add ties each call to the recorded request: a
// client that goes away cancels its queries.
func WithRequest(r *http.Request, c *Caller) *http.Request {
	ctx := context.WithValue(r.Context(), requestKey{}, r.Context())
	return r.WithContext(WithCaller(ctx, c))
}

// boundToRequest returns ctx cancelled also when the HTTP request recorded by WithRequest ends.
func boundToRequest(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if req, ok := ctx.Value(requestKey{}).(context.Context); ok {
		stop := context.AfterFunc(req, cancel)
		return ctx, func() { stop(); cancel() }
	}
	return ctx, cancel
}
