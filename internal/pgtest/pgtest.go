// Package pgtest gives each test its own real Postgres database.
//
// The server is TEST_DATABASE_URL (a superuser connection; `make test` starts one cluster per run
// and exports it) or, when that is unset, a private cluster started once per test process. Each
// database is a copy of a template migrated (and its documentation index built) once per
// migration and documentation set, so New costs one CREATE DATABASE, not a migration run.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/internal/devstack"
	"github.com/recruitd/recruitd/internal/docsearch"
	"github.com/recruitd/recruitd/internal/pguuid"
	"github.com/recruitd/recruitd/migrations"
)

// DB is a database that exists for one test. SQL and Gorm share one small connection pool,
// whose statements Statements counts between its Start and Stop.
type DB struct {
	Name       string
	URL        string
	SQL        *sql.DB
	Gorm       *gorm.DB
	Statements *Statements
}

// New returns a fresh database with every migration applied and the documentation index built
// (docsearch.Sync of the embedded docs), dropped when the test ends.
func New(t testing.TB) *DB {
	t.Helper()
	s := serverFor(t)
	tmpl, err := s.template(t.Context())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return s.create(t, tmpl)
}

// NewEmpty returns a fresh database without migrations (for migration tests), dropped when the
// test ends.
func NewEmpty(t testing.TB) *DB {
	t.Helper()
	return serverFor(t).create(t, "")
}

// Main runs the tests, then stops the private cluster (if this process started one) and deletes
// its files. Use it from TestMain: `func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }`.
// Without it the cluster still dies with the test process (parent-death signal) and the next
// test process deletes its files.
func Main(m *testing.M) int {
	code := m.Run()
	if private.pg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		private.admin.Close()
		if err := private.pg.Destroy(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		}
		os.RemoveAll(private.dir)
	}
	return code
}

// server is a Postgres server reached as a superuser.
type server struct {
	adminURL *url.URL
	admin    *sql.DB
	pg       *devstack.Postgres // nil for TEST_DATABASE_URL
	dir      string

	mu   sync.Mutex
	tmpl string // name of the migrated template, once built
}

var (
	privateOnce sync.Once
	private     server
	privateErr  error
)

func serverFor(t testing.TB) *server {
	t.Helper()
	privateOnce.Do(func() { privateErr = private.start() })
	if privateErr != nil {
		t.Fatalf("pgtest: %v", privateErr)
	}
	return &private
}

func (s *server) start() error {
	raw := os.Getenv("TEST_DATABASE_URL")
	if raw == "" {
		var err error
		if raw, err = s.startPrivate(); err != nil {
			return fmt.Errorf("start a private postgres (or set TEST_DATABASE_URL to a running server): %w", err)
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("TEST_DATABASE_URL must be a postgres:// URL, got %q", raw)
	}
	s.adminURL = u
	if s.admin, err = openPool(raw, 3, nil); err != nil {
		return fmt.Errorf("connect to %s: %w", u.Redacted(), err)
	}
	return nil
}

// ownerFile in a private cluster's folder holds the pid of the test process that owns it.
const ownerFile = "owner.pid"

func (s *server) startPrivate() (string, error) {
	sweepPrivate()
	dir, err := devstack.ScratchDir("recruitd-pgtest-")
	if err != nil {
		return "", err
	}
	s.dir = dir
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg, err := devstack.StartPostgres(ctx, devstack.PostgresOptions{Dir: dir, Fast: true, Settings: devstack.TrackStatements()})
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	s.pg = pg
	return pg.URL("postgres"), nil
}

// sweepPrivate deletes the folders of private clusters whose test process has exited without
// Main cleaning up.
func sweepPrivate() {
	var dirs []string
	for _, parent := range devstack.ScratchParents() {
		found, _ := filepath.Glob(filepath.Join(parent, "recruitd-pgtest-*"))
		dirs = append(dirs, found...)
	}
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if pm, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && !errors.Is(syscall.Kill(pm, 0), syscall.ESRCH) {
				continue // its postmaster is still shutting down
			}
		}
		if target, err := os.Readlink(filepath.Join(dir, "data")); err == nil && strings.HasPrefix(target, "/var/tmp/recruitd-pg-") {
			os.RemoveAll(filepath.Dir(target))
		}
		os.RemoveAll(dir)
	}
}

// templateLock is the pg_advisory_lock key serialising template builds across test processes.
const templateLock = 7_360_414_239_001

// template returns the name of a database holding every migration, building it on first use.
// Concurrent test processes sharing a server build it once: the build runs under an advisory
// lock into a scratch database that is renamed when complete, so a crashed build is never used.
func (s *server) template(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tmpl != "" {
		return s.tmpl, nil
	}
	fp, err := migrations.Fingerprint()
	if err != nil {
		return "", fmt.Errorf("fingerprint migrations: %w", err)
	}
	docsHash, err := docsearch.Hash(docs.FS)
	if err != nil {
		return "", fmt.Errorf("fingerprint docs: %w", err)
	}
	name := "recruitd_tmpl_" + fp + "_" + docsHash[:8]
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	conn, err := s.admin.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("build template database: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return "", fmt.Errorf("lock template database: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLock)
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up template database: %w", err)
	}
	if !exists {
		if err := s.buildTemplate(ctx, conn, name); err != nil {
			return "", err
		}
	}
	s.tmpl = name
	return name, nil
}

func (s *server) buildTemplate(ctx context.Context, conn *sql.Conn, name string) error {
	scratch := ident(name + "_build")
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+scratch+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop leftover template build: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+scratch); err != nil {
		return fmt.Errorf("create template database: %w", err)
	}
	db, err := openPool(s.urlOf(name+"_build"), 1, nil)
	if err != nil {
		return fmt.Errorf("connect to template database: %w", err)
	}
	_, err = migrations.Up(ctx, db, nil)
	if err == nil {
		// As recruitd migrate does: the tool server only reads the documentation index.
		_, err = docsearch.Sync(ctx, db, docs.FS)
	}
	db.Close()
	if err != nil {
		return fmt.Errorf("migrate template database: %w", err)
	}
	// No connections: CREATE DATABASE ... TEMPLATE fails while anyone, autovacuum included, is
	// connected to the template.
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+scratch+" WITH ALLOW_CONNECTIONS false"); err != nil {
		return fmt.Errorf("seal template database: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+scratch+" RENAME TO "+ident(name)); err != nil {
		return fmt.Errorf("rename template database: %w", err)
	}
	return nil
}

// create makes a database for t, copied from template ("" for an empty one), and drops it in
// t.Cleanup.
func (s *server) create(t testing.TB, template string) *DB {
	t.Helper()
	ctx := t.Context()
	name := dbName(t.Name())
	stmt := "CREATE DATABASE " + ident(name)
	if template != "" {
		// FILE_COPY beats the default WAL_LOG twice to threefold on a tmpfs and ties on disk.
		stmt += " TEMPLATE " + ident(template) + " STRATEGY FILE_COPY"
	}
	if _, err := s.admin.ExecContext(ctx, stmt); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	dsn := s.urlOf(name)
	stmts := &Statements{}
	sqlDB, err := openPool(dsn, 5, stmts)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", name, err)
	}
	t.Cleanup(func() { sqlDB.Close() }) // runs before the drop (cleanups run last-in first-out)
	gdb, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{
		Logger: logger.Default.LogMode(logger.Silent),
	})
	if err != nil {
		t.Fatalf("pgtest: gorm on %s: %v", name, err)
	}
	return &DB{Name: name, URL: dsn, SQL: sqlDB, Gorm: gdb, Statements: stmts}
}

// openPool opens and pings a database/sql pool of at most maxOpen connections, whose statements
// go through tracer when it is not nil.
func openPool(dsn string, maxOpen int, tracer pgx.QueryTracer) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.Tracer = tracer
	db := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(pguuid.AfterConnect)) // as store.Open
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(min(maxOpen, 2))
	db.SetConnMaxIdleTime(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// urlOf is the admin URL with its database replaced.
func (s *server) urlOf(database string) string {
	u := *s.adminURL
	u.Path = "/" + database
	u.RawPath = ""
	return u.String()
}

// dbName is a readable, unique database name for a test: t_<test name>_<random>.
func dbName(testName string) string {
	var b strings.Builder
	b.WriteString("t_")
	underscore := false
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 42 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			underscore = false
		} else if !underscore {
			b.WriteByte('_')
			underscore = true
		}
	}
	if !underscore {
		b.WriteByte('_')
	}
	suffix := make([]byte, 4)
	rand.Read(suffix)
	b.WriteString(hex.EncodeToString(suffix))
	return b.String()
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }
