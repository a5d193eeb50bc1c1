package docsearch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary markdown to the splitter and to the answer units. Invariants: no
// panic; valid UTF-8 without NUL out (Postgres text); anchors unique within the document, in
// slug form; one section per heading of level 1 to 3 outside code fences, plus one for text
// before the first heading; every non-blank line of the input is kept, as a heading or in a
// body. The seed corpus is testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte("# Title\n\nintro\n\n## A\n\n```\n# not a heading\n```\n\n## A\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Parse("doc", src)
		if !utf8.ValidString(d.Title) || strings.Contains(d.Title, "\x00") {
			t.Fatalf("Title %q is not valid text", d.Title)
		}
		seen := map[string]bool{}
		headings := 0
		for _, s := range d.Sections {
			for _, v := range []string{s.Anchor, s.Title, s.Body} {
				if !utf8.ValidString(v) || strings.Contains(v, "\x00") {
					t.Fatalf("section %+v holds invalid UTF-8 or NUL", s)
				}
			}
			if seen[s.Anchor] {
				t.Fatalf("anchor %q twice in %+v", s.Anchor, d.Sections)
			}
			seen[s.Anchor] = true
			if strings.ContainsAny(s.Anchor, " \t\n") || strings.ToLower(s.Anchor) != s.Anchor {
				t.Fatalf("anchor %q is not a slug", s.Anchor)
			}
			if s.Level < 0 || s.Level > 3 || (s.Level == 0 && s.Anchor != "") {
				t.Fatalf("section %+v: bad level", s)
			}
			if s.Level > 0 {
				headings++
			}
			for _, u := range splitUnits(s.Body) {
				if !utf8.ValidString(u.text) || strings.TrimSpace(u.text) == "" {
					t.Fatalf("unit %q of body %q", u.text, s.Body)
				}
			}
		}

		// Walk the input again: count the headings, and find every other non-blank line in a body.
		bodyLines := map[string]int{}
		for _, s := range d.Sections {
			for _, l := range strings.Split(s.Body, "\n") {
				bodyLines[l]++
			}
		}
		text := strings.ToValidUTF8(string(src), "\uFFFD")
		text = strings.ReplaceAll(text, "\x00", "\uFFFD")
		var fence fenceState
		want := 0
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSuffix(line, "\r")
			if !fence.inside(line) {
				if level, _, ok := atxHeading(line); ok && level <= 3 {
					want++
					continue
				}
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			if bodyLines[line] == 0 {
				t.Fatalf("line %q is in no section body", line)
			}
			bodyLines[line]--
		}
		if headings != want {
			t.Fatalf("%d heading sections, want %d", headings, want)
		}
	})
}
