// Package migrations holds the numbered SQL migrations (goose format) embedded in the binary,
// and the functions that apply them.
package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/pressly/goose/v3"
)

//go:embed *.sql
var files embed.FS

func provider(db *sql.DB, log *slog.Logger) (*goose.Provider, error) {
	// Out of order: a migration numbered below the newest applied one (two branches that each
	// added one, landing in either order) is applied rather than refused. Migrations here never
	// depend on one with a higher number.
	opts := []goose.ProviderOption{goose.WithAllowOutofOrder(true)}
	if log != nil {
		opts = append(opts, goose.WithSlog(log))
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, files, opts...)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return p, nil
}

// Up applies every pending migration.
func Up(ctx context.Context, db *sql.DB, log *slog.Logger) ([]*goose.MigrationResult, error) {
	p, err := provider(db, log)
	if err != nil {
		return nil, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return res, fmt.Errorf("migrate up: %w", err)
	}
	return res, nil
}

// Down rolls back the most recent migration.
func Down(ctx context.Context, db *sql.DB, log *slog.Logger) (*goose.MigrationResult, error) {
	p, err := provider(db, log)
	if err != nil {
		return nil, err
	}
	res, err := p.Down(ctx)
	if err != nil {
		return res, fmt.Errorf("migrate down: %w", err)
	}
	return res, nil
}

// DownTo rolls back every migration above version (0 rolls back everything).
func DownTo(ctx context.Context, db *sql.DB, version int64, log *slog.Logger) ([]*goose.MigrationResult, error) {
	p, err := provider(db, log)
	if err != nil {
		return nil, err
	}
	res, err := p.DownTo(ctx, version)
	if err != nil {
		return res, fmt.Errorf("migrate down to %d: %w", version, err)
	}
	return res, nil
}

// Status writes one line per migration: version, state and file.
func Status(ctx context.Context, db *sql.DB, w io.Writer) error {
	p, err := provider(db, nil)
	if err != nil {
		return err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return fmt.Errorf("migration status: %w", err)
	}
	for _, s := range st {
		applied := "pending"
		if s.State == goose.StateApplied {
			applied = "applied " + s.AppliedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%05d  %-28s  %s\n", s.Source.Version, applied, s.Source.Path)
	}
	return nil
}

// Fingerprint identifies the embedded migration set; test harnesses key template databases on it.
func Fingerprint() (string, error) {
	entries, err := files.ReadDir(".")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		b, err := files.ReadFile(e.Name())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
