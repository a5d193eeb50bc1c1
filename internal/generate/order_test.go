package generate

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

func texts(qs []Question) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Text
	}
	return out
}

func TestAppendRequested(t *testing.T) {
	generated := []Question{
		{Text: "g1", Source: SourceGenerated, Skill: "Go"},
		{Text: "g2", Source: SourceGenerated, Skill: "PostgreSQL"},
		{Text: "g3", Source: SourceGenerated, Skill: "Go"},
		{Text: "g4", Source: SourceGenerated},
		{Text: "g5", Source: SourceGenerated, Skill: "Customer Onboarding"},
	}
	skills := []string{"Go", "PostgreSQL", "Kubernetes", "Customer Onboarding"}
	r := Request{
		AdditionalQuestions: []string{
			"Tell me about your PostgreSQL tuning experience",
			"Are you eligible to work in the US?",
			"How do you test golang code?",
			"Have you run Kubernetes in production?",
		},
		StructuredQuestions: []StructuredQuestion{
			{Question: "Which postgres versions have you used?", Answers: []string{"<12", "12+"}},
			{Question: "How would you onboard a new customer?", TagName: "onboarding"},
			{Question: "Can you start within a month?", Answers: []string{"Yes", "No"}, TagName: "start", TagInstructions: "Yes if within 30 days"},
		},
	}
	tests := []struct {
		name      string
		intellig  bool
		wantOrder []string
	}{
		{"appended in order", false, []string{
			"g1", "g2", "g3", "g4", "g5",
			"Tell me about your PostgreSQL tuning experience", "Are you eligible to work in the US?",
			"How do you test golang code?", "Have you run Kubernetes in production?",
			"Which postgres versions have you used?", "How would you onboard a new customer?", "Can you start within a month?",
		}},
		{"intelligently ordered", true, []string{
			"g1", "g2",
			"Tell me about your PostgreSQL tuning experience", "Which postgres versions have you used?",
			"g3", "How do you test golang code?",
			"g4", "g5", "How would you onboard a new customer?",
			"Are you eligible to work in the US?", "Have you run Kubernetes in production?", "Can you start within a month?",
		}},
	}
	lx := newLexicon()
	for _, tt := range tests {
		r.IntelligentlyOrder = tt.intellig
		got := appendRequested(slices.Clone(generated), skills, r, lx)
		if !reflect.DeepEqual(texts(got), tt.wantOrder) {
			t.Errorf("%s: appendRequested order =\n%q\nwant\n%q", tt.name, texts(got), tt.wantOrder)
		}
		wantSkill := map[string]string{
			"Tell me about your PostgreSQL tuning experience": "PostgreSQL",
			"Are you eligible to work in the US?":             "",
			"How do you test golang code?":                    "Go",
			"Have you run Kubernetes in production?":          "Kubernetes",
			"How would you onboard a new customer?":           "Customer Onboarding",
		}
		for _, q := range got {
			if want, ok := wantSkill[q.Text]; ok && q.Skill != want {
				t.Errorf("%s: appendRequested(%q) skill = %q, want %q", tt.name, q.Text, q.Skill, want)
			}
		}
	}
}

func TestStructuredVerbatim(t *testing.T) {
	answers := []string{"Yes", "No", "  Maybe later  "}
	r := Request{
		Description:         backendJD,
		AdditionalQuestions: []string{"Why do you want to work here?"},
		StructuredQuestions: []StructuredQuestion{{
			Question: "Are you authorised to work in the EU?", Answers: answers,
			TagName: "Work permit", TagInstructions: "Tag \"permit\" when the answer is Yes; otherwise leave empty.",
		}},
	}
	for _, order := range []bool{false, true} {
		r.IntelligentlyOrder = order
		g, err := NewLocal().Generate(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		var add, st *Question
		for i := range g.Questions {
			switch g.Questions[i].Source {
			case SourceAdditional:
				add = &g.Questions[i]
			case SourceStructured:
				st = &g.Questions[i]
			}
		}
		if add == nil || add.Text != "Why do you want to work here?" || add.Answers != nil || add.TagName != "" {
			t.Errorf("Generate(order=%v) additional question = %+v", order, add)
		}
		want := r.StructuredQuestions[0]
		if st == nil || st.Text != want.Question || !reflect.DeepEqual(st.Answers, want.Answers) ||
			st.TagName != want.TagName || st.TagInstructions != want.TagInstructions {
			t.Fatalf("Generate(order=%v) structured question = %+v, want %+v", order, st, want)
		}
		answers[0] = "changed"
		if st.Answers[0] != "Yes" {
			t.Errorf("Generate(order=%v) structured answers share the request's slice", order)
		}
		answers[0] = "Yes"
	}
}

// TestIntelligentOrderLocal checks the brief's example end to end: the PostgreSQL question lands
// after the last generated PostgreSQL question, the unrelated one goes last.
func TestIntelligentOrderLocal(t *testing.T) {
	r := Request{
		Description:         backendJD,
		AdditionalQuestions: []string{"Are you willing to relocate?", "Tell me about your PostgreSQL tuning experience"},
		IntelligentlyOrder:  true,
	}
	g, err := NewLocal().Generate(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	lastPG, pos := -1, -1
	for i, q := range g.Questions {
		if q.Source == SourceGenerated && q.Skill == "PostgreSQL" {
			lastPG = i
		}
		if q.Text == r.AdditionalQuestions[1] {
			pos = i
		}
	}
	if lastPG < 0 || pos != lastPG+1 {
		t.Errorf("Generate(%q) put the PostgreSQL question at %d, want %d (after the last PostgreSQL question):\n%q", r.AdditionalQuestions[1], pos, lastPG+1, texts(g.Questions))
	}
	if last := g.Questions[len(g.Questions)-1].Text; last != r.AdditionalQuestions[0] {
		t.Errorf("Generate(%q) last question = %q, want the unrelated one", r.AdditionalQuestions[0], last)
	}
}
