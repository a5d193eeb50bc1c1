package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/hrsuite"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/progress"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

// hrsuiteCmd is support's view of HR-suite deliveries: list, show, replay. The same operations
// are the support endpoints under /v1/support/hrsuite.
func hrsuiteCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "hrsuite", Short: "Stored HR-suite webhook deliveries: list, show and replay them (support)"}
	var in hrsuite.FilterInput
	filterFlags := func(c *cobra.Command) {
		f := c.Flags()
		f.StringVar(&in.Company, "company", "", "only this company's deliveries (slug)")
		f.StringVar(&in.From, "from", "", "received at or after (RFC 3339 time or YYYY-MM-DD)")
		f.StringVar(&in.To, "to", "", "received before (RFC 3339 time, or YYYY-MM-DD: that whole day included)")
		f.StringVar(&in.Outcome, "outcome", "", "having a row with this outcome: accepted, duplicate, do_not_hire, unknown_job, no_trigger, invalid or invalid:<reason>")
	}

	deliveries := &cobra.Command{Use: "deliveries", Short: "List or show stored deliveries"}
	var limit int
	list := &cobra.Command{
		Use:     "list",
		Short:   "List stored deliveries matching the filter, newest first, with their row outcomes",
		Example: "  recruitd hrsuite deliveries list --company demo --outcome unknown_job --from 2026-11-01",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := hrsuite.ParseFilter(in)
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, log *slog.Logger, st *store.Store) error {
				rows, err := (&hrsuite.Deliveries{Store: st, Log: log}).List(cmd.Context(), f, limit)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "DELIVERY\tCOMPANY\tRECEIVED\tROWS\tPROCESSED\tOUTCOMES")
				for _, d := range rows {
					processed := fmtTime(d.ProcessedAt)
					if d.DuplicateOf != nil {
						processed = "duplicate of " + d.DuplicateOf.String()
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.Company, d.ReceivedAt.Format(time.RFC3339), d.Rows, processed, fmtCounts(d.Counts))
				}
				if len(rows) == 0 {
					fmt.Fprintln(tw, "(none)")
				}
				return tw.Flush()
			})
		},
	}
	filterFlags(list)
	list.Flags().IntVar(&limit, "limit", 50, "at most this many deliveries")

	var outcome string
	show := &cobra.Command{
		Use:   "show DELIVERY_ID",
		Short: "Show a delivery and every row's outcome (ids and outcomes, not the rows' contents)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return fmt.Errorf("delivery id %q is not a UUID", args[0])
			}
			f, err := hrsuite.ParseFilter(hrsuite.FilterInput{Outcome: outcome})
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, log *slog.Logger, st *store.Store) error {
				d, err := (&hrsuite.Deliveries{Store: st, Log: log}).Show(cmd.Context(), id, f.Outcome)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "delivery %s of %s, received %s, %d rows\n", d.ID, d.Company, d.ReceivedAt.Format(time.RFC3339), d.Rows)
				if d.DuplicateOf != nil {
					fmt.Fprintf(e.stdout, "duplicate of %s (the same body); its rows are that delivery's:\n", d.DuplicateOf)
				}
				fmt.Fprintf(e.stdout, "processed %s: %s\n", fmtTime(d.ProcessedAt), fmtCounts(d.Counts))
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ROW\tJOB POSTING APPLICATION ID\tOUTCOME\tAPPLICATION")
				for _, r := range d.RowOutcomes {
					app := "-"
					if r.ApplicationID != nil {
						app = r.ApplicationID.String()
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.Row, orNone(r.ApplicationRef), r.Outcome, app)
				}
				return tw.Flush()
			})
		},
	}
	show.Flags().StringVar(&outcome, "outcome", "", "only rows with this outcome")
	deliveries.AddCommand(list, show)

	var dryRun, wait bool
	var deliveryID, who string
	replay := &cobra.Command{
		Use:   "replay",
		Short: "Reprocess one stored delivery, or every delivery matching the filter, under today's jobs and workflows",
		Long: "replay reprocesses stored deliveries: applications whose job now exists are created and invited; applications\n" +
			"already processed are never invited again. --dry-run prints how many deliveries, rows and applications would be\n" +
			"reprocessed and changes nothing. Each replay is recorded (who, when, filter, counts); the command follows its\n" +
			"progress until it finishes (--wait=false returns at once).",
		Example: "  recruitd hrsuite replay --company demo --dry-run\n  recruitd hrsuite replay --delivery 3f2c…\n  recruitd hrsuite replay --company demo --outcome unknown_job --from 2026-11-01",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in.DeliveryID = deliveryID
			f, err := hrsuite.ParseFilter(in)
			if err != nil {
				return err
			}
			if f == (models.HRSuiteFilter{}) {
				return fmt.Errorf("name --delivery or at least one of --company, --from, --to, --outcome (a replay of everything is never implied)")
			}
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				ctx := cmd.Context()
				deliveries := &hrsuite.Deliveries{Store: st, Log: log}
				plan, err := deliveries.Plan(ctx, f)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%d deliveries, %d rows, %d applications (%d not processed yet) %s\n", plan.Deliveries, plan.Rows,
					plan.Applications, plan.Unprocessed, map[bool]string{true: "would be reprocessed (dry run: nothing changed)", false: "to reprocess"}[dryRun])
				if dryRun || plan.Deliveries == 0 {
					return nil
				}
				tc, err := rtemporal.Dial(ctx, cfg, log, nil)
				if err != nil {
					return err
				}
				defer tc.Close()
				deliveries.Launcher = &outbox.Launcher{Store: st, Starter: starter.Starter{Client: tc, QueuePrefix: cfg.TemporalTaskQueue}, Log: log}
				if who == "" {
					who = operator()
				}
				r, err := deliveries.Replay(ctx, f, who)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "replay %s recorded (by %s); follow it: recruitd hrsuite replays show %s\n", r.ID, who, r.ID)
				if !wait {
					return nil
				}
				return followReplay(ctx, e, st, r.ID)
			})
		},
	}
	filterFlags(replay)
	replay.Flags().StringVar(&deliveryID, "delivery", "", "replay this one delivery (id)")
	replay.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be reprocessed and change nothing")
	replay.Flags().BoolVar(&wait, "wait", true, "follow the replay's progress until it finishes")
	replay.Flags().StringVar(&who, "as", "", "who asks, recorded with the replay (default: the operating-system user)")

	replays := &cobra.Command{Use: "replays", Short: "Recorded replays"}
	replays.AddCommand(&cobra.Command{
		Use:   "show REPLAY_ID",
		Short: "Show a replay: who asked, when, the filter, its counts and progress",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return fmt.Errorf("replay id %q is not a UUID", args[0])
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				r, err := st.HRSuiteReplay(cmd.Context(), id)
				if err != nil {
					return err
				}
				filter, _ := json.Marshal(r.Filter.V)
				fmt.Fprintf(e.stdout, "replay %s by %s at %s\nfilter: %s\nprogress: %d of %d deliveries (%d rows, %d applications)\noutcomes: %s\nfinished: %s\n",
					r.ID, r.RequestedBy, r.RequestedAt.Format(time.RFC3339), filter, r.DeliveriesDone, r.Deliveries, r.Rows, r.Applications,
					fmtCounts(r.Counts.V), fmtTime(r.FinishedAt))
				return nil
			})
		},
	})
	cmd.AddCommand(deliveries, replay, replays)
	return cmd
}

// followReplay shows a replay's progress until it finishes or ctx ends.
func followReplay(ctx context.Context, e *env, st *store.Store, id uuid.UUID) error {
	var last atomic.Pointer[models.HRSuiteReplay]
	d := progress.Start(e.stdout, progress.Options{Terminal: progress.IsTerminal(e.stdout)}, func(f progress.Frame) []string {
		r := last.Load()
		if r == nil {
			return nil
		}
		line := fmt.Sprintf("replay %s: %d of %d deliveries  %s  %s", r.ID.String()[:8], r.DeliveriesDone, r.Deliveries, fmtCounts(r.Counts.V), progress.Clock(f.Elapsed))
		if f.Terminal || f.Periodic || f.Final {
			return []string{line}
		}
		return nil
	})
	defer d.Stop()
	for {
		r, err := st.HRSuiteReplay(ctx, id)
		if err != nil {
			return err
		}
		last.Store(r)
		if r.FinishedAt != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// operator names the person running the CLI for the replay record.
func operator() string {
	for _, k := range []string{"SUDO_USER", "USER", "LOGNAME"} {
		if v := os.Getenv(k); v != "" {
			return "cli:" + v
		}
	}
	return "cli"
}

func fmtCounts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
