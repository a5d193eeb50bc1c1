package models

import (
	"fmt"
	"slices"
	"strings"
)

// Every enumeration below mirrors a CHECK (column IN (...)) constraint of the migrations;
// enums_test.go fails when the two drift apart.

// EnumError reports a value outside an enumeration. Its message names the allowed values, so it
// can be shown to API and tool callers as is.
type EnumError struct {
	Kind    string
	Value   string
	Allowed []string
}

func (e *EnumError) Error() string {
	return fmt.Sprintf("invalid %s %q: want one of %s", e.Kind, e.Value, strings.Join(e.Allowed, ", "))
}

// parseEnum returns the member of all equal to s, matching exactly first and then ignoring case.
func parseEnum[T ~string](kind, s string, all []T) (T, error) {
	for _, v := range all {
		if string(v) == s {
			return v, nil
		}
	}
	for _, v := range all {
		if strings.EqualFold(string(v), s) {
			return v, nil
		}
	}
	allowed := make([]string, len(all))
	for i, v := range all {
		allowed[i] = string(v)
	}
	return "", &EnumError{Kind: kind, Value: s, Allowed: allowed}
}

// Decision is the recruiter's decision on an interview session (interview_sessions.decision).
type Decision string

const (
	DecisionNone      Decision = "NONE"
	DecisionAccepted  Decision = "ACCEPTED"
	DecisionRejected  Decision = "REJECTED"
	DecisionSubmitted Decision = "SUBMITTED"
	DecisionPlaced    Decision = "PLACED"
	DecisionHired     Decision = "HIRED"
)

var allDecisions = []Decision{DecisionNone, DecisionAccepted, DecisionRejected, DecisionSubmitted, DecisionPlaced, DecisionHired}

// AllDecisions returns every Decision in spec order.
func AllDecisions() []Decision { return slices.Clone(allDecisions) }

// Valid reports whether d is a Decision.
func (d Decision) Valid() bool { return slices.Contains(allDecisions, d) }

// ParseDecision parses s, ignoring case.
func ParseDecision(s string) (Decision, error) { return parseEnum("decision", s, allDecisions) }

// MediumType is the interview medium (interview_sessions.medium_type).
type MediumType string

const (
	MediumTypeVideo    MediumType = "VIDEO"
	MediumTypePhone    MediumType = "PHONE"
	MediumTypeExternal MediumType = "EXTERNAL"
	MediumTypeBoth     MediumType = "BOTH"
	MediumTypeWhatsApp MediumType = "WHATSAPP"
	MediumTypePhoneSMS MediumType = "PHONE_SMS"
	MediumTypeSMS      MediumType = "SMS"
	MediumTypeNone     MediumType = "NONE"
)

var allMediumTypes = []MediumType{MediumTypeVideo, MediumTypePhone, MediumTypeExternal, MediumTypeBoth, MediumTypeWhatsApp, MediumTypePhoneSMS, MediumTypeSMS, MediumTypeNone}

// AllMediumTypes returns every MediumType in spec order.
func AllMediumTypes() []MediumType { return slices.Clone(allMediumTypes) }

// Valid reports whether m is a MediumType.
func (m MediumType) Valid() bool { return slices.Contains(allMediumTypes, m) }

// ParseMediumType parses s, ignoring case.
func ParseMediumType(s string) (MediumType, error) {
	return parseEnum("mediumType", s, allMediumTypes)
}

// SessionStatus is the state of an interview session (interview_sessions.status).
type SessionStatus string

const (
	SessionStatusInvited   SessionStatus = "INVITED"
	SessionStatusStarted   SessionStatus = "STARTED"
	SessionStatusCompleted SessionStatus = "COMPLETED"
	SessionStatusExpired   SessionStatus = "EXPIRED"
	SessionStatusCancelled SessionStatus = "CANCELLED"
	// SessionStatusIncomplete: started, not finished within the company's incomplete window.
	SessionStatusIncomplete SessionStatus = "INCOMPLETE"
	// SessionStatusDeclined: the candidate declined the notice on automated evaluation.
	SessionStatusDeclined SessionStatus = "DECLINED"
)

var allSessionStatuses = []SessionStatus{SessionStatusInvited, SessionStatusStarted, SessionStatusCompleted, SessionStatusExpired, SessionStatusCancelled, SessionStatusIncomplete, SessionStatusDeclined}

// Open reports whether a session in status s may still be taken: INVITED or STARTED.
func (s SessionStatus) Open() bool { return s == SessionStatusInvited || s == SessionStatusStarted }

// AllSessionStatuses returns every SessionStatus in lifecycle order.
func AllSessionStatuses() []SessionStatus { return slices.Clone(allSessionStatuses) }

// Valid reports whether s is a SessionStatus.
func (s SessionStatus) Valid() bool { return slices.Contains(allSessionStatuses, s) }

// ParseSessionStatus parses s, ignoring case.
func ParseSessionStatus(s string) (SessionStatus, error) {
	return parseEnum("sessionStatus", s, allSessionStatuses)
}

// JobStatus is the state of a job (jobs.status). Companies choose between JobStatusActive and
// JobStatusPaused as the status of newly generated jobs (companies.default_job_status).
type JobStatus string

const (
	JobStatusGenerating JobStatus = "GENERATING"
	JobStatusActive     JobStatus = "ACTIVE"
	JobStatusPaused     JobStatus = "PAUSED"
	JobStatusFailed     JobStatus = "FAILED"
)

var allJobStatuses = []JobStatus{JobStatusGenerating, JobStatusActive, JobStatusPaused, JobStatusFailed}

// AllJobStatuses returns every JobStatus in lifecycle order.
func AllJobStatuses() []JobStatus { return slices.Clone(allJobStatuses) }

// Valid reports whether s is a JobStatus.
func (s JobStatus) Valid() bool { return slices.Contains(allJobStatuses, s) }

// ParseJobStatus parses s, ignoring case.
func ParseJobStatus(s string) (JobStatus, error) { return parseEnum("jobStatus", s, allJobStatuses) }

// ATSType is the kind of applicant tracking system a company uses (companies.ats_type).
type ATSType string

const (
	ATSTypeA ATSType = "ATS-A"
	ATSTypeB ATSType = "ATS-B"
	ATSTypeC ATSType = "ATS-C"
	ATSTypeD ATSType = "ATS-D"
)

var allATSTypes = []ATSType{ATSTypeA, ATSTypeB, ATSTypeC, ATSTypeD}

// AllATSTypes returns every ATSType.
func AllATSTypes() []ATSType { return slices.Clone(allATSTypes) }

// Valid reports whether t is an ATSType.
func (t ATSType) Valid() bool { return slices.Contains(allATSTypes, t) }

// ParseATSType parses s, ignoring case.
func ParseATSType(s string) (ATSType, error) { return parseEnum("atsType", s, allATSTypes) }

// MembershipRole is a user's role in a company (company_memberships.role).
type MembershipRole string

const (
	MembershipRoleAdmin     MembershipRole = "admin"
	MembershipRoleRecruiter MembershipRole = "recruiter"
	MembershipRoleViewer    MembershipRole = "viewer"
)

var allMembershipRoles = []MembershipRole{MembershipRoleAdmin, MembershipRoleRecruiter, MembershipRoleViewer}

// AllMembershipRoles returns every MembershipRole, most privileged first.
func AllMembershipRoles() []MembershipRole { return slices.Clone(allMembershipRoles) }

// Valid reports whether r is a MembershipRole.
func (r MembershipRole) Valid() bool { return slices.Contains(allMembershipRoles, r) }

// ParseMembershipRole parses s, ignoring case.
func ParseMembershipRole(s string) (MembershipRole, error) {
	return parseEnum("membershipRole", s, allMembershipRoles)
}

// MessageChannel is the channel a message travels by (messages.channel). MessageChannelOutbox
// keeps the message in the database only (development and tests).
type MessageChannel string

const (
	MessageChannelEmail    MessageChannel = "email"
	MessageChannelSMS      MessageChannel = "sms"
	MessageChannelWhatsApp MessageChannel = "whatsapp"
	MessageChannelPhone    MessageChannel = "phone"
	MessageChannelOutbox   MessageChannel = "outbox"
)

var allMessageChannels = []MessageChannel{MessageChannelEmail, MessageChannelSMS, MessageChannelWhatsApp, MessageChannelPhone, MessageChannelOutbox}

// AllMessageChannels returns every MessageChannel.
func AllMessageChannels() []MessageChannel { return slices.Clone(allMessageChannels) }

// Valid reports whether c is a MessageChannel.
func (c MessageChannel) Valid() bool { return slices.Contains(allMessageChannels, c) }

// ParseMessageChannel parses s, ignoring case.
func ParseMessageChannel(s string) (MessageChannel, error) {
	return parseEnum("messageChannel", s, allMessageChannels)
}

// MessageStatus is the delivery state of a message (messages.status).
type MessageStatus string

const (
	MessageStatusQueued    MessageStatus = "queued"
	MessageStatusSent      MessageStatus = "sent"
	MessageStatusDelivered MessageStatus = "delivered"
	MessageStatusFailed    MessageStatus = "failed"
)

var allMessageStatuses = []MessageStatus{MessageStatusQueued, MessageStatusSent, MessageStatusDelivered, MessageStatusFailed}

// AllMessageStatuses returns every MessageStatus in delivery order.
func AllMessageStatuses() []MessageStatus { return slices.Clone(allMessageStatuses) }

// Valid reports whether s is a MessageStatus.
func (s MessageStatus) Valid() bool { return slices.Contains(allMessageStatuses, s) }

// ParseMessageStatus parses s, ignoring case.
func ParseMessageStatus(s string) (MessageStatus, error) {
	return parseEnum("messageStatus", s, allMessageStatuses)
}

// MessageDirection says whether a message was sent to or received from the candidate
// (messages.direction).
type MessageDirection string

const (
	MessageDirectionOutbound MessageDirection = "outbound"
	MessageDirectionInbound  MessageDirection = "inbound"
)

var allMessageDirections = []MessageDirection{MessageDirectionOutbound, MessageDirectionInbound}

// AllMessageDirections returns every MessageDirection.
func AllMessageDirections() []MessageDirection { return slices.Clone(allMessageDirections) }

// Valid reports whether d is a MessageDirection.
func (d MessageDirection) Valid() bool { return slices.Contains(allMessageDirections, d) }

// ParseMessageDirection parses s, ignoring case.
func ParseMessageDirection(s string) (MessageDirection, error) {
	return parseEnum("messageDirection", s, allMessageDirections)
}

// ApplicationSource says how an application reached the service (applications.source).
type ApplicationSource string

const (
	ApplicationSourcePartner        ApplicationSource = "partner"
	ApplicationSourceHRSuiteWebhook ApplicationSource = "hrsuite_webhook"
	ApplicationSourceATS            ApplicationSource = "ats"
	ApplicationSourceManual         ApplicationSource = "manual"
	ApplicationSourceAssessment     ApplicationSource = "assessment"
)

var allApplicationSources = []ApplicationSource{ApplicationSourcePartner, ApplicationSourceHRSuiteWebhook, ApplicationSourceATS, ApplicationSourceManual, ApplicationSourceAssessment}

// AllApplicationSources returns every ApplicationSource.
func AllApplicationSources() []ApplicationSource { return slices.Clone(allApplicationSources) }

// Valid reports whether s is an ApplicationSource.
func (s ApplicationSource) Valid() bool { return slices.Contains(allApplicationSources, s) }

// ParseApplicationSource parses s, ignoring case.
func ParseApplicationSource(s string) (ApplicationSource, error) {
	return parseEnum("applicationSource", s, allApplicationSources)
}

// TemplateType is the kind of a template (templates.type); the values are the listTemplates
// templateType argument values.
type TemplateType string

const (
	TemplateTypeResumeFit      TemplateType = "resumeFit"
	TemplateTypeInterviewGuide TemplateType = "interviewGuide"
)

var allTemplateTypes = []TemplateType{TemplateTypeResumeFit, TemplateTypeInterviewGuide}

// AllTemplateTypes returns every TemplateType.
func AllTemplateTypes() []TemplateType { return slices.Clone(allTemplateTypes) }

// Valid reports whether t is a TemplateType.
func (t TemplateType) Valid() bool { return slices.Contains(allTemplateTypes, t) }

// ParseTemplateType parses s, ignoring case.
func ParseTemplateType(s string) (TemplateType, error) {
	return parseEnum("templateType", s, allTemplateTypes)
}

// IdentityStatus is the state of a government-ID plus selfie verification
// (identity_verifications.status).
type IdentityStatus string

const (
	IdentityStatusPending  IdentityStatus = "PENDING"
	IdentityStatusVerified IdentityStatus = "VERIFIED"
	IdentityStatusFailed   IdentityStatus = "FAILED"
	IdentityStatusExpired  IdentityStatus = "EXPIRED"
	// IdentityStatusSkipped: the session ended without the identity step (no verification was
	// started); recorded so the step's outcome is never missing.
	IdentityStatusSkipped IdentityStatus = "SKIPPED"
)

var allIdentityStatuses = []IdentityStatus{IdentityStatusPending, IdentityStatusVerified, IdentityStatusFailed, IdentityStatusExpired,
	IdentityStatusSkipped}

// AllIdentityStatuses returns every IdentityStatus.
func AllIdentityStatuses() []IdentityStatus { return slices.Clone(allIdentityStatuses) }

// Valid reports whether s is an IdentityStatus.
func (s IdentityStatus) Valid() bool { return slices.Contains(allIdentityStatuses, s) }

// ParseIdentityStatus parses s, ignoring case.
func ParseIdentityStatus(s string) (IdentityStatus, error) {
	return parseEnum("identityStatus", s, allIdentityStatuses)
}

// QuestionSource says where an interview question came from (interview_questions.source):
// generated from the job description, or one of the request's additionalQuestions or
// structuredAdditionalQuestions.
type QuestionSource string

const (
	QuestionSourceGenerated  QuestionSource = "generated"
	QuestionSourceAdditional QuestionSource = "additional"
	QuestionSourceStructured QuestionSource = "structured"
)

var allQuestionSources = []QuestionSource{QuestionSourceGenerated, QuestionSourceAdditional, QuestionSourceStructured}

// AllQuestionSources returns every QuestionSource.
func AllQuestionSources() []QuestionSource { return slices.Clone(allQuestionSources) }

// Valid reports whether s is a QuestionSource.
func (s QuestionSource) Valid() bool { return slices.Contains(allQuestionSources, s) }

// ParseQuestionSource parses s, ignoring case.
func ParseQuestionSource(s string) (QuestionSource, error) {
	return parseEnum("questionSource", s, allQuestionSources)
}
