package answertext

import (
	"slices"
	"testing"
)

func TestWordsAndExamples(t *testing.T) {
	if got := Words("E.g. I didn’t — 'quote' 40%"); !slices.Equal(got, []string{"e", "g", "i", "didn’t", "quote", "40"}) {
		t.Errorf("Words = %q", got)
	}
	if n := CountWords("  one, two -- 3  "); n != 3 {
		t.Errorf("CountWords = %d, want 3", n)
	}
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"For example, we shipped it", true},
		{"It was years ago", true},
		{"e.g. a migration", true},
		{"I like Go", false},
		{"for", false},
	} {
		ws, got := Words(tt.s), false
		for i := range ws {
			got = got || ExamplePhraseAt(ws, i)
		}
		if got != tt.want {
			t.Errorf("example phrase in %q = %v, want %v", tt.s, got, tt.want)
		}
	}
}
