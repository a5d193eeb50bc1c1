package conversation_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/conversation"
)

// FuzzReply: whatever a candidate sends, reading it never panics, a choice index is in range
// exactly when Matched, and splitting it keeps every message within the part limit and loses
// only white space (and bytes that are not UTF-8, which no provider delivers).
func FuzzReply(f *testing.F) {
	for _, s := range []string{"2", "option 3", "2. Evenings", "please stop texting me", "STOP", "yes please", "I stopped working there in 2020", "👍 sure", "€€€ {}[]"} {
		f.Add(s)
	}
	choices := []string{"Mornings", "Evenings", "1 year", "5+ years", "Either mornings or evenings"}
	f.Fuzz(func(t *testing.T, s string) {
		i, m := conversation.ParseChoice(s, choices)
		if (m == conversation.Matched) != (i >= 0 && i < len(choices)) {
			t.Fatalf("ParseChoice(%q) = %d, %v", s, i, m)
		}
		_ = conversation.ParseKeyword(s)
		_ = conversation.IsRefusal(s)
		if !utf8.ValidString(s) || len(s) > 2000 {
			return
		}
		msgs := conversation.Split(s, 1)
		for _, msg := range msgs {
			if p := conversation.Measure(msg).Parts; p != 1 {
				t.Fatalf("Split(%q) gave a message of %d parts: %q", s, p, msg)
			}
		}
		if strings.Join(strings.Fields(strings.Join(msgs, "")), "") != strings.Join(strings.Fields(s), "") {
			t.Fatalf("Split(%q) = %q lost text", s, msgs)
		}
	})
}
