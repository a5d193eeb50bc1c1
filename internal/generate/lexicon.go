package generate

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind groups skills that share question and criterion wording.
type kind uint8

const (
	kTech    kind = iota // languages, frameworks, platforms: proper names
	kConcept             // technical practices: common nouns
	kTool                // business software: proper names
	kBiz                 // sales, marketing, finance, HR, admin, product, legal
	kCare                // customer support, hospitality, retail, healthcare, education
	kOps                 // warehouse, logistics, trades, manufacturing
	kCred                // licences and certifications
	kSoft                // soft skills
	kLang                // spoken languages
)

// skillEntry is one skill of the lexicon. aliases is "|"-separated; matching is whole-word and
// ASCII case-insensitive, except for aliases written "=Alias", which match case-sensitively
// (for words like "Go" or "Excel" that are also ordinary English).
type skillEntry struct {
	name    string
	kind    kind
	aliases string
}

type alias struct {
	text   string
	exact  bool // case-sensitive
	plural bool // also matches with a trailing "s"
	skill  int
}

// lexicon finds the skills of skillTable in text.
type lexicon struct {
	entries []skillEntry
	aliases []alias // longest first, so "SQL Server" claims its text before "SQL"
}

func newLexicon() *lexicon {
	lx := &lexicon{entries: skillTable}
	for i, e := range skillTable {
		for a := range strings.SplitSeq(e.aliases, "|") {
			exact := strings.HasPrefix(a, "=")
			a = strings.TrimPrefix(a, "=")
			if !exact {
				a = asciiLower(a)
			}
			last := a[len(a)-1]
			lx.aliases = append(lx.aliases, alias{
				text: a, exact: exact, skill: i,
				plural: !exact && len(a) >= 4 && last >= 'a' && last <= 'z' && last != 's',
			})
		}
	}
	slices.SortStableFunc(lx.aliases, func(a, b alias) int {
		if c := cmp.Compare(len(b.text), len(a.text)); c != 0 {
			return c
		}
		return strings.Compare(a.text, b.text)
	})
	return lx
}

// hit is one occurrence of a skill in a text, as byte offsets.
type hit struct {
	skill, start, end int
}

// find returns the skill occurrences in text, ordered by position. Occurrences never overlap:
// a longer alias wins over a shorter one inside it.
func (lx *lexicon) find(text string) []hit {
	if text == "" {
		return nil
	}
	lower := asciiLower(text)
	claimed := make([]bool, len(text))
	var hits []hit
	for _, a := range lx.aliases {
		hay := lower
		if a.exact {
			hay = text
		}
		for off := 0; off < len(hay); {
			i := strings.Index(hay[off:], a.text)
			if i < 0 {
				break
			}
			s, e := off+i, off+i+len(a.text)
			off = s + 1
			if !wordStart(text, s, a) {
				continue
			}
			switch {
			case wordEnd(text, e, a):
			case a.plural && e < len(hay) && hay[e] == 's' && wordEnd(text, e+1, a):
				e++
			default:
				continue
			}
			if slices.Contains(claimed[s:e], true) {
				continue
			}
			for j := s; j < e; j++ {
				claimed[j] = true
			}
			hits = append(hits, hit{skill: a.skill, start: s, end: e})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(a.start, b.start) })
	return hits
}

// skillsIn returns the skills found in text, in order of first occurrence.
func (lx *lexicon) skillsIn(text string) []int {
	var ids []int
	for _, h := range lx.find(text) {
		if !slices.Contains(ids, h.skill) {
			ids = append(ids, h.skill)
		}
	}
	return ids
}

// lookup returns the skill whose name or alias is exactly s (ignoring case), or -1.
func (lx *lexicon) lookup(s string) int {
	s = strings.TrimSpace(s)
	for _, h := range lx.find(s) {
		if h.start == 0 && h.end == len(s) {
			return h.skill
		}
	}
	return -1
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordStart and wordEnd implement whole-word matching. Aliases of one or two characters ("Go",
// "C", "R", "ML") also refuse "&" and "-" neighbours (R&D, C-suite, go-to-market) and a
// following "+" or "#" (C++, C#).
func wordStart(text string, s int, a alias) bool {
	if s == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:s])
	if len(a.text) <= 2 && (r == '&' || r == '-') {
		return false
	}
	return !isWordRune(r)
}

func wordEnd(text string, e int, a alias) bool {
	if e >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[e:])
	if len(a.text) <= 2 && strings.ContainsRune("&-+#", r) {
		return false
	}
	return !isWordRune(r)
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid in the original.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// inSentence is how a skill reads inside a sentence: common nouns are lower-cased
// ("customer service"), proper names and acronyms are kept ("PostgreSQL", "HIPAA compliance").
func inSentence(e skillEntry) string {
	switch e.kind {
	case kTech, kTool, kCred, kLang:
		return e.name
	}
	words := strings.Fields(e.name)
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) && strings.ToLower(w[n:]) == w[n:] {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}
