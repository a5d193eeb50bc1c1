package generate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalize bounds s to maxInputBytes, unifies line endings and drops control characters other
// than newlines (tabs and no-break spaces become spaces).
func normalize(s string) string {
	if len(s) > maxInputBytes {
		cut := maxInputBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\r':
			if !strings.HasPrefix(s[i+1:], "\n") {
				b.WriteByte('\n')
			}
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t' || r == '\u00a0' || r == '\u2007' || r == '\u202f':
			b.WriteByte(' ')
		case unicode.IsControl(r) || r == '\ufeff' || r == '\u200b':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// line is one non-empty line of a description with its markdown decoration removed.
type line struct {
	text    string
	bullet  bool // started with a list marker
	heading bool // a markdown heading, or a short line ending in ":"
}

// splitLines splits s into non-empty lines, recording list markers and headings.
func splitLines(s string) []line {
	var out []line
	for raw := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		var l line
		if h := strings.TrimLeft(t, "#"); h != t {
			l.heading = true
			t = strings.TrimSpace(h)
		}
		if rest, ok := cutBullet(t); ok {
			l.bullet = true
			t = rest
		}
		t = strings.TrimSpace(stripEmphasis(t))
		if t == "" {
			continue
		}
		if strings.HasSuffix(t, ":") && len(strings.Fields(t)) <= 8 {
			l.heading = true
		}
		l.text = strings.Join(strings.Fields(t), " ")
		out = append(out, l)
	}
	return out
}

// cutBullet removes a list marker ("-", "*", "•", "1.", "2)", "a)") from the start of t.
func cutBullet(t string) (string, bool) {
	r, n := utf8.DecodeRuneInString(t)
	if strings.ContainsRune("-*•·–—▪◦○●■□➢►✓✔+>", r) {
		rest := t[n:]
		if rest == "" || rest[0] == ' ' || r == '•' || r == '·' || r == '▪' || r == '●' || r == '■' || r == '✓' || r == '✔' || r == '➢' || r == '►' {
			return strings.TrimSpace(rest), true
		}
		return t, false
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 && len(t) > 2 && t[0] >= 'a' && t[0] <= 'z' && t[1] == ')' {
		i = 1
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return strings.TrimSpace(t[i+1:]), true
	}
	return t, false
}

func stripEmphasis(t string) string {
	for _, m := range []string{"**", "__"} {
		t = strings.ReplaceAll(t, m, "")
	}
	return t
}

// section is the part of a job description a line belongs to.
type section uint8

const (
	secNone section = iota
	secRequirements
	secResponsibilities
	secOther // about the company, benefits, pay, legal
)

// sectionKeywords name the headings of each section. A keyword written "~word" is weak: it
// only counts in a marked heading (markdown "#" or a trailing ":") or as the whole line, since
// "Experience with Go" is a requirement, not a heading.
var sectionKeywords = []struct {
	sec   section
	words []string
}{
	{secResponsibilities, []string{"responsibilit", "what you'll do", "what you will do", "what you’ll do", "what you'll be doing", "what you will be doing", "what you’ll be doing", "key duties", "job duties", "main duties", "~duties", "day to day", "day-to-day", "~the role", "~your role", "in this role", "your impact", "essential functions", "key tasks", "~tasks", "your mission", "what you'll work on", "what you will work on"}},
	{secRequirements, []string{"requirement", "qualification", "what you'll need", "what you need", "what you’ll need", "what we're looking for", "what we are looking for", "what we’re looking for", "must have", "must-have", "nice to have", "nice-to-have", "~skills", "who you are", "~about you", "~you have", "~you bring", "you'll bring", "~experience", "competencies", "ideal candidate", "~preferred", "bonus points"}},
	{secOther, []string{"about us", "about the company", "about the team", "who we are", "benefit", "perks", "compensation", "salary", "pay range", "why join", "why work", "equal opportunity", "~eeo", "our values", "our culture", "how to apply", "~location", "~schedule", "what we offer", "~we offer", "~about", "~company"}},
}

// sectionOf classifies a heading line; secNone when it is not a known heading.
func sectionOf(l line) section {
	n := len(strings.Fields(l.text))
	if n > 8 || (!l.heading && (n > 6 || l.bullet || strings.ContainsAny(l.text, ".!?,"))) {
		return secNone
	}
	low := strings.TrimSpace(strings.TrimSuffix(asciiLower(l.text), ":"))
	for _, k := range sectionKeywords {
		for _, w := range k.words {
			weak := strings.HasPrefix(w, "~")
			w = strings.TrimPrefix(w, "~")
			switch {
			case l.heading && strings.Contains(low, w),
				!weak && strings.HasPrefix(low, w),
				low == strings.TrimSpace(w):
				return k.sec
			}
		}
	}
	return secNone
}

// item is a bullet or a sentence of a description, with the section it appeared in.
type item struct {
	text   string
	bullet bool
	sec    section
	pos    int // order of appearance
}

// items splits a description into bullets and sentences, tracking section headings.
func items(lines []line) []item {
	var out []item
	sec := secNone
	for _, l := range lines {
		if s := sectionOf(l); s != secNone {
			sec = s
			continue
		}
		if l.heading {
			sec = secNone
			continue
		}
		if l.bullet {
			out = append(out, item{text: l.text, bullet: true, sec: sec, pos: len(out)})
			continue
		}
		for _, s := range sentences(l.text) {
			it := item{text: s, sec: sec, pos: len(out)}
			if label, rest, ok := strings.Cut(s, ": "); ok && rest != "" {
				if ls := sectionOf(line{text: label, heading: true}); ls != secNone {
					it.text, it.sec = rest, ls // "Qualifications: ..." inside a paragraph
				}
			}
			out = append(out, it)
		}
	}
	return out
}

// sentences splits t at ".", "!" or "?" followed by a space and an upper-case letter, digit or
// quote, so "e.g. this", "Node.js" and "3.5" stay whole.
func sentences(t string) []string {
	var out []string
	start := 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+2 >= len(t) || t[i+1] != ' ' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(t[i+2:])
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) && r != '"' && r != '“' {
			continue
		}
		if c == '.' && abbreviation(t[start:i]) {
			continue
		}
		if s := strings.TrimSpace(t[start : i+1]); s != "" {
			out = append(out, s)
		}
		start = i + 2
	}
	if s := strings.TrimSpace(t[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// abbreviation reports whether the word before a period is an abbreviation or an initial.
func abbreviation(before string) bool {
	w := before
	if i := strings.LastIndexByte(before, ' '); i >= 0 {
		w = before[i+1:]
	}
	switch asciiLower(w) {
	case "e.g", "i.e", "etc", "inc", "mr", "mrs", "ms", "dr", "st", "vs", "jr", "sr", "approx", "no", "dept":
		return true
	}
	return len(w) == 1
}

// words returns the lower-cased words of s (letters, digits, and "+" or "#" within a word), with
// a plural "s" removed from longer words.
func words(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(asciiLower(s), func(r rune) bool {
		return !isWordRune(r) && r != '+' && r != '#'
	}) {
		if len(f) > 3 && strings.HasSuffix(f, "s") && !strings.HasSuffix(f, "ss") {
			f = f[:len(f)-1]
		}
		out = append(out, f)
	}
	return out
}

// firstUpper upper-cases the first letter of s.
func firstUpper(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// firstLower lower-cases the first letter of s unless the first word looks like a name or an
// acronym ("API", "PostgreSQL").
func firstLower(s string) string {
	w, _, _ := strings.Cut(s, " ")
	upper := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			upper++
		}
	}
	if upper != 1 {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// joinList joins items as "a", "a and b", "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
