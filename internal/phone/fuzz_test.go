package phone

import (
	"regexp"
	"testing"
)

var e164Pattern = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// FuzzNormalize checks that Normalize never panics, that a number it calls valid is E.164 and
// normalises to itself, and that KindOf, LooksLikeNumber and TimeZones take whatever it
// returns. The seed corpus is testdata/fuzz/FuzzNormalize.
func FuzzNormalize(f *testing.F) {
	for _, s := range []struct{ raw, region string }{
		{"(415) 555-2671", "US"},
		{"+44 20 7946 0958", ""},
		{"1-800-FLOWERS", "US"},
		{"415 555 2671 ext. 12", "US"},
		{"tel:+1-415-555-2671;phone-context=+1", "US"},
		{"5;phone-context=+1;tel:x", "US"}, // GHSA-374v-j3m9-frpm, fixed in v2.0.4
		{"5;phone-context=+49;foo=tel:", "DE"},
		{"\uff14\uff11\uff15\uff15\uff15\uff15\uff12\uff16\uff17\uff11", "US"}, // fullwidth digits
		{"", "ZZ"},
	} {
		f.Add(s.raw, s.region)
	}
	f.Fuzz(func(t *testing.T, raw, region string) {
		e164, ok := Normalize(raw, region)
		_ = LooksLikeNumber(raw)
		_ = LooksLikeNumber(e164)
		kind := KindOf(e164)
		_ = CanReceiveSMS(e164)
		for _, z := range TimeZones(e164) {
			if z == "" || z == "Etc/Unknown" {
				t.Fatalf("TimeZones(%q) holds %q", e164, z)
			}
		}
		if !ok {
			return
		}
		if !e164Pattern.MatchString(e164) {
			t.Fatalf("Normalize(%q, %q) = %q, true: not E.164", raw, region, e164)
		}
		if again, ok := Normalize(e164, region); again != e164 || !ok {
			t.Fatalf("Normalize(%q, %q) = %q, true, but Normalize(%q) = %q, %v", raw, region, e164, e164, again, ok)
		}
		if kind == KindUnknown && KindOf(e164) != KindUnknown {
			t.Fatalf("KindOf(%q) is not stable", e164)
		}
	})
}

func TestLooksLikeNumber(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{"(415) 555-2671", true},
		{"+1 415.555.2671", true},
		{"(+44) 20 7946 0958", true},
		{"415/555 2671", true},
		{"415-555-2671 x12", true},
		{"415-555-2671 ext. 12", true},
		{"415-555-2671 Ext: 12", true},
		{"415-555-2671 extension 12", true},
		{"415-555-2671#12", true},
		{"tel:4155552671", false},
		{"4155552671;ext=12", true},
		{"555-1234", true}, // short, but written as a number: Normalize decides validity
		{"12", true},
		{"415-555-2671 ext", false},
		{"415-555-2671 x12a", false},
		{"1-800-FLOWERS", false},
		{"ada@example.com", false},
		{"n/a", false},
		{"+", false},
		{"()- ", false},
		{"415+555", false},
		{"", false},
		{"\uff14\uff11\uff15", false},
	}
	for _, tt := range tests {
		if got := LooksLikeNumber(tt.raw); got != tt.want {
			t.Errorf("LooksLikeNumber(%q) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
