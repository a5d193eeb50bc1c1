package scenarios

import (
	"bytes"
	"strings"
	"testing"
)

func TestWorkOf(t *testing.T) {
	log := "2026-11-29 12:22:03.259 UTC [1757] LOG:  duration: 5.1 ms  plan:\n" +
		"\tQuery Text: SELECT count(*)\n" +
		"\t\t\tFROM x JOIN y ON true\n" +
		"\tAggregate  (cost=1..2 rows=1 width=8) (actual rows=1 loops=1)\n" +
		"\t  Buffers: shared hit=120 read=30\n" +
		"\t  ->  Nested Loop  (cost=1..2 rows=10 width=0) (actual rows=40 loops=1)\n" +
		"\t        Buffers: shared hit=100\n" +
		"\t        ->  Index Only Scan using x_idx on x  (cost=0.42..8 rows=10 width=16) (actual rows=10 loops=1)\n" +
		"\t        ->  Bitmap Heap Scan on y  (cost=1..2 rows=4 width=0) (actual rows=4 loops=10)\n" +
		"\t              Rows Removed by Filter: 3\n" +
		"\t              ->  Bitmap Index Scan on y_idx  (cost=0..1 rows=4 width=0) (actual rows=4 loops=10)\n" +
		"\t  ->  Function Scan on unnest  (cost=0.02..3.08 rows=245 width=204) (actual rows=245 loops=1)\n" +
		"\t        Rows Removed by Filter: 1000\n"
	plans := readPlans(strings.NewReader(log))
	if len(plans) != 1 {
		t.Fatalf("readPlans found %d plans, want 1", len(plans))
	}
	w := workOf(plans[0].text)
	// 10 index rows, 4x10 heap rows and 3x10 filtered out; the bitmap index scan and the function
	// scan read no table rows.
	if w.rows != 80 || w.pages != 150 || w.query != "SELECT count(*) FROM x JOIN y ON true" {
		t.Errorf("workOf = %+v, want rows 80, pages 150, the query on one line", w)
	}
}

func TestPrintWorkGrowth(t *testing.T) {
	var out bytes.Buffer
	printWorkGrowth(&out, []int{1_000_000, 3_000_000}, []map[string]toolWork{
		{"flat": {calls: 10, rows: 1000}, "steep": {calls: 10, rows: 100_000}},
		{"flat": {calls: 10, rows: 1100}, "steep": {calls: 10, rows: 300_000}},
	})
	s := out.String()
	// steep: 3x per 3x the data is 10x per 10x; 30k rows a call at 3M are 100k at 10M.
	for _, want := range []string{"1M->3M", " 3.00x(10.00x)", "100000  MISSES target", "flat ", "meets target"} {
		if !strings.Contains(s, want) {
			t.Errorf("printWorkGrowth output lacks %q:\n%s", want, s)
		}
	}
}
