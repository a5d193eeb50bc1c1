package bulkload

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// IndexDef is an index that a load drops and re-creates: a secondary index (as pg_get_indexdef
// prints it) or a UNIQUE constraint that no foreign key relies on (as pg_get_constraintdef
// prints it), such as interview_sessions.link_token's, whose random keys make each insert a
// random B-tree write.
type IndexDef struct {
	table, name, def string
	constraint       bool
}

// DropIndexes drops the indexes of table that no foreign key needs and returns their
// definitions, in the order CreateIndexes should build them: the slowest first, since GiST and
// GIN builds are single-threaded while B-tree builds use parallel workers, which find idle cores
// at the end of a load.
func DropIndexes(ctx context.Context, tx pgx.Tx, table string) ([]IndexDef, error) {
	return dropIndexes(ctx, tx, table, "u")
}

// DropIndexesAndKey is DropIndexes dropping the primary key too when no foreign key relies on
// it: for a table whose key is not in load order, such as a rollup keyed by job first, and for
// any table a large load fills, since a build of a key whose rows come in its order finds them
// sorted, which costs less than checking each row's uniqueness as it arrives.
func DropIndexesAndKey(ctx context.Context, tx pgx.Tx, table string) ([]IndexDef, error) {
	return dropIndexes(ctx, tx, table, "up")
}

func dropIndexes(ctx context.Context, tx pgx.Tx, table, kinds string) ([]IndexDef, error) {
	rows, err := tx.Query(ctx, `
		SELECT false, x.indexrelid::regclass::text, pg_get_indexdef(x.indexrelid)
		FROM pg_index x
		WHERE x.indrelid = $1::regclass
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
		UNION ALL
		SELECT true, quote_ident(c.conname), pg_get_constraintdef(c.oid)
		FROM pg_constraint c
		WHERE c.conrelid = $1::regclass AND strpos($2, c.contype::text) > 0
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = c.conindid)
		ORDER BY 1, 2`, table, kinds)
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", table, err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (IndexDef, error) {
		d := IndexDef{table: table}
		return d, r.Scan(&d.constraint, &d.name, &d.def)
	})
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", table, err)
	}
	slices.SortStableFunc(defs, func(a, b IndexDef) int { return buildOrder(a) - buildOrder(b) })
	for _, d := range defs {
		stmt := "DROP INDEX " + d.name
		if d.constraint {
			stmt = "ALTER TABLE " + table + " DROP CONSTRAINT " + d.name
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", d.name, err)
		}
	}
	return defs, nil
}

func buildOrder(d IndexDef) int {
	switch {
	case strings.Contains(d.def, "USING gist"):
		return 0
	case strings.Contains(d.def, "USING gin"):
		return 1
	}
	return 2
}

// CreateIndexes re-creates the indexes DropIndexes dropped, showing each on p.
func CreateIndexes(ctx context.Context, tx pgx.Tx, p *TableProgress, defs []IndexDef) error {
	for i, d := range defs {
		p.SetDetail(fmt.Sprintf("index %d/%d %s", i+1, len(defs), d.name))
		stmt := d.def
		if d.constraint {
			stmt = "ALTER TABLE " + d.table + " ADD CONSTRAINT " + d.name + " " + d.def
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("re-create index %s: %w", d.name, err)
		}
	}
	p.SetDetail("")
	return nil
}
