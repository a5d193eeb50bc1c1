package disposable

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxSourceBytes bounds a source file (the list is about 200 KB).
const maxSourceBytes = 32 << 20

// packageLists are the list files of the npm packages known to ship one, relative to the
// package folder, and the project each republishes.
var packageLists = []struct{ pkg, file, upstream string }{
	{"disposable-email-domains-js", "dist/dict/disposable_email_blocklist.json",
		"github.com/disposable-email-domains/disposable-email-domains (disposable_email_blocklist.conf)"},
}

// ReadSource reads the domains of path for an update: either an npm package folder (unpacked
// from `npm pack NAME@VERSION`: package.json names the package and version, and the package's
// list file is read) or a single file: .json (an array of domains) or the upstream .conf
// format (one domain a line; blank lines and '#' comments skipped). The provenance names what
// was read and its sha256; Retrieved is left to the caller.
func ReadSource(path string) ([]string, Provenance, error) {
	var p Provenance
	fi, err := os.Stat(path)
	if err != nil {
		return nil, p, err
	}
	file := path
	if fi.IsDir() {
		var pkg struct{ Name, Version, License string }
		raw, err := readBounded(filepath.Join(path, "package.json"))
		if err != nil {
			return nil, p, fmt.Errorf("%s is no npm package folder: %w", path, err)
		}
		if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Name == "" || pkg.Version == "" {
			return nil, p, fmt.Errorf("%s: package.json names no package and version", path)
		}
		known := false
		for _, k := range packageLists {
			if k.pkg == pkg.Name {
				file, p.Upstream, known = filepath.Join(path, filepath.FromSlash(k.file)), k.upstream, true
				p.Source = fmt.Sprintf("npm package %s %s (%s)", pkg.Name, pkg.Version, k.file)
			}
		}
		if !known {
			names := make([]string, len(packageLists))
			for i, k := range packageLists {
				names[i] = k.pkg
			}
			return nil, p, fmt.Errorf("npm package %q ships no list this command knows (known: %s); give the list file itself",
				pkg.Name, strings.Join(names, ", "))
		}
		p.License = pkg.License
	} else {
		p.Source = "file " + filepath.Base(path)
	}
	raw, err := readBounded(file)
	if err != nil {
		return nil, p, err
	}
	sum := sha256.Sum256(raw)
	p.SourceSHA256 = hex.EncodeToString(sum[:])
	var domains []string
	if strings.EqualFold(filepath.Ext(file), ".json") {
		if err := json.Unmarshal(raw, &domains); err != nil {
			return nil, p, fmt.Errorf("%s: want a JSON array of domains: %w", file, err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
				domains = append(domains, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, p, fmt.Errorf("%s: %w", file, err)
		}
	}
	if len(domains) == 0 {
		return nil, p, fmt.Errorf("%s lists no domain", file)
	}
	return domains, p, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxSourceBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxSourceBytes)
	}
	return raw, nil
}
