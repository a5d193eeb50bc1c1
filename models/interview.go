package models

import (
	"time"

	"github.com/google/uuid"
)

// InterviewPlan is the interview a session's candidate takes, fixed when the candidate started
// (table interview_plans): a guide regenerated later changes no running interview.
type InterviewPlan struct {
	SessionID uuid.UUID        `gorm:"column:session_id;type:uuid;primaryKey"`
	CompanyID uuid.UUID        `gorm:"column:company_id;type:uuid"`
	GuideID   *uuid.UUID       `gorm:"column:guide_id;type:uuid"`
	Steps     JSON[[]PlanStep] `gorm:"column:steps;type:jsonb"`
	CreatedAt time.Time        `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (InterviewPlan) TableName() string { return "interview_plans" }

// PlanStep is one stored step of an InterviewPlan: the intro, a question or the outro
// (internal/interview builds and reads them).
type PlanStep struct {
	Kind       string     `json:"kind"`
	Text       string     `json:"text"`
	Source     string     `json:"source,omitempty"`
	QuestionID *uuid.UUID `json:"questionId,omitempty"`
	Skill      string     `json:"skill,omitempty"`
	Choices    []string   `json:"choices,omitempty"`
}

// InterviewTurn is one question asked in a session and its answer (table interview_turns): the
// transcript. Seq counts the session's turns from 1; StepIndex is the plan step the question
// belongs to (a follow-up shares its question's). Answer and AnsweredAt are nil until the
// candidate answers. Engine and Reason say who asked a follow-up and why.
type InterviewTurn struct {
	ID         uuid.UUID   `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID  uuid.UUID   `gorm:"column:company_id;type:uuid"`
	SessionID  uuid.UUID   `gorm:"column:session_id;type:uuid"`
	Seq        int         `gorm:"column:seq"`
	StepIndex  int         `gorm:"column:step_index"`
	Source     string      `gorm:"column:source"`
	QuestionID *uuid.UUID  `gorm:"column:question_id;type:uuid"`
	Question   string      `gorm:"column:question"`
	Skill      *string     `gorm:"column:skill"`
	Choices    StringArray `gorm:"column:choices;type:text[]"`
	AskedAt    time.Time   `gorm:"column:asked_at"`
	Answer     *string     `gorm:"column:answer"`
	AnsweredAt *time.Time  `gorm:"column:answered_at"`
	Engine     *string     `gorm:"column:engine"`
	Reason     *string     `gorm:"column:reason"`
	// Channel is the surface that received the answer; nil while unanswered.
	Channel *AnswerChannel `gorm:"column:channel"`
}

// TableName implements gorm's tabler.
func (InterviewTurn) TableName() string { return "interview_turns" }

// InterviewEvent is one entry of a session's timeline (table interview_events). Detail holds
// enumerations, counts and times only; OnceKey makes an event a retried step records happen once.
type InterviewEvent struct {
	ID        int64                `gorm:"column:id;primaryKey;autoIncrement"`
	CompanyID uuid.UUID            `gorm:"column:company_id;type:uuid"`
	SessionID uuid.UUID            `gorm:"column:session_id;type:uuid"`
	Kind      string               `gorm:"column:kind"`
	Detail    JSON[map[string]any] `gorm:"column:detail;type:jsonb"`
	OnceKey   *string              `gorm:"column:once_key"`
	At        time.Time            `gorm:"column:at"`
}

// TableName implements gorm's tabler.
func (InterviewEvent) TableName() string { return "interview_events" }

// Interview event kinds (interview_events.kind).
const (
	EventInvited         = "invited"
	EventConsented       = "consented"
	EventDeclined        = "declined"
	EventCompleted       = "completed"
	EventExpired         = "expired"
	EventIncomplete      = "incomplete"
	EventCancelled       = "cancelled"
	EventExtended        = "extended"
	EventReminderSent    = "reminder_sent"
	EventReminderSkipped = "reminder_skipped"
	EventTranscriptFinal = "transcript_final"
)

// TurnSource says where a transcript's question comes from (interview_turns.source): the
// guide's generated questions, the job's additionalQuestions or structuredAdditionalQuestions,
// or a follow-up the interviewer added at run time.
type TurnSource string

// Turn sources.
const (
	TurnSourceGuide      TurnSource = "guide"
	TurnSourceAdditional TurnSource = "additional"
	TurnSourceStructured TurnSource = "structured"
	TurnSourceFollowUp   TurnSource = "follow-up"
)

// AllTurnSources returns every TurnSource.
func AllTurnSources() []TurnSource {
	return []TurnSource{TurnSourceGuide, TurnSourceAdditional, TurnSourceStructured, TurnSourceFollowUp}
}

// AnswerChannel is the surface an answer came through (interview_turns.channel): the interview
// page, or the candidate's SMS or WhatsApp thread.
type AnswerChannel string

// Answer channels.
const (
	AnswerChannelWeb      AnswerChannel = "web"
	AnswerChannelSMS      AnswerChannel = "sms"
	AnswerChannelWhatsApp AnswerChannel = "whatsapp"
)

// AllAnswerChannels returns every AnswerChannel.
func AllAnswerChannels() []AnswerChannel {
	return []AnswerChannel{AnswerChannelWeb, AnswerChannelSMS, AnswerChannelWhatsApp}
}

// ThreadChannels returns the answer channels that are text threads.
func ThreadChannels() []AnswerChannel {
	return []AnswerChannel{AnswerChannelSMS, AnswerChannelWhatsApp}
}
