package interview

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCleanReason(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"plain", "position filled", "position filled", nil},
		{"trimmed, CRLF to LF", "  filled\r\n(req 42) \t", "filled\n(req 42)", nil},
		{"exactly the limit", strings.Repeat("é", MaxReasonLen), strings.Repeat("é", MaxReasonLen), nil},
		{"empty", "", "", ErrReasonMissing},
		{"only white space", " \n\t", "", ErrReasonMissing},
		{"one over the limit", strings.Repeat("a", MaxReasonLen+1), "", ErrReasonTooLong},
		{"over the byte bound", strings.Repeat("x", MaxReasonBytes+1), "", ErrReasonTooLong},
		{"bell", "late\a", "", ErrReasonNotText},
		{"escape", "\x1b[31mred", "", ErrReasonNotText},
		{"C1 next line", "a\u0085b", "", ErrReasonNotText},
		{"invalid UTF-8", "caf\xc3", "", ErrReasonNotText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanReason(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("CleanReason = %.40q, %v; want %.40q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzCleanReason: a reason is refused with one of the package's errors or returned clean:
// trimmed, valid UTF-8, no control character but tab and line feed, within the bound, stable.
func FuzzCleanReason(f *testing.F) {
	for _, s := range []string{"position filled", " late \r\n", "a\x00b", "caf\xc3", "\x1b[2J", strings.Repeat("é", MaxReasonLen+1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CleanReason(s)
		if err != nil {
			if !errors.Is(err, ErrReasonMissing) && !errors.Is(err, ErrReasonTooLong) && !errors.Is(err, ErrReasonNotText) {
				t.Fatalf("CleanReason(%q) error %v is not one of the package's", s, err)
			}
			return
		}
		if !utf8.ValidString(got) || got == "" || got != strings.TrimSpace(got) || utf8.RuneCountInString(got) > MaxReasonLen {
			t.Fatalf("CleanReason(%q) = %q", s, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) && r != '\t' && r != '\n' {
				t.Fatalf("CleanReason(%q) = %q keeps %U", s, got, r)
			}
		}
		if again, err := CleanReason(got); again != got || err != nil {
			t.Fatalf("CleanReason(CleanReason(%q)) = %q, %v", s, again, err)
		}
	})
}
