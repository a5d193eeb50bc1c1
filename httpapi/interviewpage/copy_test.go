package interviewpage

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"html/template"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/template/parse"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/interview"
)

// templateKeys returns the keys the templates name ({{.T "key"}}, {{$.P "key"}}).
func templateKeys(t *testing.T) map[Key]bool {
	t.Helper()
	tmpl, err := template.New("").ParseFS(templates, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[Key]bool{}
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n == nil {
				return
			}
			for _, c := range n.Cmds {
				walk(c)
			}
		case *parse.CommandNode:
			if len(n.Args) == 2 {
				var ident []string
				switch f := n.Args[0].(type) {
				case *parse.FieldNode:
					ident = f.Ident
				case *parse.VariableNode:
					ident = f.Ident
				}
				if len(ident) > 0 && (ident[len(ident)-1] == "T" || ident[len(ident)-1] == "P") {
					s, ok := n.Args[1].(*parse.StringNode)
					if !ok {
						t.Errorf("a text named by a non-literal key: %s", n)
					} else {
						keys[Key(s.Text)] = true
					}
				}
			}
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.TemplateNode:
			walk(n.Pipe)
		}
	}
	for _, tt := range tmpl.Templates() {
		if tt.Tree != nil {
			walk(tt.Tree.Root)
		}
	}
	return keys
}

// goKeys returns the values of the package's constants of type Key (the only way its Go code and
// the handlers name a text).
func goKeys(t *testing.T) map[Key]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[Key]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Key" {
				return true
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					t.Errorf("%s: a Key constant that is not a literal", fset.Position(v.Pos()))
					continue
				}
				s, _ := strconv.Unquote(lit.Value)
				keys[Key(s)] = true
			}
			return true
		})
	}
	return keys
}

// Every text the templates and the Go code name is in the catalogue, and every text of the
// catalogue is named somewhere.
func TestCatalogueKeys(t *testing.T) {
	used := templateKeys(t)
	if len(used) < 30 {
		t.Fatalf("found %d keys in the templates; the walk misses calls", len(used))
	}
	for k := range goKeys(t) {
		used[k] = true
	}
	for k := range used {
		if _, ok := catalogue[k]; !ok {
			t.Errorf("key %q is used but not in the catalogue", k)
		}
	}
	for k := range catalogue {
		if !used[k] {
			t.Errorf("catalogue key %q is used nowhere", k)
		}
	}
}

var placeholder = regexp.MustCompile(`\{[a-z]+\}`)

// Every screen renders from a prompt, with every placeholder filled (but the script's {left})
// and the deadline named in UTC inside a <time> element; an unknown key fails the rendering.
func TestEveryScreenRenders(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Date(2030, 12, 4, 17, 0, 0, 0, time.UTC)
	base := interview.Prompt{SessionID: uuid.New(), CompanyName: "Acme & Co", JobTitle: "Nurse <night>", Questions: 4,
		ExpiresAt: deadline, Intro: "Hello.", Outro: "Bye."}
	var datas []Data
	for stage := range stageScreens {
		pr := base
		pr.Stage = stage
		if stage == interview.StageQuestion {
			pr.Question = &interview.Question{Seq: 2, Text: "Why?", Index: 2, Total: 4}
		}
		datas = append(datas, Data{Prompt: &pr, Token: "tok", Notice: NoticeAlreadyAnswered, Error: ErrorTooLong})
	}
	for _, sc := range []Screen{ScreenUnknown, ScreenBusy, ScreenFailed} {
		datas = append(datas, Data{Screen: sc, Notice: NoticeUnavailable})
	}
	for _, d := range datas {
		var b bytes.Buffer
		if err := p.Render(&b, d); err != nil {
			t.Errorf("%v: %v", d.Screen, err)
			continue
		}
		body := strings.ReplaceAll(b.String(), "{left}", "")
		if m := placeholder.FindString(body); m != "" {
			t.Errorf("%v: placeholder %s left in the page", d.Screen, m)
		}
		if strings.Contains(body, "Nurse <night>") || strings.Contains(body, "Acme & Co") {
			t.Errorf("%v: a value is not escaped", d.Screen)
		}
		if d.Prompt != nil && d.Prompt.Stage == interview.StageConsent &&
			!strings.Contains(body, `<time class="deadline" datetime="2030-12-04T17:00:00Z">Wednesday 4 December 2030, 17:00 UTC</time>`) {
			t.Errorf("start screen: no deadline in UTC:\n%s", body)
		}
	}
	if err := p.Render(&bytes.Buffer{}, Data{Screen: ScreenFailed, Notice: "notice.nothing"}); err == nil {
		t.Error("a key missing from the catalogue renders")
	}
}
