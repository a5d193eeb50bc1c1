package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func applicationsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "applications", Short: "Operate on a company's applications"}
	var slug, session, application, externalID string
	set := &cobra.Command{
		Use:   "set-external-id",
		Short: "Give an application the ATS application id that assessment links are pushed with",
		Long: "set-external-id records the ATS application id of an application (for ATS-D, the id the assessment\n" +
			"provider receives with the order), so that POST /v2/api/assessment-links with that applicationId\n" +
			"reaches the application's candidate. Name the application by its id or by an interview session of it\n" +
			"(the sessionId that inviteCandidate answers).",
		Example: "  recruitd applications set-external-id --company demo --session 6f0c…-… --external-id 58213",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ext := strings.TrimSpace(externalID)
			if ext == "" || utf8.RuneCountInString(ext) > 128 {
				return fmt.Errorf("--external-id: want 1 to 128 characters")
			}
			if (session == "") == (application == "") {
				return fmt.Errorf("name the application with exactly one of --session and --application")
			}
			ctx := cmd.Context()
			return e.withCompany(ctx, slug, func(st *store.Store, c *models.Company) error {
				var appID uuid.UUID
				if application != "" {
					id, err := uuid.Parse(application)
					if err != nil {
						return fmt.Errorf("--application %q is not an application id", application)
					}
					appID = id
				} else {
					id, err := uuid.Parse(session)
					if err != nil {
						return fmt.Errorf("--session %q is not a session id", session)
					}
					sess, err := st.Session(ctx, c.ID, id)
					if err != nil {
						return err
					}
					if sess.ApplicationID == nil {
						return fmt.Errorf("session %s has no application", id)
					}
					appID = *sess.ApplicationID
				}
				err := st.SetApplicationExternalID(ctx, c.ID, appID, ext)
				if errors.Is(err, store.ErrConflict) {
					return fmt.Errorf("another application of the same source already has external id %q", ext)
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "application %s of %s: external id %s\n", appID, c.Slug, ext)
				return nil
			})
		},
	}
	f := set.Flags()
	f.StringVar(&slug, "company", "", "company slug (required)")
	f.StringVar(&session, "session", "", "an interview session of the application (inviteCandidate's sessionId)")
	f.StringVar(&application, "application", "", "the application's id")
	f.StringVar(&externalID, "external-id", "", "the ATS application id (required)")
	for _, name := range []string{"company", "external-id"} {
		_ = set.MarkFlagRequired(name)
	}
	cmd.AddCommand(set)
	return cmd
}
