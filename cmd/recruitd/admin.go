package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/docsearch"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/migrations"
	"github.com/recruitd/recruitd/models"
)

// withStore loads the configuration, opens the database and runs f.
func (e *env) withStore(ctx context.Context, f func(*config.Config, *slog.Logger, *store.Store) error) error {
	cfg, log, err := e.load()
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DatabaseURL, 2, log)
	if err != nil {
		return err
	}
	defer st.Close()
	return f(cfg, log, st)
}

func migrateCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations (subcommands: down, status)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, log *slog.Logger, st *store.Store) error {
				res, err := migrations.Up(cmd.Context(), st.SQL(), log)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "applied %d migration(s)\n", len(res))
				// The documentation index of searchDocumentation, rebuilt when the embedded docs change.
				changed, err := docsearch.Sync(cmd.Context(), st.SQL(), docs.FS)
				if err != nil {
					return fmt.Errorf("index the documentation: %w", err)
				}
				fmt.Fprintf(e.stdout, "documentation index %s\n", map[bool]string{true: "rebuilt", false: "up to date"}[changed])
				return nil
			})
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "down",
		Short: "Roll back the most recent migration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, log *slog.Logger, st *store.Store) error {
				res, err := migrations.Down(cmd.Context(), st.SQL(), log)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "rolled back %s\n", res.Source.Path)
				return nil
			})
		},
	}, &cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				return migrations.Status(cmd.Context(), st.SQL(), e.stdout)
			})
		},
	})
	return cmd
}

func seedCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "seed", Short: "Create demo data"}
	var key, asOf string
	var so seed.ScaleOptions
	demo := &cobra.Command{
		Use:   "demo",
		Short: "Create the demo tenant (idempotent) and print its API key when one is created or given; with --companies or --candidates, a large generated data set",
		Long: "demo creates the demo tenant (company \"demo\"), once, and makes sure it has a usable API key.\n\n" +
			"With --companies or --candidates it then generates a deterministic data set: company 1 is the demo tenant,\n" +
			"companies 2..N get generated names; each gets recruiters, templates, jobs with interview guides and --candidates\n" +
			"candidates with applications, interview sessions, notes and integrity checks (cheating, fraud, identity).\n" +
			"The same flags give the same rows, ids included (timestamps lie within two years before --as-of). Companies that\n" +
			"already hold seeded data are skipped, so running it again is safe. The data is bulk-loaded with COPY in one\n" +
			"all-or-nothing step (Ctrl-C rolls everything back); large loads drop and re-create secondary indexes and lock the\n" +
			"loaded tables until they commit.",
		Example: "  recruitd seed demo\n  recruitd seed demo --companies 3 --candidates 100000\n  recruitd seed demo --companies 1 --candidates 1000000 --seed 7",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scale := cmd.Flags().Changed("companies") || cmd.Flags().Changed("candidates")
			if scale && asOf != "" {
				t, err := time.Parse(time.DateOnly, asOf)
				if err != nil {
					return fmt.Errorf("--as-of %q: want a date like 2026-01-31", asOf)
				}
				so.AsOf = t
			}
			return e.withStore(cmd.Context(), func(cfg *config.Config, _ *slog.Logger, st *store.Store) error {
				if key == "" {
					key = cfg.DemoAPIKey
				}
				var res *seed.DemoResult
				var sr *seed.ScaleResult
				if scale {
					so.APIKey, so.Progress = key, e.stderr
					var err error
					if sr, err = seed.Scale(cmd.Context(), st, so); err != nil {
						return err
					}
					res = sr.Demo
				} else {
					var err error
					if res, err = seed.Demo(cmd.Context(), st, key); err != nil {
						return err
					}
				}
				state := "exists"
				if res.CompanyCreated {
					state = "created"
				}
				fmt.Fprintf(e.stdout, "demo company: %s (%s, id %s)\n", res.Company.Slug, state, res.Company.ID)
				if res.APIKey != "" {
					fmt.Fprintf(e.stdout, "demo API key: %s\n", res.APIKey)
				} else {
					fmt.Fprintln(e.stdout, "demo API key: unchanged (a live key exists; make another with `recruitd apikey create --company demo`)")
				}
				if sr != nil {
					printScale(e.stdout, sr)
				}
				return nil
			})
		},
	}
	f := demo.Flags()
	f.StringVar(&key, "api-key", "", "use this value as the demo API key (default RECRUITD_DEMO_API_KEY)")
	f.IntVar(&so.Companies, "companies", 1, "generate this many companies (company 1 is the demo tenant)")
	f.IntVar(&so.Candidates, "candidates", 1000, "candidates per generated company")
	f.IntVar(&so.SessionsPerCandidate, "sessions-per-candidate", 3, "mean interview sessions per candidate")
	f.IntVar(&so.CandidatesPerJob, "candidates-per-job", seed.DefaultCandidatesPerJob, "one job per this many candidates (at least 20 jobs per company)")
	f.Uint64Var(&so.Seed, "seed", 1, "random seed: the same flags give the same data")
	f.StringVar(&asOf, "as-of", "", "date the generated data ends at, YYYY-MM-DD (default today, UTC)")
	f.BoolVar(&so.Checked, "checked", false, "load through one connection with foreign keys checked row by row (slower; automatic when the role may not set session_replication_role)")
	cmd.AddCommand(demo)
	return cmd
}

// printScale writes what seed.Scale did: the companies and the rows loaded.
func printScale(w io.Writer, r *seed.ScaleResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tCOMPANY\tSLUG\tID\tSTATUS")
	for _, c := range r.Companies {
		status := "generated"
		if c.Skipped != "" {
			status = "skipped: " + c.Skipped
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", c.Index, c.Name, c.Slug, c.ID, status)
	}
	tw.Flush()
	if len(r.Rows) == 0 {
		fmt.Fprintf(w, "nothing to load (%s)\n", r.Elapsed.Round(time.Millisecond))
		return
	}
	var total int64
	fmt.Fprintf(w, "%-24s %12s\n", "TABLE", "ROWS")
	for _, t := range r.Rows {
		fmt.Fprintf(w, "%-24s %12d\n", t.Table, t.Rows)
		total += t.Rows
	}
	fmt.Fprintf(w, "%-24s %12d\n", "total", total)
	fmt.Fprintf(w, "loaded %d rows in %s (%s mode: load %s, rollups %s, analyze %s)\n", total, r.Elapsed.Round(100*time.Millisecond),
		r.Mode, r.Load.Round(100*time.Millisecond), r.Rollups.Round(100*time.Millisecond), r.Analyze.Round(100*time.Millisecond))
}

var slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

func companyCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "company", Short: "Manage companies (tenants)"}
	var slug, name, atsType, jobStatus string
	var hrSuite bool
	var creds []string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a company",
		Example: "  recruitd company create --slug acme --name 'Acme Corp' --ats-type ATS-A \\\n" +
			"    --ats-credential baseUrl=https://ats.example.com --ats-credential apiKey=...",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := &models.Company{Slug: slug, Name: strings.TrimSpace(name), HRSuiteAccount: hrSuite, CheatThreshold: models.DefaultCheatThreshold}
			if !slugRE.MatchString(slug) {
				return fmt.Errorf("--slug %q: use 1-63 lowercase letters, digits and dashes, starting with a letter or digit", slug)
			}
			if c.Name == "" {
				return errors.New("--name is required")
			}
			var err error
			if c.DefaultJobStatus, err = models.ParseJobStatus(jobStatus); err != nil || (c.DefaultJobStatus != models.JobStatusActive && c.DefaultJobStatus != models.JobStatusPaused) {
				return fmt.Errorf("--default-job-status %q: want ACTIVE or PAUSED", jobStatus)
			}
			if atsType != "" {
				t, err := models.ParseATSType(atsType)
				if err != nil {
					return fmt.Errorf("--ats-type: %w", err)
				}
				c.ATSType = &t
			}
			credMap, err := parseCredentials(creds)
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(cfg *config.Config, _ *slog.Logger, st *store.Store) error {
				var sealed *secretbox.Box
				if len(credMap) > 0 {
					var err error
					if sealed, err = box(cfg); err != nil {
						return fmt.Errorf("--ats-credential needs RECRUITD_ENCRYPTION_KEY: %w", err)
					}
				}
				if err := st.CreateCompany(cmd.Context(), c); err != nil {
					if errors.Is(err, store.ErrConflict) {
						return fmt.Errorf("a company with slug %q already exists", slug)
					}
					return err
				}
				if sealed != nil {
					if err := st.SetATSCredentials(cmd.Context(), c.ID, sealed, credMap); err != nil {
						return err
					}
				}
				fmt.Fprintf(e.stdout, "created company %s (id %s)\n", c.Slug, c.ID)
				return nil
			})
		},
	}
	f := create.Flags()
	f.StringVar(&slug, "slug", "", "URL-safe identifier, part of every interviewer id (required)")
	f.StringVar(&name, "name", "", "display name (required)")
	f.StringVar(&atsType, "ats-type", "", "ATS-A, ATS-B, ATS-C or ATS-D")
	f.StringArrayVar(&creds, "ats-credential", nil, "ATS credential field as name=value (repeatable; encrypted at rest)")
	f.BoolVar(&hrSuite, "hr-suite", false, "the company is an HR-suite account (may use the HR-suite webhook)")
	f.StringVar(&jobStatus, "default-job-status", "ACTIVE", "status of new jobs when createJob omits active: ACTIVE or PAUSED")
	_ = create.MarkFlagRequired("slug")
	_ = create.MarkFlagRequired("name")

	list := &cobra.Command{
		Use:   "list",
		Short: "List companies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				cs, err := st.ListCompanies(cmd.Context())
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SLUG\tNAME\tATS\tID")
				for _, c := range cs {
					ats := "-"
					if c.ATSType != nil {
						ats = string(*c.ATSType)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Slug, c.Name, ats, c.ID)
				}
				return tw.Flush()
			})
		},
	}
	cmd.AddCommand(create, list)
	return cmd
}

func parseCredentials(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--ats-credential %q: want name=value", strings.SplitN(kv, "=", 2)[0]+"=…")
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

func apikeyCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "apikey", Short: "Manage company API keys (only hashes are stored)"}
	var slug, name, partner string
	var scopeNames []string
	companyFlag := func(c *cobra.Command) {
		c.Flags().StringVar(&slug, "company", "", "company slug (required)")
		_ = c.MarkFlagRequired("company")
	}
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API key and print it once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				scopes, err := keyScopes(scopeNames, partner != "")
				if err != nil {
					return err
				}
				key, err := apikey.Generate()
				if err != nil {
					return err
				}
				k, err := st.CreateAPIKey(cmd.Context(), c.ID, name, key, scopes...)
				if err != nil {
					return err
				}
				if partner != "" {
					p, err := st.PartnerByName(cmd.Context(), c.ID, partner)
					if errors.Is(err, store.ErrNotFound) {
						return fmt.Errorf("no partner %q in %s (see `recruitd partners list`); the key was not bound", partner, c.Slug)
					}
					if err != nil {
						return err
					}
					if err := st.BindAPIKey(cmd.Context(), c.ID, k.ID, p.ID); err != nil {
						return err
					}
				}
				fmt.Fprintf(e.stdout, "%s\n", key)
				fmt.Fprintf(e.stderr, "created API key %s (id %s, prefix %s) for %s with scopes %s; it is shown only this once\n",
					name, k.ID, k.Prefix, c.Slug, strings.Join(k.Scopes, ","))
				return nil
			})
		},
	}
	companyFlag(create)
	create.Flags().StringVar(&name, "name", "default", "label to tell keys apart")
	create.Flags().StringVar(&partner, "partner", "", "bind the key to this partner: callbacks of its submissions go to the partner")
	create.Flags().StringSliceVar(&scopeNames, "scope", nil, "what the key may do, repeatable or comma-separated: "+scopeList()+
		" (default: every scope; with --partner: partner-applications)")

	revoke := &cobra.Command{
		Use:   "revoke ID|PREFIX",
		Short: "Revoke an API key by id or prefix; requests with it get 401 at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				k, err := st.RevokeAPIKey(cmd.Context(), c.ID, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "revoked API key %s (prefix %s) of %s at %s\n", k.ID, k.Prefix, c.Slug, k.RevokedAt.Format(time.RFC3339))
				return nil
			})
		},
	}
	companyFlag(revoke)

	list := &cobra.Command{
		Use:   "list",
		Short: "List a company's API keys (prefixes only)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				keys, err := st.ListAPIKeys(cmd.Context(), c.ID)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPES\tPARTNER\tCREATED\tLAST USED\tREVOKED")
				for _, k := range keys {
					bound := "-"
					if k.PartnerID != nil {
						bound = k.PartnerID.String()
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, strings.Join(k.Scopes, ","), bound,
						k.CreatedAt.Format(time.RFC3339), fmtTime(k.LastUsedAt), fmtTime(k.RevokedAt))
				}
				return tw.Flush()
			})
		},
	}
	companyFlag(list)
	cmd.AddCommand(create, revoke, list)
	return cmd
}

// keyScopes parses --scope values; none means every scope, or only partner submissions for a
// key bound to a partner (least privilege where the purpose is known).
func keyScopes(names []string, partnerBound bool) ([]models.Scope, error) {
	if len(names) == 0 {
		if partnerBound {
			return []models.Scope{models.ScopePartnerApplications}, nil
		}
		return models.AllScopes(), nil
	}
	var out []models.Scope
	for _, n := range names {
		sc, err := models.ParseScope(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("--scope: %w", err)
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

func scopeList() string {
	var names []string
	for _, sc := range models.AllScopes() {
		names = append(names, string(sc))
	}
	return strings.Join(names, ", ")
}

// withCompany is withStore for commands that act on one company, named by its slug.
func (e *env) withCompany(ctx context.Context, slug string, f func(*store.Store, *models.Company) error) error {
	return e.withStore(ctx, func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
		c, err := st.CompanyBySlug(ctx, slug)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no company with slug %q (see `recruitd company list`)", slug)
		}
		if err != nil {
			return err
		}
		return f(st, c)
	})
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}
