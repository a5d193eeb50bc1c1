package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/integrity/disposable"
)

// disposableListPath is the embedded list, relative to the repository root.
const disposableListPath = "internal/integrity/disposable/domains.txt"

// integrityCmd holds the operator commands of the integrity signals (docs/integrity-checks.md).
func integrityCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "integrity",
		Short: "Integrity signals: the disposable e-mail domain list (subcommand: update-disposable-domains)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(updateDisposableDomainsCmd(e))
	return cmd
}

// updateDisposableDomainsCmd rewrites the embedded disposable-domain list from a newer release,
// with its provenance; the binary built afterwards uses it.
func updateDisposableDomainsCmd(e *env) *cobra.Command {
	var from, out, source, upstream, date string
	cmd := &cobra.Command{
		Use:   "update-disposable-domains",
		Short: "Rewrite the embedded disposable e-mail domain list from an npm package folder or a list file",
		Long: "Reads the list from --from: an npm package folder (npm pack disposable-email-domains-js@VERSION, then unpack it) or a file " +
			"(a JSON array of domains, or the upstream disposable_email_blocklist.conf), checks every domain, and rewrites " + disposableListPath +
			" (run from the repository root, or give --out) with a header naming the source, its version, its sha256 and the day. Rebuild afterwards.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return errors.New("--from is required: an npm package folder or a list file")
			}
			domains, prov, err := disposable.ReadSource(from)
			if err != nil {
				return fmt.Errorf("read %s: %w", from, err)
			}
			if source != "" {
				prov.Source = source
			}
			if upstream != "" {
				prov.Upstream = upstream
			}
			prov.Retrieved = time.Now().UTC().Format(time.DateOnly)
			if date != "" {
				if _, err := time.Parse(time.DateOnly, date); err != nil {
					return fmt.Errorf("--date %q: want YYYY-MM-DD", date)
				}
				prov.Retrieved = date
			}
			if _, err := os.Stat(filepath.Dir(out)); err != nil {
				return fmt.Errorf("folder of %s: %w (run from the repository root, or give --out)", out, err)
			}
			data, prov, err := disposable.Render(domains, prov)
			if err != nil {
				return fmt.Errorf("list from %s: %w", from, err)
			}
			added, removed := prov.Domains, 0
			if old, err := os.ReadFile(out); err == nil {
				if prev, err := disposable.Parse(old); err == nil {
					added, removed = diffLists(prev, data)
					fmt.Fprintf(e.stdout, "was: %s, %d domains, retrieved %s\n", prev.Provenance().Source, prev.Len(), prev.Provenance().Retrieved)
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			tmp := out + ".tmp"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return err
			}
			if err := os.Rename(tmp, out); err != nil {
				os.Remove(tmp)
				return err
			}
			fmt.Fprintf(e.stdout, "now: %s, %d domains (%d added, %d removed), sha256 %s, retrieved %s\nwrote %s; rebuild recruitd to use it\n",
				prov.Source, prov.Domains, added, removed, prov.SourceSHA256, prov.Retrieved, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "npm package folder or list file to read")
	cmd.Flags().StringVar(&out, "out", disposableListPath, "the list file to rewrite")
	cmd.Flags().StringVar(&source, "source", "", "describe the source instead (for a plain file: its project and version or commit)")
	cmd.Flags().StringVar(&upstream, "upstream", "", "the project maintaining the list, when the source republishes it")
	cmd.Flags().StringVar(&date, "date", "", "the day the list was taken, YYYY-MM-DD (default today, UTC)")
	return cmd
}

// diffLists counts the domains of the rendered list data that prev lacks, and those of prev it
// lacks.
func diffLists(prev *disposable.List, data []byte) (added, removed int) {
	next, err := disposable.Parse(data)
	if err != nil {
		return 0, 0 // Render's output always parses
	}
	added = next.Len()
	for _, d := range prev.Domains() {
		if next.Has(d) {
			added--
		} else {
			removed++
		}
	}
	return added, removed
}
