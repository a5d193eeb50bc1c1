package oauth

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestDisplayText(t *testing.T) {
	for in, want := range map[string]string{
		"Claude":                               "Claude",
		"  VS   Code\t Insiders ":              "VS Code Insiders",
		"Goo\u202Eelgoo\u202C":                 "Gooelgoo",
		"Cla\u200Bude\u200D\uFEFF":             "Claude",
		"\u2066evil\u2069 \u200Eapp\u200F":     "evil app",
		"tag\U000E0041\U000E007F":              "tag",
		"a\u3164b\u115Fc":                      "abc",
		"x\uFE0Fy":                             "xy",
		"\u202E\u200B":                         "",
		"caf\xc3":                              "caf",
		"Ärzte-App 🩺":                          "Ärzte-App 🩺",
		strings.Repeat("a", maxDisplayRunes+5): strings.Repeat("a", maxDisplayRunes) + "…",
	} {
		if got := displayText(in); got != want {
			t.Errorf("displayText(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDisplayText: whatever a client registers, the consent page shows valid UTF-8 without
// format, bidirectional or control characters, within the length bound.
func FuzzDisplayText(f *testing.F) {
	for _, s := range []string{"Claude", "Goo\u202Eelg", "a\u200Bb", "\u2067x\u2069", "caf\xc3", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := displayText(s)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > maxDisplayRunes+1 || got != strings.TrimSpace(got) {
			t.Fatalf("displayText(%q) = %q", s, got)
		}
		for _, r := range got {
			if unicode.In(r, unicode.Cf, unicode.Cc, unicode.Bidi_Control) {
				t.Fatalf("displayText(%q) = %q keeps %U", s, got, r)
			}
		}
	})
}
