package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/integrity/disposable"
)

// runIn runs recruitd's command line in this process.
func runIn(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(t.Context(), append([]string{"recruitd"}, args...), func(string) string { return "" }, &out, &out)
	return out.String(), err
}

// TestUpdateDisposableDomains: the command rewrites the list from an npm package folder with
// its provenance, reports what changed against the list it replaces, and refuses what it
// cannot use without touching the file.
func TestUpdateDisposableDomains(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "package")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pkg, "package.json"), `{"name":"disposable-email-domains-js","version":"1.27.0","license":"CC0-1.0"}`)
	write(filepath.Join(pkg, "dist/dict/disposable_email_blocklist.json"), `["mailinator.com","yopmail.com","new-burner.example"]`)
	out := filepath.Join(dir, "domains.txt")
	// The list it replaces: the embedded one, so the diff is against a real release.
	if err := os.WriteFile(out, disposableEmbedded(t), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := disposable.Default()

	got, err := runIn(t, "integrity", "update-disposable-domains", "--from", pkg, "--out", out, "--date", "2026-12-01")
	if err != nil {
		t.Fatalf("update: %v\n%s", err, got)
	}
	want := "was: " + prev.Provenance().Source
	if !strings.Contains(got, want) || !strings.Contains(got, "now: npm package disposable-email-domains-js 1.27.0 (dist/dict/disposable_email_blocklist.json), 3 domains (1 added, "+
		strconv.Itoa(prev.Len()-2)+" removed)") || !strings.Contains(got, "retrieved 2026-12-01") {
		t.Errorf("output:\n%s", got)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	l, err := disposable.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p := l.Provenance()
	if p.Source != "npm package disposable-email-domains-js 1.27.0 (dist/dict/disposable_email_blocklist.json)" || p.Retrieved != "2026-12-01" ||
		p.License != "CC0-1.0" || p.Domains != 3 || !l.Has("new-burner.example") || !strings.Contains(got, p.SourceSHA256) {
		t.Errorf("written provenance = %+v", p)
	}

	// A plain file, described by the operator.
	conf := filepath.Join(dir, "disposable_email_blocklist.conf")
	write(conf, "mailinator.com\n")
	if got, err := runIn(t, "integrity", "update-disposable-domains", "--from", conf, "--out", out, "--date", "2026-12-02",
		"--source", "github.com/disposable-email-domains/disposable-email-domains@a645893 disposable_email_blocklist.conf"); err != nil ||
		!strings.Contains(got, "1 domains (0 added, 2 removed)") {
		t.Errorf("update from a file = %v\n%s", err, got)
	}

	before, _ := os.ReadFile(out)
	write(filepath.Join(dir, "bad.json"), `["ok.example","not a domain"]`)
	for _, args := range [][]string{
		{"--out", out},
		{"--from", filepath.Join(dir, "bad.json"), "--out", out},
		{"--from", filepath.Join(dir, "missing"), "--out", out},
		{"--from", conf, "--out", filepath.Join(dir, "no-such-folder", "domains.txt")},
		{"--from", conf, "--out", out, "--date", "yesterday"},
	} {
		if got, err := runIn(t, append([]string{"integrity", "update-disposable-domains"}, args...)...); err == nil {
			t.Errorf("update %v succeeded:\n%s", args, got)
		}
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("a refused update changed the list")
	}
}

func disposableEmbedded(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", disposableListPath))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
