package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/store"
)

// rollupsCmd checks and rebuilds the statistics rollups the tool server reads (migration 00007).
// Triggers keep them exact; these are for support after repairs made with triggers off.
func rollupsCmd(e *env) *cobra.Command {
	var slug string
	cmd := &cobra.Command{
		Use:   "rollups",
		Short: "Check or rebuild the statistics rollups (subcommands: check, rebuild)",
		Args:  cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&slug, "company", "", "company slug (default: every company)")
	run := func(verb string, f func(context.Context, *store.Store, uuid.UUID) error) *cobra.Command {
		return &cobra.Command{
			Use:   verb,
			Short: map[string]string{"check": "Compare the rollups with a fresh computation; exit 1 on any difference", "rebuild": "Recompute the rollups from the source tables"}[verb],
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return e.withStore(cmd.Context(), func(_ *config.Config, log *slog.Logger, st *store.Store) error {
					companies, err := rollupCompanies(cmd.Context(), st, slug)
					if err != nil {
						return err
					}
					failed := 0
					for i, c := range companies {
						began := time.Now()
						if err := f(cmd.Context(), st, c.id); err != nil {
							failed++
							fmt.Fprintf(e.stdout, "[%d/%d] %s: %v\n", i+1, len(companies), c.slug, err)
							continue
						}
						fmt.Fprintf(e.stdout, "[%d/%d] %s: %s in %s\n", i+1, len(companies), c.slug,
							map[string]string{"check": "exact", "rebuild": "rebuilt"}[verb], time.Since(began).Round(time.Millisecond))
					}
					if failed > 0 {
						return fmt.Errorf("%s failed for %d of %d companies", verb, failed, len(companies))
					}
					return nil
				})
			},
		}
	}
	cmd.AddCommand(
		run("check", func(ctx context.Context, st *store.Store, id uuid.UUID) error { return rollup.Check(ctx, st.SQL(), id) }),
		run("rebuild", func(ctx context.Context, st *store.Store, id uuid.UUID) error {
			return rollup.Rebuild(ctx, st.SQL(), id)
		}),
	)
	return cmd
}

type companyRef struct {
	id   uuid.UUID
	slug string
}

// rollupCompanies is the company with the slug, or every company when slug is empty.
func rollupCompanies(ctx context.Context, st *store.Store, slug string) ([]companyRef, error) {
	if slug != "" {
		c, err := st.CompanyBySlug(ctx, slug)
		if err != nil {
			return nil, fmt.Errorf("company %q: %w", slug, err)
		}
		return []companyRef{{c.ID, c.Slug}}, nil
	}
	rows, err := st.SQL().QueryContext(ctx, "SELECT id, slug FROM companies ORDER BY slug")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []companyRef
	for rows.Next() {
		var c companyRef
		if err := rows.Scan(&c.id, &c.slug); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
