package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// usersCmd manages the people who sign in to the tool server with OAuth: an identity provider's
// verified e-mail must match an active user, whose memberships are the companies it may read.
func usersCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Manage users and their company memberships (who may sign in to the tool server)"}
	var companies []string
	var name, role string
	var admin bool
	add := &cobra.Command{
		Use:   "add <email>",
		Short: "Create the user (or keep the existing one) and add it to each --company; --admin makes it a platform admin",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := models.ParseMembershipRole(role)
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				ctx := cmd.Context()
				u, err := st.EnsureUser(ctx, args[0], name, admin)
				if err != nil {
					return err
				}
				if admin && !u.IsPlatformAdmin {
					if err := st.SetPlatformAdmin(ctx, u.ID, true); err != nil {
						return err
					}
				}
				for _, slug := range companies {
					c, err := st.CompanyBySlug(ctx, slug)
					if err != nil {
						return err
					}
					if err := st.EnsureMembership(ctx, c.ID, u.ID, r); err != nil {
						return err
					}
				}
				fmt.Fprintf(e.stdout, "user %s (%s)%s in %s\n", u.Email, u.ID, map[bool]string{true: ", platform admin", false: ""}[admin],
					orNone(strings.Join(companies, ", ")))
				return nil
			})
		},
	}
	add.Flags().StringSliceVar(&companies, "company", nil, "company slug to add the user to (repeatable)")
	add.Flags().StringVar(&name, "name", "", "display name")
	add.Flags().StringVar(&role, "role", "recruiter", "membership role: admin, recruiter or viewer")
	add.Flags().BoolVar(&admin, "admin", false, "platform admin: may read every company")

	var removeFrom []string
	remove := &cobra.Command{
		Use:   "remove <email>",
		Short: "Remove the user from each --company; without --company, remove the user (soft delete): its sign-ins stop at the next request",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				ctx := cmd.Context()
				u, err := st.ActiveUserByEmail(ctx, args[0])
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("no active user %s", args[0])
				}
				if err != nil {
					return err
				}
				if len(removeFrom) == 0 {
					if err := st.SoftDeleteUser(ctx, u.ID); err != nil {
						return err
					}
					fmt.Fprintf(e.stdout, "removed user %s\n", u.Email)
					return nil
				}
				return removeMemberships(ctx, st, u, removeFrom, e)
			})
		},
	}
	remove.Flags().StringSliceVar(&removeFrom, "company", nil, "company slug to remove the user from (repeatable)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List active users with their companies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				users, err := st.ListUsers(cmd.Context())
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "EMAIL\tNAME\tPLATFORM ADMIN\tCOMPANIES")
				for _, u := range users {
					fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", u.Email, u.Name, u.PlatformAdmin, orNone(strings.Join(u.Companies, ",")))
				}
				return tw.Flush()
			})
		},
	}
	cmd.AddCommand(add, remove, list)
	return cmd
}

func removeMemberships(ctx context.Context, st *store.Store, u *models.User, slugs []string, e *env) error {
	for _, slug := range slugs {
		c, err := st.CompanyBySlug(ctx, slug)
		if err != nil {
			return err
		}
		if err := st.RemoveMembership(ctx, c.ID, u.ID); errors.Is(err, store.ErrNotFound) {
			fmt.Fprintf(e.stderr, "%s was not in %s\n", u.Email, slug)
		} else if err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "removed %s from %s\n", u.Email, strings.Join(slugs, ", "))
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
