// Package store holds recruitd's Postgres queries. Every query on tenant data takes the company
// it is scoped to; the only lookups without one are those that establish the tenant (API key
// authentication, company by slug for operators).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/recruitd/recruitd/internal/pguuid"
)

// Sentinel errors, mapped to HTTP statuses at the edge.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("already exists")
)

// Store runs queries against one Postgres database.
type Store struct {
	db  *gorm.DB
	sql *sql.DB
	// pages keeps what every request of the candidate page reads and hardly ever changes
	// (interview.go).
	pages pageCache
}

// ConnectTimeout bounds the opening of one connection (dial, TLS, start-up and authentication),
// also where the dsn asks for longer: a pool that opens connections in the background would
// otherwise wait on a hung postmaster for as long as it hangs.
const ConnectTimeout = 3 * time.Second

// Open connects to dsn with at most maxConns connections and checks the connection. settings
// are Postgres run-time parameters set on every connection (for example jit=off).
func Open(ctx context.Context, dsn string, maxConns int, log *slog.Logger, settings ...map[string]string) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	for _, m := range settings {
		maps.Copy(cfg.RuntimeParams, m)
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > ConnectTimeout {
		cfg.ConnectTimeout = ConnectTimeout // a hung postmaster holds a new connection no longer
	}
	sqlDB := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(pguuid.AfterConnect))
	sqlDB.SetMaxOpenConns(maxConns)
	sqlDB.SetMaxIdleConns(maxConns)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	s, err := FromSQL(sqlDB, log)
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// FromSQL wraps an open database/sql pool (pgx driver).
func FromSQL(sqlDB *sql.DB, log *slog.Logger) (*Store, error) {
	gl := logger.Discard
	if log != nil {
		lc := logger.Config{
			SlowThreshold:             500 * time.Millisecond,
			LogLevel:                  logger.Warn,
			IgnoreRecordNotFoundError: true,
			ParameterizedQueries:      true, // never log bound values: they can be personal data or secrets
		}
		gl = redacting{Interface: logger.NewSlogLogger(log.With("component", "gorm"), lc), level: lc.LogLevel, slow: lc.SlowThreshold}
	}
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: boundedPool{sqlDB}}), &gorm.Config{
		Logger:                 gl,
		TranslateError:         true,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open gorm: %w", err)
	}
	return &Store{db: db, sql: sqlDB}, nil
}

var _ = stdlib.GetDefaultDriver // registers the "pgx" database/sql driver

// DB is the GORM handle, for packages that own their queries (seeding, tools).
func (s *Store) DB() *gorm.DB { return s.db }

// SQL is the database/sql pool (migrations, COPY).
func (s *Store) SQL() *sql.DB { return s.sql }

// Ping checks that Postgres answers.
func (s *Store) Ping(ctx context.Context) error { return s.sql.PingContext(ctx) }

// Close closes the pool.
func (s *Store) Close() error { return s.sql.Close() }

// Tx is one transaction that a feature drives through several store steps: when it builds the
// values of a later step from what an earlier one wrote (the start of an application the ingest
// created, the start of a hold whose id the upsert kept), and both must commit or neither.
type Tx struct {
	db   *gorm.DB
	done bool
}

// Begin opens a transaction. The caller defers Rollback and ends with Commit.
func (s *Store) Begin(ctx context.Context) (*Tx, error) {
	tx := s.db.WithContext(ctx).Begin()
	if tx.Error != nil {
		return nil, fmt.Errorf("begin transaction: %w", tx.Error)
	}
	return &Tx{db: tx}, nil
}

// Commit commits the transaction.
func (t *Tx) Commit() error {
	t.done = true
	if err := t.db.Commit().Error; err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback undoes the transaction unless it was committed.
func (t *Tx) Rollback() {
	if !t.done {
		t.done = true
		t.db.Rollback()
	}
}

// notFound turns GORM's missing-row error into ErrNotFound with context.
func notFound(err error, what string) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return fmt.Errorf("%s: %w", what, ErrConflict)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// textArray passes ss for an array parameter (text[], uuid[], boolean[]) as a pgx array, which
// pgx encodes element by element. A models.StringArray goes as its text literal, which pgx
// parses back into elements before encoding them.
func textArray(ss []string) pgtype.Array[string] {
	return pgtype.Array[string]{Elements: ss, Dims: []pgtype.ArrayDimension{{Length: int32(len(ss)), LowerBound: 1}}, Valid: true}
}

// truncateText cuts s to at most n bytes on a rune boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
