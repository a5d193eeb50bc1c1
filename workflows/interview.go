package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// interviewRounds bounds the wake-ups of one run before it continues as new, so a session that
// is extended, signalled and reminded for weeks keeps a short history.
const interviewRounds = 100

// interviewPause is how long a run waits (or until a signal) before taking again an action that
// changed nothing the time before: a reminder the activity found not due, a deadline the close
// found not passed. The two clocks (the run's and the database's) never disagree for long.
const interviewPause = time.Minute

// InterviewSession is a session's lifecycle (kind Interview): the place where its time passes.
// Postgres holds the truth; the run reads it at each wake-up (LoadInterview), and a change the
// candidate page or an operator commits (started, completed, declined, cancelled, extended)
// signals it ("session-changed", no payload) or starts a new run after a closed one.
//
// Each round it upserts the SessionStatus search attribute when the status changed, then:
//   - COMPLETED: records that the transcript is final (FinalizeInterview, once) and signals the
//     customer-flow run that invited the session (SessionCompletedSignal; a run that is gone is
//     ignored), and ends;
//   - EXPIRED, INCOMPLETE, CANCELLED, DECLINED, or no deadline: ends;
//   - the deadline passed: closes the session if it is still overdue in Postgres (EXPIRED from
//     INVITED, INCOMPLETE from STARTED) and looks again;
//   - a reminder due: sends it (SendReminder, which checks again and sends it once), and looks
//     again;
//   - else waits for the signal or the next of the reminder and the deadline.
//
// Its input, results, signals and search attributes hold ids, statuses and times only.
func InterviewSession(ctx workflow.Context, in kinds.InterviewInput) error {
	var a *activities.Activities
	changed := workflow.GetSignalChannel(ctx, kinds.Interview.Signal)
	shown, _ := workflow.GetTypedSearchAttributes(ctx).GetKeyword(kinds.SessionStatusKey)
	local := shortLocal(ctx)
	send := localOptions(ctx, time.Minute, &temporal.RetryPolicy{
		InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 5,
		NonRetryableErrorTypes: []string{activities.ErrTypePermanent},
	})
	last := ""         // the action of the previous round
	completed := false // the step after COMPLETED ran in this run
	for round := 1; ; round++ {
		for changed.ReceiveAsync(nil) {
		}
		now := workflow.Now(ctx)
		var st activities.InterviewState
		if err := workflow.ExecuteLocalActivity(local, a.LoadInterview, activities.InterviewAt{
			CompanyID: in.CompanyID, SessionID: in.SessionID, Now: now,
		}).Get(ctx, &st); err != nil {
			return err
		}
		if string(st.Status) != shown {
			shown = string(st.Status)
			if err := workflow.UpsertTypedSearchAttributes(ctx, kinds.SessionStatusKey.ValueSet(shown)); err != nil {
				workflow.GetLogger(ctx).Warn("search attribute not recorded", "err", err)
			}
		}
		if round == 1 && !in.InvitationChecked && st.Status == models.SessionStatusInvited && st.RemindersDone == 0 {
			checkIntegrity(ctx, in, false) // the candidate's fraud check at invitation
		}
		if st.Status == models.SessionStatusCompleted && !completed {
			if err := completeInterview(ctx, in); err != nil {
				return err
			}
			completed = true
		}

		next, ok := st.NextWake()
		if !ok {
			return nil
		}

		action, wait := "", time.Duration(0)
		switch {
		case st.IdentityExpiresAt != nil && !now.Before(*st.IdentityExpiresAt):
			action = "expire identity"
		case st.Status.Open() && st.ExpiresAt != nil && !now.Before(*st.ExpiresAt):
			action = "close"
		case st.Status.Open() && st.Reminder != "" && !now.Before(st.ReminderAt):
			action = "remind " + st.Reminder
		default:
			wait = next.Sub(now)
		}
		if action != "" && action == last {
			action, wait = "", interviewPause
		}
		last = action
		switch {
		case action == "expire identity":
			var status models.IdentityStatus
			if err := workflow.ExecuteLocalActivity(local, a.ExpireIdentity, in.CompanyID, *st.IdentityID).Get(ctx, &status); err != nil {
				return err
			}
			continue
		case action == "close":
			var closed models.SessionStatus
			if err := workflow.ExecuteLocalActivity(local, a.CloseOverdueInterview, activities.InterviewAt{
				CompanyID: in.CompanyID, SessionID: in.SessionID, Now: now,
			}).Get(ctx, &closed); err != nil {
				return err
			}
			continue
		case action != "":
			remind(ctx, send, local, in, st.Reminder, now)
			continue
		}

		if round >= interviewRounds {
			return workflow.NewContinueAsNewError(ctx, InterviewSession, in)
		}
		tctx, cancel := workflow.WithCancel(ctx)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(workflow.NewTimer(tctx, wait), func(workflow.Future) {})
		sel.AddReceive(changed, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
		sel.Select(ctx)
		cancel()
	}
}

// remind sends the reminder key; when every attempt failed, it records the reminder skipped so
// that the run goes on without it. A failure to record that is left to the next round.
func remind(ctx, send, local workflow.Context, in kinds.InterviewInput, key string, now time.Time) {
	var a *activities.Activities
	var res activities.SendReminderResult
	err := workflow.ExecuteLocalActivity(send, a.SendReminder, activities.SendReminderInput{
		CompanyID: in.CompanyID, SessionID: in.SessionID, Key: key, Now: now,
	}).Get(ctx, &res)
	if err == nil {
		return
	}
	workflow.GetLogger(ctx).Warn("interview reminder failed; skipping it", "err", err)
	if err := workflow.ExecuteLocalActivity(local, a.SkipReminder, activities.SkipReminderInput{
		CompanyID: in.CompanyID, SessionID: in.SessionID, Key: key,
	}).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("skipped reminder not recorded", "err", err)
	}
}

// completeInterview is the step after COMPLETED: the transcript recorded final, the report
// (once, whatever crashes) and the integrity evaluations made, then the customer flow that waits
// for the session (wait_for_session) told.
func completeInterview(ctx workflow.Context, in kinds.InterviewInput) error {
	var a *activities.Activities
	var flowID string
	if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.FinalizeInterview, in.CompanyID, in.SessionID).Get(ctx, &flowID); err != nil {
		return err
	}
	// The report runs in this workflow's worker (a local activity: no task-queue round trips). A
	// worker that dies in the middle of it leaves the workflow task to time out, and another
	// worker evaluates again; the report is stored once whatever happens. The evaluator may call
	// a model (LLM_TIMEOUT, then the local fallback), so its bound is above the evaluator's own.
	evaluate := localOptions(ctx, 5*time.Minute, &temporal.RetryPolicy{MaximumInterval: time.Minute, NonRetryableErrorTypes: []string{activities.ErrTypePermanent}})
	var rep activities.ReportResult
	ref := activities.SessionRef{CompanyID: in.CompanyID, SessionID: in.SessionID}
	if err := workflow.ExecuteLocalActivity(evaluate, a.ProduceReport, ref).Get(ctx, &rep); err != nil {
		workflow.GetLogger(ctx).Error("interview report not made", "err", err)
	} else if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.QueueReportNote, ref).Get(ctx, nil); err != nil {
		// The report's note to the ATS (its own ats-write run); a later run's step queues it again.
		workflow.GetLogger(ctx).Warn("report note to the ATS not queued", "err", err)
	}
	checkIntegrity(ctx, in, true)
	if flowID == "" {
		return nil
	}
	// In runs of localActivitiesChange the worker signals the flow itself: no signal command, and
	// no workflow task to learn that a flow which never waited (a manual invitation's) has ended.
	if localActivities(ctx) {
		if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.SignalRun, flowID, SessionCompletedSignal).Get(ctx, nil); err != nil {
			workflow.GetLogger(ctx).Warn("customer flow not signalled of the completed session", "workflow_id", flowID, "err", err)
		}
		return nil
	}
	err := workflow.SignalExternalWorkflow(ctx, flowID, "", SessionCompletedSignal, nil).Get(ctx, nil)
	var gone *temporal.UnknownExternalWorkflowExecutionError
	switch {
	case errors.As(err, &gone):
		// The flow ended (or never waited): its wait_for_session also reads the status.
	case err != nil:
		workflow.GetLogger(ctx).Warn("customer flow not signalled of the completed session", "workflow_id", flowID, "err", err)
	}
	return nil
}

// checkIntegrity runs the session's integrity checks (CheckIntegrity; with cheating after the
// interview). A failure is logged, never the session's: the checks are evidence for the
// recruiter, and a later run's step makes them again.
func checkIntegrity(ctx workflow.Context, in kinds.InterviewInput, cheating bool) {
	var a *activities.Activities
	var res activities.IntegrityResult
	if err := workflow.ExecuteLocalActivity(shortLocal(ctx), a.CheckIntegrity, activities.SessionRef{CompanyID: in.CompanyID, SessionID: in.SessionID}, cheating).Get(ctx, &res); err != nil {
		workflow.GetLogger(ctx).Warn("integrity checks failed", "cheating", cheating, "err", err)
	}
}
