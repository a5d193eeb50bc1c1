package docsearch

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/docs"
)

func TestParse(t *testing.T) {
	type sec struct {
		anchor, title string
		level         int
		body          string
	}
	tests := []struct {
		name, src string
		title     string
		want      []sec
	}{{
		name:  "headings, preamble, duplicates and code fences",
		title: "Title code here",
		src: "Intro before any heading.\n\n" +
			"# Title `code` here\n\nPara 1.\n\n" +
			"## Install\n\ntext\n\n```sh\n# not a heading\n## neither\n```\n\n" +
			"## Install\n\nagain\n\n" +
			"### Install\n\n~~~\n# inside tilde fence\n~~~\n\n#### Level four stays in the body\n\n" +
			"## Trailing ##\n\n##NoSpace is text\n\n    # indented code, not a heading\n\n" +
			"## Links [and text](x.md) *em* __strong__ snake_case\n\n" +
			"## Ünïcödé — dash: ok?\nlast line\n",
		want: []sec{
			{"", "Title code here", 0, "Intro before any heading."},
			{"title-code-here", "Title code here", 1, "Para 1."},
			{"install", "Install", 2, "text\n\n```sh\n# not a heading\n## neither\n```"},
			{"install-1", "Install", 2, "again"},
			{"install-2", "Install", 3, "~~~\n# inside tilde fence\n~~~\n\n#### Level four stays in the body"},
			{"trailing", "Trailing", 2, "##NoSpace is text\n\n    # indented code, not a heading"},
			{"links-and-text-em-strong-snake_case", "Links and text em strong snake_case", 2, ""},
			{"ünïcödé--dash-ok", "Ünïcödé — dash: ok?", 2, "last line"},
		},
	}, {
		name:  "de-duplication like github-slugger",
		title: "a",
		src:   "# a\n# a\n# a-1\n# A\n",
		want: []sec{
			{"a", "a", 1, ""}, {"a-1", "a", 1, ""}, {"a-1-1", "a-1", 1, ""}, {"a-2", "A", 1, ""},
		},
	}, {
		name:  "fences: longer closing, unclosed, backtick in info string",
		title: "a heading after a non-fence",
		src: "## One\n````\n```\n# inside\n````\n" +
			"## Two\n``` a`b\n# a heading after a non-fence\n" +
			"## Three\n```\n## swallowed by the unclosed fence\n",
		want: []sec{
			{"one", "One", 2, "````\n```\n# inside\n````"},
			{"two", "Two", 2, "``` a`b"},
			{"a-heading-after-a-non-fence", "a heading after a non-fence", 1, ""},
			{"three", "Three", 2, "```\n## swallowed by the unclosed fence"},
		},
	}, {
		name:  "CRLF, closing sequences, escapes, HTML",
		title: "Foo#",
		src:   "# Foo#\r\nbody\r\n## Bar \\# baz ##\r\n### <code>x</code> & <https://e.com>\r\n#\r\n",
		want: []sec{
			{"foo", "Foo#", 1, "body"},
			{"bar--baz", "Bar # baz", 2, ""},
			{"x--httpsecom", "x & https://e.com", 3, ""},
			{"", "", 1, ""},
		},
	}, {
		name:  "no level-1 heading: the name is the title",
		title: "doc",
		src:   "text\n## Only h2\nmore",
		want: []sec{
			{"", "doc", 0, "text"},
			{"only-h2", "Only h2", 2, "more"},
		},
	}, {
		name:  "empty document",
		title: "doc",
		src:   "\n\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse("doc", []byte(tt.src))
			if d.Title != tt.title {
				t.Errorf("Title = %q, want %q", d.Title, tt.title)
			}
			var got []sec
			for _, s := range d.Sections {
				got = append(got, sec{s.Anchor, s.Title, s.Level, s.Body})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d sections, want %d:\n got %+v\nwant %+v", len(got), len(tt.want), got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("section %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParsePreambleAndEmptySlug(t *testing.T) {
	// The preamble takes the anchor ""; a heading whose slug is empty then gets "-1".
	d := Parse("doc", []byte("intro\n# !!!\nx\n"))
	if len(d.Sections) != 2 || d.Sections[0].Anchor != "" || d.Sections[1].Anchor != "-1" {
		t.Fatalf("sections = %+v, want anchors \"\" and \"-1\"", d.Sections)
	}
}

func TestSlug(t *testing.T) {
	for _, tt := range []struct{ heading, want string }{
		{"Create a job", "create-a-job"},
		{"What `make dev` does", "what-make-dev-does"},
		{"Authentication errors (401)", "authentication-errors-401"},
		{"Choose the company (companyId)", "choose-the-company-companyid"},
		{"The invitation runs the manual_invite workflow", "the-invitation-runs-the-manual_invite-workflow"},
		{"Integrity checks: cheating, fraud and identity", "integrity-checks-cheating-fraud-and-identity"},
		{"404 / 409", "404--409"},
		{"Getting, rotating and revoking keys", "getting-rotating-and-revoking-keys"},
		{"Send the current job as context", "send-the-current-job-as-context"},
	} {
		if got := Slug(plainInline(tt.heading)); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// TestDocLinksResolve checks every relative link of the real docs: the file exists and the
// fragment is the anchor of one of its headings. It holds the docs and the slugger to GitHub's
// rendering.
func TestDocLinksResolve(t *testing.T) {
	all, _, err := Load(docs.FS)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	for _, d := range all {
		anchors[d.Name] = map[string]bool{}
		for _, s := range d.Sections {
			anchors[d.Name][s.Anchor] = true
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	names, _ := fs.Glob(docs.FS, "*.md")
	for _, name := range names {
		src, _ := fs.ReadFile(docs.FS, name)
		var fence fenceState
		for n, line := range strings.Split(string(src), "\n") {
			if fence.inside(line) {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "../") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				doc := strings.TrimSuffix(name, ".md")
				if file != "" {
					if !strings.HasSuffix(file, ".md") {
						continue
					}
					doc = strings.TrimSuffix(file, ".md")
				}
				if anchors[doc] == nil {
					t.Errorf("%s:%d: link %q: no document %s.md", name, n+1, target, doc)
					continue
				}
				if frag != "" && !anchors[doc][frag] {
					t.Errorf("%s:%d: link %q: %s.md has no heading with anchor %q", name, n+1, target, doc, frag)
				}
			}
		}
	}
}

func TestSplitUnits(t *testing.T) {
	body := "First sentence, e.g. with an abbreviation. Second one has `a. B` code! Third?\n" +
		"Continued line.\n\n" +
		"- item one\n  continues here\n- item [two](x.md#y) <b>bold</b>\n\n" +
		"| Field | Meaning |\n|---|---|\n| `a|b` | the `<x>` value \\| more |\n\n" +
		"Send it like this:\n\n```sh\ncurl -X POST …\n```\n\n" +
		"#### Sub heading\n\nLast."
	want := []unit{
		{text: "First sentence, e.g. with an abbreviation."},
		{text: "Second one has `a. B` code!"},
		{text: "Third?"},
		{text: "Continued line."},
		{text: "item one continues here"},
		{text: "item two bold"},
		{text: "`a|b`: the `<x>` value | more"},
		{text: "Send it like this:", code: "```sh\ncurl -X POST …\n```"},
		{text: "Last."},
	}
	got := splitUnits(body)
	if len(got) != len(want) {
		t.Fatalf("splitUnits = %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("unit %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
