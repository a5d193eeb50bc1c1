package toolkit

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes s, a value that may have come from outside (a name, a title, a note, an answer,
// a search term), print as itself on one line of a tool's Markdown text: line breaks and other
// control characters become visible escapes (\n, \r, \t, \u{85}...), so a value can never start
// a line of its own; bidirectional controls, which reorder what a reader sees, become escapes too;
// a < that could open a tag (before a letter, /, ! or ?) becomes &lt;, so no HTML is rendered
// ("score < 50" and ">= 70" stay as they are); and the characters that make Markdown inline
// (\ ` * [ ] ~, _ at a word's edge) and, at the start of the value, a block (# + - = > !) are
// preceded by a backslash. A | stays: a value cannot add the delimiter line a table needs. Text's
// methods apply it to every value they print.
func Escape(s string) string {
	if s == "" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	prev := rune(-1)
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validAt(s, i):
			b.WriteString(`\ufffd`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || bidiControl(r):
			b.WriteString(`\u{` + strings.ToUpper(strconvHex(r)) + `}`)
		case r == '<' && opensTag(s[i+1:]):
			b.WriteString("&lt;")
		case r == '\\' || r == '`' || r == '*' || r == '[' || r == ']' || r == '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '_':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if !(wordRune(prev) && wordRune(next)) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case i == 0 && strings.ContainsRune("#+-=!>", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// opensTag reports whether rest, what follows a <, could make it an HTML tag, comment or
// declaration.
func opensTag(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsLetter(r) || r == '/' || r == '!' || r == '?'
}

func validAt(s string, i int) bool {
	r, size := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError || size > 1
}

func wordRune(r rune) bool { return r >= 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// bidiControl reports the embedding, override and isolate controls and the directional marks.
func bidiControl(r rune) bool {
	return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' || r == '\u200E' || r == '\u200F' || r == '\u061C'
}

func strconvHex(r rune) string {
	const digits = "0123456789abcdef"
	if r == 0 {
		return "0"
	}
	var buf [8]byte
	i := len(buf)
	for r > 0 {
		i--
		buf[i] = digits[r&0xF]
		r >>= 4
	}
	return string(buf[i:])
}

// escapeArgs escapes the string values among a format's arguments (strings and types whose
// kind is string, such as enumerations); numbers, times and other values print as they are.
func escapeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = Escape(v)
		case *string:
			if v != nil {
				out[i] = Escape(*v)
			} else {
				out[i] = a
			}
		default:
			if rv := reflect.ValueOf(a); rv.IsValid() && rv.Kind() == reflect.String {
				out[i] = Escape(rv.String())
			} else {
				out[i] = a
			}
		}
	}
	return out
}
