package workflows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// replayHistories are histories recorded by earlier releases (TestRecordReplayHistories), each
// replayed by today's code: a change of the commands a run issues that is not behind a
// workflow.GetVersion fails its replay. Each names the release that recorded it.
var replayHistories = []struct {
	file     string
	workflow any
}{
	// Recorded before LoadFlow and SendInvite became local activities (version flow-local-activities).
	{"flow-manual-invite.before-local-activities.json", CustomerFlow},
	{"flow-hrsuite-invite.before-local-activities.json", CustomerFlow},
	{"partner-application.before-local-activities.json", PartnerApplication},
	{"job-generation.before-local-activities.json", JobGeneration},
	// Recorded with version local-activities.
	{"flow-manual-invite.local-activities.json", CustomerFlow},
	{"flow-hrsuite-invite.local-activities.json", CustomerFlow},
	{"partner-application.local-activities.json", PartnerApplication},
	{"job-generation.local-activities.json", JobGeneration},
	// Recorded with version 1 of invite-quiet-hours (QuietUntil asked for e-mail too), before
	// version 2 skipped the channels quiet hours never hold.
	{"flow-manual-invite.before-quiet-texts.json", CustomerFlow},
	{"flow-hrsuite-invite.before-quiet-texts.json", CustomerFlow},
	{"partner-application.before-quiet-texts.json", PartnerApplication},
	// Recorded with version 1 of local-activities (one local activity per step), before version
	// 2 (mergedSteps) opened, held and sent an invitation in one, and settled and called back in
	// one.
	{"flow-manual-invite.before-merged-steps.json", CustomerFlow},
	{"flow-hrsuite-invite.before-merged-steps.json", CustomerFlow},
	{"partner-application.before-merged-steps.json", PartnerApplication},
	// Recorded with version 2 of local-activities (mergedSteps).
	{"flow-manual-invite.merged-steps.json", CustomerFlow},
	{"flow-hrsuite-invite.merged-steps.json", CustomerFlow},
	{"partner-application.merged-steps.json", PartnerApplication},
}

// TestReplayRecordedHistories replays every recorded history with today's workflow code.
func TestReplayRecordedHistories(t *testing.T) {
	for _, h := range replayHistories {
		t.Run(h.file, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(h.workflow)
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", h.file)); err != nil {
				t.Errorf("replay of %s: %v", h.file, err)
			}
		})
	}
}

// TestRecordReplayHistories records the histories that TestReplayRecordedHistories replays: it
// runs each workflow on the Temporal server of TEST_TEMPORAL_ADDRESS with activities that answer
// as the real ones would (no Postgres) and writes its history under testdata with the file name
// suffix in RECRUITD_RECORD_HISTORIES (e.g. "next" for flow-manual-invite.next.json). It runs
// only when that variable is set: `RECRUITD_RECORD_HISTORIES=next ./bin/recruitd stack -- go
// test ./workflows -run TestRecordReplayHistories`.
func TestRecordReplayHistories(t *testing.T) {
	suffix, addr := os.Getenv("RECRUITD_RECORD_HISTORIES"), os.Getenv("TEST_TEMPORAL_ADDRESS")
	if suffix == "" || addr == "" {
		t.Skip("records histories only with RECRUITD_RECORD_HISTORIES and TEST_TEMPORAL_ADDRESS set")
	}
	ns := os.Getenv("TEST_TEMPORAL_NAMESPACE")
	if ns == "" {
		ns = "default"
	}
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	queue := "record-" + uuid.NewString()
	co, job, cand, app, sess := stubWorker(t, c, queue)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	record := func(name, id string, fn any, arg any, finished bool) {
		t.Helper()
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, fn, arg)
		if err != nil {
			t.Fatal(err)
		}
		if finished {
			if err := run.Get(ctx, nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		} else {
			// A run left waiting (wait_for_session): recorded once its first tasks are done.
			time.Sleep(3 * time.Second)
		}
		hist := &historypb.History{}
		it := c.GetWorkflowHistory(ctx, id, run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			hist.Events = append(hist.Events, ev)
		}
		if !finished {
			if err := c.TerminateWorkflow(ctx, id, run.GetRunID(), "recorded"); err != nil {
				t.Fatal(err)
			}
		}
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("testdata", name+"."+suffix+".json")
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d events", file, len(hist.Events))
	}
	record("flow-manual-invite", "invite/acme/"+uuid.NewString(), CustomerFlow,
		kinds.FlowInput{CompanyID: co, Trigger: models.TriggerManualInvite, SessionID: sess, CandidateID: cand, ApplicationID: app, JobID: job}, true)
	record("flow-hrsuite-invite", "invite/acme/"+uuid.NewString(), CustomerFlow,
		kinds.FlowInput{CompanyID: co, Trigger: models.TriggerNewApplicationWebhook, CandidateID: cand, ApplicationID: app, JobID: job}, true)
	record("partner-application", "partner-application/acme/"+uuid.NewString(), PartnerApplication,
		kinds.PartnerInput{CompanyID: co, PartnerApplicationID: uuid.New(), Deadline: time.Hour}, false)
	record("job-generation", "job-generation/acme/"+uuid.NewString(), JobGeneration,
		JobGenerationInput{CompanyID: co, JobID: job}, true)
}

// StubWorker is stubWorker for the package's external tests.
var StubWorker = stubWorker

// stubWorker starts a worker on queue with the workflows and activities that answer as the real
// ones would (no Postgres) for one company, job, candidate, application and session, which it
// returns; the worker stops when the test ends.
func stubWorker(t *testing.T, c client.Client, queue string) (co, job, cand, app, sess uuid.UUID) {
	t.Helper()
	co, job, cand, app, sess = uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	w := worker.New(c, queue, worker.Options{})
	for _, fn := range []any{CustomerFlow, PartnerApplication, JobGeneration, DeliverCallback} {
		w.RegisterWorkflow(fn)
	}
	defs := flow.Defaults()
	definition := func(tr models.FlowTrigger) json.RawMessage {
		b, err := json.Marshal(defs[tr])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	facts := flow.Facts{"candidate.email": "x", "job.isOpen": true, "job.status": "ACTIVE", "application.doNotHire": false, "application.status": "new"}
	stubs := map[string]any{
		"LoadFlow": func(_ context.Context, in kinds.FlowInput) (activities.FlowContext, error) {
			raw := definition(in.Trigger)
			return activities.FlowContext{Definition: raw, Verdicts: flow.Evaluate(defs[in.Trigger], facts), CandidateID: cand, ApplicationID: app}, nil
		},
		"OpenSession": func(context.Context, activities.OpenSessionInput) (uuid.UUID, error) { return sess, nil },
		"OpenSessionWhenReady": func(context.Context, activities.OpenSessionWhenReadyInput) (activities.OpenSessionResult, error) {
			return activities.OpenSessionResult{SessionID: sess}, nil
		},
		"QuietUntil": func(_ context.Context, in activities.QuietUntilInput) (time.Time, error) { return in.Now, nil },
		"SendInvite": func(context.Context, activities.SendInviteInput) (activities.SendInviteResult, error) {
			return activities.SendInviteResult{MessageID: uuid.New(), Provider: "outbox"}, nil
		},
		"PreparePartner": func(context.Context, activities.PrepareInput) (activities.PartnerRun, error) {
			raw := definition(models.TriggerPartnerApplication)
			return activities.PartnerRun{CompanySlug: "acme", JobID: job, CandidateID: cand, ApplicationID: app,
				Flow: activities.FlowContext{Definition: raw, Verdicts: flow.Evaluate(defs[models.TriggerPartnerApplication], facts)}}, nil
		},
		"SettlePartner": func(context.Context, activities.SettleInput) (activities.SettleResult, error) {
			return activities.SettleResult{CallbackID: uuid.New()}, nil
		},
		"OpenAndSendInvite": func(context.Context, activities.OpenAndSendInput) (activities.OpenAndSendResult, error) {
			return activities.OpenAndSendResult{OpenSessionResult: activities.OpenSessionResult{SessionID: sess}, Sent: true,
				Send: activities.SendInviteResult{MessageID: uuid.New(), Provider: "outbox"}}, nil
		},
		"SettleAndCallBack": func(context.Context, activities.SettleInput) (activities.SettleCallBackResult, error) {
			return activities.SettleCallBackResult{SettleResult: activities.SettleResult{CallbackID: uuid.New()}, Attempted: true,
				Attempt: activities.AttemptResult{State: models.CallbackStateDelivered, Final: true}}, nil
		},
		"AttemptCallback": func(context.Context, activities.AttemptInput) (activities.AttemptResult, error) {
			return activities.AttemptResult{State: models.CallbackStateDelivered, Final: true}, nil
		},
		"GenerateGuide": func(context.Context, uuid.UUID, uuid.UUID) (activities.GenerateResult, error) {
			return activities.GenerateResult{Status: string(models.JobStatusActive)}, nil
		},
	}
	for name, fn := range stubs {
		w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return co, job, cand, app, sess
}
