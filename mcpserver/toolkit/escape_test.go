package toolkit

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"Ada Quinn":                           "Ada Quinn",
		"PHONE_SMS":                           "PHONE_SMS",
		"_x_":                                 `\_x\_`,
		"Ada\nDecision: ACCEPTED":             `Ada\nDecision: ACCEPTED`,
		"a\r\nb\u2028c\u202ed\x00":            `a\r\nb\u{2028}c\u{202E}d\u{0}`,
		"<b>Eve</b>":                          "&lt;b>Eve&lt;/b>",
		"score >= 70, < 50":                   "score >= 70, < 50",
		"> quote":                             `\> quote`,
		"*Star* [x](https://e.example) | `c`": "\\*Star\\* \\[x\\](https://e.example) | \\`c\\`",
		"# heading":                           `\# heading`,
		"- item":                              `\- item`,
		"a - b":                               "a - b",
		"back\\slash":                         `back\\slash`,
	} {
		got := Escape(in)
		if got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\n\r") || strings.Contains(got, "<b") || strings.Contains(got, "</") {
			t.Errorf("Escape(%q) = %q keeps a line break or markup", in, got)
		}
	}
	var tx Text
	tx.H2("%s", "Eve\nDecision: ACCEPTED")
	tx.KV("Name", "<i>x</i>")
	tx.Table([]string{"name"}, [][]string{{"a\nb"}}, "none")
	if got := tx.String(); strings.Contains(got, "\nDecision") || strings.Contains(got, "<i>") || strings.Contains(got, "a\nb") {
		t.Errorf("Text printed a value unescaped:\n%s", got)
	}
}
