package bulkload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TriggerDef is a trigger that a load drops and re-creates, as pg_get_triggerdef prints it.
type TriggerDef struct{ name, def string }

// DropCaptureTriggers drops table's insert triggers that read a transition table (REFERENCING
// NEW TABLE) and fire only in the origin replication role, and returns their definitions for
// CreateTriggers. Call it only in a transaction that runs with session_replication_role =
// replica, where those triggers do not fire: Postgres still copies every row that a statement
// inserts into the transition table, which spills to a temporary file, as long as the table has
// such a trigger, whether or not it fires (measured: 3.1 GB of temporary files for the seed's
// million candidates, which the load then discards). Like DropIndexes, it locks the table against
// readers until tx ends.
func DropCaptureTriggers(ctx context.Context, tx pgx.Tx, table string) ([]TriggerDef, error) {
	rows, err := tx.Query(ctx, `
		SELECT quote_ident(tgname), pg_get_triggerdef(oid) FROM pg_trigger
		WHERE tgrelid = $1::regclass AND NOT tgisinternal AND tgenabled = 'O'
		  AND tgnewtable IS NOT NULL AND tgtype::int & 4 <> 0
		ORDER BY tgname`, table)
	if err != nil {
		return nil, fmt.Errorf("list triggers of %s: %w", table, err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (TriggerDef, error) {
		var d TriggerDef
		return d, r.Scan(&d.name, &d.def)
	})
	if err != nil {
		return nil, fmt.Errorf("list triggers of %s: %w", table, err)
	}
	for _, d := range defs {
		if _, err := tx.Exec(ctx, "DROP TRIGGER "+d.name+" ON "+table); err != nil {
			return nil, fmt.Errorf("drop trigger %s: %w", d.name, err)
		}
	}
	return defs, nil
}

// CreateTriggers re-creates the triggers DropCaptureTriggers dropped.
func CreateTriggers(ctx context.Context, tx pgx.Tx, defs []TriggerDef) error {
	for _, d := range defs {
		if _, err := tx.Exec(ctx, d.def); err != nil {
			return fmt.Errorf("re-create trigger %s: %w", d.name, err)
		}
	}
	return nil
}
