package migrations_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/migrations"
)

// testDB is a fresh, empty database on the test cluster.
func testDB(t *testing.T) *sql.DB {
	t.Helper()
	return pgtest.NewEmpty(t).SQL
}

// catalog describes every relation, column, constraint, index, trigger and function of the
// current schema, one sorted line each, except goose's own table.
func catalog(t *testing.T, db *sql.DB) []string {
	t.Helper()
	const q = `
SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
       || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
       || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid AND c.relkind = 'r'
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  AND c.relname <> 'goose_db_version'
UNION ALL
SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
  AND conrelid <> 'goose_db_version'::regclass
UNION ALL
SELECT 'index ' || indexdef FROM pg_indexes
WHERE schemaname = current_schema() AND tablename <> 'goose_db_version'
UNION ALL
SELECT 'trigger ' || tgname || ' on ' || tgrelid::regclass FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = current_schema()::regnamespace
  AND NOT t.tgisinternal
UNION ALL
SELECT 'function ' || proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
UNION ALL
SELECT 'relation ' || relname || ' ' || relkind::text FROM pg_class
WHERE relnamespace = current_schema()::regnamespace AND relname NOT LIKE 'goose_db_version%'`
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("read catalog: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	if _, err := migrations.Up(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	first := catalog(t, db)
	if len(first) == 0 {
		t.Fatal("catalog is empty after Up")
	}
	if _, err := migrations.DownTo(ctx, db, 0, nil); err != nil {
		t.Fatal(err)
	}
	if left := catalog(t, db); len(left) != 0 {
		t.Fatalf("after DownTo(0) the schema still holds:\n%s", strings.Join(left, "\n"))
	}
	if _, err := migrations.Up(ctx, db, nil); err != nil {
		t.Fatalf("Up after Down: %v", err)
	}
	if second := catalog(t, db); !slices.Equal(first, second) {
		t.Errorf("schema after up-down-up differs from the first Up")
	}
}

// TestDecisionsScopeGranted: migration 00038 gives the decisions scope to the keys that hold
// every earlier scope (a company's own keys), not to keys made for one purpose.
func TestDecisionsScopeGranted(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	if _, err := migrations.Up(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.DownTo(ctx, db, 36, nil); err != nil {
		t.Fatal(err)
	}
	var company string
	if err := db.QueryRow(`INSERT INTO companies (slug, name) VALUES ('scoped', 'Scoped') RETURNING id`).Scan(&company); err != nil {
		t.Fatal(err)
	}
	insert := func(prefix, scopes string) {
		if _, err := db.Exec(`INSERT INTO api_keys (company_id, prefix, key_hash, scopes) VALUES ($1, $2, sha256(convert_to($2, 'UTF8')), $3::text[])`,
			company, prefix, scopes); err != nil {
			t.Fatal(err)
		}
	}
	insert("full", "{jobs,invitations,workflows,partner-applications,assessment-links,hrsuite-webhook,mcp:read,integrations,reports}")
	insert("reports", "{reports}")
	if _, err := migrations.Up(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string]bool{"full": true, "reports": false} {
		var has bool
		if err := db.QueryRow(`SELECT 'decisions' = ANY (scopes) FROM api_keys WHERE prefix = $1`, prefix).Scan(&has); err != nil {
			t.Fatal(err)
		}
		if has != want {
			t.Errorf("key %s has decisions = %v, want %v", prefix, has, want)
		}
	}
	var def bool
	if err := db.QueryRow(`INSERT INTO api_keys (company_id, prefix, key_hash) VALUES ($1, 'new', sha256('new'::bytea)) RETURNING 'decisions' = ANY (scopes)`,
		company).Scan(&def); err != nil || !def {
		t.Errorf("a new key's default scopes hold decisions = %v (%v)", def, err)
	}
}

// TestCandidateSearchTrigger: after migration 00051 candidates.search is what the generated
// column gave, for rows stored before it and through every insert and update after it; a
// direct write of the column is recomputed too.
func TestCandidateSearchTrigger(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	if _, err := migrations.Up(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.DownTo(ctx, db, 50, nil); err != nil {
		t.Fatal(err)
	}
	var company string
	if err := db.QueryRow(`INSERT INTO companies (slug, name) VALUES ('searchy', 'Searchy') RETURNING id`).Scan(&company); err != nil {
		t.Fatal(err)
	}
	insert := func(ext string) {
		t.Helper()
		if _, err := db.Exec(`INSERT INTO candidates (company_id, external_id, title, skills, employers, education, location)
			VALUES ($1, $2, 'Senior Backend Developer', '{Go,PostgreSQL,"Node.js"}', '{Google,"AT&T"}', 'BS Computer Science, MIT', 'Austin, TX')`,
			company, ext); err != nil {
			t.Fatal(err)
		}
	}
	exact := func(when string, want int) {
		t.Helper()
		var n, ok int
		if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE search = candidate_search_document(title, skills, employers, education, location))
			FROM candidates`).Scan(&n, &ok); err != nil {
			t.Fatal(err)
		}
		if n != want || ok != n {
			t.Errorf("%s: %d of %d candidates have the exact search document, want %d", when, ok, n, want)
		}
	}
	insert("before")
	if _, err := migrations.Up(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	exact("a row stored by the generated column", 1)
	insert("after")
	exact("inserted", 2)
	for _, q := range []string{
		`UPDATE candidates SET skills = '{Rust,Kubernetes}' WHERE external_id = 'after'`,
		`UPDATE candidates SET title = 'Nurse', location = 'Boise, ID' WHERE external_id = 'before'`,
		`UPDATE candidates SET status = 'screening'`,
		`UPDATE candidates SET search = to_tsvector('english', 'forged')`,
		`UPDATE candidates SET search = NULL, status = 'new'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		exact(q, 2)
	}
	var hits int
	if err := db.QueryRow(`SELECT count(*) FROM candidates WHERE search @@ websearch_to_tsquery('english', 'kubernetes')`).Scan(&hits); err != nil || hits != 1 {
		t.Errorf("a search for an updated skill finds %d (%v), want 1", hits, err)
	}
	if _, err := migrations.DownTo(ctx, db, 50, nil); err != nil {
		t.Fatal(err)
	}
	exact("generated again", 2)
}
