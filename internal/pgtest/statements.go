package pgtest

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Statements counts the statements a pool sends to Postgres (BEGIN and COMMIT included): each is
// a round trip, so a count is what a code path costs the database whatever the machine's load.
type Statements struct {
	mu   sync.Mutex
	on   bool
	sqls []string
}

// Counted opens a pool on db's database whose statements s counts while Start is in effect.
func (db *DB) Counted(t testing.TB) (*sql.DB, *Statements) {
	t.Helper()
	cfg, err := pgx.ParseConfig(db.URL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	s := &Statements{}
	cfg.Tracer = s
	pool := stdlib.OpenDB(*cfg)
	pool.SetMaxOpenConns(4)
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
