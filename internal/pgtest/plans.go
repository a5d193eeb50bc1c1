package pgtest

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// Planned is how often Postgres ran and planned one statement (pg_stat_statements).
type Planned struct {
	Calls, Plans int64
	Query        string // on one line
}

// Querier is a *sql.DB or a *sql.Conn.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// PlansOf returns the calls and plans of the statements of q's database called at least minCalls
// times: the ones clients sent when toplevel is set, else the nested ones (triggers, functions).
// The server must preload pg_stat_statements with track = all and track_planning on, as
// `recruitd stack` and a private test cluster do (devstack.TrackStatements); the test fails,
// saying so, otherwise.
func PlansOf(t testing.TB, q Querier, toplevel bool, minCalls int64) []Planned {
	t.Helper()
	ctx := t.Context()
	if _, err := q.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	rows, err := q.QueryContext(ctx, `
		SELECT calls, plans, query FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND toplevel = $1 AND calls >= $2
		ORDER BY query`, toplevel, minCalls)
	if err != nil {
		t.Fatalf("pgtest: read pg_stat_statements (run the tests under `recruitd stack`, or preload pg_stat_statements with track_planning in TEST_DATABASE_URL's server): %v", err)
	}
	defer rows.Close()
	var out []Planned
	for rows.Next() {
		var p Planned
		if err := rows.Scan(&p.Calls, &p.Plans, &p.Query); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		p.Query = strings.Join(strings.Fields(p.Query), " ")
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return out
}
