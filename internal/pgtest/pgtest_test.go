package pgtest

import (
	"os"
	"testing"

	"github.com/recruitd/recruitd/migrations"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func tableExists(t *testing.T, db *DB, table string) bool {
	t.Helper()
	var exists bool
	if err := db.SQL.QueryRowContext(t.Context(), "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}

func TestNewGivesIsolatedMigratedDatabases(t *testing.T) {
	a, b := New(t), New(t)
	if a.Name == b.Name || a.URL == b.URL {
		t.Fatalf("two New calls share database %s", a.Name)
	}
	for _, db := range []*DB{a, b} {
		if !tableExists(t, db, "companies") {
			t.Errorf("database %s: no table companies, want migrations applied", db.Name)
		}
	}
	if _, err := a.SQL.ExecContext(t.Context(), "CREATE TABLE only_in_a (id int)"); err != nil {
		t.Fatal(err)
	}
	if tableExists(t, b, "only_in_a") {
		t.Errorf("table created in %s is visible in %s", a.Name, b.Name)
	}
	var n int64
	if err := b.Gorm.Table("companies").Count(&n).Error; err != nil || n != 0 {
		t.Errorf("gorm count of companies in a fresh database = %d, %v; want 0, nil", n, err)
	}
}

func TestDatabaseDroppedAfterCleanup(t *testing.T) {
	var name string
	t.Run("user", func(t *testing.T) {
		name = New(t).Name
	})
	var exists bool
	if err := private.admin.QueryRowContext(t.Context(), "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after its test ended", name)
	}
}

func TestNewEmptyHasNoMigrations(t *testing.T) {
	db := NewEmpty(t)
	if tableExists(t, db, "companies") {
		t.Fatalf("NewEmpty database %s has table companies", db.Name)
	}
	if _, err := migrations.Up(t.Context(), db.SQL, nil); err != nil {
		t.Fatalf("migrations.Up on an empty database: %v", err)
	}
	if !tableExists(t, db, "companies") {
		t.Errorf("no table companies after migrations.Up")
	}
}

func TestDBName(t *testing.T) {
	for _, name := range []string{"TestX", "TestNew/sub_test#01", "Test" + string(make([]byte, 100))} {
		got := dbName(name)
		if len(got) > 63 {
			t.Errorf("dbName(%q) = %q: %d bytes, want at most 63", name, got, len(got))
		}
		for _, r := range got {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				t.Errorf("dbName(%q) = %q: character %q, want [a-z0-9_]", name, got, r)
			}
		}
	}
	if a, b := dbName("TestX"), dbName("TestX"); a == b {
		t.Errorf("dbName(%q) returned %q twice", "TestX", a)
	}
}
