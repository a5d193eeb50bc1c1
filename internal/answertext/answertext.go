// Package answertext holds the English word rules that the local interviewer (internal/interview)
// and the local evaluator (internal/report) both read an answer with, so that the two judge an
// answer the same way: what a word is, and the phrases that mark an example. Pure and
// deterministic: words are compared, never meaning.
package answertext

import (
	"slices"
	"strings"
	"unicode"
)

// CountWords counts the words of s: runs of non-space characters holding a letter or a digit.
func CountWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, IsWordRune) >= 0 {
			n++
		}
	}
	return n
}

// IsWordRune reports whether r belongs to a word: a letter or a digit.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Words are the lower-cased runs of letters, digits and inner apostrophes of s ("e.g." gives
// "e" and "g").
func Words(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !IsWordRune(r) && r != '\'' && r != '’'
	})
	out := fields[:0]
	for _, f := range fields {
		if f = strings.Trim(f, "'’"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ExamplePhraseAt reports whether the lower-case words ws hold, from index i, one of the
// phrases that mark an example ("for example", "when I", "last year", "ago", ...).
func ExamplePhraseAt(ws []string, i int) bool {
	for _, p := range examplePhrases {
		if len(ws)-i >= len(p) && slices.Equal(ws[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

var examplePhrases = Phrases(
	"for example", "for instance", "such as", "e g", "once", "one time", "there was a time",
	"when i", "when we", "when my", "i remember", "at my last", "in my last", "in my previous",
	"in my current", "at my current", "last year", "last month", "last week", "ago",
)

// Phrases splits each phrase into its words.
func Phrases(ps ...string) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Fields(p)
	}
	return out
}

// Set is a set of words.
func Set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
