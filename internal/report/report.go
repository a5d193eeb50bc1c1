package report

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/llm"
)

// Status says whether a report holds a rating.
type Status string

// Report statuses (interview_reports.status).
const (
	StatusReady            Status = "ready"
	StatusInsufficientData Status = "insufficient_data"
)

// AllStatuses returns every Status.
func AllStatuses() []Status { return []Status{StatusReady, StatusInsufficientData} }

// Reason says why a report has insufficient data; an enumeration, safe to log.
type Reason string

// Reasons of insufficient data, in the order the local rules test them (see Local).
const (
	ReasonNone         Reason = ""
	ReasonNoRubric     Reason = "no-rubric"     // the guide has no grading criteria
	ReasonNoAnswers    Reason = "no-answers"    // no answer in the candidate's own words
	ReasonTooFewWords  Reason = "too-few-words" // fewer than MinTotalWords words in all
	ReasonShortAnswers Reason = "short-answers" // most answers under MinResponseWords words
	ReasonNotAddressed Reason = "not-addressed" // no answer addresses any criterion
	ReasonModel        Reason = "model"         // the model judged the answers too thin
)

// AllReasons returns every Reason but ReasonNone.
func AllReasons() []Reason {
	return []Reason{ReasonNoRubric, ReasonNoAnswers, ReasonTooFewWords, ReasonShortAnswers, ReasonNotAddressed, ReasonModel}
}

// thin reports whether r is one of the rules on the answers' amount, which the local rules
// decide for both engines: the model is never asked to rate answers that thin.
func (r Reason) thin() bool {
	switch r {
	case ReasonNoRubric, ReasonNoAnswers, ReasonTooFewWords, ReasonShortAnswers:
		return true
	}
	return false
}

// Engine names the evaluator that produced a report.
type Engine string

// Engines.
const (
	EngineLocal  Engine = "local"
	EngineOpenAI Engine = "openai"
)

// AllEngines returns every Engine.
func AllEngines() []Engine { return []Engine{EngineLocal, EngineOpenAI} }

// The scale: every criterion's score is an integer from MinScore to MaxScore; the report's
// rating, the mean of the scored criteria rounded to two decimals, is on the same scale (the
// one interview_sessions.service_rating holds, numeric(4,2)).
const (
	MinScore = 1
	MaxScore = 5
)

// Bounds of a report's texts, in characters (runes).
const (
	MaxQuoteLen     = 300
	MaxRationaleLen = 300
	MaxSummaryLen   = 600
	MaxReasonLen    = 300
	MaxTagValueLen  = 200
)

// Report is the evaluation of one completed session against its rubric. SessionID and
// CreatedAt are set once it is stored (Produce, Load).
type Report struct {
	SessionID uuid.UUID `json:"sessionId"`
	Status    Status    `json:"status"`
	// Rating is the mean of the scored criteria (MinScore to MaxScore, two decimals); nil unless
	// Status is ready.
	Rating *float64 `json:"rating"`
	// Summary is the short review the session's service_review gets; for insufficient data, the
	// reason in words.
	Summary string `json:"summary"`
	// Reason is set when Status is insufficient_data.
	Reason        Reason `json:"reason,omitempty"`
	RubricVersion string `json:"rubricVersion"`
	Engine        Engine `json:"engine"`
	// Model is the model's name when Engine is openai.
	Model     string           `json:"model,omitempty"`
	Criteria  []CriterionScore `json:"criteria"`
	Tags      []Tag            `json:"tags"`
	CreatedAt time.Time        `json:"createdAt"`
	// Transcript and Integrity are read when the report is answered (Read), not stored with it:
	// each question with the channel of its answer, and the session's cheating evaluation (nil
	// when it has none). A report Produce or Load returns has neither.
	Transcript []TranscriptTurn `json:"transcript"`
	Integrity  *Integrity       `json:"integrity"`
}

// CriterionScore is the judgement of one grading criterion, in the rubric's order.
type CriterionScore struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Score is nil when no answer addresses the criterion, and for insufficient data.
	Score     *int       `json:"score"`
	Rationale string     `json:"rationale"`
	Evidence  []Evidence `json:"evidence"`
}

// Evidence is a verbatim quote from one answer: Quote is a substring of the answer of the
// transcript's turn Seq, whose question is Question.
type Evidence struct {
	Seq      int    `json:"seq"`
	Question string `json:"question"`
	Quote    string `json:"quote"`
}

// Tag is the value of a structured question's tag (its tagName), decided from the answer by
// its tagInstructions. Value is nil when the question was not answered or the rule could not
// decide; Rule says which rule decided.
type Tag struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
	Seq   int     `json:"seq"`
	Rule  TagRule `json:"rule"`
}

// TagRule says how a tag's value was decided.
type TagRule string

// Tag rules (see Local and docs/reports.md).
const (
	TagRuleMapping    TagRule = "mapping"    // the instructions map the answer to the value
	TagRuleChoice     TagRule = "choice"     // the chosen choice
	TagRuleYesNo      TagRule = "yes-no"     // a yes or no at the answer's start
	TagRuleModel      TagRule = "model"      // the model read the instructions
	TagRuleUndecided  TagRule = "undecided"  // no rule applies: Value is nil
	TagRuleUnanswered TagRule = "unanswered" // the question has no answer: Value is nil
)

// Evaluator turns a completed session's transcript into its report. It never fails: an engine
// that cannot evaluate falls back to the local rules.
type Evaluator interface {
	Evaluate(ctx context.Context, in Input) Report
}

var (
	_ Evaluator = (*Local)(nil)
	_ Evaluator = (*OpenAI)(nil)
)

// Config chooses and configures the evaluator (NewEvaluator): the LLM_* settings the generator
// and the interviewer use; an empty BaseURL chooses the local evaluator, and Timeout (at most
// MaxOpenAITimeout, 0 for DefaultOpenAITimeout) bounds the model's evaluation.
type Config = llm.EngineConfig

// NewEvaluator returns the local evaluator when c.BaseURL is empty, else the OpenAI one.
func NewEvaluator(c Config) (Evaluator, error) {
	if c.BaseURL == "" {
		return NewLocal(), nil
	}
	return NewOpenAI(c)
}

// RubricVersion fingerprints a rubric: "sha256:" and the first 16 hex digits of the SHA-256 of
// the criteria's names and descriptions, in order, as a JSON array of [name, description]
// pairs. Any change of a name, a description or the order gives another version.
func RubricVersion(criteria []Criterion) string {
	pairs := make([][2]string, len(criteria))
	for i, c := range criteria {
		pairs[i] = [2]string{c.Name, c.Description}
	}
	b, _ := json.Marshal(pairs) // strings only: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8])
}
