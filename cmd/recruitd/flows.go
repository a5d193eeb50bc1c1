package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func flowsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "workflows", Short: "Show and set a company's customer workflow definitions"}
	var slug, trigger, file string
	flags := func(c *cobra.Command) {
		c.Flags().StringVar(&slug, "company", "", "company slug (required)")
		c.Flags().StringVar(&trigger, "trigger", "", "partner_application, new_application_webhook, new_job_from_ats, manual_invite or new_application_ats")
		_ = c.MarkFlagRequired("company")
	}
	get := &cobra.Command{
		Use:   "get",
		Short: "Print the definition in force for a trigger (all triggers when --trigger is omitted)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			triggers := models.AllFlowTriggers()
			if trigger != "" {
				t, err := models.ParseFlowTrigger(trigger)
				if err != nil {
					return fmt.Errorf("--trigger: %w", err)
				}
				triggers = []models.FlowTrigger{t}
			}
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				for _, t := range triggers {
					d, err := st.FlowDefinition(cmd.Context(), c.ID, t)
					if errors.Is(err, store.ErrNotFound) {
						fmt.Fprintf(e.stdout, "# %s: not configured\n", t)
						continue
					}
					if err != nil {
						return err
					}
					var pretty bytes.Buffer
					_ = json.Indent(&pretty, d.Definition, "", "  ")
					fmt.Fprintf(e.stdout, "# %s: version %d, enabled %v, saved %s\n%s\n", t, d.Version, d.Enabled, d.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), pretty.String())
				}
				return nil
			})
		},
	}
	flags(get)

	set := &cobra.Command{
		Use:   "set",
		Short: "Validate a definition (JSON, from --file or stdin) and save it as the next version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var raw []byte
			var err error
			if file == "" || file == "-" {
				raw, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
			} else {
				raw, err = os.ReadFile(file)
			}
			if err != nil {
				return fmt.Errorf("read definition: %w", err)
			}
			var t models.FlowTrigger
			if trigger != "" {
				if t, err = flow.ParseTrigger(trigger); err != nil {
					return fmt.Errorf("--trigger: %w", err)
				}
			}
			def, canonical, err := flow.ParseFor(raw, t)
			if err != nil {
				return err
			}
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				saved, err := st.SaveFlowDefinition(cmd.Context(), c.ID, def.Trigger, canonical, def.Enabled, flow.Hash(def))
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s workflow of %s: version %d (enabled %v)\n", saved.Trigger, c.Slug, saved.Version, saved.Enabled)
				return nil
			})
		},
	}
	flags(set)
	set.Flags().StringVar(&file, "file", "", "definition file (default stdin)")
	cmd.AddCommand(get, set)
	return cmd
}
