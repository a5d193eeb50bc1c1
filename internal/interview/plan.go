package interview

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// Kind says what a Step is.
type Kind string

// Step kinds.
const (
	KindIntro    Kind = "intro"
	KindQuestion Kind = "question"
	KindOutro    Kind = "outro"
)

// Source says where a question comes from, as the transcript records it (models.TurnSource).
type Source = models.TurnSource

// Question sources.
const (
	SourceGuide      = models.TurnSourceGuide
	SourceAdditional = models.TurnSourceAdditional
	SourceStructured = models.TurnSourceStructured
	SourceFollowUp   = models.TurnSourceFollowUp
)

// Texts shown when a stored guide has a blank intro or outro.
const (
	DefaultIntro = "Thank you for taking this interview. Please answer each question in your own words, with examples from your own experience."
	DefaultOutro = "Thank you, that was the last question. The hiring team will review your answers and contact you about next steps."
)

// Step is one screen the candidate meets.
type Step struct {
	// Index is the step's place in the plan: 0 the intro, 1 to Total the questions in the
	// guide's order, Total+1 the outro. It depends only on the guide, so it is the same on
	// every load; a follow-up keeps the index of its question.
	Index int
	Total int // questions in the plan
	Kind  Kind
	Text  string
	// Source, QuestionID (the interview_questions row; for a follow-up, its question's) and
	// Skill are set on questions only.
	Source     Source
	QuestionID uuid.UUID
	Skill      string
	// Choices are a structured question's answers, trimmed, without blanks and repeats; nil
	// for a question answered in the candidate's own words (a structured question may have
	// none: it then takes text, but never a follow-up).
	Choices []string
}

// FollowUp returns the follow-up step to question s with the interviewer's text.
func (s Step) FollowUp(text string) Step {
	f := s
	f.Source, f.Text, f.Choices = SourceFollowUp, text, nil
	return f
}

// Plan is the ordered list of steps of one interview: the intro, every question of the
// guide, the outro.
type Plan struct {
	Steps []Step
}

// Questions is the number of questions in the plan.
func (p *Plan) Questions() int { return max(len(p.Steps)-2, 0) }

// Step returns the step at index i, false when there is none.
func (p *Plan) Step(i int) (Step, bool) {
	if i < 0 || i >= len(p.Steps) {
		return Step{}, false
	}
	return p.Steps[i], true
}

// ErrNoQuestions is returned by NewPlan for a guide without questions.
var ErrNoQuestions = errors.New("interview guide has no questions")

// NewPlan builds the plan of a job's stored guide. The questions are taken in Position order,
// whatever order they are passed in: generated, additional and structured questions as the
// generator placed them (after one another, or interleaved when intelligentlyOrderQuestions
// was set). It refuses questions of another guide, blank questions and unknown sources, which
// a stored guide never holds.
func NewPlan(g models.InterviewGuide, questions []models.InterviewQuestion) (*Plan, error) {
	if len(questions) == 0 {
		return nil, ErrNoQuestions
	}
	qs := slices.Clone(questions)
	slices.SortStableFunc(qs, func(a, b models.InterviewQuestion) int { return a.Position - b.Position })
	total := len(qs)
	p := &Plan{Steps: make([]Step, 0, total+2)}
	p.Steps = append(p.Steps, Step{Index: 0, Total: total, Kind: KindIntro, Text: orDefault(g.Intro, DefaultIntro)})
	for i, q := range qs {
		s, err := questionStep(g.ID, q)
		if err != nil {
			return nil, fmt.Errorf("plan guide %s: question at position %d: %w", g.ID, q.Position, err)
		}
		s.Index, s.Total = i+1, total
		p.Steps = append(p.Steps, s)
	}
	p.Steps = append(p.Steps, Step{Index: total + 1, Total: total, Kind: KindOutro, Text: orDefault(g.Outro, DefaultOutro)})
	return p, nil
}

func questionStep(guideID uuid.UUID, q models.InterviewQuestion) (Step, error) {
	if q.GuideID != guideID {
		return Step{}, fmt.Errorf("belongs to guide %s", q.GuideID)
	}
	s := Step{Kind: KindQuestion, Text: strings.TrimSpace(q.Text), QuestionID: q.ID}
	if s.Text == "" {
		return Step{}, errors.New("blank text")
	}
	if q.Skill != nil {
		s.Skill = strings.TrimSpace(*q.Skill)
	}
	switch q.Source {
	case models.QuestionSourceGenerated:
		s.Source = SourceGuide
	case models.QuestionSourceAdditional:
		s.Source = SourceAdditional
	case models.QuestionSourceStructured:
		s.Source = SourceStructured
		for _, a := range q.Answers {
			if a = strings.TrimSpace(a); a != "" && !slices.Contains(s.Choices, a) {
				s.Choices = append(s.Choices, a)
			}
		}
	default:
		return Step{}, fmt.Errorf("unknown source %q", q.Source)
	}
	return s, nil
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}
