package browsertest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoProductionImport keeps this package test tooling: no package's non-test files import it
// (go list's Imports leaves out the _test.go files).
func TestNoProductionImport(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	const self = "github.com/recruitd/recruitd/internal/browsertest"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), ":")
		if pkg != self && strings.Contains(imports+" ", " "+self+" ") {
			t.Errorf("%s imports %s outside its tests", pkg, self)
		}
	}
}
