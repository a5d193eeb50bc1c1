package pagesignal

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics, that what it accepts is within the bounds and reads
// back the same when written again, and that what it refuses is an *Error with the zero Signals.
// The seed corpus is testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	f.Add([]byte(`{"pastedChars":0,"pasteEvents":0,"hiddenMs":0,"hiddenCount":0,"blurMs":0,"blurCount":0,"keystrokes":0,"typingMs":0,"answerChars":0}`))
	f.Add([]byte(`{"pastedChars":1e3}`))
	f.Add([]byte(`{"pastedChars":0,"pastedChars":0}`))
	f.Add([]byte(`[{}]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse(%q) error %v is not an *Error", data, err)
			}
			if s != (Signals{}) {
				t.Fatalf("Parse(%q) refused but returned %+v", data, s)
			}
			return
		}
		if len(data) > MaxBytes {
			t.Fatalf("Parse accepted %d bytes", len(data))
		}
		for _, v := range []struct{ v, max int }{{s.PastedChars, MaxChars}, {s.PasteEvents, MaxEvents}, {s.HiddenMs, MaxMillis},
			{s.HiddenCount, MaxEvents}, {s.BlurMs, MaxMillis}, {s.BlurCount, MaxEvents}, {s.Keystrokes, MaxKeystrokes},
			{s.TypingMs, MaxMillis}, {s.AnswerChars, MaxChars}} {
			if v.v < 0 || v.v > v.max {
				t.Fatalf("Parse(%q) = %+v: a field out of bounds", data, s)
			}
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := Parse(again); err != nil || back != s {
			t.Fatalf("Parse(%q) = %+v, but its JSON %s parses to %+v, %v", data, s, again, back, err)
		}
	})
}
