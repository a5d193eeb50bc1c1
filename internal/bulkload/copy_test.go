package bulkload_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/recruitd/recruitd/internal/bulkload"
	"github.com/recruitd/recruitd/internal/pgtest"
)

// probe has a column of every type Buf writes.
var probe = bulkload.Table{Name: "copy_probe", Columns: "u, t, b, i, f, ts, d, n, a, j"}

func newProbe(t *testing.T) *sql.DB {
	t.Helper()
	db := pgtest.NewEmpty(t).SQL
	_, err := db.Exec(`CREATE TABLE copy_probe (u uuid, t text, b bool, i int4, f float8, ts timestamptz, d date, n numeric(10,2), a text[], j jsonb);
		CREATE INDEX copy_probe_t ON copy_probe (t); CREATE INDEX copy_probe_a ON copy_probe USING gin (a);
		ALTER TABLE copy_probe ADD CONSTRAINT copy_probe_u UNIQUE (u)`)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// load runs f in a bulk-load transaction on db, committed at once.
func load(t *testing.T, db *sql.DB, f func(context.Context, pgx.Tx) error) {
	t.Helper()
	loadAs(t, db, false, f)
}

// loadAs is load with foreign-key triggers off when replica is set (InTx).
func loadAs(t *testing.T, db *sql.DB, replica bool, f func(context.Context, pgx.Tx) error) {
	t.Helper()
	ctx := t.Context()
	err := bulkload.WithConn(ctx, db, func(c *pgx.Conn) error {
		return bulkload.InTx(ctx, c, replica, func(tx pgx.Tx) error { return f(ctx, tx) }, func(context.Context) error { return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCopyBufRoundTrip(t *testing.T) {
	db := newProbe(t)
	id := uuid.MustParse("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	at := time.Date(2025, 6, 30, 13, 14, 15, 123456000, time.UTC)
	var b bulkload.Buf
	b.Row(10)
	b.UUID(id)
	b.Text("Grace Hopper")
	b.Bool(true)
	b.Int4(-42)
	b.Float8(3.25)
	b.TS(at.UnixMicro())
	b.Date(at.Unix() / 86400)
	b.Hundredths(123456)
	b.TextArray([]string{"Go", "SQL"})
	b.JSONB([]byte(`{"k": [1, 2]}`))
	b.Row(10) // every optional value absent
	b.OptUUID([16]byte{})
	b.OptText("")
	b.Null()
	b.OptInt4(-1)
	b.Null()
	b.OptTS(0)
	b.Null()
	b.OptHundredths(-1)
	b.TextArray(nil)
	b.Null()
	for _, v := range []int{0, 5, 100, 1_000_000, 99_999_999} {
		b.Row(10)
		b.UUID(uuid.New())
		b.Text(fmt.Sprint("hundredths ", v))
		for range 5 { // b, i, f, ts, d
			b.Null()
		}
		b.Hundredths(v)
		b.Null()
		b.Null()
	}
	prog := bulkload.NewProgress(nil, bulkload.ProgressOptions{})
	p := prog.Add(probe.Name, int64(b.Rows()))
	load(t, db, func(ctx context.Context, tx pgx.Tx) error { return bulkload.CopyBuf(ctx, tx, probe, &b, p) })
	if p.Rows() != 7 {
		t.Errorf("Rows() = %d after copying 7 rows, want 7", p.Rows())
	}

	var got string
	err := db.QueryRow(`SELECT concat_ws('|', u, t, b, i, f, ts AT TIME ZONE 'UTC', d, n, a, j) FROM copy_probe WHERE t = 'Grace Hopper'`).Scan(&got)
	if err != nil {
		t.Fatal(err)
	}
	want := id.String() + `|Grace Hopper|t|-42|3.25|2025-06-30 13:14:15.123456|2025-06-30|1234.56|{Go,SQL}|{"k": [1, 2]}`
	if got != want {
		t.Errorf("copied row = %q, want %q", got, want)
	}
	var nulls int
	err = db.QueryRow(`SELECT num_nulls(u, t, b, i, f, ts, d, n, j), cardinality(a) FROM copy_probe WHERE t IS NULL`).Scan(&nulls, new(int))
	if err != nil || nulls != 9 {
		t.Errorf("row of absent values: %d NULLs (%v), want 9 and an empty array", nulls, err)
	}
	rows, err := db.Query(`SELECT t, n::text FROM copy_probe WHERE t LIKE 'hundredths %'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, n string
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		var v int
		fmt.Sscan(strings.TrimPrefix(name, "hundredths "), &v)
		if want := fmt.Sprintf("%d.%02d", v/100, v%100); n != want {
			t.Errorf("Hundredths(%d) = %q, want %q", v, n, want)
		}
	}
}

func TestCopyStreamsPartsAndIndexesComeBack(t *testing.T) {
	db := newProbe(t)
	var before string
	indexes := `SELECT string_agg(indexdef, E'\n' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'copy_probe'`
	if err := db.QueryRow(indexes).Scan(&before); err != nil {
		t.Fatal(err)
	}
	prog := bulkload.NewProgress(nil, bulkload.ProgressOptions{Units: 30})
	p := prog.Add(probe.Name, -1)
	var freed int
	load(t, db, func(ctx context.Context, tx pgx.Tx) error {
		defs, err := bulkload.DropIndexes(ctx, tx, probe.Name)
		if err != nil {
			return err
		}
		if len(defs) != 3 {
			t.Errorf("DropIndexes dropped %d indexes, want 3 (two indexes and the UNIQUE constraint)", len(defs))
		}
		in := make(chan bulkload.Part)
		go func() {
			defer close(in)
			for part := range 3 {
				b := &bulkload.Buf{}
				for i := range 10 {
					b.Row(2)
					b.UUID(uuid.New())
					b.Text(fmt.Sprint(part, "-", i))
				}
				in <- bulkload.Part{Buf: b, Units: 10}
			}
		}()
		two := bulkload.Table{Name: probe.Name, Columns: "u, t"}
		if err := bulkload.Copy(ctx, tx, two, in, p, func(*bulkload.Buf) { freed++ }); err != nil {
			return err
		}
		return bulkload.CreateIndexes(ctx, tx, p, defs)
	})
	var after string
	if err := db.QueryRow(indexes).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("indexes after the load:\n%s\nwant\n%s", after, before)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM copy_probe`).Scan(&n); err != nil || n != 30 || p.Rows() != 30 || freed != 3 {
		t.Errorf("rows %d (%v), counted %d, buffers freed %d; want 30, 30, 3", n, err, p.Rows(), freed)
	}
}

func TestCommitTogetherWaitsForEveryone(t *testing.T) {
	ready := 0
	commit := bulkload.CommitTogether(3, func() { ready++ })
	done := make(chan error, 3)
	for range 2 {
		go func() { done <- commit(context.Background()) }()
	}
	select {
	case err := <-done:
		t.Fatalf("a commit returned (%v) before all three arrived", err)
	case <-time.After(20 * time.Millisecond):
	}
	go func() { done <- commit(context.Background()) }()
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("commit = %v, want nil", err)
		}
	}
	if ready != 1 {
		t.Errorf("ready ran %d times, want 1", ready)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := bulkload.CommitTogether(2, func() {})(ctx); err != context.Canceled {
		t.Errorf("commit with a cancelled context = %v, want %v", err, context.Canceled)
	}
}
