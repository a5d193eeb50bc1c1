package docsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Doc is one parsed markdown document.
type Doc struct {
	// Name is the file name without ".md", for example "jobs"; it is the document's URL path.
	Name string
	// Title is the text of the first level-1 heading, or Name when there is none.
	Title string
	// Sections are the document's parts in order.
	Sections []Section
}

// Section is a heading of level 1 to 3 and the text under it, up to the next such heading.
// Headings of level 4 to 6 stay in the body.
type Section struct {
	// Anchor is the GitHub-style fragment of the heading, unique within the document. It is ""
	// for the text before the first heading.
	Anchor string
	// Title is the heading's text without inline markdown; the document title for the text
	// before the first heading.
	Title string
	// Level is 1 to 3, or 0 for the text before the first heading.
	Level int
	// Body is the markdown under the heading, without leading and trailing blank lines. It may
	// be empty (a heading followed directly by another).
	Body string
}

// Parse splits a markdown document into sections at its ATX headings (`#`, `##`, `###`),
// ignoring lines that only look like headings inside fenced code blocks. Setext headings
// (underlined with === or ---) are not recognised; the docs do not use them. Invalid UTF-8 and
// NUL characters, which Postgres text cannot hold, become U+FFFD.
func Parse(name string, src []byte) Doc {
	text := strings.ToValidUTF8(string(src), "\uFFFD")
	text = strings.ReplaceAll(text, "\x00", "\uFFFD")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}

	d := Doc{Name: name}
	var slugs slugger
	var cur *Section
	var body []string
	flush := func() {
		if cur != nil {
			cur.Body = trimBlankLines(body)
			d.Sections = append(d.Sections, *cur)
		}
		body = body[:0]
	}
	addBody := func(line string) {
		if cur == nil && strings.TrimSpace(line) != "" {
			cur = &Section{}
			slugs.reserve("")
		}
		body = append(body, line)
	}
	var fence fenceState
	for _, line := range lines {
		if fence.inside(line) {
			addBody(line)
			continue
		}
		level, title, ok := atxHeading(line)
		if !ok || level > 3 {
			addBody(line)
			continue
		}
		flush()
		plain := plainInline(title)
		cur = &Section{Anchor: slugs.slug(plain), Title: plain, Level: level}
		if level == 1 && d.Title == "" {
			d.Title = plain
		}
	}
	flush()
	if d.Title == "" {
		d.Title = name
	}
	for i := range d.Sections {
		if d.Sections[i].Level == 0 {
			d.Sections[i].Title = d.Title
		}
	}
	return d
}

// fenceState tracks fenced code blocks (``` or ~~~, CommonMark rules: at most three spaces of
// indentation, a closing fence of the same character at least as long as the opening one).
type fenceState struct {
	char byte // 0 outside a block
	n    int
}

// inside reports whether line belongs to a fenced code block, the fences included, and
// advances the state.
func (f *fenceState) inside(line string) bool {
	indent := leadingSpaces(line)
	if indent > 3 {
		return f.char != 0
	}
	rest := line[indent:]
	if f.char != 0 {
		n := countPrefix(rest, f.char)
		if n >= f.n && strings.TrimSpace(rest[n:]) == "" {
			f.char, f.n = 0, 0
		}
		return true
	}
	if rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return false
	}
	n := countPrefix(rest, rest[0])
	if n < 3 || (rest[0] == '`' && strings.ContainsRune(rest[n:], '`')) {
		return false
	}
	f.char, f.n = rest[0], n
	return true
}

// atxHeading parses an ATX heading line: at most three spaces, 1 to 6 '#', then a space, a tab
// or the end of the line. The optional closing sequence of '#' is removed.
func atxHeading(line string) (level int, text string, ok bool) {
	indent := leadingSpaces(line)
	if indent > 3 {
		return 0, "", false
	}
	rest := line[indent:]
	level = countPrefix(rest, '#')
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest = rest[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	rest = strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(rest, "#"); trimmed == "" {
		rest = ""
	} else if len(trimmed) < len(rest) && (strings.HasSuffix(trimmed, " ") || strings.HasSuffix(trimmed, "\t")) {
		rest = strings.TrimSpace(trimmed)
	}
	return level, rest, true
}

func leadingSpaces(s string) int {
	return countPrefix(s, ' ')
}

func countPrefix(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func trimBlankLines(lines []string) string {
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return strings.Join(lines[start:end], "\n")
}

// slugger makes GitHub's heading anchors (github-slugger): lower case, punctuation and symbols
// removed except '-' and '_', each space a '-'; a repeated slug gets "-1", "-2", ... appended.
type slugger struct {
	seen map[string]int
}

func (s *slugger) reserve(slug string) {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	if _, ok := s.seen[slug]; !ok {
		s.seen[slug] = 0
	}
}

func (s *slugger) slug(text string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	base := Slug(text)
	out := base
	for {
		if _, taken := s.seen[out]; !taken {
			break
		}
		s.seen[base]++
		out = base + "-" + itoa(s.seen[base])
	}
	s.seen[out] = 0
	return out
}

// Slug returns the GitHub anchor of a heading's text, before de-duplication.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

// plainInline renders inline markdown as plain text, the way GitHub derives an anchor from a
// heading: code spans keep their content, links and images their text, emphasis markers and
// HTML tags disappear, backslash escapes yield the escaped character.
func plainInline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := countPrefix(s[i:], '`')
			end := closingBackticks(s, i+n, n)
			if end < 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			code := s[i+n : end]
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.TrimSpace(code) != "" {
				code = code[1 : len(code)-1]
			}
			b.WriteString(code)
			i = end + n
		case c == '[' || (c == '!' && i+1 < len(s) && s[i+1] == '['):
			open := i
			if c == '!' {
				open++
			}
			text, next, ok := linkText(s, open)
			if !ok {
				b.WriteByte(c)
				i++
				continue
			}
			b.WriteString(plainInline(text))
			i = next
		case c == '*':
			i++
		case c == '_' && !intraword(s, i):
			i++
		case c == '<':
			if end := strings.IndexByte(s[i:min(len(s), i+maxInlineScan)], '>'); end > 1 && isTagOrAutolink(s[i+1:i+end]) {
				inner := s[i+1 : i+end]
				if strings.Contains(inner, "://") || strings.Contains(inner, "@") {
					b.WriteString(inner)
				}
				i += end + 1
				continue
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// maxInlineScan bounds how far plainInline looks for the end of a code span or link, which
// keeps it linear on input such as a long run of '['.
const maxInlineScan = 1000

// closingBackticks returns the index of a run of exactly n backticks at or after from, within
// maxInlineScan bytes, or -1.
func closingBackticks(s string, from, n int) int {
	for j := from; j < len(s) && j-from < maxInlineScan; {
		if s[j] != '`' {
			j++
			continue
		}
		m := countPrefix(s[j:], '`')
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// linkText parses "[text](destination)" starting at the '[' at open, within maxInlineScan
// bytes. It returns the text and the index after the closing ')'.
func linkText(s string, open int) (text string, next int, ok bool) {
	depth := 0
	for j := open; j < len(s) && j-open < maxInlineScan; j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if j+1 >= len(s) || s[j+1] != '(' {
					return "", 0, false
				}
				end := strings.IndexByte(s[j+2:min(len(s), j+2+maxInlineScan)], ')')
				if end < 0 {
					return "", 0, false
				}
				return s[open+1 : j], j + 2 + end + 1, true
			}
		}
	}
	return "", 0, false
}

func intraword(s string, i int) bool {
	if i == 0 || i+1 >= len(s) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+1:])
	alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
	return alnum(before) && alnum(after)
}

// isTagOrAutolink reports whether the text between '<' and '>' starts like an HTML tag, a
// comment or an autolink.
func isTagOrAutolink(inner string) bool {
	r := inner[0]
	return r == '/' || r == '!' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
