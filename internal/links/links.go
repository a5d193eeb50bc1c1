// Package links builds every URL recruitd writes for people to open: the candidate's interview
// link, under the base of the candidate pages that recruitd serves, and the recruiter links to
// candidates, jobs and sessions (tool answers, ATS notes, the aggregator's result links), under
// the product's web app or, without one, recruitd's own recruiter pages (/app/...), which say how
// to read the record through the API and the tools. Nothing else builds such a URL, and
// TestEveryLinkResolves follows each kind.
package links

import (
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// Kinds of link, for tests that follow each and for logs.
const (
	KindInterview = "interview"
	KindCandidate = "candidate"
	KindJob       = "job"
	KindSession   = "session"
	KindDoc       = "doc"
)

// Kinds lists every kind of link a Builder makes.
func Kinds() []string { return []string{KindInterview, KindCandidate, KindJob, KindSession, KindDoc} }

// RecruiterPrefix is the path under recruitd's public base where its own recruiter pages live
// when no web app is configured.
const RecruiterPrefix = "/app"

// Builder builds links under two bases: the candidate pages' and the recruiter pages'.
type Builder struct{ candidate, recruiter string }

// New returns a Builder: candidateBase is where recruitd serves the candidate pages
// (/interview/<token>), appURL the product's web app ("" for recruitd's own recruiter pages under
// candidateBase+RecruiterPrefix). Trailing slashes are ignored.
func New(candidateBase, appURL string) Builder {
	b := Builder{candidate: strings.TrimRight(candidateBase, "/"), recruiter: strings.TrimRight(appURL, "/")}
	if b.recruiter == "" {
		b.recruiter = b.candidate + RecruiterPrefix
	}
	return b
}

// Interview is the candidate's interview link; token is the session's unguessable link token.
func (b Builder) Interview(token string) string {
	return b.candidate + "/interview/" + url.PathEscape(token)
}

// IdentityReturnBase is the prefix of the single-use addresses the identity provider sends a
// candidate back to (internal/identity appends a one-time id); it never holds the link token.
func (b Builder) IdentityReturnBase() string { return b.candidate + "/interview/identity-return" }

// Candidate is a candidate's page.
func (b Builder) Candidate(id uuid.UUID) string { return b.recruiter + "/candidates/" + id.String() }

// Job is a job's page.
func (b Builder) Job(id uuid.UUID) string { return b.recruiter + "/jobs/" + id.String() }

// Session is an interview session's report page.
func (b Builder) Session(id uuid.UUID) string { return b.recruiter + "/sessions/" + id.String() }

// Of builds the link of kind for id (the link token for KindInterview, the page's name for
// KindDoc); "" for an unknown kind.
func (b Builder) Of(kind, id string) string {
	switch kind {
	case KindInterview:
		return b.Interview(id)
	case KindDoc:
		return b.Doc(id, "")
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return ""
	}
	switch kind {
	case KindCandidate:
		return b.Candidate(u)
	case KindJob:
		return b.Job(u)
	case KindSession:
		return b.Session(u)
	}
	return ""
}

// Doc is a page of recruitd's documentation (docs/<name>, served as Markdown by the api process),
// at the section anchor when it is not "".
func (b Builder) Doc(name, anchor string) string {
	u := b.candidate + "/docs/" + url.PathEscape(name)
	if anchor != "" {
		u += "#" + anchor
	}
	return u
}

// RecruiterBase is the base the recruiter links are built under (no trailing slash).
func (b Builder) RecruiterBase() string { return b.recruiter }

// CandidateBase is the base of the candidate pages (no trailing slash).
func (b Builder) CandidateBase() string { return b.candidate }
