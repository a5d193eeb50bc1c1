package interview

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCleanAnswer(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"plain", "I led the migration.", "I led the migration.", nil},
		{"trimmed", " \t\n I led it. \r\n ", "I led it.", nil},
		{"CRLF and CR become LF, tabs stay", "line one\r\nline two\rline\tthree", "line one\nline two\nline\tthree", nil},
		{"emoji, accents, right-to-left, zero-width joiner", "Très bien 👩‍💻 שלום \u200f", "Très bien 👩‍💻 שלום \u200f", nil},
		{"exactly the limit", strings.Repeat("é", MaxAnswerLen), strings.Repeat("é", MaxAnswerLen), nil},
		{"limit counted after trimming", "  " + strings.Repeat("a", MaxAnswerLen) + "\n\n", strings.Repeat("a", MaxAnswerLen), nil},
		{"empty", "", "", ErrEmptyAnswer},
		{"only white space", " \r\n\t ", "", ErrEmptyAnswer},
		{"one over the limit", strings.Repeat("a", MaxAnswerLen+1), "", ErrAnswerTooLong},
		{"1 MB", strings.Repeat("x", 1<<20), "", ErrAnswerTooLong},
		{"NUL", "I led\x00 it", "", ErrInvalidText},
		{"escape", "\x1b[31mred", "", ErrInvalidText},
		{"DEL", "a\x7fb", "", ErrInvalidText},
		{"C1 next line", "a\u0085b", "", ErrInvalidText},
		{"invalid UTF-8", "caf\xc3", "", ErrInvalidText},
		{"UTF-8 surrogate half", "a\xed\xa0\x80b", "", ErrInvalidText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanAnswer(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("CleanAnswer = %.40q, %v; want %.40q, %v", got, err, tt.want, tt.err)
			}
			if err != nil && len(tt.in) > 3 && strings.Contains(err.Error(), tt.in[:4]) {
				t.Errorf("CleanAnswer error %q quotes the answer", err)
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	open := Step{Index: 1, Total: 2, Kind: KindQuestion, Source: SourceGuide, Text: "Tell me about you."}
	choice := Step{Index: 2, Total: 2, Kind: KindQuestion, Source: SourceStructured, Text: "Licence?", Choices: []string{"Yes", "No, but soon"}}
	tests := []struct {
		name   string
		step   Step
		answer string
		want   string
		err    error
	}{
		{"open question takes cleaned text", open, "  I cook.\r\n", "I cook.", nil},
		{"follow-up takes text", open.FollowUp("More?"), "Sure.", "Sure.", nil},
		{"a choice", choice, "No, but soon", "No, but soon", nil},
		{"a choice with white space around", choice, "\tYes \n", "Yes", nil},
		{"not a choice: other case", choice, "yes", "", ErrNotAChoice},
		{"not a choice: free text", choice, "Yes, since 2019", "", ErrNotAChoice},
		{"a choice with NUL", choice, "Yes\x00", "", ErrInvalidText},
		{"empty choice", choice, "", "", ErrEmptyAnswer},
		{"intro", Step{Kind: KindIntro}, "hello", "", ErrNotAQuestion},
		{"outro", Step{Kind: KindOutro, Index: 3}, "bye", "", ErrNotAQuestion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckAnswer(tt.step, tt.answer)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("CheckAnswer(%q) = %q, %v; want %q, %v", tt.answer, got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzCheckAnswer: whatever the page sends, an accepted answer is valid UTF-8 without control
// characters other than tab and LF, trimmed, not empty, within MaxAnswerLen, unchanged by a
// second cleaning, and one of the choices for a choice question; a refused one gets one of the
// package's errors, short, which never quotes it.
func FuzzCheckAnswer(f *testing.F) {
	for _, s := range []string{"I led the team.", " Yes \r\n", "a\x00b", "caf\xc3", "\r\r\n\t", "No", "👩‍💻\u202e", strings.Repeat("ab ", 2000)} {
		f.Add(s)
	}
	choice := Step{Index: 1, Total: 1, Kind: KindQuestion, Source: SourceStructured, Choices: []string{"Yes", "No"}}
	open := Step{Index: 1, Total: 1, Kind: KindQuestion, Source: SourceAdditional}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CheckAnswer(open, s)
		if err != nil {
			if !slices.ContainsFunc([]error{ErrEmptyAnswer, ErrAnswerTooLong, ErrInvalidText}, func(e error) bool { return errors.Is(err, e) }) {
				t.Fatalf("CheckAnswer(%q) error %v is not one of the package's", s, err)
			}
			if msg := err.Error(); len(msg) > 120 || (len(strings.TrimSpace(s)) >= 8 && strings.Contains(msg, strings.TrimSpace(s))) {
				t.Fatalf("CheckAnswer(%q) error %q quotes the answer", s, err)
			}
		} else {
			if !utf8.ValidString(got) || got == "" || got != strings.TrimSpace(got) || utf8.RuneCountInString(got) > MaxAnswerLen {
				t.Fatalf("CheckAnswer(%q) = %q", s, got)
			}
			for _, r := range got {
				if unicode.IsControl(r) && r != '\t' && r != '\n' {
					t.Fatalf("CheckAnswer(%q) = %q keeps %U", s, got, r)
				}
			}
			if again, err := CleanAnswer(got); again != got || err != nil {
				t.Fatalf("CleanAnswer(CheckAnswer(%q)) = %q, %v; want it unchanged", s, again, err)
			}
		}
		if c, err := CheckAnswer(choice, s); err == nil && !slices.Contains(choice.Choices, c) {
			t.Fatalf("CheckAnswer(choice, %q) = %q, not a choice", s, c)
		} else if err != nil && errors.Is(err, ErrNotAChoice) != (got != "") {
			t.Fatalf("CheckAnswer(choice, %q) = %v, but the text is %q", s, err, got)
		}
	})
}
