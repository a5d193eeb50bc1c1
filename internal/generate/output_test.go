package generate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// outputWith returns validOutput with one top-level field replaced (or removed when v is nil).
func outputWith(field string, v any) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(validOutput), &m); err != nil {
		panic(err)
	}
	if v == nil {
		delete(m, field)
	} else {
		m[field] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func manyQuestions(n int) []map[string]string {
	qs := make([]map[string]string, n)
	for i := range qs {
		qs[i] = map[string]string{"text": fmt.Sprintf("Question %d?", i), "skill": ""}
	}
	return qs
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		needTitle bool
		wantErr   string // "" for success
	}{
		{"valid", validOutput, true, ""},
		{"code fence", "```json\n" + validOutput + "\n```", true, ""},
		{"title optional when given", outputWith("title", nil), false, ""},
		{"title required when inferred", outputWith("title", nil), true, "title: required"},
		{"blank title", outputWith("title", " \t "), true, "title: required"},
		{"unknown top-level field", outputWith("notes", "x"), false, `unknown field "notes"`},
		{"unknown question field", outputWith("questions", []map[string]any{{"text": "Q?", "skill": "", "order": 1}}), false, `unknown field "order"`},
		{"missing questions", outputWith("questions", nil), false, "questions: required"},
		{"empty questions", outputWith("questions", []any{}), false, "questions: required"},
		{"blank question", outputWith("questions", []map[string]string{{"text": "  ", "skill": ""}}), false, "questions[0].text: required"},
		{"too many questions", outputWith("questions", manyQuestions(MaxGeneratedQuestions+1)), false, "at most 50"},
		{"long question", outputWith("questions", []map[string]string{{"text": strings.Repeat("é", MaxQuestionLen+1)}}), false, "questions[0].text: 1001 characters"},
		{"NUL in question", outputWith("questions", []map[string]string{{"text": "a\x00b"}}), false, "NUL"},
		{"null skills", outputWith("skills", nil), false, "skills: required"},
		{"criteria without description", outputWith("criteria", []map[string]string{{"name": "Go"}}), false, "criteria[0].description: required"},
		{"wrong type", outputWith("intro", 42), false, "cannot unmarshal number"},
		{"array", "[" + validOutput + "]", false, "cannot unmarshal array"},
		{"trailing data", validOutput + `{"x":1}`, false, "data after the object"},
		{"prose", "Here you go: " + validOutput, false, "invalid character"},
		{"null", "null", false, "skills: required"},
		{"huge", strings.Repeat(" ", maxOutputBytes+1), false, "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := parseOutput([]byte(tt.in), tt.needTitle)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parseOutput(%.60q) error = %v", tt.in, err)
				}
				if len(g.Questions) != 5 || g.Questions[0].Source != SourceGenerated || g.Questions[0].Skill != "Go" {
					t.Errorf("parseOutput(%.60q) = %+v", tt.in, g)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseOutput(%.60q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestParseOutputNormalises(t *testing.T) {
	in := outputWith("skills", []string{" Go ", "go", "PostgreSQL"})
	g, err := parseOutput([]byte(in), true)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(g.Skills) != "[Go PostgreSQL]" {
		t.Errorf("parseOutput skills = %q, want trimmed and deduplicated", g.Skills)
	}
}

func FuzzParseOutput(f *testing.F) {
	f.Add([]byte(validOutput), true)
	f.Add([]byte("```json\n"+validOutput+"\n```"), false)
	f.Add([]byte(outputWith("notes", "x")), false)
	f.Add([]byte(outputWith("questions", manyQuestions(51))), false)
	f.Add([]byte(`{"title":"\u0000","skills":["a"],"intro":"i","outro":"o","learningObjectives":["l"],"questions":[{"text":"q","skill":""}],"criteria":[{"name":"n","description":"d"}]}`), true)
	f.Add([]byte(`{"skills":null}`), false)
	f.Add([]byte(""), false)
	f.Fuzz(func(t *testing.T, data []byte, needTitle bool) {
		g, err := parseOutput(data, needTitle)
		if err != nil {
			return
		}
		within := func(what, s string, max int) {
			if n := utf8.RuneCountInString(s); n == 0 || n > max || strings.ContainsRune(s, 0) || strings.TrimSpace(s) != s {
				t.Fatalf("accepted %s %q (%d characters, max %d)", what, s, n, max)
			}
		}
		if needTitle {
			within("title", g.Title, MaxTitleLen)
		}
		if len(g.Skills) == 0 || len(g.Skills) > MaxSkills {
			t.Fatalf("accepted %d skills", len(g.Skills))
		}
		for _, s := range g.Skills {
			within("skill", s, MaxSkillLen)
		}
		within("intro", g.Intro, MaxIntroLen)
		within("outro", g.Outro, MaxIntroLen)
		if len(g.LearningObjectives) == 0 || len(g.LearningObjectives) > MaxLearningObjectives {
			t.Fatalf("accepted %d learning objectives", len(g.LearningObjectives))
		}
		for _, o := range g.LearningObjectives {
			within("learning objective", o, MaxLearningObjectiveLen)
		}
		if len(g.Questions) == 0 || len(g.Questions) > MaxGeneratedQuestions {
			t.Fatalf("accepted %d questions", len(g.Questions))
		}
		for _, q := range g.Questions {
			within("question", q.Text, MaxQuestionLen)
			if q.Source != SourceGenerated || utf8.RuneCountInString(q.Skill) > MaxSkillLen || strings.ContainsRune(q.Skill, 0) {
				t.Fatalf("accepted question %+v", q)
			}
		}
		if len(g.Criteria) == 0 || len(g.Criteria) > MaxCriteria {
			t.Fatalf("accepted %d criteria", len(g.Criteria))
		}
		for _, c := range g.Criteria {
			within("criterion name", c.Name, MaxCriterionNameLen)
			within("criterion description", c.Description, MaxCriterionDescLen)
		}
	})
}
