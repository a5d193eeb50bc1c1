package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrintSlowPlansShowsDistinctStatements(t *testing.T) {
	entry := func(ms, query, buffers string) string {
		return "2026-11-22 LOG:  duration: " + ms + " ms  plan:\n\tQuery Text: \n\t\t\t" + query +
			"\n\tAggregate  (actual rows=1 loops=1)\n\t  Buffers: " + buffers + "\n"
	}
	log := filepath.Join(t.TempDir(), "postgres.log")
	// Two measured spans; the warm-up entries before and between them are left out.
	warm := "noise before\n" + entry("5000.0", "SELECT warm FROM t", "shared read=9")
	one := entry("900.5", "SELECT a FROM t", "shared hit=1") + entry("800.0", "SELECT a FROM t", "shared hit=2") + entry("50.0", "SELECT b FROM t", "shared hit=3")
	between := entry("4000.0", "SELECT warm2 FROM t", "shared read=8")
	two := "2026-11-22 LOG:  checkpoint complete\n" + entry("70.0", "SELECT c FROM t", "shared hit=4")
	if err := os.WriteFile(log, []byte(warm+one+between+two), 0o600); err != nil {
		t.Fatal(err)
	}
	at := func(parts ...string) int64 { return int64(len(strings.Join(parts, ""))) }
	var out strings.Builder
	printSlowPlans(&out, log, []logSpan{{at(warm), at(warm, one)}, {at(warm, one, between), at(warm, one, between, two)}}, 3)
	got := out.String()
	if !strings.Contains(got, "4 statement(s)") || strings.Count(got, "SELECT a FROM t") != 1 || !strings.Contains(got, "--- 900.5 ms") ||
		strings.Contains(got, "--- 800.0 ms") || strings.Index(got, "SELECT c") > strings.Index(got, "SELECT b") || strings.Contains(got, "warm") {
		t.Errorf("printSlowPlans =\n%s", got)
	}
}
