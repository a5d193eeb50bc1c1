// Package kinds is the one table of recruitd's workflow kinds. A kind is how a workflow starts:
// its name (the start outbox's kind, and the first segment of its workflow IDs,
// <kind>/<companySlug>/<key>), the workflow type that runs it, its search attributes and its
// start policy. Whatever starts a workflow (a request, an activity, the reconciler, an operator
// command) builds the outbox row with Kind.Start, commits it, and starts it with the Starter (workflows/starter); no
// caller builds start options itself.
//
// The package is a leaf (models and the SDK only), so the activities that start runs use it as
// directly as the handlers do, and package workflows, whose functions run the kinds, imports it
// for their IDs and search attributes. A kind's input is its workflow function's one parameter
// (IDs, enums and counts only: no personal data enters Temporal); the row carries it as JSON.
//
// A new kind is one entry in All plus its workflow (package workflows, listed in
// workflows.Functions) and activity files; TestEveryKindIsRegistered fails until the worker runs it.
package kinds

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/models"
)

// Typed search attribute keys. Every workflow that recruitd starts carries CompanySlug and the
// ones its kind lists, so operators can filter in the Temporal Web UI (for example
// `CompanySlug = "demo"`). Values never hold personal data: slugs, identifiers built from ATS ids,
// trigger and outcome names. (The trigger's key is WorkflowTrigger because "trigger" is an SQL
// keyword that SQL-backed visibility stores reject in queries.)
var (
	CompanySlugKey       = temporal.NewSearchAttributeKeyKeyword("CompanySlug")
	InterviewerIDKey     = temporal.NewSearchAttributeKeyKeyword("InterviewerId")
	TriggerKey           = temporal.NewSearchAttributeKeyKeyword("WorkflowTrigger")
	OutcomeKey           = temporal.NewSearchAttributeKeyKeyword("Outcome")
	ApplicationStatusKey = temporal.NewSearchAttributeKeyKeyword("ApplicationStatus")
	// ImportStateKey is a job import's state: importing, idle, waiting_for_sync, needs_attention, failed.
	ImportStateKey = temporal.NewSearchAttributeKeyKeyword("ImportState")
	// JobIDKey and SessionStatusKey are an interview's job and session status, so the Web UI
	// lists a company's open interviews: CompanySlug = "demo" AND SessionStatus IN ("INVITED", "STARTED").
	JobIDKey         = temporal.NewSearchAttributeKeyKeyword("JobId")
	SessionStatusKey = temporal.NewSearchAttributeKeyKeyword("SessionStatus")
)

// SearchAttributeKeys lists every key above, for registration (temporal.SearchAttributes).
func SearchAttributeKeys() []temporal.SearchAttributeKeyKeyword {
	return []temporal.SearchAttributeKeyKeyword{CompanySlugKey, InterviewerIDKey, TriggerKey, OutcomeKey, ApplicationStatusKey, ImportStateKey,
		JobIDKey, SessionStatusKey}
}

// Kind is one row of the table.
type Kind struct {
	// Name is the outbox kind and the first segment of the kind's workflow IDs.
	Name string
	// Workflow is the workflow type that runs the kind: the name of its function in package
	// workflows, under which the worker registers it (workflows.Functions).
	Workflow string
	// Attrs are the keyword search attributes a start carries besides CompanySlug; Start takes
	// their values in this order.
	Attrs []temporal.SearchAttributeKeyKeyword
	// RunTimeout bounds a run; 0 is none (runs that wait days for a candidate).
	RunTimeout time.Duration
	// Signal is the signal the kind's run takes. With SignalWithStart every start signals the
	// running workflow of the ID, or starts one if none runs, also after a closed run (the run
	// reads its work from Postgres, so running again does nothing twice); without it, only
	// starter.Starter.Signal does.
	Signal          string
	SignalWithStart bool
	// ResumeRefused: the reconciler also starts a start that a request refused with 503. Only
	// for kinds whose late run reaches nobody outside recruitd (a job's generation, an HR-suite
	// delivery's ingest); a refused invitation or partner application must never act after the
	// caller was told it did not.
	ResumeRefused bool
	// Queue is the task queue the kind's runs, their activities and child runs are on.
	Queue Queue
	// KeepStarted: the kind's started rows are kept for ever, because their workflow_id is what
	// makes the start happen once. Other kinds' work has a record of its own that does (a job, a
	// session, a partner application, an HR-suite application record); a 'New Job from ATS' start
	// is the only record that an ATS job's run has fired, should the job be re-created.
	KeepStarted bool
}

// Ping is the one-activity round trip that health checks and benchmarks wait on; it is no
// outbox kind (nothing commits it), so it is not in All.
var Ping = Kind{Name: "ping", Workflow: "Ping", RunTimeout: time.Minute, Queue: QueueDefault}

// The kinds. Keys of their IDs: a job's external id, a session, an ATS applicant, a callback, an
// ATS job, an application, a held link, a delivery, a replay; a company's job import has none.
var (
	JobGeneration = Kind{Name: "job-generation", Workflow: "JobGeneration", Attrs: attrs(InterviewerIDKey), Queue: QueueIngest,
		RunTimeout: time.Hour, ResumeRefused: true}
	Invite             = Kind{Name: "invite", Workflow: "CustomerFlow", Attrs: attrs(InterviewerIDKey, TriggerKey), Queue: QueueDefault}
	PartnerApplication = Kind{Name: "partner-application", Workflow: "PartnerApplication", Attrs: attrs(TriggerKey, ApplicationStatusKey), Queue: QueueDefault}
	Callback           = Kind{Name: "partner-callback", Workflow: "DeliverCallback", Queue: QueueDefault} // a partner run's child: its queue
	JobImport          = Kind{Name: "job-import", Workflow: "JobImport", Signal: "data-changed", Queue: QueueIngest}
	NewJob             = Kind{Name: "new-job", Workflow: "CustomerFlow", Attrs: attrs(InterviewerIDKey, TriggerKey),
		RunTimeout: time.Hour, KeepStarted: true, Queue: QueueIngest}
	AssessmentLink = Kind{Name: "assessment-link", Workflow: "AssessmentLinkDelivery",
		Signal: "assessment-link-pushed", SignalWithStart: true, Queue: QueueInterview}
	// A held link's push was answered 200 whatever Temporal did: its run is still wanted (it
	// delivers within the window or discards the hold). A push that renews the hold signals it.
	AssessmentLinkHold = Kind{Name: "assessment-link-hold", Workflow: "AssessmentLinkHold",
		Signal: "assessment-link-hold-renewed", SignalWithStart: true, ResumeRefused: true, Queue: QueueInterview}
	// A delivery's ingest and a replay reach candidates only through the application runs they
	// start, which an HR suite never waits for: a start refused while Temporal was away is
	// still wanted (the webhook answers 200 once the delivery is stored).
	HRSuiteDelivery = Kind{Name: "hrsuite-delivery", Workflow: "HRSuiteDelivery", ResumeRefused: true, Queue: QueueIngest}
	HRSuiteReplay   = Kind{Name: "hrsuite-replay", Workflow: "HRSuiteReplay", ResumeRefused: true, Queue: QueueIngest}
	NewApplication  = Kind{Name: "new-application", Workflow: "CustomerFlow", Attrs: attrs(InterviewerIDKey, TriggerKey),
		ResumeRefused: true, Queue: QueueDefault}
	// 'New Application from ATS': one run per application the aggregator's application sync
	// creates, keyed by its ATS application id and kept for ever, so an application re-created
	// (its candidate erased, say, then synced again) never fires twice.
	ATSApplication = Kind{Name: "ats-application", Workflow: "CustomerFlow", Attrs: attrs(InterviewerIDKey, TriggerKey),
		KeepStarted: true, Queue: QueueDefault}
	// An interview session's lifecycle: reminders, expiry, the incomplete window and the step
	// after completion. Every change of the session (started, completed, declined, cancelled,
	// extended) is committed with a renewed start row and signals the run, or starts a new one
	// after a closed run (an extended EXPIRED session); the run reads the session from Postgres.
	// A refused start is still wanted: a session whose invitation was never sent only expires.
	Interview = Kind{Name: "interview", Workflow: "InterviewSession", Attrs: attrs(JobIDKey, SessionStatusKey),
		Signal: "session-changed", SignalWithStart: true, ResumeRefused: true, Queue: QueueInterview}
	// A result written back to the ATS (a session's report note, a decision's stage move), keyed
	// <sessionId>-note or <sessionId>-stage-<writeId>; its ats_writes row makes it happen once.
	// A refused start is still wanted: the write reaches the ATS, never a candidate.
	ATSWrite = Kind{Name: "ats-write", Workflow: "ATSWrite", RunTimeout: 24 * time.Hour, ResumeRefused: true, Queue: QueueDefault}
)

// All is the table: every kind once.
var All = []Kind{JobGeneration, Invite, PartnerApplication, Callback, JobImport, NewJob, AssessmentLink,
	AssessmentLinkHold, HRSuiteDelivery, HRSuiteReplay, NewApplication, Interview, ATSApplication, ATSWrite}

func attrs(keys ...temporal.SearchAttributeKeyKeyword) []temporal.SearchAttributeKeyKeyword {
	return keys
}

// Named returns the kind called name.
func Named(name string) (Kind, bool) {
	for _, k := range All {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Names lists the kinds' names, in the table's order.
func Names() []string { return names(func(Kind) bool { return true }) }

// ResumeRefused lists the kinds whose refused starts the reconciler starts anyway.
func ResumeRefused() []string { return names(func(k Kind) bool { return k.ResumeRefused }) }

// KeepStarted lists the kinds whose started rows the reconciler never prunes.
func KeepStarted() []string { return names(func(k Kind) bool { return k.KeepStarted }) }

func names(keep func(Kind) bool) []string {
	var out []string
	for _, k := range All {
		if keep(k) {
			out = append(out, k.Name)
		}
	}
	return out
}

// ID is the workflow ID of the kind's run for key in a company: <kind>/<companySlug>/<key>, or
// <kind>/<companySlug> when key is empty.
func (k Kind) ID(companySlug, key string) string {
	if key == "" {
		return k.Name + "/" + companySlug
	}
	return k.Name + "/" + companySlug + "/" + key
}

// Start builds the outbox row of the kind's run for key, with a new row id. input is the
// workflow's parameter (a plain struct of IDs); attrValues are the values of k.Attrs, in order.
func (k Kind) Start(companyID uuid.UUID, companySlug, key string, input any, attrValues ...string) models.WorkflowStart {
	return k.StartWithID(uuid.New(), companyID, companySlug, key, input, attrValues...)
}

// StartWithID is Start with the row id chosen by the caller: deterministic where a repeat must
// find the row it wrote.
func (k Kind) StartWithID(id, companyID uuid.UUID, companySlug, key string, input any, attrValues ...string) models.WorkflowStart {
	if len(attrValues) != len(k.Attrs) {
		panic(fmt.Sprintf("kind %s takes %d search attribute values, got %d", k.Name, len(k.Attrs), len(attrValues)))
	}
	raw, err := json.Marshal(input)
	if err != nil {
		panic(fmt.Sprintf("workflow input %T does not marshal: %v", input, err)) // inputs are plain structs of ids
	}
	var values map[string]string
	if len(k.Attrs) > 0 {
		values = make(map[string]string, len(k.Attrs))
		for i, a := range k.Attrs {
			values[a.GetName()] = attrValues[i]
		}
	}
	return models.WorkflowStart{
		ID: id, CompanyID: companyID, Kind: k.Name, WorkflowID: k.ID(companySlug, key), CompanySlug: companySlug,
		Attributes: models.NewJSON(values), Input: raw,
	}
}
