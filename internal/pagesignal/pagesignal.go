// Package pagesignal parses the integrity signals that the interview page reports with each
// answer: characters pasted into the answer, time away from the page, and the typing pace. The
// payload comes from the candidate's browser, so it is untrusted: Parse is strict (a size bound,
// every field required, unknown or repeated fields refused, whole non-negative numbers within
// bounds) and never panics. docs/integrity-checks.md describes the payload and how the signals
// are scored (internal/integrity).
package pagesignal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// MaxBytes bounds a payload: nine numbers and their names take about 250 bytes.
const MaxBytes = 1024

// Bounds of the fields (inclusive). An answer holds at most 5,000 characters, but text can be
// pasted and deleted again; a question can stay open for days.
const (
	MaxChars      = 1_000_000
	MaxEvents     = 100_000
	MaxKeystrokes = 1_000_000
	MaxMillis     = 7 * 24 * 60 * 60 * 1000
)

// Signals is what the page measured while one question was on screen, up to the answer's
// submission.
type Signals struct {
	// PastedChars is the number of characters that paste events inserted into the answer field;
	// PasteEvents the number of those events.
	PastedChars int `json:"pastedChars"`
	PasteEvents int `json:"pasteEvents"`
	// HiddenMs and HiddenCount: time and times the page was hidden (visibilitychange to hidden:
	// another tab, the window minimised, the screen locked).
	HiddenMs    int `json:"hiddenMs"`
	HiddenCount int `json:"hiddenCount"`
	// BlurMs and BlurCount: time and times the page's window lost the focus (another window or
	// application in front, the page possibly still visible). Hidden time usually counts as
	// blurred too.
	BlurMs    int `json:"blurMs"`
	BlurCount int `json:"blurCount"`
	// Keystrokes is the number of keys pressed in the answer field; TypingMs the active typing
	// time (the gaps between keystrokes, each gap counted up to 2 seconds).
	Keystrokes int `json:"keystrokes"`
	TypingMs   int `json:"typingMs"`
	// AnswerChars is the length of the submitted answer in characters, as the page saw it.
	AnswerChars int `json:"answerChars"`
}

// AwayMs is the time away from the page: the longer of hidden and unfocused time (the two
// mostly overlap, so the longer one is a lower bound of their union).
func (s Signals) AwayMs() int { return max(s.HiddenMs, s.BlurMs) }

// AwayCount is how often the candidate left the page, counted the same way as AwayMs.
func (s Signals) AwayCount() int { return max(s.HiddenCount, s.BlurCount) }

// Error is why a payload was refused. Its message names the field and the rule, never the
// payload's content, so it may be shown to the page.
type Error struct {
	Field  string // empty for the payload as a whole
	Reason string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return "signal payload: " + e.Reason
	}
	return fmt.Sprintf("signal payload: %s: %s", e.Field, e.Reason)
}

type field struct {
	name string
	max  int
	set  func(*Signals, int)
}

var fields = []field{
	{"pastedChars", MaxChars, func(s *Signals, v int) { s.PastedChars = v }},
	{"pasteEvents", MaxEvents, func(s *Signals, v int) { s.PasteEvents = v }},
	{"hiddenMs", MaxMillis, func(s *Signals, v int) { s.HiddenMs = v }},
	{"hiddenCount", MaxEvents, func(s *Signals, v int) { s.HiddenCount = v }},
	{"blurMs", MaxMillis, func(s *Signals, v int) { s.BlurMs = v }},
	{"blurCount", MaxEvents, func(s *Signals, v int) { s.BlurCount = v }},
	{"keystrokes", MaxKeystrokes, func(s *Signals, v int) { s.Keystrokes = v }},
	{"typingMs", MaxMillis, func(s *Signals, v int) { s.TypingMs = v }},
	{"answerChars", MaxChars, func(s *Signals, v int) { s.AnswerChars = v }},
}

// Fields lists the payload's field names in their documented order.
func Fields() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

// Parse reads one payload: a JSON object with exactly the fields of Signals, each a whole number
// from 0 to its bound, written without sign, fraction or exponent. Durations and amounts without
// their count (time hidden but never hidden, pasted characters without a paste) are refused too.
// A refused payload gives the zero Signals.
func Parse(data []byte) (Signals, error) {
	s, err := parse(data)
	if err != nil {
		return Signals{}, err
	}
	return s, nil
}

func parse(data []byte) (Signals, error) {
	var s Signals
	if len(data) > MaxBytes {
		return s, &Error{Reason: fmt.Sprintf("larger than %d bytes", MaxBytes)}
	}
	if !utf8.Valid(data) {
		return s, &Error{Reason: "not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return s, &Error{Reason: "not a JSON object"}
	}
	seen := make([]bool, len(fields))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return s, &Error{Reason: "not valid JSON"}
		}
		name, _ := tok.(string)
		i := indexOf(name)
		if i < 0 {
			return s, &Error{Reason: "unknown field (want " + fieldList() + ")"}
		}
		f := fields[i]
		if seen[i] {
			return s, &Error{Field: f.name, Reason: "given twice"}
		}
		seen[i] = true
		tok, err = dec.Token()
		if err != nil {
			return s, &Error{Reason: "not valid JSON"}
		}
		num, ok := tok.(json.Number)
		if !ok {
			return s, &Error{Field: f.name, Reason: "not a number"}
		}
		v, ok := wholeNumber(string(num), f.max)
		if !ok {
			return s, &Error{Field: f.name, Reason: fmt.Sprintf("want a whole number from 0 to %d", f.max)}
		}
		f.set(&s, v)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return s, &Error{Reason: "not valid JSON"}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return s, &Error{Reason: "data after the object"}
	}
	for i, ok := range seen {
		if !ok {
			return s, &Error{Field: fields[i].name, Reason: "missing"}
		}
	}
	for _, c := range []struct {
		amount, count int
		field, reason string
	}{
		{s.PastedChars, s.PasteEvents, "pastedChars", "pasted characters without a paste event"},
		{s.HiddenMs, s.HiddenCount, "hiddenMs", "time hidden without a hidden event"},
		{s.BlurMs, s.BlurCount, "blurMs", "time unfocused without a blur event"},
		{s.TypingMs, s.Keystrokes, "typingMs", "typing time without keystrokes"},
	} {
		if c.amount > 0 && c.count == 0 {
			return s, &Error{Field: c.field, Reason: c.reason}
		}
	}
	return s, nil
}

// wholeNumber parses s as 0 or a number without leading zeros, sign, fraction or exponent, at
// most max.
func wholeNumber(s string, max int) (int, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v > max {
		return 0, false
	}
	return v, true
}

func indexOf(name string) int {
	for i, f := range fields {
		if f.name == name {
			return i
		}
	}
	return -1
}

func fieldList() string {
	var b bytes.Buffer
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.name)
	}
	return b.String()
}
