// Package interviewtools holds the MCP tools about interviews and their integrity checks:
// interview volume and timing (getInterviewStats, getInterviewTimeOfDayBreakdown), one
// candidate's interview report (getCandidateReport), the three integrity families (cheating
// during the interview, fraud signals of the identity, government-ID verification) and one
// candidate's full integrity picture (getCandidateVerification).
//
// Every query is plain parameterised SQL on the call's company, in the call's read-only snapshot
// (toolkit.Call.DB): each table a query touches, joined ones included, is constrained by
// company_id = $1. Predicates are added only for the filters actually given (never `$n IS NULL OR ...`), so every statement can use a range index.
// Company-wide statistics read the rollups of migration 00007 (see rollup.go).
package interviewtools

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

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
// candidates_company_email_idx on (company_id, lower(email), created_at, id)).
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

func ptr[T any](v T) *T { return &v }

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
