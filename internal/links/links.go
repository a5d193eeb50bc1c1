// Package links builds the product's URLs from APP_URL: the candidate-facing interview link and
// the deep links to candidates, jobs and sessions that tools and messages show.
package links

import (
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// Builder builds links under one base URL.
type Builder struct{ base string }

// New returns a Builder for appURL (trailing slashes ignored).
func New(appURL string) Builder { return Builder{base: strings.TrimRight(appURL, "/")} }

// Interview is the candidate's interview link; token is the session's unguessable link token.
func (b Builder) Interview(token string) string {
	return b.base + "/interview/" + url.PathEscape(token)
}

// IdentityReturnBase is the prefix of the single-use addresses the identity provider sends a
// candidate back to (internal/identity appends a one-time id); it never holds the link token.
func (b Builder) IdentityReturnBase() string { return b.base + "/interview/identity-return" }

// Candidate is a candidate's page.
func (b Builder) Candidate(id uuid.UUID) string { return b.base + "/candidates/" + id.String() }

// Job is a job's page.
func (b Builder) Job(id uuid.UUID) string { return b.base + "/jobs/" + id.String() }

// Session is an interview session's report page.
func (b Builder) Session(id uuid.UUID) string { return b.base + "/sessions/" + id.String() }

// Base is the app URL links are built under (no trailing slash).
func (b Builder) Base() string { return b.base }
