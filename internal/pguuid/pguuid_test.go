package pguuid_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/pguuid"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestEncodesTheBytes: with Register, a uuid.UUID parameter of a uuid column is planned as its 16
// bytes (without, pgx plans the Valuer's string); a uuid bound to text still goes through Value.
func TestEncodesTheBytes(t *testing.T) {
	u := uuid.MustParse("0191000c-9b5e-7833-ae32-b0f1c2d3e4f5")
	planOf := func(m *pgtype.Map, oid uint32) string {
		return fmt.Sprintf("%T", m.PlanEncode(oid, pgtype.BinaryFormatCode, u))
	}
	if p := planOf(pgtype.NewMap(), pgtype.UUIDOID); p == "*pguuid.plan" {
		t.Fatal("a map without Register plans uuid.UUID with pguuid's plan")
	}
	m := pgtype.NewMap() // a new one: a map keeps the plans it made
	pguuid.Register(m)
	if p := planOf(m, pgtype.UUIDOID); p != "*pguuid.plan" {
		t.Fatalf("plan = %s, want the 16-byte plan", p)
	}
	buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, u, nil)
	if err != nil || !slices.Equal(buf, u[:]) {
		t.Fatalf("Encode = %x, %v; want %x", buf, err, u[:])
	}
	if planOf(m, pgtype.TextOID) == "*pguuid.plan" {
		t.Error("a uuid bound to text is planned as 16 bytes")
	}
}

// TestRoundTrips sends uuids through database/sql to Postgres on a pgtest pool (which registers
// the plan as store.Open does): as a uuid, in a uuid[], as a pointer, as a nil pointer and as
// text, each compared in SQL with the uuid's text.
func TestRoundTrips(t *testing.T) {
	db := pgtest.NewEmpty(t)
	u, v := uuid.New(), uuid.New()
	var null *uuid.UUID
	var eq, inArray, ptr, isNull bool
	var asText string
	err := db.SQL.QueryRowContext(t.Context(), `SELECT $1::uuid = $2::text::uuid, $2::text::uuid = ANY($3::uuid[]), $4::uuid = $2::text::uuid,
			$5::uuid IS NULL, $6::text`,
		u, u.String(), []uuid.UUID{v, u}, &u, null, u).Scan(&eq, &inArray, &ptr, &isNull, &asText)
	if err != nil {
		t.Fatal(err)
	}
	if !eq || !inArray || !ptr || !isNull || asText != u.String() {
		t.Errorf("uuid = text %v, in array %v, pointer %v, nil pointer is NULL %v, as text %q (want %s)", eq, inArray, ptr, isNull, asText, u)
	}
}
