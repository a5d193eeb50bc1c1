package pgtest

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Statements counts the statements a pool sends to Postgres (BEGIN and COMMIT included): each is
// a round trip, so a count is what a code path costs the database whatever the machine's load.
type Statements struct {
	mu   sync.Mutex
	on   bool
	sqls []string
}

// Counted opens a second pool on db's database, apart from db.SQL, whose statements s counts
// while Start is in effect: for a test whose own statements on db.SQL must not be counted.
func (db *DB) Counted(t testing.TB) (*sql.DB, *Statements) {
	t.Helper()
	s := &Statements{}
	pool, err := openPool(db.URL, 4, s)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool, s
}

// Start forgets what was counted and counts from now on.
func (s *Statements) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on, s.sqls = true, nil
}

// Stop ends the count and returns the statements sent since Start, each on one line.
func (s *Statements) Stop() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.sqls
}

// TraceQueryStart implements pgx.QueryTracer.
func (s *Statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.sqls = append(s.sqls, strings.Join(strings.Fields(d.SQL), " "))
	}
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (s *Statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
