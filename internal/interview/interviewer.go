package interview

import (
	"context"

	"github.com/recruitd/recruitd/internal/llm"
)

// Interviewer decides, after the candidate's answer to a question, whether to ask one
// follow-up and in which words. It never fails: an engine that cannot decide falls back to the
// local rules. Neither engine asks after a structured question or after a follow-up (see
// Eligible), so each question gets at most one.
type Interviewer interface {
	FollowUp(ctx context.Context, question Step, answer string) Decision
}

var (
	_ Interviewer = (*Local)(nil)
	_ Interviewer = (*OpenAI)(nil)
)

// Decision is an Interviewer's answer. Reason and Engine are enumerations, safe to log and to
// record beside the transcript.
type Decision struct {
	Ask      bool
	Question string // the follow-up's text when Ask; at most MaxFollowUpLen characters
	Reason   Reason
	Engine   Engine // who decided; "" when the question takes no follow-up
}

// Reason says why a follow-up is asked.
type Reason string

// Reasons.
const (
	ReasonNone      Reason = ""
	ReasonShort     Reason = "short"      // local: fewer than MinAnswerWords words
	ReasonNoExample Reason = "no-example" // local: no example marker
	ReasonModel     Reason = "model"      // the model asked
)

// Engine names the interviewer that decided.
type Engine string

// Engines.
const (
	EngineLocal  Engine = "local"
	EngineOpenAI Engine = "openai"
)

// MaxFollowUpLen bounds a follow-up's text, in characters.
const MaxFollowUpLen = 300

// Eligible reports whether question may get a follow-up: a generated or additional question.
// Structured questions are scripted and take one answer; a follow-up gets none of its own.
func Eligible(question Step) bool {
	return question.Kind == KindQuestion && (question.Source == SourceGuide || question.Source == SourceAdditional)
}

// Config chooses and configures the interviewer (NewInterviewer): the LLM_* settings the
// generator uses; an empty BaseURL chooses the local interviewer, and Timeout (at most
// MaxOpenAITimeout, 0 for DefaultOpenAITimeout) bounds the model's decision.
type Config = llm.EngineConfig

// NewInterviewer returns the local interviewer when c.BaseURL is empty, else the OpenAI one.
func NewInterviewer(c Config) (Interviewer, error) {
	if c.BaseURL == "" {
		return NewLocal(), nil
	}
	return NewOpenAI(c)
}
