package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/atswrite"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

// sessionsCmd is support's view of interview sessions: show one (status, times, timeline,
// messages, workflow; answers only with --transcript), cancel it, give it more time.
func sessionsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "Interview sessions: show, cancel or extend one (support)"}
	var session, slug string
	flags := func(c *cobra.Command) {
		c.Flags().StringVar(&session, "session", "", "the session's id (required)")
		c.Flags().StringVar(&slug, "company", "", "the company the session must belong to (slug); without it, the session's own")
		_ = c.MarkFlagRequired("session")
	}
	parse := func() (uuid.UUID, error) {
		id, err := uuid.Parse(session)
		if err != nil {
			return uuid.Nil, fmt.Errorf("--session %q is not a session id", session)
		}
		return id, nil
	}

	var transcript bool
	show := &cobra.Command{
		Use:   "show",
		Short: "Show a session: status, times, timeline, messages sent (no contents), workflow; answers with --transcript",
		Example: "  recruitd sessions show --session 6f0c…\n" +
			"  recruitd sessions show --session 6f0c… --company demo --transcript",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := parse()
			if err != nil {
				return err
			}
			return e.withStore(cmd.Context(), func(_ *config.Config, _ *slog.Logger, st *store.Store) error {
				v, err := (&interview.Lifecycle{Store: st}).Show(cmd.Context(), slug, id, transcript)
				if err != nil {
					return err
				}
				printSession(e, v, time.Now(), transcript)
				return nil
			})
		},
	}
	flags(show)
	show.Flags().BoolVar(&transcript, "transcript", false, "also print the questions and the candidate's answers (personal data)")

	var reason string
	cancel := &cobra.Command{
		Use:   "cancel",
		Short: "Cancel an INVITED or STARTED session: no more reminders; the link shows the withdrawn page",
		Long: "cancel withdraws an INVITED or STARTED session (what POST /v1/api/sessions/{sessionId}/cancel does): it is\n" +
			"CANCELLED with --reason (kept for the company, never shown to the candidate), its run stops the reminders and\n" +
			"ends, and nothing is written to the ATS. A session cancelled already is left as it is.",
		Example: "  recruitd sessions cancel --session 6f0c… --reason \"position filled\"",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := parse()
			if err != nil {
				return err
			}
			return e.withLifecycle(cmd.Context(), func(l *interview.Lifecycle) error {
				co, _, err := l.Find(cmd.Context(), slug, id)
				if err != nil {
					return err
				}
				c, err := l.Cancel(cmd.Context(), co, id, interview.Cancellation{By: store.CancelledByOperator, Reason: reason})
				if err != nil {
					return err
				}
				if c.Unchanged {
					fmt.Fprintf(e.stdout, "session %s was cancelled already\n", c.Session.ID)
					return nil
				}
				fmt.Fprintf(e.stdout, "session %s cancelled\n", c.Session.ID)
				e.printLaunch(c)
				return nil
			})
		},
	}
	flags(cancel)
	cancel.Flags().StringVar(&reason, "reason", "", fmt.Sprintf("why the session is cancelled, at most %d characters (required)", interview.MaxReasonLen))
	_ = cancel.MarkFlagRequired("reason")

	var by string
	extend := &cobra.Command{
		Use:   "extend",
		Short: "Move a session's deadline; an EXPIRED session reopens as INVITED, an INCOMPLETE one as STARTED",
		Long: "extend moves the session's deadline (expires_at) to --by past the later of the deadline and now. An INVITED or\n" +
			"STARTED session keeps its status; an EXPIRED one is INVITED again, an INCOMPLETE one STARTED again (the\n" +
			"candidate continues where they stopped). COMPLETED, CANCELLED and DECLINED sessions are final.",
		Example: "  recruitd sessions extend --session 6f0c… --by 72h\n  recruitd sessions extend --session 6f0c… --company demo --by 7d",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := parse()
			if err != nil {
				return err
			}
			d, err := parseExtension(by)
			if err != nil {
				return err
			}
			return e.withLifecycle(cmd.Context(), func(l *interview.Lifecycle) error {
				c, err := l.Extend(cmd.Context(), slug, id, d, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "session %s %s until %s\n", c.Session.ID, c.Session.Status, fmtTime(c.Session.ExpiresAt))
				e.printLaunch(c)
				return nil
			})
		},
	}
	flags(extend)
	extend.Flags().StringVar(&by, "by", "", "how much more time: a duration (72h, 90m) or days (7d); at most 90d (required)")
	_ = extend.MarkFlagRequired("by")

	var decision, note string
	decide := &cobra.Command{
		Use:   "decide",
		Short: "Record a recruiter's decision on a session; the company's decision-stage pair is written to its ATS record",
		Example: "  recruitd sessions decide --session 6f0c… --decision ACCEPTED\n" +
			"  recruitd sessions decide --session 6f0c… --decision REJECTED --note \"not available before May\"",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := parse()
			if err != nil {
				return err
			}
			d, err := models.ParseDecision(strings.ToUpper(strings.TrimSpace(decision)))
			if err != nil {
				return fmt.Errorf("--decision: %w", err)
			}
			return e.withLifecycle(cmd.Context(), func(l *interview.Lifecycle) error {
				co, _, err := l.Find(cmd.Context(), slug, id)
				if err != nil {
					return err
				}
				w := &atswrite.Writes{Store: l.Store, Launcher: l.Launcher}
				res, err := w.Decide(cmd.Context(), co, id, d, strings.TrimSpace(note), uuid.Nil)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "session %s: decision %s\n", id, res.Session.Decision)
				if !res.Changed {
					fmt.Fprintln(e.stdout, "unchanged: the session had this decision already; nothing queued")
					return nil
				}
				if res.Write == nil {
					fmt.Fprintf(e.stdout, "no ATS write: %s\n", res.Skipped)
					return nil
				}
				fmt.Fprintf(e.stdout, "ATS write %s queued: %s = %s (recruitd ats writes list --company %s)\n", res.Write.ID, res.Write.Field, res.Write.Value, co.Slug)
				return nil
			})
		},
	}
	flags(decide)
	decide.Flags().StringVar(&decision, "decision", "", "NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED or HIRED (required)")
	decide.Flags().StringVar(&note, "note", "", "a recruiter note kept with the session (at most 2000 bytes)")
	_ = decide.MarkFlagRequired("decision")

	cmd.AddCommand(show, cancel, extend, decide)
	return cmd
}

// withLifecycle runs f with the operators' lifecycle on the store and, when Temporal answers
// within a few seconds, a launcher: without one the change is still committed and the worker's
// reconciler tells the session's run.
func (e *env) withLifecycle(ctx context.Context, f func(*interview.Lifecycle) error) error {
	return e.withStore(ctx, func(cfg *config.Config, log *slog.Logger, st *store.Store) error {
		l := &interview.Lifecycle{Store: st}
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		tc, err := rtemporal.Dial(dctx, cfg, log, nil)
		if err != nil {
			log.Warn("temporal unreachable; the change is committed and the worker's reconciler will tell the session's workflow", "err", err)
		} else {
			defer tc.Close()
			l.Launcher = &outbox.Launcher{Store: st, Starter: starter.Starter{Client: tc, QueuePrefix: cfg.TemporalTaskQueue}, Log: log}
		}
		return f(l)
	})
}

func (e *env) printLaunch(c *interview.Change) {
	if c.Launched {
		fmt.Fprintf(e.stdout, "workflow %s told\n", c.WorkflowID)
		return
	}
	fmt.Fprintf(e.stdout, "workflow %s not told yet (%v); the worker's reconciler will start it\n", c.WorkflowID, c.LaunchErr)
}

// parseExtension reads --by: a Go duration ("72h") or whole days ("7d").
func parseExtension(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("--by %q: want a duration (72h) or days (7d)", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--by %q: want a duration (72h) or days (7d)", s)
		}
	}
	if d <= 0 || d > interview.MaxExtension {
		return 0, fmt.Errorf("--by %q: %w", s, interview.ErrBadExtension)
	}
	return d, nil
}

// printSession prints a session's view. No message text or address, no answer unless
// transcript.
func printSession(e *env, v *interview.SessionView, now time.Time, transcript bool) {
	s := v.Session
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "session\t%s\n", s.ID)
	fmt.Fprintf(w, "company\t%s\n", v.Company.Slug)
	fmt.Fprintf(w, "job\t%s (%s)\n", v.Job.InterviewerID, v.Job.ID)
	fmt.Fprintf(w, "candidate\t%s\n", s.CandidateID)
	fmt.Fprintf(w, "status\t%s\n", s.Status)
	fmt.Fprintf(w, "invited\t%s\n", s.InvitedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "consented\t%s\n", fmtTime(s.ConsentedAt))
	fmt.Fprintf(w, "started\t%s\n", fmtTime(s.StartedAt))
	fmt.Fprintf(w, "completed\t%s\n", fmtTime(s.CompletedAt))
	fmt.Fprintf(w, "ended\t%s\n", fmtTime(s.EndedAt))
	if s.CancelReason != nil {
		fmt.Fprintf(w, "cancel reason\t%s\n", strings.ReplaceAll(*s.CancelReason, "\n", " "))
	}
	expiry := fmtTime(s.ExpiresAt)
	if s.ExpiresAt != nil && s.Status.Open() {
		if left := s.ExpiresAt.Sub(now); left > 0 {
			expiry += " (in " + left.Round(time.Minute).String() + ")"
		} else {
			expiry += " (passed)"
		}
	}
	fmt.Fprintf(w, "expires\t%s\n", expiry)
	duration := "-"
	if s.DurationSeconds != nil {
		duration = (time.Duration(*s.DurationSeconds) * time.Second).String()
	}
	fmt.Fprintf(w, "answering\t%s\n", duration)
	fmt.Fprintf(w, "workflow\t%s\n", v.WorkflowID)
	_ = w.Flush()

	fmt.Fprintln(e.stdout, "\ntimeline:")
	w = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "AT\tEVENT\tDETAIL")
	for _, ev := range v.Events {
		fmt.Fprintf(w, "%s\t%s\t%s\n", ev.At.UTC().Format(time.RFC3339), ev.Kind, eventDetail(ev.Detail.V))
	}
	if len(v.Events) == 0 {
		fmt.Fprintln(w, "(none)")
	}
	_ = w.Flush()

	fmt.Fprintln(e.stdout, "\nmessages:")
	w = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CREATED\tKIND\tDIRECTION\tCHANNEL\tSTATUS\tSENT")
	for _, m := range v.Messages {
		kind := "message"
		if m.Reminder {
			kind = "reminder"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", m.CreatedAt.UTC().Format(time.RFC3339), kind, m.Direction, m.Channel, m.Status, fmtTime(m.SentAt))
	}
	if len(v.Messages) == 0 {
		fmt.Fprintln(w, "(none)")
	}
	_ = w.Flush()

	if !transcript {
		return
	}
	fmt.Fprintln(e.stdout, "\ntranscript:")
	for _, t := range v.Turns {
		fmt.Fprintf(e.stdout, "%d. [%s] %s\n", t.Seq, t.Source, t.Question)
		if t.Answer != nil {
			fmt.Fprintf(e.stdout, "   answer (%s): %s\n", fmtTime(t.AnsweredAt), strings.ReplaceAll(*t.Answer, "\n", "\n   "))
		} else {
			fmt.Fprintln(e.stdout, "   (not answered)")
		}
	}
	if len(v.Turns) == 0 {
		fmt.Fprintln(e.stdout, "(no questions asked)")
	}
}

// eventDetail is an event's detail as key=value pairs, in key order.
func eventDetail(d map[string]any) string {
	if len(d) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := d[k]
		if s, ok := v.(string); ok {
			parts[i] = k + "=" + s
			continue
		}
		b, _ := json.Marshal(v)
		parts[i] = k + "=" + string(b)
	}
	return strings.Join(parts, " ")
}
