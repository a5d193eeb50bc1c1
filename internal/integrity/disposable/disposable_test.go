package disposable

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedList: domains.txt parses (its checksum and count agree with its header), names
// its source, upstream, license, source checksum and day, and holds the well-known providers.
func TestEmbeddedList(t *testing.T) {
	l := Default()
	p := l.Provenance()
	if p.Source != "npm package disposable-email-domains-js 1.26.0 (dist/dict/disposable_email_blocklist.json)" ||
		!strings.HasPrefix(p.Upstream, "github.com/disposable-email-domains/disposable-email-domains") || p.License != "CC0-1.0" ||
		len(p.SourceSHA256) != 64 || len(p.ListSHA256) != 64 || len(p.Retrieved) != len("2006-01-02") {
		t.Errorf("provenance = %+v", p)
	}
	if l.Len() != p.Domains || l.Len() < 5000 {
		t.Errorf("Len = %d, header %d", l.Len(), p.Domains)
	}
	for _, d := range []string{"mailinator.com", "guerrillamail.com", "yopmail.com", "10minutemail.com"} {
		if !l.Has(d) {
			t.Errorf("%s is not listed", d)
		}
	}
}

func TestMatch(t *testing.T) {
	l := Default()
	tests := []struct {
		email, entry string
	}{
		{"ada@mailinator.com", "mailinator.com"},
		{"Ada@MAILINATOR.COM", "mailinator.com"},
		{"ada@inbox.mailinator.com", "mailinator.com"},   // a subdomain of a listed domain
		{"ada@mailinator.com.", "mailinator.com"},        // trailing dot of a fully qualified name
		{"\"a@b\"@yopmail.com", "yopmail.com"},           // the domain is after the last @
		{"ada@0-mailer.dynv6.net", "0-mailer.dynv6.net"}, // a listed third-level domain
		{"ada@dynv6.net", ""},                            // its parent is not listed
		{"ada@gmail.com", ""},
		{"ada@example.com", ""},
		{"ada@mailinatorx.com", ""},
		{"ada@com", ""},
		{"mailinator.com", ""}, // no @: no domain
		{"ada@", ""},
		{"", ""},
	}
	for _, tt := range tests {
		entry, ok := l.Match(tt.email)
		if entry != tt.entry || ok != (tt.entry != "") {
			t.Errorf("Match(%q) = %q, %v, want %q", tt.email, entry, ok, tt.entry)
		}
	}
	if d := Domain(" Ada@Example.ORG "); d != "example.org" {
		t.Errorf("Domain = %q", d)
	}
}

// TestParseRefusesHandEdits: a domain added, changed or out of order without the update command
// breaks the header's checksum, count or order.
func TestParseRefusesHandEdits(t *testing.T) {
	tests := []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"added", func(b []byte) []byte {
			return append(b, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz.example\n"...)
		}, "header says"},
		{"changed", func(b []byte) []byte {
			return bytes.Replace(b, []byte("\nmailinator.com\n"), []byte("\nmailinator.coma\n"), 1)
		}, "list-sha256"},
		{"unsorted", func(b []byte) []byte { return append(b, "aaaa.example\n"...) }, "sorted order"},
		{"not a domain", func(b []byte) []byte { return append(b, "zzzz_bad\n"...) }, "not a domain"},
		{"no source", func(b []byte) []byte { return bytes.Replace(b, []byte("# source:"), []byte("# was:"), 1) }, "no source"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.edit(bytes.Clone(embedded)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRenderAndReadSource(t *testing.T) {
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
	write(filepath.Join(pkg, "package.json"), `{"name":"disposable-email-domains-js","version":"9.9.9","license":"CC0-1.0"}`)
	write(filepath.Join(pkg, "dist/dict/disposable_email_blocklist.json"), `["b.example","A.example","a.example"]`)
	domains, p, err := ReadSource(pkg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "npm package disposable-email-domains-js 9.9.9 (dist/dict/disposable_email_blocklist.json)" || p.License != "CC0-1.0" ||
		p.SourceSHA256 != "afa8a6c849718374fe360d44bae0ad81098948623f7ecda4b79949b85f499e55" {
		t.Errorf("provenance = %+v", p)
	}
	p.Retrieved = "2026-01-02"
	data, p, err := Render(domains, p)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Disposable e-mail domains: the fraud signal disposableEmail (docs/integrity-checks.md).\n" +
		"# Written by `recruitd integrity update-disposable-domains`; edit it with that command only.\n" +
		"# source: npm package disposable-email-domains-js 9.9.9 (dist/dict/disposable_email_blocklist.json)\n" +
		"# upstream: github.com/disposable-email-domains/disposable-email-domains (disposable_email_blocklist.conf)\n" +
		"# license: CC0-1.0\n" +
		"# source-sha256: afa8a6c849718374fe360d44bae0ad81098948623f7ecda4b79949b85f499e55\n" +
		"# list-sha256: 8fb9a6ebbf9e0b506b9478b431e6e9dcd34fc2153daea407fc818280551cfed5\n" +
		"# domains: 2\n" +
		"# retrieved: 2026-01-02\n" +
		"a.example\nb.example\n"
	if string(data) != want {
		t.Errorf("Render =\n%s\nwant\n%s", data, want)
	}
	l, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if l.Provenance() != p || !l.Has("a.example") || l.Len() != 2 {
		t.Errorf("Parse(Render) = %+v, %d domains", l.Provenance(), l.Len())
	}

	conf := filepath.Join(dir, "disposable_email_blocklist.conf")
	write(conf, "# comment\n\nc.example\n  d.example  \n")
	domains, p, err = ReadSource(conf)
	if err != nil || strings.Join(domains, ",") != "c.example,d.example" || p.Source != "file disposable_email_blocklist.conf" {
		t.Errorf("ReadSource(conf) = %v, %+v, %v", domains, p, err)
	}

	write(filepath.Join(dir, "other", "package.json"), `{"name":"left-pad","version":"1.0.0"}`)
	if _, _, err := ReadSource(filepath.Join(dir, "other")); err == nil || !strings.Contains(err.Error(), "ships no list") {
		t.Errorf("unknown package: err = %v", err)
	}
	write(filepath.Join(dir, "bad.json"), `["ok.example","not a domain"]`)
	domains, p, err = ReadSource(filepath.Join(dir, "bad.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Render(domains, p); err == nil || !strings.Contains(err.Error(), `"not a domain" is not a domain`) {
		t.Errorf("Render(bad) err = %v", err)
	}
	write(filepath.Join(dir, "empty.conf"), "# nothing\n")
	if _, _, err := ReadSource(filepath.Join(dir, "empty.conf")); err == nil || !strings.Contains(err.Error(), "lists no domain") {
		t.Errorf("empty list: err = %v", err)
	}
}
