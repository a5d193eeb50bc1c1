package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/store"
)

// supportCmd manages support tokens: platform admins' credentials for /v1/support. Tokens
// expire (30 days by default) and can be listed and revoked.
func supportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "support", Short: "Support tokens: platform admins' credentials for the support endpoints"}
	token := &cobra.Command{Use: "token", Short: "Create, list and revoke support tokens"}
	var email, name, expiresIn string
	create := &cobra.Command{
		Use:     "create",
		Short:   "Create a support token for a platform admin and print it once",
		Example: "  recruitd support token create --user ops@example.com --name laptop --expires-in 7d",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ttl, err := parseTTL(expiresIn)
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				raw, err := apikey.Generate()
				if err != nil {
					return err
				}
				raw = "rsp_" + raw
				t, u, err := st.CreateSupportToken(cmd.Context(), email, name, raw, ttl)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "support token %s for %s, expires %s (shown once; send it as Authorization: Bearer <token>):\n%s\n",
					t.ID, u.Email, t.ExpiresAt.Format(time.RFC3339), raw)
				return nil
			})
		},
	}
	create.Flags().StringVar(&email, "user", "", "the platform admin's e-mail address (required)")
	create.Flags().StringVar(&name, "name", "", "a label for the token")
	create.Flags().StringVar(&expiresIn, "expires-in", "30d", "how long the token works: days (30d) or a Go duration (12h); at most 365d")
	_ = create.MarkFlagRequired("user")

	var listUser string
	list := &cobra.Command{
		Use:   "list",
		Short: "List support tokens (prefixes only) with their state: active, expired or revoked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				ts, err := st.ListSupportTokens(cmd.Context(), listUser)
				if err != nil {
					return err
				}
				now := time.Now()
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tUSER\tNAME\tPREFIX\tSTATE\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
				for _, t := range ts {
					state := "active"
					switch {
					case t.RevokedAt != nil:
						state = "revoked"
					case !t.ExpiresAt.After(now):
						state = "expired"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.UserEmail, orNone(t.Name), t.Prefix, state,
						t.CreatedAt.Format(time.RFC3339), t.ExpiresAt.Format(time.RFC3339), fmtTime(t.LastUsedAt), fmtTime(t.RevokedAt))
				}
				if len(ts) == 0 {
					fmt.Fprintln(tw, "(none)")
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&listUser, "user", "", "only this user's tokens (e-mail address)")

	revoke := &cobra.Command{
		Use:   "revoke ID|PREFIX",
		Short: "Revoke a support token by id or prefix; requests with it get 401 at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				t, err := st.RevokeSupportToken(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "revoked support token %s (prefix %s) at %s\n", t.ID, t.Prefix, t.RevokedAt.Format(time.RFC3339))
				return nil
			})
		},
	}
	token.AddCommand(create, list, revoke)
	cmd.AddCommand(token)
	return cmd
}

// parseTTL reads a token lifetime: whole days ("30d") or a Go duration ("12h", "90m").
func parseTTL(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("--expires-in %q: want days (30d) or a duration (12h)", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--expires-in %q: want days (30d) or a duration (12h)", s)
		}
	}
	if d <= 0 || d > store.MaxSupportTokenTTL {
		return 0, fmt.Errorf("--expires-in %q: %w", s, store.ErrBadTTL)
	}
	return d, nil
}
