// Package personname is the one rule for people's names (candidates' first and last names)
// wherever they enter recruitd: a name is one line of text. Check refuses a name that breaks
// the rule (the API answers the caller); Clean makes a name from another system (an ATS, an
// HR suite) keep it, since nobody can be asked to send it again.
package personname

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrInvalid is a name that holds a character a name cannot.
var ErrInvalid = errors.New("a name holds a character that is not allowed")

// forbidden reports the characters a name never holds: controls (line breaks, tabs, NUL, the
// other C0 and C1 controls, DEL), the line and paragraph separators, the bidirectional
// embeddings, overrides and isolates (which reorder what a reader sees), and the Unicode
// replacement for invalid UTF-8.
func forbidden(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' || r == utf8.RuneError
}

// Check returns an error wrapping ErrInvalid when s is not valid UTF-8 or holds a forbidden
// character; the error names the character's position, never the name.
func Check(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalid)
	}
	n := 0
	for _, r := range s {
		n++
		if forbidden(r) {
			return fmt.Errorf("%w: %U at character %d", ErrInvalid, r, n)
		}
	}
	return nil
}

// Clean returns s following the rule: invalid bytes dropped, each run of forbidden characters
// and white space one space, both ends trimmed. Clean(s) passes Check, and a name that passes
// Check keeps its characters (only its ends are trimmed and inner runs of spaces joined).
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "")
	if strings.IndexFunc(s, forbidden) < 0 && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if forbidden(r) || unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
