package searchtools_test

import (
	"slices"
	"testing"
	"time"

	"github.com/recruitd/recruitd/mcpserver/searchtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

// TestRadiusIndexWithoutSearchPath: ANALYZE candidates works under the empty search_path
// autovacuum uses (with ll_to_earth in the radius index it failed: type "earth" does not exist),
// and searchCandidates' radius search finds its candidates through the radius index,
// candidates_location_idx.
func TestRadiusIndexWithoutSearchPath(t *testing.T) {
	h := tooltest.New(t, time.Time{}, searchtools.Register)
	acme := h.Company(t, "acme", "Acme Corp", nil)
	ctx := t.Context()
	// A pool spread from 120°W to 110°W, far from Austin, so that a 25-mile radius is selective.
	_, err := h.DB.SQL.ExecContext(ctx, `
		INSERT INTO candidates (company_id, first_name, last_name, email, title, location, city, state, country, latitude, longitude, skills, status)
		SELECT $1, 'Pool', 'P' || i, 'p' || i || '@example.com', 'Software Engineer', 'Somewhere', 'Somewhere', 'AZ', 'US',
		       25 + (i % 200) * 0.1, -120 + (i / 200) * 0.5, '{Go}', 'new'
		FROM generate_series(1, 4000) i`, acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	austin := addCandidate(t, h, acme, "Ada", "Austin", "Software Engineer", "Austin", "TX", 30.2672, -97.7431, "new", "Go")
	roundRock := addCandidate(t, h, acme, "Rob", "Rock", "Software Engineer", "Round Rock", "TX", 30.5083, -97.6789, "new", "Go")

	tx, err := h.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SET LOCAL search_path = ''"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "ANALYZE public.candidates"); err != nil {
		t.Fatalf("ANALYZE candidates with an empty search_path: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	scans := func() int64 {
		t.Helper()
		var n int64
		if err := h.DB.SQL.QueryRowContext(ctx, `SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'candidates_location_idx'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := scans()
	var o struct {
		Candidates []struct {
			ID            string   `json:"id"`
			DistanceMiles *float64 `json:"distanceMiles"`
		} `json:"candidates"`
	}
	h.OK(t, tooltest.KeyCaller(acme), "searchCandidates", map[string]any{"query": "software engineer near Austin, TX"}).Decode(t, &o)
	var got []string
	for _, c := range o.Candidates {
		got = append(got, c.ID)
	}
	slices.Sort(got)
	want := []string{austin, roundRock}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("near Austin = %v, want Ada and Rob", got)
	}
	// A backend reports its index scans within about a second of going idle.
	for deadline := time.Now().Add(15 * time.Second); scans() == before; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the radius search did not scan candidates_location_idx")
		}
	}
}
