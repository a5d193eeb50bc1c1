package bulkload_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/recruitd/recruitd/internal/bulkload"
	"github.com/recruitd/recruitd/internal/pgtest"
)

// captured is a table with every kind of trigger DropCaptureTriggers must tell apart; each
// trigger that fires counts the rows it saw in captured_seen.
const captured = `
	CREATE TABLE captured (u uuid, t text);
	CREATE TABLE captured_seen (trigger text, n int);
	CREATE FUNCTION captured_count() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO captured_seen SELECT TG_NAME, count(*) FROM new_rows;
		RETURN NULL;
	END $$;
	CREATE FUNCTION captured_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
	CREATE TRIGGER captured_insert AFTER INSERT ON captured REFERENCING NEW TABLE AS new_rows
		FOR EACH STATEMENT EXECUTE FUNCTION captured_count();
	CREATE TRIGGER captured_update AFTER UPDATE ON captured REFERENCING NEW TABLE AS new_rows
		FOR EACH STATEMENT EXECUTE FUNCTION captured_count();
	CREATE TRIGGER captured_always AFTER INSERT ON captured REFERENCING NEW TABLE AS new_rows
		FOR EACH STATEMENT EXECUTE FUNCTION captured_count();
	ALTER TABLE captured ENABLE ALWAYS TRIGGER captured_always;
	CREATE TRIGGER captured_before BEFORE INSERT ON captured FOR EACH ROW EXECUTE FUNCTION captured_row();`

const triggersOf = `SELECT string_agg(tgname || ' ' || tgenabled::text || ': ' || pg_get_triggerdef(oid), E'\n' ORDER BY tgname)
	FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`

// copyRows loads n rows into captured in tx.
func copyRows(ctx context.Context, tx pgx.Tx, n int) error {
	in := make(chan bulkload.Part, 1)
	b := &bulkload.Buf{}
	for i := range n {
		b.Row(2)
		b.UUID(uuid.New())
		b.Text(fmt.Sprintf("row %d %s", i, strings.Repeat("x", 100)))
	}
	in <- bulkload.Part{Buf: b, Units: int64(n)}
	close(in)
	prog := bulkload.NewProgress(nil, bulkload.ProgressOptions{Units: int64(n)})
	return bulkload.Copy(ctx, tx, bulkload.Table{Name: "captured", Columns: "u, t"}, in, prog.Add("captured", -1), func(*bulkload.Buf) {})
}

func TestCaptureTriggersComeBack(t *testing.T) {
	db := pgtest.NewEmpty(t).SQL
	if _, err := db.Exec(captured); err != nil {
		t.Fatal(err)
	}
	var before string
	if err := db.QueryRow(triggersOf, "captured").Scan(&before); err != nil {
		t.Fatal(err)
	}
	loadAs(t, db, true, func(ctx context.Context, tx pgx.Tx) error {
		defs, err := bulkload.DropCaptureTriggers(ctx, tx, "captured")
		if err != nil {
			return err
		}
		var left []string
		rows, _ := tx.Query(ctx, "SELECT tgname FROM pg_trigger WHERE tgrelid = 'captured'::regclass AND NOT tgisinternal ORDER BY 1")
		if left, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		// Only the insert trigger that reads the new rows and would not fire in this role goes.
		if want := []string{"captured_always", "captured_before", "captured_update"}; len(defs) != 1 || !slices.Equal(left, want) {
			t.Errorf("dropped %d triggers, left %v; want 1 dropped and %v left", len(defs), left, want)
		}
		if err := copyRows(ctx, tx, 30); err != nil {
			return err
		}
		return bulkload.CreateTriggers(ctx, tx, defs)
	})
	var after string
	if err := db.QueryRow(triggersOf, "captured").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("triggers after the load:\n%s\nwant\n%s", after, before)
	}
	// The trigger enabled ALWAYS fired in the replica role and saw every row; no other did.
	var seen string
	if err := db.QueryRow("SELECT coalesce(string_agg(trigger || ' ' || n, ', '), '') FROM captured_seen").Scan(&seen); err != nil {
		t.Fatal(err)
	}
	if seen != "captured_always 30" {
		t.Errorf("triggers fired: %q, want captured_always 30", seen)
	}
}

// TestLoadWithoutCaptureWritesNoTempFile shows what DropCaptureTriggers is for: a replica-role
// COPY into a table with a capture trigger fills the trigger's transition table, which spills to
// a temporary file beyond work_mem, although the trigger never fires; without the trigger, no
// file.
func TestLoadWithoutCaptureWritesNoTempFile(t *testing.T) {
	db := pgtest.NewEmpty(t).SQL
	if _, err := db.Exec(captured + `; DROP TRIGGER captured_always ON captured`); err != nil {
		t.Fatal(err)
	}
	// Each statement runs in a transaction of its own, which reads the statistics afresh.
	tempFiles := func() int64 {
		t.Helper()
		var n int64
		if err := db.QueryRow("SELECT temp_files FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// load copies 5,000 rows (about 700 kB) with a work_mem of 64 kB, keeping the capture trigger
	// or dropping it, and returns how many temporary files the database wrote meanwhile.
	load := func(drop bool) int64 {
		start := tempFiles()
		loadAs(t, db, true, func(ctx context.Context, tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64kB'"); err != nil {
				return err
			}
			var defs []bulkload.TriggerDef
			if drop {
				var err error
				if defs, err = bulkload.DropCaptureTriggers(ctx, tx, "captured"); err != nil {
					return err
				}
			}
			if err := copyRows(ctx, tx, 5000); err != nil {
				return err
			}
			if err := bulkload.CreateTriggers(ctx, tx, defs); err != nil {
				return err
			}
			// The backend reports its statistics when it next goes idle, after the commit.
			_, err := tx.Exec(ctx, "SELECT pg_stat_force_next_flush()")
			return err
		})
		// The report reaches the shared statistics shortly after; wait for the kept trigger's
		// file, and give the dropped one's the same time to show.
		deadline := time.Now().Add(3 * time.Second)
		for tempFiles() == start && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		return tempFiles() - start
	}
	if kept := load(false); kept == 0 {
		t.Fatal("a load keeping the capture trigger wrote no temporary file: the test cannot tell the two apart")
	}
	if dropped := load(true); dropped != 0 {
		t.Errorf("a load that dropped the capture trigger wrote %d temporary files, want 0", dropped)
	}
}
