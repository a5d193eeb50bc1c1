package report

import (
	"slices"
	"strings"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Input is what a report is made from: the rubric and the transcript.
type Input struct {
	// Criteria are the rubric: the guide's grading criteria in Position order.
	Criteria []Criterion
	// Turns are the transcript in Seq order.
	Turns []Turn
}

// Criterion is one grading criterion of the rubric.
type Criterion struct {
	Name, Description string
}

// Turn is one question asked and its answer.
type Turn struct {
	Seq       int
	StepIndex int // the plan step; a follow-up shares its question's
	Source    models.TurnSource
	Question  string
	// Choices are a structured question's answers; nil for an answer in the candidate's own
	// words.
	Choices []string
	// Answer is "" when the question was not answered (a stored answer is never empty).
	Answer string
	// TagName and TagInstructions are set on a structured question with a tagName.
	TagName, TagInstructions string
}

// open reports whether t is answered in the candidate's own words: a generated, additional or
// follow-up question, or a structured question without choices. Choices say nothing the
// criteria can score; they decide tags only.
func (t Turn) open() bool {
	return t.Source != models.TurnSourceStructured || len(t.Choices) == 0
}

// NewInput builds the input from stored rows: the guide's criteria and questions and the
// session's turns, in any order. Criteria with a blank name are left out. A structured turn gets
// the tagName and tagInstructions of its question: the guide's question with the turn's
// question_id, else (a guide regenerated since the interview started has new ids) the guide's
// only structured question with the same text; without one it has no tag.
func NewInput(criteria []models.GradingCriterion, questions []models.InterviewQuestion, turns []models.InterviewTurn) Input {
	var in Input
	cs := slices.Clone(criteria)
	slices.SortStableFunc(cs, func(a, b models.GradingCriterion) int { return a.Position - b.Position })
	for _, c := range cs {
		if name := strings.TrimSpace(c.Name); name != "" {
			in.Criteria = append(in.Criteria, Criterion{Name: name, Description: strings.TrimSpace(c.Description)})
		}
	}
	ts := slices.Clone(turns)
	slices.SortStableFunc(ts, func(a, b models.InterviewTurn) int { return a.Seq - b.Seq })
	for _, t := range ts {
		turn := Turn{Seq: t.Seq, StepIndex: t.StepIndex, Source: models.TurnSource(t.Source), Question: t.Question, Choices: slices.Clone(t.Choices)}
		if t.Answer != nil {
			turn.Answer = *t.Answer
		}
		if turn.Source == models.TurnSourceStructured {
			if q := structuredQuestion(questions, t); q != nil && q.TagName != nil && strings.TrimSpace(*q.TagName) != "" {
				turn.TagName = strings.TrimSpace(*q.TagName)
				if q.TagInstructions != nil {
					turn.TagInstructions = strings.TrimSpace(*q.TagInstructions)
				}
			}
		}
		in.Turns = append(in.Turns, turn)
	}
	return in
}

func structuredQuestion(questions []models.InterviewQuestion, t models.InterviewTurn) *models.InterviewQuestion {
	var byText *models.InterviewQuestion
	n := 0
	for i := range questions {
		q := &questions[i]
		if q.Source != models.QuestionSourceStructured {
			continue
		}
		if t.QuestionID != nil && q.ID == *t.QuestionID {
			return q
		}
		if strings.TrimSpace(q.Text) == strings.TrimSpace(t.Question) {
			byText = q
			n++
		}
	}
	if n == 1 {
		return byText
	}
	return nil
}

// InputFromSources builds the input of a session from what store.ReportSources loaded.
func InputFromSources(src *store.ReportSources) Input {
	if src.Guide == nil {
		return NewInput(nil, nil, src.Turns)
	}
	return NewInput(src.Guide.Criteria, src.Guide.Questions, src.Turns)
}
