package generate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/recruitd/recruitd/internal/llm"
)

// maxOutputBytes bounds the model's reply; anything longer is rejected unread.
const maxOutputBytes = 256 << 10

// modelOutput is the JSON object the model must reply with (see systemPrompt).
type modelOutput struct {
	Title              string           `json:"title"`
	Skills             []string         `json:"skills"`
	Intro              string           `json:"intro"`
	Outro              string           `json:"outro"`
	LearningObjectives []string         `json:"learningObjectives"`
	Questions          []modelQuestion  `json:"questions"`
	Criteria           []modelCriterion `json:"criteria"`
}

type modelQuestion struct {
	Text  string `json:"text"`
	Skill string `json:"skill"`
}

type modelCriterion struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// parseOutput strictly parses a model reply into the generated part of a guide: exactly one
// JSON object (see llm.DecodeStrict: a code fence allowed, no unknown fields), every required
// field present and non-blank, every count and length within the package bounds, no NUL.
// title is required only when needTitle. Strings are trimmed and duplicate skills dropped.
func parseOutput(data []byte, needTitle bool) (*Guide, error) {
	if len(data) > maxOutputBytes {
		return nil, fmt.Errorf("%d bytes, at most %d allowed", len(data), maxOutputBytes)
	}
	var out modelOutput
	if err := llm.DecodeStrict(data, &out); err != nil {
		return nil, err
	}

	g := &Guide{}
	var err error
	if needTitle {
		if g.Title, err = field("title", out.Title, MaxTitleLen); err != nil {
			return nil, err
		}
		if g.Title = cleanTitle(g.Title); g.Title == "" {
			return nil, errors.New("title: required")
		}
	}
	if g.Skills, err = list("skills", out.Skills, MaxSkills, MaxSkillLen); err != nil {
		return nil, err
	}
	g.Skills = dedupe(g.Skills)
	if g.Intro, err = field("intro", out.Intro, MaxIntroLen); err != nil {
		return nil, err
	}
	if g.Outro, err = field("outro", out.Outro, MaxIntroLen); err != nil {
		return nil, err
	}
	if g.LearningObjectives, err = list("learningObjectives", out.LearningObjectives, MaxLearningObjectives, MaxLearningObjectiveLen); err != nil {
		return nil, err
	}
	if err := count("questions", len(out.Questions), MaxGeneratedQuestions); err != nil {
		return nil, err
	}
	for i, q := range out.Questions {
		text, err := field(fmt.Sprintf("questions[%d].text", i), q.Text, MaxQuestionLen)
		if err != nil {
			return nil, err
		}
		skill := strings.TrimSpace(q.Skill)
		if err := checkOptional(skill, MaxSkillLen); err != nil {
			return nil, fmt.Errorf("questions[%d].skill: %w", i, err)
		}
		g.Questions = append(g.Questions, Question{Text: text, Source: SourceGenerated, Skill: skill})
	}
	if err := count("criteria", len(out.Criteria), MaxCriteria); err != nil {
		return nil, err
	}
	for i, c := range out.Criteria {
		name, err := field(fmt.Sprintf("criteria[%d].name", i), c.Name, MaxCriterionNameLen)
		if err != nil {
			return nil, err
		}
		desc, err := field(fmt.Sprintf("criteria[%d].description", i), c.Description, MaxCriterionDescLen)
		if err != nil {
			return nil, err
		}
		g.Criteria = append(g.Criteria, Criterion{Name: name, Description: desc})
	}
	return g, nil
}

// field trims a required string and checks it; name locates it in errors ("questions[2].text").
func field(name, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%s: required", name)
	}
	if err := checkText(s, max); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

func count(name string, n, max int) error {
	if n == 0 {
		return fmt.Errorf("%s: required", name)
	}
	if n > max {
		return fmt.Errorf("%s: %d items, at most %d allowed", name, n, max)
	}
	return nil
}

// list checks a required, non-empty list of required strings.
func list(name string, items []string, maxItems, maxLen int) ([]string, error) {
	if err := count(name, len(items), maxItems); err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, s := range items {
		v, err := field(fmt.Sprintf("%s[%d]", name, i), s, maxLen)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if k := strings.ToLower(s); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
