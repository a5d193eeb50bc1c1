// Package generate writes a job's interview guide (title, skills, intro, outro, learning
// objectives, questions and grading criteria) from its job description. Two Generators exist:
// Local, a deterministic rule-based generator with no network access (the default), and OpenAI,
// which asks an OpenAI-compatible chat-completions endpoint. Both leave the request's additional
// and structured questions to the same deterministic appending step (see appendRequested), so the
// model only ever writes the generated part.
//
// Generators are called from a Temporal activity: they honour ctx, and their errors are either
// permanent (IsPermanent: bad input, or model output that stays invalid after every attempt) or
// transient (network, timeouts, rate limits, server errors), which the caller may retry.
package generate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recruitd/recruitd/models"
)

// Bounds on everything a guide holds, so neither a hostile model nor a huge request can blow up
// storage. Lengths count characters (runes).
const (
	MaxTitleLen             = 200
	MaxQuestionLen          = 1000
	MaxGeneratedQuestions   = 50
	MaxAppendedQuestions    = 100 // of each kind: additional and structured
	MaxAnswers              = 50
	MaxAnswerLen            = 500
	MaxTagNameLen           = 200
	MaxTagInstructionsLen   = 2000
	MaxSkills               = 30
	MaxSkillLen             = 100
	MaxCriteria             = 20
	MaxCriterionNameLen     = 200
	MaxCriterionDescLen     = 2000
	MaxLearningObjectives   = 20
	MaxLearningObjectiveLen = 500
	MaxIntroLen             = 4000 // intro and outro each

	// maxInputBytes is how much of a description (and of the additional context) is read;
	// the rest is ignored.
	maxInputBytes = 100_000
)

// Question sources, as stored in interview_questions.source.
const (
	SourceGenerated  = string(models.QuestionSourceGenerated)
	SourceAdditional = string(models.QuestionSourceAdditional)
	SourceStructured = string(models.QuestionSourceStructured)
)

// Request is one job's generation input (from POST /v1/api/createJob).
type Request struct {
	Title               string // may be blank: the title is then inferred from Description
	Description         string
	AdditionalContext   string // additionalGenerationContext: biases generation
	AdditionalQuestions []string
	StructuredQuestions []StructuredQuestion
	IntelligentlyOrder  bool // intelligentlyOrderQuestions
}

// StructuredQuestion is one of the request's structuredAdditionalQuestions.
type StructuredQuestion struct {
	Question        string
	Answers         []string
	TagName         string
	TagInstructions string
}

// Guide is a generated interview guide.
type Guide struct {
	Title              string // Request.Title when given (trimmed, whitespace collapsed), else inferred
	Skills             []string
	Intro, Outro       string
	LearningObjectives []string
	Questions          []Question
	Criteria           []Criterion
}

// Question is one interview question of a Guide.
type Question struct {
	Text   string
	Source string // SourceGenerated, SourceAdditional or SourceStructured
	Skill  string // topic it assesses; "" when none
	// Answers, TagName and TagInstructions are set on structured questions only, verbatim.
	Answers         []string
	TagName         string
	TagInstructions string
}

// Criterion is one grading criterion of a Guide.
type Criterion struct {
	Name, Description string
}

// Generator writes interview guides.
type Generator interface {
	Generate(ctx context.Context, r Request) (*Guide, error)
}

var (
	_ Generator = (*Local)(nil)
	_ Generator = (*OpenAI)(nil)
)

// ErrEmptyDescription is returned (as a permanent error) for a blank job description.
var ErrEmptyDescription = errors.New("job description is empty")

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err: err} }

// IsPermanent reports whether err must not be retried: the request is invalid, the endpoint
// refused it (4xx other than 429), or the model's output failed strict parsing on every attempt.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// validate checks the parts of r that are used verbatim and returns a permanent error.
func validate(r Request) error {
	if strings.TrimSpace(r.Description) == "" {
		return permanent(ErrEmptyDescription)
	}
	if len(r.AdditionalQuestions) > MaxAppendedQuestions {
		return permanent(fmt.Errorf("%d additional questions, at most %d allowed", len(r.AdditionalQuestions), MaxAppendedQuestions))
	}
	if len(r.StructuredQuestions) > MaxAppendedQuestions {
		return permanent(fmt.Errorf("%d structured questions, at most %d allowed", len(r.StructuredQuestions), MaxAppendedQuestions))
	}
	for i, q := range r.AdditionalQuestions {
		if err := checkText(q, MaxQuestionLen); err != nil {
			return permanent(fmt.Errorf("additional question %d: %w", i+1, err))
		}
	}
	for i, q := range r.StructuredQuestions {
		if err := checkStructured(q); err != nil {
			return permanent(fmt.Errorf("structured question %d: %w", i+1, err))
		}
	}
	return nil
}

func checkStructured(q StructuredQuestion) error {
	if err := checkText(q.Question, MaxQuestionLen); err != nil {
		return err
	}
	if len(q.Answers) > MaxAnswers {
		return fmt.Errorf("%d answers, at most %d allowed", len(q.Answers), MaxAnswers)
	}
	for j, a := range q.Answers {
		if err := checkText(a, MaxAnswerLen); err != nil {
			return fmt.Errorf("answer %d: %w", j+1, err)
		}
	}
	if err := checkOptional(q.TagName, MaxTagNameLen); err != nil {
		return fmt.Errorf("tag name: %w", err)
	}
	if err := checkOptional(q.TagInstructions, MaxTagInstructionsLen); err != nil {
		return fmt.Errorf("tag instructions: %w", err)
	}
	return nil
}

// checkText rejects blank, over-long and NUL-containing text (Postgres text cannot hold NUL).
func checkText(s string, max int) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty")
	}
	return checkOptional(s, max)
}

func checkOptional(s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("%d characters, at most %d allowed", n, max)
	}
	if strings.ContainsRune(s, 0) {
		return errors.New("contains a NUL character")
	}
	return nil
}

// finish completes a generated guide the same way for every Generator: the title is the
// request's when given, and the request's questions are appended.
func finish(g *Guide, r Request, lx *lexicon) *Guide {
	if t := cleanTitle(r.Title); t != "" {
		g.Title = t
	}
	if g.Title == "" {
		g.Title = fallbackTitle
	}
	g.Questions = appendRequested(g.Questions, g.Skills, r, lx)
	return g
}

// truncate cuts s to at most max runes, at a word boundary when one is near.
func truncate(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			cut := i
			if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut*3/4 {
				cut = sp
			}
			return strings.TrimSpace(s[:cut])
		}
		n++
	}
	return s
}
