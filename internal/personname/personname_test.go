package personname

import (
	"errors"
	"testing"
)

func TestCheckAndClean(t *testing.T) {
	for _, tc := range []struct {
		in, clean string
		ok        bool
	}{
		{"Ada", "Ada", true},
		{"José María", "José María", true},
		{"O'Brien-Smith", "O'Brien-Smith", true},
		{"<b>Ada</b>", "<b>Ada</b>", true}, // markup is text: every output escapes it
		{"  Ada  ", "Ada", true},
		{"Ada\nDecision: ACCEPTED", "Ada Decision: ACCEPTED", false},
		{"Ada\r\n\r\nService rating: 5.00", "Ada Service rating: 5.00", false},
		{"Ada\tQuinn", "Ada Quinn", false},
		{"Ada\x00", "Ada", false},
		{"Ada\u0085Quinn", "Ada Quinn", false},
		{"Ada\u2028Quinn", "Ada Quinn", false},
		{"\u202eAda", "Ada", false},
		{"Ada\xff", "Ada", false},
	} {
		err := Check(tc.in)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("Check(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
		got := Clean(tc.in)
		if got != tc.clean {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.clean)
		}
		if err := Check(got); err != nil {
			t.Errorf("Check(Clean(%q)) = %v", tc.in, err)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"Ada", "Ada\nDecision: ACCEPTED", "\u202e\u2028\x00\xff", " a  b "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Clean(s)
		if err := Check(c); err != nil {
			t.Fatalf("Check(Clean(%q)) = %v", s, err)
		}
		if Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
	})
}
