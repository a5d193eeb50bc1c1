package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
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
	cmd.AddCommand(set, applicationsListCmd(e))
	return cmd
}

// applicationsListCmd lists a company's applications with their candidate, job and latest
// interview session: where an application synced from the ATS stands, and the session id the
// report, decision and sessions commands take.
func applicationsListCmd(e *env) *cobra.Command {
	var slug, source string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List a company's applications, newest first: source, ATS id, status, candidate, job, latest interview session",
		Example: "  recruitd applications list --company demo-ats\n" +
			"  recruitd applications list --company demo --source hrsuite_webhook --limit 20",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var src models.ApplicationSource
			if source != "" {
				src = models.ApplicationSource(strings.ToLower(strings.TrimSpace(source)))
				if !slices.Contains(models.AllApplicationSources(), src) {
					return fmt.Errorf("--source %q: want one of %s", source, strings.Join(applicationSourceNames(), ", "))
				}
			}
			if limit < 1 || limit > 1000 {
				return fmt.Errorf("--limit: want 1 to 1000")
			}
			ctx := cmd.Context()
			return e.withCompany(ctx, slug, func(st *store.Store, c *models.Company) error {
				rows, err := st.ListApplications(ctx, c.ID, src, limit)
				if err != nil {
					return err
				}
				dash := func(s *string) string {
					if s == nil || *s == "" {
						return "-"
					}
					return *s
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSOURCE\tATS ID\tSTATUS\tCANDIDATE\tEMAIL\tJOB\tSESSION\tSESSION STATUS\tCREATED")
				for _, r := range rows {
					session := "-"
					if r.SessionID != nil {
						session = r.SessionID.String()
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s %s\t%s\t%s\t%s\n", r.ID, r.Source, dash(r.ExternalID), r.Status, r.CandidateName,
						dash(r.CandidateEmail), r.JobExternalID, r.JobTitle, session, dash(r.SessionStatus), r.CreatedAt.UTC().Format("2006-01-02 15:04:05"))
				}
				return tw.Flush()
			})
		},
	}
	f := list.Flags()
	f.StringVar(&slug, "company", "", "company slug (required)")
	f.StringVar(&source, "source", "", "only applications of this source: "+strings.Join(applicationSourceNames(), ", "))
	f.IntVar(&limit, "limit", 100, "at most this many applications (1 to 1000)")
	_ = list.MarkFlagRequired("company")
	return list
}

func applicationSourceNames() []string {
	var out []string
	for _, s := range models.AllApplicationSources() {
		out = append(out, string(s))
	}
	return out
}
