package gazetteer

import (
	"slices"
	"testing"
	"time"
)

// TestEveryStateHasLoadableZones: every state of the table has zones, each a name the Go time
// package loads.
func TestEveryStateHasLoadableZones(t *testing.T) {
	for _, s := range states {
		zones := statePlace(s.code).TimeZones()
		if len(zones) == 0 {
			t.Errorf("%s has no time zone", s.code)
		}
		for _, z := range zones {
			if _, err := time.LoadLocation(z); err != nil {
				t.Errorf("%s: zone %q: %v", s.code, z, err)
			}
		}
	}
	if len(stateZones) != len(states) {
		t.Errorf("stateZones has %d states, the table %d", len(stateZones), len(states))
	}
}

func TestPlaceTimeZones(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"Austin, TX", []string{"America/Chicago", "America/Denver"}},
		{"Brooklyn, NY", []string{"America/New_York"}},
		{"Phoenix, AZ", []string{"America/Phoenix"}},
		{"Seattle", []string{"America/Los_Angeles"}},
		{"Hawaii", []string{"Pacific/Honolulu"}},
	} {
		p, ok := Lookup(tt.text)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", tt.text)
		}
		if got := p.TimeZones(); !slices.Equal(got, tt.want) {
			t.Errorf("Lookup(%q).TimeZones() = %v, want %v", tt.text, got, tt.want)
		}
	}
}
