package pagesignal

import (
	"errors"
	"strings"
	"testing"
)

const valid = `{"pastedChars":480,"pasteEvents":1,"hiddenMs":42000,"hiddenCount":2,"blurMs":45000,"blurCount":3,` +
	`"keystrokes":12,"typingMs":3100,"answerChars":492}`

func TestParseValid(t *testing.T) {
	got, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	want := Signals{PastedChars: 480, PasteEvents: 1, HiddenMs: 42000, HiddenCount: 2, BlurMs: 45000, BlurCount: 3,
		Keystrokes: 12, TypingMs: 3100, AnswerChars: 492}
	if got != want {
		t.Errorf("Parse = %+v, want %+v", got, want)
	}
	if got.AwayMs() != 45000 || got.AwayCount() != 3 {
		t.Errorf("AwayMs, AwayCount = %d, %d, want 45000, 3", got.AwayMs(), got.AwayCount())
	}
	// Field order and white space are free; the bounds themselves are accepted.
	bounds := " {\n\"answerChars\": 1000000, \"typingMs\":604800000,\"keystrokes\":1000000,\"blurCount\":100000,\"blurMs\":604800000," +
		"\"hiddenCount\":100000,\"hiddenMs\":604800000,\"pasteEvents\":100000,\"pastedChars\":1000000}\n"
	got, err = Parse([]byte(bounds))
	if err != nil {
		t.Fatal(err)
	}
	if got.AnswerChars != MaxChars || got.TypingMs != MaxMillis || got.BlurCount != MaxEvents || got.Keystrokes != MaxKeystrokes {
		t.Errorf("Parse(bounds) = %+v", got)
	}
	zero := `{"pastedChars":0,"pasteEvents":0,"hiddenMs":0,"hiddenCount":0,"blurMs":0,"blurCount":0,"keystrokes":0,"typingMs":0,"answerChars":0}`
	if got, err := Parse([]byte(zero)); err != nil || got != (Signals{}) {
		t.Errorf("Parse(zeros) = %+v, %v", got, err)
	}
}

func TestParseRefuses(t *testing.T) {
	with := func(old, new string) string { return strings.Replace(valid, old, new, 1) }
	tests := []struct {
		name, payload string
		want          string // the error message
	}{
		{"empty", ``, "signal payload: not a JSON object"},
		{"null", `null`, "signal payload: not a JSON object"},
		{"array", `[1,2]`, "signal payload: not a JSON object"},
		{"string", `"x"`, "signal payload: not a JSON object"},
		{"too large", `{"pastedChars":0` + strings.Repeat(" ", MaxBytes) + `}`, "signal payload: larger than 1024 bytes"},
		{"invalid UTF-8", "{\"pastedChars\":0,\"\xff\":1}", "signal payload: not valid UTF-8"},
		{"unknown field", with(`"answerChars"`, `"answerLength"`),
			"signal payload: unknown field (want pastedChars, pasteEvents, hiddenMs, hiddenCount, blurMs, blurCount, keystrokes, typingMs, answerChars)"},
		{"case matters", with(`"typingMs"`, `"TypingMs"`),
			"signal payload: unknown field (want pastedChars, pasteEvents, hiddenMs, hiddenCount, blurMs, blurCount, keystrokes, typingMs, answerChars)"},
		{"twice", with(`"answerChars":492`, `"answerChars":492,"answerChars":1`), "signal payload: answerChars: given twice"},
		{"missing", with(`,"answerChars":492`, ``), "signal payload: answerChars: missing"},
		{"negative", with(`"keystrokes":12`, `"keystrokes":-12`), "signal payload: keystrokes: want a whole number from 0 to 1000000"},
		{"negative zero", with(`"keystrokes":12`, `"keystrokes":-0`), "signal payload: keystrokes: want a whole number from 0 to 1000000"},
		{"fraction", with(`"typingMs":3100`, `"typingMs":3100.5`), "signal payload: typingMs: want a whole number from 0 to 604800000"},
		{"exponent", with(`"typingMs":3100`, `"typingMs":31e2`), "signal payload: typingMs: want a whole number from 0 to 604800000"},
		{"over the bound", with(`"hiddenCount":2`, `"hiddenCount":100001`), "signal payload: hiddenCount: want a whole number from 0 to 100000"},
		{"huge", with(`"blurMs":45000`, `"blurMs":99999999999999999999999`), "signal payload: blurMs: want a whole number from 0 to 604800000"},
		{"string number", with(`"blurMs":45000`, `"blurMs":"45000"`), "signal payload: blurMs: not a number"},
		{"null value", with(`"blurMs":45000`, `"blurMs":null`), "signal payload: blurMs: not a number"},
		{"nested", with(`"blurMs":45000`, `"blurMs":{"a":[1]}`), "signal payload: blurMs: not a number"},
		{"trailing comma", with(`492}`, `492,}`), "signal payload: not valid JSON"},
		{"unclosed", strings.TrimSuffix(valid, "}"), "signal payload: not valid JSON"},
		{"two objects", valid + valid, "signal payload: data after the object"},
		{"trailing garbage", valid + "x", "signal payload: data after the object"},
		{"paste without event", with(`"pasteEvents":1`, `"pasteEvents":0`), "signal payload: pastedChars: pasted characters without a paste event"},
		{"hidden without event", with(`"hiddenCount":2`, `"hiddenCount":0`), "signal payload: hiddenMs: time hidden without a hidden event"},
		{"blur without event", with(`"blurCount":3`, `"blurCount":0`), "signal payload: blurMs: time unfocused without a blur event"},
		{"typing without keys", with(`"keystrokes":12`, `"keystrokes":0`), "signal payload: typingMs: typing time without keystrokes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.payload))
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %+v, %v; want an *Error", got, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
			if got != (Signals{}) {
				t.Errorf("refused payload still returned %+v", got)
			}
		})
	}
}

func TestFieldsMatchJSONNames(t *testing.T) {
	want := []string{"pastedChars", "pasteEvents", "hiddenMs", "hiddenCount", "blurMs", "blurCount", "keystrokes", "typingMs", "answerChars"}
	if got := Fields(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Fields() = %v, want %v", got, want)
	}
}
