// Package disposable tells whether an e-mail address belongs to a disposable (throw-away) e-mail
// provider. The list is embedded (domains.txt) with its provenance in a header: where it came
// from, its version, checksums and the day it was taken. `recruitd integrity
// update-disposable-domains` rewrites the file from a newer release (ReadSource, Render); Parse
// refuses a file whose checksum or count does not match its header, so a hand edit is caught by
// the tests.
package disposable

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:embed domains.txt
var embedded []byte

// Provenance says where a list came from. Header keys in domains.txt: source, upstream,
// license, source-sha256, list-sha256, domains, retrieved.
type Provenance struct {
	Source       string // what was read, with its version: "npm package disposable-email-domains-js 1.26.0 (dist/...)"
	Upstream     string // the project that maintains the list, when Source republishes it
	License      string
	SourceSHA256 string // of the file read, as read
	ListSHA256   string // of the list as embedded: each domain followed by "\n"
	Domains      int
	Retrieved    string // the day the list was taken, YYYY-MM-DD
}

// List is a set of disposable domains.
type List struct {
	prov    Provenance
	domains map[string]struct{}
}

// Default is the embedded list. It panics when domains.txt is corrupt, which TestEmbeddedList
// rules out.
var Default = sync.OnceValue(func() *List {
	l, err := Parse(embedded)
	if err != nil {
		panic("disposable: embedded domains.txt: " + err.Error())
	}
	return l
})

// Provenance returns where the list came from.
func (l *List) Provenance() Provenance { return l.prov }

// Len is the number of domains.
func (l *List) Len() int { return len(l.domains) }

// Has reports whether domain itself is listed.
func (l *List) Has(domain string) bool {
	_, ok := l.domains[domain]
	return ok
}

// Domains returns the listed domains, sorted.
func (l *List) Domains() []string {
	out := make([]string, 0, len(l.domains))
	for d := range l.domains {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// Match reports whether the e-mail address's domain, or a parent domain of it with at least two
// labels, is listed (the list holds registrable domains, so "x.mailinator.com" matches
// "mailinator.com"), and the entry that matched. An address without a domain matches nothing.
func (l *List) Match(email string) (entry string, ok bool) {
	d := Domain(email)
	for d != "" && strings.Contains(d, ".") {
		if _, ok := l.domains[d]; ok {
			return d, true
		}
		_, d, _ = strings.Cut(d, ".")
	}
	return "", false
}

// Domain returns the lowercased domain of an e-mail address (after its last '@', without a
// trailing dot), or "" when there is none.
func Domain(email string) string {
	i := strings.LastIndexByte(email, '@')
	if i < 0 {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(email[i+1:])), ".")
}

// Parse reads a list in the format Render writes: "# key: value" header lines, then one domain a
// line. The header must name the source and agree with the domains (count and list-sha256).
func Parse(data []byte) (*List, error) {
	l := &List{domains: map[string]struct{}{}}
	header := map[string]string{}
	sum := sha256.New()
	var prev string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			if k, v, ok := strings.Cut(rest, ":"); ok {
				header[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			continue
		}
		if err := checkDomain(line); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if line <= prev {
			return nil, fmt.Errorf("line %d: %q is not in sorted order or repeated", n, line)
		}
		prev = line
		l.domains[line] = struct{}{}
		sum.Write([]byte(line + "\n"))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	p := Provenance{Source: header["source"], Upstream: header["upstream"], License: header["license"],
		SourceSHA256: header["source-sha256"], ListSHA256: header["list-sha256"], Retrieved: header["retrieved"]}
	var err error
	if p.Domains, err = strconv.Atoi(header["domains"]); err != nil {
		return nil, fmt.Errorf("header domains %q is not a number", header["domains"])
	}
	switch {
	case p.Source == "":
		return nil, fmt.Errorf("header names no source")
	case p.Domains != len(l.domains):
		return nil, fmt.Errorf("header says %d domains, the list has %d", p.Domains, len(l.domains))
	case p.ListSHA256 != hex.EncodeToString(sum.Sum(nil)):
		return nil, fmt.Errorf("list-sha256 %s does not match the domains (%x): edit the list with the update command only",
			p.ListSHA256, sum.Sum(nil))
	}
	l.prov = p
	return l, nil
}

// Render writes domains (lowercased, deduplicated and sorted here) with p as the header; p's
// Domains and ListSHA256 are computed. It returns the file and its provenance as written.
func Render(domains []string, p Provenance) ([]byte, Provenance, error) {
	set := map[string]struct{}{}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if err := checkDomain(d); err != nil {
			return nil, p, err
		}
		set[d] = struct{}{}
	}
	sorted := make([]string, 0, len(set))
	for d := range set {
		sorted = append(sorted, d)
	}
	slices.Sort(sorted)
	sum := sha256.New()
	for _, d := range sorted {
		sum.Write([]byte(d + "\n"))
	}
	p.Domains, p.ListSHA256 = len(sorted), hex.EncodeToString(sum.Sum(nil))
	for _, v := range []string{p.Source, p.Upstream, p.License, p.SourceSHA256, p.Retrieved} {
		if strings.ContainsAny(v, "\r\n") {
			return nil, p, fmt.Errorf("provenance %q spans lines", v)
		}
	}
	var b bytes.Buffer
	b.WriteString("# Disposable e-mail domains: the fraud signal disposableEmail (docs/integrity-checks.md).\n")
	b.WriteString("# Written by `recruitd integrity update-disposable-domains`; edit it with that command only.\n")
	for _, kv := range [][2]string{{"source", p.Source}, {"upstream", p.Upstream}, {"license", p.License},
		{"source-sha256", p.SourceSHA256}, {"list-sha256", p.ListSHA256}, {"domains", strconv.Itoa(p.Domains)}, {"retrieved", p.Retrieved}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "# %s: %s\n", kv[0], kv[1])
		}
	}
	for _, d := range sorted {
		b.WriteString(d)
		b.WriteByte('\n')
	}
	return b.Bytes(), p, nil
}

// checkDomain accepts a lowercase ASCII host name of at least two labels: letters, digits and
// inner hyphens (punycode "xn--" labels included), each label at most 63 bytes, 253 in all.
func checkDomain(d string) error {
	if len(d) == 0 || len(d) > 253 {
		return fmt.Errorf("%q is not a domain (length)", d)
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return fmt.Errorf("%q is not a domain (one label)", d)
	}
	for _, lb := range labels {
		if lb == "" || len(lb) > 63 || lb[0] == '-' || lb[len(lb)-1] == '-' {
			return fmt.Errorf("%q is not a domain (label %q)", d, lb)
		}
		for i := 0; i < len(lb); i++ {
			if c := lb[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("%q is not a domain (character %q)", d, c)
			}
		}
	}
	return nil
}
