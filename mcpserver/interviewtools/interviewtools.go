// Package interviewtools holds the MCP tools about interviews and their integrity checks:
// interview volume and timing (getInterviewStats, getInterviewTimeOfDayBreakdown), one
// candidate's interview report (getCandidateReport), the three integrity families (cheating
// during the interview, fraud signals of the identity, government-ID verification) and one
// candidate's full integrity picture (getCandidateVerification).
//
// Every query is plain parameterised SQL on the call's company: each table a query touches,
// joined ones included, is constrained by company_id = $1. Predicates are added only for the
// filters actually given (never `$n IS NULL OR ...`), so every statement can use a range index.
// Company-wide statistics read the rollups of migration 00007 (see rollup.go).
package interviewtools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// Register adds the interview and integrity tools to s.
func Register(s *mcp.Server, env *toolkit.Env) {
	registerInterviewStats(s, env)
	registerTimeOfDay(s, env)
	registerCandidateReport(s, env)
	registerCheatingStats(s, env)
	registerFraudStats(s, env)
	registerIdentityStats(s, env)
	registerCandidateVerification(s, env)
}

// querier runs queries: the call's read-only transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// begin opens the read-only transaction a tool's queries run in, after its arguments are
// checked: one snapshot for all of the call's queries (a count and its detail rows agree). Roll it
// back when done. (Planning and memory are the tool server's connection settings,
// mcpserver.PostgresSettings.)
func begin(ctx context.Context, call *toolkit.Call) (*sql.Tx, error) {
	return call.Env.Store.SQL().BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
}

// Scope is the job scope of a job-scoped tool's answer.
type Scope struct {
	JobID    *string `json:"jobId" jsonschema:"the job (interviewer) the figures are limited to; null means company-wide"`
	JobTitle *string `json:"jobTitle" jsonschema:"title of that job"`
	JobLink  *string `json:"jobLink" jsonschema:"deep link to that job"`
	Source   string  `json:"source" jsonschema:"how the scope was chosen: positionId, jobContext (the client's current job page) or companyWide"`
}

// resolveScope applies positionId / the _meta job context / companyWide.
func resolveScope(ctx context.Context, call *toolkit.Call, positionID string, companyWide bool) (Scope, *uuid.UUID, error) {
	if companyWide && positionID != "" {
		call.Notice("companyWide is true, so positionId %s was ignored", positionID)
	}
	id, err := call.Position(ctx, positionID, companyWide)
	if err != nil {
		return Scope{}, nil, err
	}
	sc := Scope{Source: "companyWide"}
	if id == nil {
		return sc, nil, nil
	}
	sc.Source = "jobContext"
	if positionID != "" {
		sc.Source = "positionId"
	}
	var title string
	if err := call.Env.Store.SQL().QueryRowContext(ctx,
		`SELECT title FROM jobs WHERE company_id = $1 AND id = $2`, call.Company.ID, *id).Scan(&title); err != nil {
		return sc, nil, err
	}
	s, l := id.String(), call.Env.Links.Job(*id)
	sc.JobID, sc.JobTitle, sc.JobLink = &s, &title, &l
	return sc, id, nil
}

func (s Scope) text() string {
	if s.JobID == nil {
		return "company-wide"
	}
	how := "positionId"
	if s.Source == "jobContext" {
		how = "current job context"
	}
	return fmt.Sprintf("job %q (%s, from %s) %s", *s.JobTitle, *s.JobID, how, *s.JobLink)
}

// WindowOut is a date window as applied.
type WindowOut struct {
	Since *string `json:"since" jsonschema:"inclusive start (RFC 3339, UTC); null means unbounded"`
	Until *string `json:"until" jsonschema:"exclusive end (RFC 3339, UTC); null means unbounded"`
	Basis string  `json:"basis" jsonschema:"the timestamp the window filters on"`
}

func windowOut(w toolkit.Window, basis string) WindowOut {
	out := WindowOut{Basis: basis}
	if w.Since != nil {
		s := toolkit.Timestamp(*w.Since)
		out.Since = &s
	}
	if w.Until != nil {
		s := toolkit.Timestamp(*w.Until)
		out.Until = &s
	}
	return out
}

// nameTokens splits a name query into its whitespace-separated tokens.
func nameTokens(name string) []string { return strings.Fields(name) }

// maxNameTokens bounds a name query (each token is one trigram-index condition).
const maxNameTokens = 6

// whereName adds the partial, order-agnostic name match on candidates alias c: every token must
// occur, case-insensitively, in first_name || ' ' || last_name (the expression of the trigram
// index candidates_name_trgm_idx).
func whereName(q *toolkit.Query, c string, tokens []string) error {
	if len(tokens) > maxNameTokens {
		return toolkit.Errorf("name has %d words; use at most %d", len(tokens), maxNameTokens)
	}
	for _, t := range tokens {
		q.Where("(%[1]s.first_name || ' ' || %[1]s.last_name) ILIKE %[2]s", c, q.Arg(toolkit.LikeContains(t)))
	}
	return nil
}

// whereEmail adds the exact, case-insensitive e-mail match on candidates alias c (index
// candidates_company_email_idx on (company_id, lower(email))).
func whereEmail(q *toolkit.Query, c, email string) {
	q.Where("lower(%s.email) = lower(%s)", c, q.Arg(strings.TrimSpace(email)))
}

func fullName(first, last string) string {
	n := strings.TrimSpace(first + " " + last)
	if n == "" {
		return "(no name)"
	}
	return n
}

func parseUUID(name, v string) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimSpace(v))
	if err != nil {
		return uuid.Nil, toolkit.Errorf("%s %q is not a UUID", name, v)
	}
	return id, nil
}

func ptr[T any](v T) *T { return &v }

func nullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func nullFloat(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	v := toolkit.Round(f.Float64, 2)
	return &v
}

func nullTime(t sql.NullTime) *string {
	if !t.Valid {
		return nil
	}
	s := toolkit.Timestamp(t.Time)
	return &s
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// duration formats seconds as "1h 02m 03s" / "20m 43s" / "45s".
func duration(seconds float64) string {
	d := time.Duration(seconds+0.5) * time.Second
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %02dm %02ds", h, m, s)
	case m > 0:
		return fmt.Sprintf("%dm %02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

func count(n int64) string { return fmt.Sprintf("%d", n) }

// isNoRows reports sql.ErrNoRows.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
