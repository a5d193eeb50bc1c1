package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/answertext"
)

// The features the local rules read from an answer's text, English only. They compare words,
// never meaning, and are the same on every run.

// countWords and isWordRune are the interviewer's definitions (internal/answertext).
var (
	countWords = answertext.CountWords
	isWordRune = answertext.IsWordRune
)

// token is a word of an answer: a run of letters and digits, with inner apostrophes ("don't")
// and, between digits, inner points and commas ("3.5", "40,000").
type token struct {
	text, lower string
	start, end  int  // byte offsets in the text
	first       bool // the first word of a sentence: of the text, or after . ! ? or a line break
}

func tokenize(s string) []token {
	var out []token
	first := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			if r == '.' || r == '!' || r == '?' || r == '\n' {
				first = true
			}
			i += size
			continue
		}
		j := i + size
		prev := r
		for j < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[j:])
			if isWordRune(r2) {
				prev = r2
				j += sz
				continue
			}
			next, nsz := utf8.DecodeRuneInString(s[j+sz:])
			joins := nsz > 0 && ((r2 == '\'' || r2 == '’') && unicode.IsLetter(prev) && unicode.IsLetter(next) ||
				(r2 == '.' || r2 == ',') && unicode.IsDigit(prev) && unicode.IsDigit(next))
			if !joins {
				break
			}
			j += sz
		}
		w := s[i:j]
		out = append(out, token{text: w, lower: strings.ToLower(w), start: i, end: j, first: first})
		first = false
		i = j
	}
	return out
}

// sentences splits s into sentences: spans ending at a line break, or at . ! ? followed by
// white space or the end of the text; trimmed of white space, and only those holding a word.
func sentences(s string) [][2]int {
	var out [][2]int
	add := func(a, b int) {
		for a < b {
			r, size := utf8.DecodeRuneInString(s[a:])
			if !unicode.IsSpace(r) {
				break
			}
			a += size
		}
		for b > a {
			r, size := utf8.DecodeLastRuneInString(s[a:b])
			if !unicode.IsSpace(r) {
				break
			}
			b -= size
		}
		if strings.IndexFunc(s[a:b], isWordRune) >= 0 {
			out = append(out, [2]int{a, b})
		}
	}
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			add(start, i)
			start = i + size
		case r == '.' || r == '!' || r == '?':
			next, nsz := utf8.DecodeRuneInString(s[i+size:])
			if nsz == 0 || unicode.IsSpace(next) {
				add(start, i+size)
				start = i + size
			}
		}
		i += size
	}
	add(start, len(s))
	return out
}

// quote is s[a:b] cut to at most MaxQuoteLen characters at a word boundary (at the limit when
// one word is longer): always a substring of s.
func quote(s string, a, b int) string {
	q := s[a:b]
	if utf8.RuneCountInString(q) <= MaxQuoteLen {
		return q
	}
	cut, n := 0, 0
	for i := range q {
		if n == MaxQuoteLen {
			cut = i
			break
		}
		n++
	}
	if sp := strings.LastIndexFunc(q[:cut], unicode.IsSpace); sp > 0 {
		cut = sp
	}
	return strings.TrimRightFunc(q[:cut], unicode.IsSpace)
}

// specific returns the key of t when it is a specific, counted once per key:
//
//   - a number: a word holding a digit ("2019", "40", "3.5", "S3");
//   - a named tool, product or organisation: a word with an upper-case letter after its first
//     ("PostgreSQL", "AWS", "iOS"), or a capitalised word that does not start a sentence
//     ("Kubernetes" in "we moved to Kubernetes"), except "I" and its contractions and "OK";
//   - an outcome word of outcomeWords ("increased", "reduced", "saved", "result", ...).
func specific(t token) (string, bool) {
	switch {
	case strings.IndexFunc(t.text, unicode.IsDigit) >= 0:
		return "number:" + t.lower, true
	case notNamed[t.lower]:
	case utf8.RuneCountInString(t.text) > 1 && strings.IndexFunc(t.text[utf8.RuneLen([]rune(t.text)[0]):], unicode.IsUpper) >= 0,
		!t.first && unicode.IsUpper([]rune(t.text)[0]):
		return "name:" + t.lower, true
	}
	if outcomeWords[t.lower] {
		return "outcome:" + t.lower, true
	}
	return "", false
}

var notNamed = set("i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "ok")

var outcomeWords = set(
	"achieved", "cut", "decreased", "delivered", "doubled", "exceeded", "grew", "halved",
	"improved", "increased", "launched", "lowered", "outcome", "outcomes", "raised", "reduced",
	"result", "resulted", "results", "saved", "shipped", "won",
)

// hasExample reports whether toks hold an example marker: a phrase of answertext's ("for
// example", "when I", "last year", ...), compared word by word in lower case ("e.g." reads as
// "e g").
func hasExample(toks []token) bool {
	ws := make([]string, len(toks))
	for i, t := range toks {
		ws[i] = t.lower
	}
	for i := range ws {
		if answertext.ExamplePhraseAt(ws, i) {
			return true
		}
	}
	return false
}

// terms are the stems of a criterion's name and description: their words of at least three
// characters, lower case, that are not in stopTerms.
func terms(c Criterion) map[string]bool {
	out := map[string]bool{}
	for _, t := range tokenize(c.Name + "\n" + c.Description) {
		if utf8.RuneCountInString(t.lower) >= 3 && !stopTerms[t.lower] {
			out[stem(t.lower)] = true
		}
	}
	return out
}

// stem reduces a lower-case word so that forms of one word meet: it removes the first suffix
// of suffixes that leaves at least four characters, then keeps at most six characters
// ("communication" and "communicate" give "commun"; "tests", "tested" and "testing" "test").
func stem(w string) string {
	r := []rune(w)
	for _, suf := range suffixes {
		n := utf8.RuneCountInString(suf)
		if len(r)-n >= 4 && strings.HasSuffix(w, suf) {
			r = r[:len(r)-n]
			break
		}
	}
	if len(r) > 6 {
		r = r[:6]
	}
	return string(r)
}

var suffixes = []string{"ations", "ation", "ments", "ings", "ions", "ment", "ness", "ing", "ion", "ers", "ies", "ied", "ed", "es", "er", "ly", "s"}

// stopTerms are words of a criterion that say nothing a candidate's answer would repeat:
// function words and the words every rubric uses.
var stopTerms = set(
	// function words
	"about", "after", "again", "all", "also", "and", "any", "are", "been", "before", "being",
	"both", "but", "can", "could", "did", "does", "each", "etc", "few", "for", "from", "further",
	"had", "has", "have", "her", "here", "his", "how", "into", "its", "just", "may", "might",
	"more", "most", "must", "nor", "not", "now", "off", "once", "only", "onto", "other", "our",
	"out", "over", "own", "same", "shall", "she", "should", "some", "such", "than", "that", "the",
	"their", "them", "then", "there", "these", "they", "this", "those", "too", "under", "very",
	"was", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
	"with", "would", "yes", "you", "your",
	// rubric words
	"ability", "able", "area", "areas", "candidate", "candidates", "clear", "clearly",
	"demonstrate", "demonstrated", "demonstrates", "demonstrating", "evidence", "example",
	"examples", "experience", "experienced", "good", "include", "includes", "including", "job",
	"know", "knowledge", "knows", "level", "related", "relevant", "role", "show", "showed",
	"showing", "shown", "shows", "skill", "skills", "strong", "understand", "understanding",
	"understands", "use", "used", "uses", "using", "way", "ways", "well", "work", "working", "works",
)

var set = answertext.Set

// clip cuts s to n characters, marked with "…" when cut (for names in the summary, never for
// quotes).
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRightFunc(string(r[:n-1]), unicode.IsSpace) + "…"
}

// oneLine collapses white space runs into one space and trims.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// hasControl reports whether s holds a control character.
func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

func count[T any](xs []T, f func(T) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}
