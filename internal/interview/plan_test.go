package interview

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

var guideID = uuid.MustParse("00000000-0000-0000-0000-0000000000a1")

func ptr[T any](v T) *T { return &v }

// q is a stored question of the test guide; its ID is derived from pos.
func q(pos int, src models.QuestionSource, text string, answers ...string) models.InterviewQuestion {
	return models.InterviewQuestion{
		ID: uuid.MustParse(fmt.Sprintf("00000000-0000-0000-0000-%012d", pos)), GuideID: guideID,
		Position: pos, Source: src, Text: text, Answers: answers,
	}
}

// describe renders a step on one line: index, kind or source, text, choices, progress.
func describe(s Step) string {
	what := string(s.Kind)
	if s.Kind == KindQuestion {
		what = string(s.Source)
	}
	out := fmt.Sprintf("%d %s %q", s.Index, what, s.Text)
	if s.Choices != nil {
		out += fmt.Sprintf(" %q", s.Choices)
	}
	if s.Skill != "" {
		out += " skill=" + s.Skill
	}
	if s.Kind == KindQuestion {
		out += fmt.Sprintf(" | Question %d of %d", s.Index, s.Total)
	}
	return out
}

func TestNewPlan(t *testing.T) {
	gen := models.QuestionSourceGenerated
	add := models.QuestionSourceAdditional
	str := models.QuestionSourceStructured
	withSkill := q(2, gen, "Walk me through a Go service you built.")
	withSkill.Skill = ptr(" Go ")
	tests := []struct {
		name          string
		intro, outro  string
		questions     []models.InterviewQuestion
		want          []string
		wantErr       string
		wantErrTarget error
	}{{
		name: "guide order: generated, additional, structured with choices", intro: "Hello.", outro: "Bye.",
		questions: []models.InterviewQuestion{
			q(4, str, "Do you hold a forklift licence?", " Yes ", "No", "", "No"),
			q(1, gen, "  Tell me about your background.  "),
			withSkill,
			q(3, add, "Can you work weekends?"),
		},
		want: []string{
			`0 intro "Hello."`,
			`1 guide "Tell me about your background." | Question 1 of 4`,
			`2 guide "Walk me through a Go service you built." skill=Go | Question 2 of 4`,
			`3 additional "Can you work weekends?" | Question 3 of 4`,
			`4 structured "Do you hold a forklift licence?" ["Yes" "No"] | Question 4 of 4`,
			`5 outro "Bye."`,
		},
	}, {
		name: "intelligently ordered: customer questions between generated ones", intro: "Hi", outro: "Thanks",
		questions: []models.InterviewQuestion{
			q(1, gen, "G1"), q(2, str, "S1", "A", "B"), q(3, gen, "G2"), q(4, add, "A1"), q(5, gen, "G3"),
		},
		want: []string{
			`0 intro "Hi"`,
			`1 guide "G1" | Question 1 of 5`,
			`2 structured "S1" ["A" "B"] | Question 2 of 5`,
			`3 guide "G2" | Question 3 of 5`,
			`4 additional "A1" | Question 4 of 5`,
			`5 guide "G3" | Question 5 of 5`,
			`6 outro "Thanks"`,
		},
	}, {
		name: "blank intro and outro get the defaults; structured question without answers takes text", intro: " \n", outro: "",
		questions: []models.InterviewQuestion{q(7, str, "Anything else we should know?")},
		want: []string{
			`0 intro "` + DefaultIntro + `"`,
			`1 structured "Anything else we should know?" | Question 1 of 1`,
			`2 outro "` + DefaultOutro + `"`,
		},
	}, {
		name: "no questions", wantErrTarget: ErrNoQuestions,
	}, {
		name: "unknown source", questions: []models.InterviewQuestion{q(1, gen, "G1"), q(2, "scripted", "X")},
		wantErr: `question at position 2: unknown source "scripted"`,
	}, {
		name: "blank question", questions: []models.InterviewQuestion{q(1, gen, " \t ")},
		wantErr: "question at position 1: blank text",
	}, {
		name: "question of another guide", questions: []models.InterviewQuestion{q(1, gen, "G1"), {Position: 2, Source: gen, Text: "X", GuideID: uuid.New()}},
		wantErr: "question at position 2: belongs to guide",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.questions)
			p, err := NewPlan(models.InterviewGuide{ID: guideID, Intro: tt.intro, Outro: tt.outro}, tt.questions)
			if !slices.EqualFunc(in, tt.questions, func(a, b models.InterviewQuestion) bool { return a.ID == b.ID }) {
				t.Errorf("NewPlan reordered its argument")
			}
			if tt.wantErr != "" || tt.wantErrTarget != nil {
				if err == nil || (tt.wantErrTarget != nil && !errors.Is(err, tt.wantErrTarget)) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewPlan error = %v, want %q %v", err, tt.wantErr, tt.wantErrTarget)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewPlan: %v", err)
			}
			var got []string
			for _, s := range p.Steps {
				got = append(got, describe(s))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("plan =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if p.Questions() != len(tt.want)-2 {
				t.Errorf("Questions() = %d, want %d", p.Questions(), len(tt.want)-2)
			}
			for i, s := range p.Steps {
				if s.Total != p.Questions() || (s.Kind == KindQuestion) != (s.QuestionID != uuid.Nil) {
					t.Errorf("step %d: Total %d, QuestionID %s", i, s.Total, s.QuestionID)
				}
			}
		})
	}
}

func TestPlanStepAndFollowUp(t *testing.T) {
	p, err := NewPlan(models.InterviewGuide{ID: guideID, Intro: "Hi", Outro: "Bye"}, []models.InterviewQuestion{
		q(1, models.QuestionSourceGenerated, "G1"), q(2, models.QuestionSourceStructured, "S1", "Yes", "No"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]bool{-1: false, 0: true, 3: true, 4: false} {
		if s, ok := p.Step(i); ok != want || (ok && s.Index != i) {
			t.Errorf("Step(%d) = %+v, %v; want found %v", i, s, ok, want)
		}
	}
	s, _ := p.Step(2)
	f := s.FollowUp("Why?")
	if describe(f) != `2 follow-up "Why?" | Question 2 of 2` || f.QuestionID != s.QuestionID {
		t.Errorf("FollowUp = %s (question %s)", describe(f), f.QuestionID)
	}
	if s.Choices == nil || s.Source != SourceStructured {
		t.Errorf("FollowUp changed its question: %+v", s)
	}
}
