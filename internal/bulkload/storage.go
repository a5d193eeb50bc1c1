package bulkload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// NewStorage gives table new storage in tx when the server runs with wal_level = minimal, and
// reports whether it did. Postgres then writes the rows tx adds to the table and its indexes
// straight to their files, not to the WAL (about 5.7 GB for the seed's million candidates), and
// COPY may freeze them (Table.Freeze). The rows the table holds are copied (CLUSTER on its
// primary key, the one rewrite allowed inside a transaction on a table that foreign keys
// reference; TRUNCATE is not), so call it only when they are few. Like DropIndexes, it locks the
// table against readers until tx ends.
func NewStorage(ctx context.Context, tx pgx.Tx, table string) (bool, error) {
	var minimal bool
	var key *string
	err := tx.QueryRow(ctx, `
		SELECT current_setting('wal_level') = 'minimal',
		       (SELECT quote_ident(i.relname) FROM pg_constraint c JOIN pg_class i ON i.oid = c.conindid
		        WHERE c.conrelid = $1::regclass AND c.contype = 'p')`, table).Scan(&minimal, &key)
	if err != nil {
		return false, fmt.Errorf("new storage for %s: %w", table, err)
	}
	if !minimal || key == nil {
		return false, nil
	}
	if _, err := tx.Exec(ctx, "CLUSTER "+table+" USING "+*key+"; ALTER TABLE "+table+" SET WITHOUT CLUSTER"); err != nil {
		return false, fmt.Errorf("new storage for %s: %w", table, err)
	}
	return true, nil
}
