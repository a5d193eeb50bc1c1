package toolkit

import (
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Text is a tool's human-readable output (content[0].text): markdown-style headings, aligned
// key/value lists and tables, ISO dates.
type Text struct {
	b       strings.Builder
	notices []string
}

// H1 writes a top heading.
func (t *Text) H1(format string, args ...any) { t.heading("# ", format, args...) }

// H2 writes a section heading.
func (t *Text) H2(format string, args ...any) { t.heading("## ", format, args...) }

func (t *Text) heading(prefix, format string, args ...any) {
	if t.b.Len() > 0 {
		t.b.WriteString("\n")
	}
	t.b.WriteString(prefix + fmt.Sprintf(format, escapeArgs(args)...) + "\n\n")
}

// Line writes one line; string arguments are escaped (Escape), the format is not.
func (t *Text) Line(format string, args ...any) {
	t.b.WriteString(fmt.Sprintf(format, escapeArgs(args)...) + "\n")
}

// Blank writes an empty line.
func (t *Text) Blank() { t.b.WriteString("\n") }

// KV writes aligned "key: value" lines from pairs (key, value, key, value...); values are
// escaped (Escape).
func (t *Text) KV(pairs ...string) {
	width := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		width = max(width, utf8.RuneCountInString(pairs[i]))
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		t.b.WriteString(pad(pairs[i]+":", width+1) + " " + Escape(pairs[i+1]) + "\n")
	}
}

// Table writes rows as aligned columns under a header, the rows' cells escaped (Escape); an
// empty table writes empty instead.
func (t *Text) Table(header []string, rows [][]string, empty string) {
	if len(rows) == 0 {
		t.b.WriteString(empty + "\n")
		return
	}
	escaped := make([][]string, len(rows))
	for i, r := range rows {
		escaped[i] = make([]string, len(r))
		for j, c := range r {
			escaped[i][j] = Escape(c)
		}
	}
	rows = escaped
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i := range min(len(r), len(widths)) {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	line := func(cells []string) {
		parts := make([]string, len(widths))
		for i := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			if i == len(widths)-1 {
				parts[i] = c
			} else {
				parts[i] = pad(c, widths[i])
			}
		}
		t.b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	line(header)
	seps := make([]string, len(widths))
	for i, w := range widths {
		seps[i] = strings.Repeat("-", w)
	}
	line(seps)
	for _, r := range rows {
		line(r)
	}
}

func pad(s string, n int) string {
	if d := n - utf8.RuneCountInString(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func (t *Text) prependNotices(n []string) { t.notices = n }

// String is the text with notices first.
func (t *Text) String() string {
	if len(t.notices) == 0 {
		return t.b.String()
	}
	var b strings.Builder
	for _, n := range t.notices {
		b.WriteString("Note: " + n + "\n")
	}
	b.WriteString("\n")
	b.WriteString(t.b.String())
	return b.String()
}

// Date formats t as an ISO date in UTC.
func Date(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Timestamp formats t as an RFC 3339 UTC timestamp (seconds).
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// OptTimestamp formats a nullable time; "—" when nil.
func OptTimestamp(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return Timestamp(*t)
}

// Percent is 100*num/den rounded to one decimal; nil when den is 0.
func Percent(num, den int64) *float64 {
	if den == 0 {
		return nil
	}
	p := Round(100*float64(num)/float64(den), 1)
	return &p
}

// Round rounds v to n decimals.
func Round(v float64, n int) float64 {
	f := math.Pow(10, float64(n))
	return math.Round(v*f) / f
}

// Pct formats a nullable percentage: "12.5%", or "n/a".
func Pct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *p)
}

// Num formats a nullable number with up to two decimals; "—" when nil.
func Num(v *float64) string {
	if v == nil {
		return "—"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", *v), "0"), ".")
}

// Str formats a nullable string; "—" when nil or empty.
func Str(s *string) string {
	if s == nil || *s == "" {
		return "—"
	}
	return *s
}

// Bool formats a nullable flag: yes, no, or "n/a" when nil.
func Bool(b *bool) string {
	switch {
	case b == nil:
		return "n/a"
	case *b:
		return "yes"
	}
	return "no"
}

// NullString is a nullable column as an optional output field.
func NullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// NullFloat is a nullable number as an optional output field, rounded to two decimals.
func NullFloat(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return new(Round(f.Float64, 2))
}

// NullTime is a nullable timestamp as an optional RFC 3339 output field.
func NullTime(t sql.NullTime) *string {
	if !t.Valid {
		return nil
	}
	return new(Timestamp(t.Time))
}

// OrDash is s, or "—" when empty.
func OrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
