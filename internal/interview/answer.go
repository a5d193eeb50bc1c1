package interview

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on an answer. MaxAnswerLen counts characters (runes) of the cleaned answer;
// MaxAnswerBytes bounds the raw input, which is refused before it is read further.
const (
	MaxAnswerLen   = 5000
	MaxAnswerBytes = 32 << 10
)

// Errors of CleanAnswer and CheckAnswer. Their messages never quote the answer, so they can be
// shown to the candidate and logged.
var (
	ErrEmptyAnswer   = errors.New("the answer is empty")
	ErrAnswerTooLong = errors.New("the answer is too long")
	ErrInvalidText   = errors.New("the answer holds characters that are not text")
	ErrNotAChoice    = errors.New("the answer is not one of the question's choices")
	ErrNotAQuestion  = errors.New("this step takes no answer")
)

// CleanAnswer checks text a candidate sent as an answer and returns it cleaned. It refuses input
// over MaxAnswerBytes (ErrAnswerTooLong), invalid UTF-8 and control characters other than tab,
// line feed and carriage return (ErrInvalidText: NUL, the other C0 and C1 controls, DEL), and
// then turns CRLF and lone CR into LF (a browser sends a textarea's line breaks as CRLF), trims
// white space at both ends, and refuses an empty result (ErrEmptyAnswer) or one over
// MaxAnswerLen characters (ErrAnswerTooLong). Format characters (zero-width joiners in emoji,
// bidirectional marks) are text and kept: whoever displays an answer isolates it.
func CleanAnswer(s string) (string, error) {
	return cleanText(s, textRule{maxBytes: MaxAnswerBytes, maxLen: MaxAnswerLen, empty: ErrEmptyAnswer, tooLong: ErrAnswerTooLong, invalid: ErrInvalidText})
}

// textRule is the bounds of cleanText and the errors it wraps.
type textRule struct {
	maxBytes, maxLen        int
	empty, tooLong, invalid error
}

// cleanText is the rule of text a person writes (an answer, a cancellation's reason): at most
// maxBytes, valid UTF-8, no control character but tab, line feed and carriage return; CRLF and
// lone CR become LF, white space is trimmed at both ends, and the result is not empty and at
// most maxLen characters.
func cleanText(s string, r textRule) (string, error) {
	if len(s) > r.maxBytes {
		return "", fmt.Errorf("%w: %d bytes, at most %d allowed", r.tooLong, len(s), r.maxBytes)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%w: not valid UTF-8", r.invalid)
	}
	n := 0
	for _, c := range s {
		n++
		if unicode.IsControl(c) && c != '\t' && c != '\n' && c != '\r' {
			return "", fmt.Errorf("%w: control character %U at character %d", r.invalid, c, n)
		}
	}
	if strings.ContainsRune(s, '\r') {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", r.empty
	}
	if n := utf8.RuneCountInString(s); n > r.maxLen {
		return "", fmt.Errorf("%w: %d characters, at most %d allowed", r.tooLong, n, r.maxLen)
	}
	return s, nil
}

// CheckAnswer checks the answer to step s and returns what to store: for a question with
// choices, the choice the cleaned answer equals exactly (ErrNotAChoice otherwise; the page sends
// the choice's own text); for any other question, the cleaned text. The intro and the outro
// take no answer (ErrNotAQuestion).
func CheckAnswer(s Step, answer string) (string, error) {
	if s.Kind != KindQuestion {
		return "", ErrNotAQuestion
	}
	a, err := CleanAnswer(answer)
	if err != nil || len(s.Choices) == 0 {
		return a, err
	}
	for _, c := range s.Choices {
		if a == c {
			return c, nil
		}
	}
	return "", ErrNotAChoice
}
