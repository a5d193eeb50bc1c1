package talent

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// skillEntry is one skill: canonical name and "|"-separated aliases (see skillTable).
type skillEntry struct {
	name    string
	aliases string
}

type alias struct {
	text   string // lower-case
	marked bool   // written "=Alias": also an ordinary word
	plural bool   // also matches with a trailing "s"
	skill  int
}

// lexicon finds skillTable's skills in a query.
type lexicon struct {
	aliases []alias // longest first, so "SQL Server" claims its text before "SQL"
}

var skills = sync.OnceValue(func() *lexicon {
	lx := &lexicon{}
	for i, e := range skillTable {
		for a := range strings.SplitSeq(e.aliases, "|") {
			marked := strings.HasPrefix(a, "=")
			a = strings.ToLower(strings.TrimPrefix(a, "="))
			if a == "" {
				continue
			}
			last := a[len(a)-1]
			lx.aliases = append(lx.aliases, alias{
				text: a, marked: marked, skill: i,
				plural: len(a) >= 4 && last >= 'a' && last <= 'z' && last != 's',
			})
		}
	}
	slices.SortStableFunc(lx.aliases, func(a, b alias) int {
		return cmp.Or(cmp.Compare(len(b.text), len(a.text)), strings.Compare(a.text, b.text))
	})
	return lx
})

// skillHit is one skill found in a text: byte span and the text as written.
type skillHit struct {
	skill      int
	start, end int
}

// find returns the non-overlapping skill occurrences in text outside claimed bytes, in order.
// lower is text lower-cased byte for byte (ASCII only), so offsets agree.
func (lx *lexicon) find(text, lower string, claimed []bool) []skillHit {
	taken := slices.Clone(claimed)
	var hits []skillHit
	for _, a := range lx.aliases {
		for off := 0; off < len(lower); {
			i := strings.Index(lower[off:], a.text)
			if i < 0 {
				break
			}
			s, e := off+i, off+i+len(a.text)
			off = s + 1
			if !boundaryBefore(text, s, a.text) {
				continue
			}
			switch {
			case boundaryAfter(text, e, a.text):
			case a.plural && e < len(lower) && lower[e] == 's' && boundaryAfter(text, e+1, a.text):
				e++
			default:
				continue
			}
			if slices.Contains(taken[s:e], true) || !markedOK(text, s, e, a) {
				continue
			}
			for j := s; j < e; j++ {
				taken[j] = true
			}
			hits = append(hits, skillHit{skill: a.skill, start: s, end: e})
		}
	}
	slices.SortFunc(hits, func(a, b skillHit) int { return cmp.Compare(a.start, b.start) })
	return hits
}

// markedOK applies the query rules of "=Alias" aliases: one- and two-letter ones must be
// written as in the table (upper-case), and "go" must not be the verb of "go to".
func markedOK(text string, s, e int, a alias) bool {
	if !a.marked {
		return true
	}
	word := text[s:e]
	if (len(a.text) == 1 || englishShort[a.text]) && word != strings.ToUpper(word) {
		return false
	}
	if a.text == "go" {
		rest := strings.ToLower(strings.TrimLeft(text[e:], " "))
		if strings.HasPrefix(rest, "to ") || rest == "to" || strings.HasPrefix(text[e:], "-to") {
			return false
		}
	}
	return true
}

// englishShort are two-letter aliases that are also English words or common abbreviations.
var englishShort = map[string]bool{"as": true, "it": true, "is": true, "in": true, "on": true, "at": true,
	"or": true, "an": true, "be": true, "do": true, "me": true, "us": true, "we": true, "no": true, "so": true,
	"up": true, "pr": true, "pm": true, "am": true, "ma": true, "ms": true, "ba": true, "bs": true}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// boundaryBefore and boundaryAfter implement whole-word matching. Aliases of one or two
// characters ("Go", "C", "R", "ML") also refuse "&" and "-" neighbours (R&D, C-suite) and a
// following "+" or "#" (C++, C#).
func boundaryBefore(text string, s int, a string) bool {
	if s == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:s])
	if len(a) <= 2 && (r == '&' || r == '-') && !(a == "go" && r == '-' && s >= 3 && strings.EqualFold(text[s-3:s], "ex-")) {
		return false
	}
	return !isWordRune(r)
}

func boundaryAfter(text string, e int, a string) bool {
	if e >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[e:])
	if len(a) <= 2 && strings.ContainsRune("&-+#", r) {
		return false
	}
	return !isWordRune(r)
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid in the original.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
