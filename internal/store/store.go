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

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
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
}

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
	sqlDB := stdlib.OpenDB(*cfg)
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
		gl = redacting{logger.NewSlogLogger(log.With("component", "gorm"), logger.Config{
			SlowThreshold:             500 * time.Millisecond,
			LogLevel:                  logger.Warn,
			IgnoreRecordNotFoundError: true,
			ParameterizedQueries:      true, // never log bound values: they can be personal data or secrets
		})}
	}
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{
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
