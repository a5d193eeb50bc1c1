package docsearch

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A unit is the smallest piece of a section an answer quotes: a sentence of a paragraph, a list
// item or a table row. Code blocks are never units; a short one that directly follows a unit
// ending in ':' ("with a JSON body:") is kept with it.
type unit struct {
	text string
	code string // fenced block, fences included, or ""
}

const (
	maxUnitRunes    = 400 // longer units are cut at a word boundary
	maxCodeLines    = 12  // longer code blocks are not quoted
	maxCodeBytes    = 800
	splitItemsAbove = 320 // list items longer than this are split into sentences
)

var (
	listItemRE  = regexp.MustCompile(`^\s{0,8}(?:[-*+]|\d{1,9}[.)])(?:\s+|$)`)
	tableSepRE  = regexp.MustCompile(`^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$`)
	linkRE      = regexp.MustCompile(`!?\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)`)
	htmlTagRE   = regexp.MustCompile(`</?[A-Za-z][^>]*>|<!--.*?-->`)
	whitespaceR = regexp.MustCompile(`\s+`)
)

// splitUnits breaks a section body (markdown) into units, in document order.
func splitUnits(body string) []unit {
	var (
		out   []unit
		para  []string // lines of the paragraph or list item being read
		item  bool     // para is a list item
		table []string
		fence fenceState
		code  []string
	)
	flushPara := func() {
		if len(para) == 0 {
			return
		}
		text := cleanText(strings.Join(para, " "))
		para = para[:0]
		if text == "" {
			return
		}
		if item && utf8.RuneCountInString(text) <= splitItemsAbove {
			out = append(out, unit{text: text})
			return
		}
		for _, s := range sentences(text) {
			out = append(out, unit{text: truncate(s, maxUnitRunes)})
		}
	}
	flushTable := func() {
		if len(table) == 0 {
			return
		}
		rows := table
		table = nil
		var header []string
		if len(rows) >= 2 && tableSepRE.MatchString(rows[1]) {
			header = tableCells(rows[0])
			rows = rows[2:]
		}
		for _, r := range rows {
			if t := tableRow(header, tableCells(r)); t != "" {
				out = append(out, unit{text: t})
			}
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if fence.inside(line) {
			if code == nil {
				flushPara()
				flushTable()
			}
			code = append(code, line)
			if fence.char == 0 { // the closing fence
				attachCode(out, code)
				code = nil
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flushPara()
			flushTable()
			item = false
		case strings.HasPrefix(trimmed, "|"):
			flushPara()
			table = append(table, trimmed)
		case strings.HasPrefix(trimmed, "#"):
			flushPara()
			flushTable()
			item = false
		case listItemRE.MatchString(line):
			flushPara()
			flushTable()
			item = true
			para = append(para, listItemRE.ReplaceAllString(line, ""))
		default:
			flushTable()
			para = append(para, strings.TrimLeft(trimmed, "> "))
		}
	}
	if code != nil { // a fence left open runs to the end of the section
		attachCode(out, code)
	}
	flushPara()
	flushTable()
	return out
}

// attachCode keeps a short code block with the unit before it when that unit introduces it.
func attachCode(units []unit, code []string) {
	if len(units) == 0 {
		return
	}
	last := &units[len(units)-1]
	block := strings.Join(code, "\n")
	if last.code == "" && strings.HasSuffix(last.text, ":") && len(code) <= maxCodeLines+2 && len(block) <= maxCodeBytes {
		last.code = block
	}
}

// tableCells returns the cells of a table row, as answer text.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	cells := splitCells(row)
	for i, c := range cells {
		cells[i] = cleanText(c)
	}
	return cells
}

// tableRow renders a row of a two-column table as "a: b", and a row of a wider table with its
// column names, "Name: a; Kind: b; Meaning: c", so that the row reads on its own. Empty cells
// and cells holding only a dash are left out.
func tableRow(header, cells []string) string {
	named := len(cells) > 2 && len(header) == len(cells)
	var parts []string
	for i, c := range cells {
		if c == "" || c == "—" || c == "-" {
			continue
		}
		if i < len(cells)-1 {
			c = strings.TrimSuffix(c, ".") // the cells are joined with "; "
		}
		if named && header[i] != "" {
			c = header[i] + ": " + c
		}
		parts = append(parts, c)
	}
	switch {
	case len(parts) == 0:
		return ""
	case named || len(parts) == 1:
		return truncate(strings.Join(parts, "; "), maxUnitRunes)
	}
	return truncate(parts[0]+": "+strings.Join(parts[1:], "; "), maxUnitRunes)
}

// splitCells splits a table row at '|' outside code spans and not escaped.
func splitCells(row string) []string {
	var cells []string
	start, inCode := 0, false
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '`':
			inCode = !inCode
		case '|':
			if !inCode {
				cells = append(cells, row[start:i])
				start = i + 1
			}
		}
	}
	return append(cells, row[start:])
}

// cleanText turns inline markdown into readable text for answers: links keep their text, HTML
// disappears, white space collapses; code spans and emphasis stay (answers are markdown).
func cleanText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '`' {
			n := countPrefix(s[i:], '`')
			if end := closingBackticks(s, i+n, n); end >= 0 {
				b.WriteString(s[i : end+n])
				i = end + n
				continue
			}
		}
		j := i + 1
		for j < len(s) && s[j] != '`' {
			j++
		}
		text := linkRE.ReplaceAllString(s[i:j], "$1")
		b.WriteString(htmlTagRE.ReplaceAllString(text, ""))
		i = j
	}
	out := strings.ReplaceAll(b.String(), `\|`, "|")
	return strings.TrimSpace(whitespaceR.ReplaceAllString(out, " "))
}

// plainText removes the markup left in answer text (code and emphasis markers), for snippets.
func plainText(s string) string {
	return strings.NewReplacer("`", "", "**", "", "__", "").Replace(s)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := strings.LastIndexByte(string(r), ' ')
	if cut < n/2 {
		return string(r) + "…"
	}
	return strings.TrimRight(string(r)[:cut], " ,;:") + "…"
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true, "no": true, "incl": true}

// sentences splits a paragraph after '.', '!' or '?' followed by a space and a capital letter,
// a digit or markup that starts a sentence, never inside a code span or after an abbreviation.
func sentences(text string) []string {
	var out []string
	start, inCode := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '`':
			inCode = !inCode
		case '.', '!', '?':
			if inCode || i+2 >= len(text) || text[i+1] != ' ' {
				continue
			}
			next, _ := utf8.DecodeRuneInString(text[i+2:])
			if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("`*([\"'", next)) {
				continue
			}
			if c == '.' && abbreviations[strings.ToLower(lastWord(text[start:i]))] {
				continue
			}
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 2
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return r == ' ' || r == '(' })
	return strings.Trim(s[i+1:], "*_`")
}
