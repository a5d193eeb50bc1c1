package main

import (
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/store"
)

// atsCmd is the operators' view of what recruitd wrote back to a company's ATS.
func atsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "ats", Short: "Results written back to a company's ATS"}
	writes := &cobra.Command{Use: "writes", Short: "The writes back to the ATS (report notes, decision stages)"}
	var slug string
	var limit int
	list := &cobra.Command{
		Use:     "list",
		Short:   "List a company's writes, newest first: op, target, status, attempts, last error",
		Example: "  recruitd ats writes list --company demo",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				co, err := st.CompanyBySlug(cmd.Context(), slug)
				if err != nil {
					return err
				}
				rows, err := st.ATSWrites(cmd.Context(), co.ID, limit)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSESSION\tOP\tTARGET\tRECORD\tFIELD=VALUE\tSTATUS\tATTEMPTS\tCREATED\tLAST ERROR")
				for _, w := range rows {
					pair := "-"
					if w.Field != "" {
						pair = w.Field + "=" + w.Value
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", w.ID, w.SessionID, w.Op, w.Target, w.Ref, pair, w.Status, w.Attempts,
						w.CreatedAt.UTC().Format("2006-01-02 15:04:05"), w.LastError)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&slug, "company", "", "the company's slug (required)")
	list.Flags().IntVar(&limit, "limit", 100, "at most this many writes")
	_ = list.MarkFlagRequired("company")
	writes.AddCommand(list)
	cmd.AddCommand(writes)
	return cmd
}
