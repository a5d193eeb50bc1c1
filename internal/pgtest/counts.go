package pgtest

import "testing"

// CountsByKey runs query, whose rows are a text key and two counts, and returns the counts by key:
// what a test compares an answer's per-job (or per-anything) figures with.
func CountsByKey(t testing.TB, q Querier, query string, args ...any) map[string][2]int64 {
	t.Helper()
	rows, err := q.QueryContext(t.Context(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var key string
		var n [2]int64
		if err := rows.Scan(&key, &n[0], &n[1]); err != nil {
			t.Fatal(err)
		}
		out[key] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
