package kinds

import (
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// Inputs of the kinds that the feature packages and the activities start as well as the
// handlers (neither may import package workflows, which imports the activities): the customer
// flows (the job import's and the HR-suite ingest's runs), an assessment link's delivery (a held
// link whose application appeared), an HR-suite delivery's ingest and replay (internal/hrsuite),
// a partner application's run and its callback (internal/partners) and a company's job import. The other kinds' inputs are their workflow functions' parameter
// types in package workflows.

// JobGenerationInput identifies the job whose interview a JobGeneration run writes. It lives
// with the table because the job import (an activity) starts generations as well as createJob.
type JobGenerationInput struct {
	CompanyID uuid.UUID
	JobID     uuid.UUID
}

// JobGenerationStart is the start of a created job's interview generation, one per job (key: its
// external id).
func JobGenerationStart(slug, externalJobID, interviewerID string, in JobGenerationInput) models.WorkflowStart {
	return JobGeneration.Start(in.CompanyID, slug, externalJobID, in, interviewerID)
}

// ImportedJobGenerationStart is the start of an imported job's interview generation for one
// version of its description: key <atsJobId>@<when the ATS changed the job>, so a description
// that changes upstream gets a run of its own (a new guide version) and a page that repeats the
// same version finds its start written.
func ImportedJobGenerationStart(slug, atsJobID, interviewerID string, changedAt time.Time, in JobGenerationInput) models.WorkflowStart {
	return JobGeneration.Start(in.CompanyID, slug, atsJobID+"@"+changedAt.UTC().Format("20060102T150405.000Z"), in, interviewerID)
}

// JobReadySignal wakes the customer-flow runs whose invitation waits for their job's interview
// (the job's generation sends it when the guide is stored).
const JobReadySignal = "job-ready"

// FlowInput is the input of the kinds that run a company's customer flow (Invite, NewJob,
// NewApplication, ATSApplication): the trigger and the IDs of its subjects (uuid.Nil when absent). It lives with
// the table because three layers start such runs: a request (an invitation), the job import and
// the HR-suite ingest (activities).
type FlowInput struct {
	CompanyID     uuid.UUID
	Trigger       models.FlowTrigger
	JobID         uuid.UUID
	CandidateID   uuid.UUID
	ApplicationID uuid.UUID
	SessionID     uuid.UUID
	Channels      []models.MessageChannel
	MediumType    models.MediumType
}

// InviteStart is the start of a manual invitation's customer flow; in.SessionID is set.
func InviteStart(slug, interviewerID string, in FlowInput) models.WorkflowStart {
	return flowStart(Invite, slug, in.SessionID.String(), interviewerID, in)
}

// NewJobStart is the start of the 'New Job from ATS' run of a job the import created, one per
// company and ATS job, for ever (the outbox's workflow_id is unique).
func NewJobStart(slug string, companyID, jobID uuid.UUID, atsJobID, interviewerID string) models.WorkflowStart {
	in := FlowInput{CompanyID: companyID, Trigger: models.TriggerNewJobFromATS, JobID: jobID}
	return flowStart(NewJob, slug, atsJobID, interviewerID, in)
}

// NewApplicationStart is the start of the 'New Applications via Webhook' run of an application
// an HR-suite delivery created, one per application, for ever.
func NewApplicationStart(slug string, companyID, jobID, candidateID, applicationID uuid.UUID, interviewerID string) models.WorkflowStart {
	in := FlowInput{CompanyID: companyID, Trigger: models.TriggerNewApplicationWebhook, JobID: jobID, CandidateID: candidateID, ApplicationID: applicationID}
	return flowStart(NewApplication, slug, applicationID.String(), interviewerID, in)
}

// ATSApplicationStart is the start of the 'New Application from ATS' run of an application the
// aggregator's application sync created, one per company and ATS application id, for ever.
func ATSApplicationStart(slug string, companyID, jobID, candidateID, applicationID uuid.UUID, atsApplicationID, interviewerID string) models.WorkflowStart {
	in := FlowInput{CompanyID: companyID, Trigger: models.TriggerNewApplicationATS, JobID: jobID, CandidateID: candidateID, ApplicationID: applicationID}
	return flowStart(ATSApplication, slug, atsApplicationID, interviewerID, in)
}

// flowStart carries the job's interviewer id and the trigger as search attributes.
func flowStart(k Kind, slug, key, interviewerID string, in FlowInput) models.WorkflowStart {
	return k.Start(in.CompanyID, slug, key, in, interviewerID, string(in.Trigger))
}

// PartnerInput starts a partner application's run. It lives with the table because the
// partner feature (internal/partners), which may not import package workflows, writes its
// start. The run stores the applicant as a candidate and application (AttachPartnerApplicant).
type PartnerInput struct {
	CompanyID            uuid.UUID
	PartnerApplicationID uuid.UUID
	Deadline             time.Duration
}

// PartnerApplicationStart is the start of a partner application's run, one per company and ATS
// applicant.
func PartnerApplicationStart(slug, atsApplicantID string, in PartnerInput) models.WorkflowStart {
	return PartnerApplication.Start(in.CompanyID, slug, atsApplicantID, in,
		string(models.TriggerPartnerApplication), string(models.PartnerStatusInFlight))
}

// CallbackInput names a callback to deliver. Redeliver starts over a callback that was delivered
// or given up (an operator's redelivery). FirstAttempt and FirstDelay continue a delivery whose
// earlier attempts ran elsewhere (the partner workflow makes the first one).
type CallbackInput struct {
	CompanyID    uuid.UUID
	CallbackID   uuid.UUID
	Redeliver    bool
	FirstAttempt int
	FirstDelay   time.Duration
}

// CallbackStart is the delivery of one callback (a repeat submission's replay). An operator's
// redelivery (in.Redeliver) gets an ID of its own per request, named by suffix.
func CallbackStart(slug string, in CallbackInput, suffix string) models.WorkflowStart {
	key := in.CallbackID.String()
	if suffix != "" {
		key += "/" + suffix
	}
	return Callback.Start(in.CompanyID, slug, key, in)
}

// AssessmentLinkInput names the application whose current assessment link is delivered.
type AssessmentLinkInput struct {
	CompanyID     uuid.UUID
	ApplicationID uuid.UUID
}

// AssessmentLinkStart is the delivery of an application's current assessment link, one run per
// application at a time; a push while it runs signals it.
func AssessmentLinkStart(slug string, companyID, applicationID uuid.UUID) models.WorkflowStart {
	in := AssessmentLinkInput{CompanyID: companyID, ApplicationID: applicationID}
	return AssessmentLink.Start(companyID, slug, applicationID.String(), in)
}

// AssessmentLinkHoldInput names a link held for an application not ingested yet.
type AssessmentLinkHoldInput struct {
	CompanyID uuid.UUID
	HoldID    uuid.UUID
}

// AssessmentLinkHoldStart is the run of a held link; a push that renews the hold signals it.
func AssessmentLinkHoldStart(slug string, in AssessmentLinkHoldInput) models.WorkflowStart {
	return AssessmentLinkHold.Start(in.CompanyID, slug, in.HoldID.String(), in)
}

// HRSuiteDeliveryInput names a stored HR-suite delivery.
type HRSuiteDeliveryInput struct {
	CompanyID  uuid.UUID
	DeliveryID uuid.UUID
}

// HRSuiteDeliveryStart is the ingest of a delivery just stored.
func HRSuiteDeliveryStart(slug string, in HRSuiteDeliveryInput) models.WorkflowStart {
	return HRSuiteDelivery.Start(in.CompanyID, slug, in.DeliveryID.String(), in)
}

// HRSuiteReplayInput names a replay and the company whose deliveries this run reprocesses.
type HRSuiteReplayInput struct {
	CompanyID uuid.UUID
	ReplayID  uuid.UUID
}

// HRSuiteReplayStart is a replay's run over one company's deliveries.
func HRSuiteReplayStart(slug string, in HRSuiteReplayInput) models.WorkflowStart {
	return HRSuiteReplay.Start(in.CompanyID, slug, in.ReplayID.String(), in)
}

// JobImportInput identifies the company whose jobs are imported. Full asks for a full pass
// first (the first run, and a run continued when a full pass was due). FullEvery is the period
// of full passes (the workflow's default when zero).
type JobImportInput struct {
	CompanyID uuid.UUID
	Full      bool
	FullEvery time.Duration
}

// JobImportStart is the start of a company's job import, written when its integration card
// first becomes connected (and sent as a signal when the aggregator reports changed jobs); a
// first run begins with a full pass.
func JobImportStart(slug string, companyID uuid.UUID) models.WorkflowStart {
	return JobImport.Start(companyID, slug, "", JobImportInput{CompanyID: companyID, Full: true})
}

// InterviewInput is the input of a session's interview run (kind Interview). It lives with the
// table because a request (an invitation), a customer flow's activity (OpenSession), the
// candidate page (internal/interview) and the operator commands start or signal it.
type InterviewInput struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	// InvitationChecked: whoever opened the session made the invitation's integrity check
	// (activities.OpenSession does, so that the run can sleep until its first reminder), and
	// the run's first round does not make it again.
	InvitationChecked bool `json:",omitempty"`
}

// InterviewStart is the start (and, renewed, the signal) of a session's interview run;
// status is the session's status when the row is written, the run's first SessionStatus.
func InterviewStart(slug string, companyID, sessionID, jobID uuid.UUID, status models.SessionStatus) models.WorkflowStart {
	return interviewStart(slug, InterviewInput{CompanyID: companyID, SessionID: sessionID}, jobID, status)
}

// OpenedInterviewStart is the start of the run of an INVITED session whose opener makes the
// invitation's integrity check itself (InvitationChecked).
func OpenedInterviewStart(slug string, companyID, sessionID, jobID uuid.UUID) models.WorkflowStart {
	in := InterviewInput{CompanyID: companyID, SessionID: sessionID, InvitationChecked: true}
	return interviewStart(slug, in, jobID, models.SessionStatusInvited)
}

func interviewStart(slug string, in InterviewInput, jobID uuid.UUID, status models.SessionStatus) models.WorkflowStart {
	return Interview.Start(in.CompanyID, slug, in.SessionID.String(), in, jobID.String(), string(status))
}

// ATSWriteInput names one write back to the company's ATS (an ats_writes row). The write
// feature (internal/atswrite) commits its start with the row.
type ATSWriteInput struct {
	CompanyID uuid.UUID
	WriteID   uuid.UUID
}

// ATSWriteStart is the start of a write's run; key is <sessionId>-note or
// <sessionId>-stage-<writeId>.
func ATSWriteStart(slug, key string, in ATSWriteInput) models.WorkflowStart {
	return ATSWrite.Start(in.CompanyID, slug, key, in)
}
