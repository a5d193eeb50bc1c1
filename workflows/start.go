package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/models"
)

// Kinds of workflow that recruitd starts from the start outbox (models.WorkflowStart.Kind).
const (
	KindJobGeneration      = "job-generation"
	KindInvite             = "invite"
	KindPartnerApplication = "partner-application"
	KindCallback           = "partner-callback"
	KindJobImport          = "job-import"
	KindNewJob             = "new-job"
	KindAssessmentLink     = "assessment-link"
	KindAssessmentLinkHold = "assessment-link-hold"
	KindHRSuiteDelivery    = "hrsuite-delivery"
	KindHRSuiteReplay      = "hrsuite-replay"
	KindNewApplication     = activities.KindNewApplication
)

// kind is how a workflow kind starts: its function, the type of its one input, and the options
// that differ between kinds.
type kind struct {
	fn         any
	input      reflect.Type
	runTimeout time.Duration // 0: none (runs that wait days for a candidate)
	// signal, when set, makes the kind's starts signal-with-start: a start signals the running
	// workflow of the ID, or starts one if none runs, also after a closed run (the run reads its
	// work from Postgres, so running again does nothing twice).
	signal string
	// resumeRefused: the reconciler also starts a start that a request refused with 503. Only
	// for kinds whose late run reaches nobody outside recruitd (a job's generation); a refused
	// invitation or partner application must never act after the caller was told it did not.
	resumeRefused bool
	// keepStarted: the kind's started rows are kept for ever, because their workflow_id is what
	// makes the start happen once. Other kinds' work has a record of its own that does (a job, a
	// session, a partner application, an HR-suite application record); a 'New Job from ATS' start
	// is the only record that an ATS job's run has fired, should the job be re-created.
	keepStarted bool
}

var kinds = map[string]kind{
	KindJobGeneration:      {fn: JobGeneration, input: reflect.TypeFor[JobGenerationInput](), runTimeout: time.Hour, resumeRefused: true},
	KindInvite:             {fn: CustomerFlow, input: reflect.TypeFor[FlowInput]()},
	KindPartnerApplication: {fn: PartnerApplication, input: reflect.TypeFor[PartnerInput]()},
	KindCallback:           {fn: DeliverCallback, input: reflect.TypeFor[CallbackInput]()},
	KindJobImport:          {fn: JobImport, input: reflect.TypeFor[JobImportInput]()},
	KindNewJob:             {fn: CustomerFlow, input: reflect.TypeFor[FlowInput](), runTimeout: time.Hour, keepStarted: true},
	KindAssessmentLink:     {fn: AssessmentLinkDelivery, input: reflect.TypeFor[AssessmentLinkInput](), signal: AssessmentLinkSignal},
	// A held link's push was answered 200 whatever Temporal did: its run is still wanted (it
	// delivers within the window or discards the hold).
	KindAssessmentLinkHold: {fn: AssessmentLinkHold, input: reflect.TypeFor[AssessmentLinkHoldInput](), signal: AssessmentLinkHoldSignal, resumeRefused: true},
	// A delivery's ingest and a replay reach candidates only through the application runs they
	// start, which an HR suite never waits for: a start refused while Temporal was away is
	// still wanted (the webhook answers 200 once the delivery is stored).
	KindHRSuiteDelivery: {fn: HRSuiteDelivery, input: reflect.TypeFor[HRSuiteDeliveryInput](), resumeRefused: true},
	KindHRSuiteReplay:   {fn: HRSuiteReplay, input: reflect.TypeFor[HRSuiteReplayInput](), resumeRefused: true},
	KindNewApplication:  {fn: CustomerFlow, input: reflect.TypeFor[FlowInput](), resumeRefused: true},
}

// ResumeRefused lists the kinds whose refused starts the reconciler starts anyway.
func ResumeRefused() []string {
	var out []string
	for name, k := range kinds {
		if k.resumeRefused {
			out = append(out, name)
		}
	}
	return out
}

// KeepStarted lists the kinds whose started rows the reconciler never prunes.
func KeepStarted() []string {
	var out []string
	for name, k := range kinds {
		if k.keepStarted {
			out = append(out, name)
		}
	}
	return out
}

// Kinds lists the kinds Starter.Start knows, for tests that run every kind.
func Kinds() []string {
	return []string{KindJobGeneration, KindInvite, KindPartnerApplication, KindCallback, KindJobImport, KindNewJob, KindAssessmentLink,
		KindAssessmentLinkHold, KindHRSuiteDelivery, KindHRSuiteReplay, KindNewApplication}
}

// newStart builds the outbox row of a start; attrs are keyword search attributes besides
// CompanySlug.
func newStart(kindName string, companyID uuid.UUID, slug, id string, input any, attrs map[string]string) models.WorkflowStart {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(fmt.Sprintf("workflow input %T does not marshal: %v", input, err)) // inputs are plain structs of ids
	}
	return models.WorkflowStart{
		ID: uuid.New(), CompanyID: companyID, Kind: kindName, WorkflowID: id, CompanySlug: slug,
		Attributes: models.NewJSON(attrs), Input: raw,
	}
}

// JobGenerationStart is the start of a job's interview generation. Its ID,
// job-generation/<companySlug>/<externalJobId>, is one per job.
func JobGenerationStart(slug, externalJobID, interviewerID string, in JobGenerationInput) models.WorkflowStart {
	return newStart(KindJobGeneration, in.CompanyID, slug, JobGenerationWorkflowID(slug, externalJobID), in,
		map[string]string{InterviewerIDKey.GetName(): interviewerID})
}

// InviteStart is the start of a manual invitation's customer workflow; in.SessionID is set.
func InviteStart(slug, interviewerID string, in FlowInput) models.WorkflowStart {
	return newStart(KindInvite, in.CompanyID, slug, InviteWorkflowID(slug, in.SessionID), in, map[string]string{
		InterviewerIDKey.GetName(): interviewerID, TriggerKey.GetName(): string(in.Trigger),
	})
}

// PartnerApplicationStart is the start of a partner application's run, one per company and ATS
// applicant.
func PartnerApplicationStart(slug, atsApplicantID string, in PartnerInput) models.WorkflowStart {
	return newStart(KindPartnerApplication, in.CompanyID, slug, PartnerApplicationWorkflowID(slug, atsApplicantID), in, map[string]string{
		TriggerKey.GetName():           string(models.TriggerPartnerApplication),
		ApplicationStatusKey.GetName(): string(models.PartnerStatusInFlight),
	})
}

// CallbackStart is the delivery of one callback (a repeat submission's replay). An operator's
// redelivery (in.Redeliver) gets an ID of its own per request, named by suffix.
func CallbackStart(slug string, in CallbackInput, suffix string) models.WorkflowStart {
	id := CallbackWorkflowID(slug, in.CallbackID)
	if suffix != "" {
		id += "/" + suffix
	}
	return newStart(KindCallback, in.CompanyID, slug, id, in, nil)
}

// AssessmentLinkStart is the delivery of an application's current assessment link, one run per
// application at a time; a push while it runs signals it.
func AssessmentLinkStart(slug string, in AssessmentLinkInput) models.WorkflowStart {
	return newStart(KindAssessmentLink, in.CompanyID, slug, AssessmentLinkWorkflowID(slug, in.ApplicationID), in, nil)
}

// AssessmentLinkHoldStart is the run of a link held for an application not ingested yet; a push
// that renews the hold while it runs signals it.
func AssessmentLinkHoldStart(slug string, in AssessmentLinkHoldInput) models.WorkflowStart {
	return newStart(KindAssessmentLinkHold, in.CompanyID, slug, AssessmentLinkHoldWorkflowID(slug, in.HoldID), in, nil)
}

// JobImportStart is the start of a company's job import, written when its HR-suite card first
// becomes connected; the first run begins with a full pass.
func JobImportStart(slug string, companyID uuid.UUID) models.WorkflowStart {
	return newStart(KindJobImport, companyID, slug, JobImportWorkflowID(slug), JobImportInput{CompanyID: companyID, Full: true}, nil)
}

// NewJobStart is the start of the 'New Job from ATS' run of a job the import created, one per
// company and ATS job.
func NewJobStart(slug string, companyID, jobID uuid.UUID, atsJobID, interviewerID string) models.WorkflowStart {
	in := FlowInput{CompanyID: companyID, Trigger: models.TriggerNewJobFromATS, JobID: jobID}
	return newStart(KindNewJob, companyID, slug, NewJobWorkflowID(slug, atsJobID), in, map[string]string{
		InterviewerIDKey.GetName(): interviewerID, TriggerKey.GetName(): string(models.TriggerNewJobFromATS),
	})
}

// Starter starts recruitd's workflows. It is the only code that builds start options: the task
// queue, the CompanySlug search attribute every run carries, and the ID policies that make a
// start idempotent (a running workflow with the ID is used as it is; a closed one is not run
// again), so a repeated start never runs the work twice.
type Starter struct {
	Client    client.Client
	TaskQueue string
}

// ErrUnknownKind means a start names a kind this build does not know.
var ErrUnknownKind = errors.New("unknown workflow kind")

// Start starts ws's workflow, or finds it started. The error is Temporal's (or the context's)
// when the start was not taken.
func (s Starter) Start(ctx context.Context, ws *models.WorkflowStart) error {
	k, ok := kinds[ws.Kind]
	if !ok {
		return fmt.Errorf("start %s: %w %q", ws.WorkflowID, ErrUnknownKind, ws.Kind)
	}
	in := reflect.New(k.input)
	if err := json.Unmarshal(ws.Input, in.Interface()); err != nil {
		return fmt.Errorf("start %s: decode input: %w", ws.WorkflowID, err)
	}
	attrs := []temporal.SearchAttributeUpdate{CompanySlugKey.ValueSet(ws.CompanySlug)}
	for name, v := range ws.Attributes.V {
		attrs = append(attrs, temporal.NewSearchAttributeKeyKeyword(name).ValueSet(v))
	}
	opts := s.options(ws.WorkflowID, attrs...)
	opts.WorkflowRunTimeout = k.runTimeout
	if k.signal != "" {
		return s.signalWithStart(ctx, k, opts, in.Elem().Interface())
	}
	if _, err := s.Client.ExecuteWorkflow(ctx, opts, k.fn, in.Elem().Interface()); err != nil {
		return fmt.Errorf("start %s: %w", ws.WorkflowID, err)
	}
	return nil
}

// signalWithStart signals the running workflow of opts.ID with k.signal (no payload), or starts
// it with input and the signal. A closed run of the ID does not block a new one.
func (s Starter) signalWithStart(ctx context.Context, k kind, opts client.StartWorkflowOptions, input any) error {
	opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	if _, err := s.Client.SignalWithStartWorkflow(ctx, opts.ID, k.signal, nil, opts, k.fn, input); err != nil {
		return fmt.Errorf("signal-with-start %s: %w", opts.ID, err)
	}
	return nil
}

// SignalJobImport tells the company's job import that jobs changed, starting it (with a full
// first pass) when it does not run, also after a closed run. The change itself is recorded in
// Postgres before the signal, so the import finds it even if this signal is lost.
func (s Starter) SignalJobImport(ctx context.Context, slug string, companyID uuid.UUID) error {
	opts := s.options(JobImportWorkflowID(slug), CompanySlugKey.ValueSet(slug))
	opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	in := JobImportInput{CompanyID: companyID, Full: true}
	if _, err := s.Client.SignalWithStartWorkflow(ctx, opts.ID, JobImportSignal, nil, opts, JobImport, in); err != nil {
		return fmt.Errorf("signal %s: %w", opts.ID, err)
	}
	return nil
}

// Ping starts the one-activity round trip for a company; suffix makes its ID unique.
func (s Starter) Ping(ctx context.Context, companySlug, suffix string, companyID uuid.UUID) (client.WorkflowRun, error) {
	opts := s.options(PingWorkflowID(companySlug, suffix), CompanySlugKey.ValueSet(companySlug))
	opts.WorkflowRunTimeout = time.Minute
	return s.Client.ExecuteWorkflow(ctx, opts, Ping, companyID)
}

func (s Starter) options(id string, attrs ...temporal.SearchAttributeUpdate) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                s.TaskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    temporal.NewSearchAttributes(attrs...),
	}
}

// callbackChild is how a partner run starts its callback's delivery as a child: the ID and
// search attribute of CallbackStart, and a delivery that outlives the customer workflow.
func callbackChild(ctx workflow.Context, slug string, callbackID uuid.UUID) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            CallbackWorkflowID(slug, callbackID),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(CompanySlugKey.ValueSet(slug)),
	})
}
