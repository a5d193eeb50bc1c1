package callbacks

import (
	"math"
	"testing"
	"time"
)

func TestDelaySchedule(t *testing.T) {
	base := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
		5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	for i, want := range base {
		attempt := i + 1
		if got, ok := Delay(attempt, 0.5); got != want || !ok {
			t.Errorf("Delay(%d, 0.5) = %v, %v; want %v, true", attempt, got, ok, want)
		}
		lo, hi := time.Duration(float64(want)*0.9), time.Duration(float64(want)*1.1)
		if got, ok := Delay(attempt, 0); got != lo || !ok {
			t.Errorf("Delay(%d, 0) = %v, %v; want %v, true", attempt, got, ok, lo)
		}
		if got, ok := Delay(attempt, 0.999); got > hi || got < time.Duration(float64(want)*1.099) || !ok {
			t.Errorf("Delay(%d, 0.999) = %v, %v; want in [%v, %v], true", attempt, got, ok, time.Duration(float64(want)*1.099), hi)
		}
		for _, rnd := range []float64{-1, 1, 2, math.NaN(), math.Inf(1)} {
			if got, ok := Delay(attempt, rnd); got < lo || got > hi || !ok {
				t.Errorf("Delay(%d, %v) = %v, %v; want in [%v, %v], true", attempt, rnd, got, ok, lo, hi)
			}
		}
	}
	if Attempts != 10 {
		t.Errorf("Attempts = %d, want 10", Attempts)
	}
	for _, attempt := range []int{-1, 0, 11, 100} {
		if got, ok := Delay(attempt, 0.5); got != 0 || ok {
			t.Errorf("Delay(%d, 0.5) = %v, %v; want 0, false", attempt, got, ok)
		}
	}
}

func TestNextDelay(t *testing.T) {
	tests := []struct {
		name string
		a    Attempt
		want time.Duration
		ok   bool
	}{
		{"after the first", Attempt{Number: 1}, 5 * time.Second, true},
		{"retry-after longer", Attempt{Number: 1, RetryAfter: 2 * time.Minute}, 2 * time.Minute, true},
		{"retry-after shorter", Attempt{Number: 3, RetryAfter: 2 * time.Minute}, 30 * time.Minute, true},
		{"retry-after capped", Attempt{Number: 2, RetryAfter: 72 * time.Hour}, 24 * time.Hour, true},
		{"before the last", Attempt{Number: 9, RetryAfter: time.Hour}, 24 * time.Hour, true},
		{"after the last", Attempt{Number: 10, RetryAfter: time.Hour}, 0, false},
	}
	for _, tc := range tests {
		if got, ok := NextDelay(tc.a, 0.5); got != tc.want || ok != tc.ok {
			t.Errorf("NextDelay(%s) = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
