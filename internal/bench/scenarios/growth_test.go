package scenarios

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func TestGrowth(t *testing.T) {
	for _, c := range []struct {
		a, b   time.Duration
		na, nb int
		g, g10 float64
	}{
		{10 * time.Millisecond, 15 * time.Millisecond, 1_000_000, 10_000_000, 1.5, 1.5},
		{10 * time.Millisecond, 20 * time.Millisecond, 100_000, 1_000_000, 2, 2},
		{10 * time.Millisecond, 30 * time.Millisecond, 1_000_000, 3_000_000, 3, math.Pow(3, 1/math.Log10(3))},
		{0, 30 * time.Millisecond, 1_000_000, 3_000_000, 0, 0},
	} {
		g, g10 := growth(c.a, c.b, c.na, c.nb)
		if math.Abs(g-c.g) > 1e-9 || math.Abs(g10-c.g10) > 1e-9 {
			t.Errorf("growth(%s, %s, %d, %d) = %g, %g; want %g, %g", c.a, c.b, c.na, c.nb, g, g10, c.g, c.g10)
		}
	}
}

func TestPrintGrowth(t *testing.T) {
	var out bytes.Buffer
	printGrowth(&out, []int{100_000, 1_000_000}, []map[string]time.Duration{
		{"flat": 10 * time.Millisecond, "steep": 10 * time.Millisecond},
		{"flat": 12 * time.Millisecond, "steep": 50 * time.Millisecond},
	})
	s := out.String()
	for _, want := range []string{"100k", "1M", "100k->1M", " 1.20x( 1.20x)", " 5.00x( 5.00x)", "1 tool(s) grow faster than 1.5x"} {
		if !strings.Contains(s, want) {
			t.Errorf("printGrowth output lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "flat") && !strings.Contains(line, "meets target") || strings.HasPrefix(line, "steep") && !strings.Contains(line, "MISSES target") {
			t.Errorf("wrong verdict: %s", line)
		}
	}
}

// TestPrintGrowthAtTenMillion: below 10M the p95 there is extrapolated along the last growth and
// held to the p95 target, so a tool that grows slowly from a slow start still misses.
func TestPrintGrowthAtTenMillion(t *testing.T) {
	var out bytes.Buffer
	printGrowth(&out, []int{1_000_000, 3_000_000}, []map[string]time.Duration{
		{"flat": 20 * time.Millisecond, "slow": 80 * time.Millisecond},
		{"flat": 20 * time.Millisecond, "slow": 90 * time.Millisecond},
	})
	s := out.String()
	// slow: 90ms * (90/80)^(log10(10/3)/log10(3)) = 102.4ms.
	for _, want := range []string{"10M?", "p95 at 10M along that growth", "20.0ms", "102.4ms", "1 tool(s) would pass their p95 target at 10M"} {
		if !strings.Contains(s, want) {
			t.Errorf("printGrowth output lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "flat") && !strings.Contains(line, "meets target") || strings.HasPrefix(line, "slow") && !strings.Contains(line, "MISSES target") {
			t.Errorf("wrong verdict: %s", line)
		}
	}
}
