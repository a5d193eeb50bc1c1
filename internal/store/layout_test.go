package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parseDir parses the non-test Go files of dir (relative to this package).
func parseDir(t *testing.T, dir string, mode parser.Mode) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, mode)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return files
}

// TestStoreTakesStartsAsValues: no store function, method or struct field takes a func that
// builds workflow starts. Callers build the start rows (internal/kinds) and pass them as values,
// or write them through a store.Tx; only outbox.go writes them.
func TestStoreTakesStartsAsValues(t *testing.T) {
	buildsStarts := func(ft *ast.FuncType) bool {
		if ft.Results == nil {
			return false
		}
		for _, r := range ft.Results.List {
			found := false
			ast.Inspect(r.Type, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name == "WorkflowStart" {
					found = true
				}
				return !found
			})
			if found {
				return true
			}
		}
		return false
	}
	for name, f := range parseDir(t, ".", 0) {
		ast.Inspect(f, func(n ast.Node) bool {
			var fields *ast.FieldList
			switch n := n.(type) {
			case *ast.FuncDecl:
				fields = n.Type.Params
			case *ast.StructType:
				fields = n.Fields
			case *ast.TypeSpec:
				if ft, ok := n.Type.(*ast.FuncType); ok && buildsStarts(ft) {
					t.Errorf("%s: type %s is a func that builds workflow starts", name, n.Name.Name)
				}
				return true
			default:
				return true
			}
			for _, fld := range fields.List {
				if ft, ok := fld.Type.(*ast.FuncType); ok && buildsStarts(ft) {
					t.Errorf("%s: %v takes a func that builds workflow starts", name, fieldNames(fld))
				}
			}
			return true
		})
	}
}

func fieldNames(f *ast.Field) []string {
	var out []string
	for _, n := range f.Names {
		out = append(out, n.Name)
	}
	return out
}

// TestAdaptersNeverTouchTheStore: the adapters talk to one outside system each; what a feature
// does with their answers in Postgres is the feature's (internal/jobimport, internal/hrsuite, ...).
func TestAdaptersNeverTouchTheStore(t *testing.T) {
	for _, dir := range []string{"../aggregator", "../ats", "../channels", "../callbacks", "../idverify"} {
		for name, f := range parseDir(t, dir, parser.ImportsOnly) {
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/recruitd/recruitd/internal/store" {
					t.Errorf("%s imports internal/store", name)
				}
			}
		}
	}
}
