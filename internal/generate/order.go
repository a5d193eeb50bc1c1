package generate

import (
	"slices"
	"strings"
)

// appendRequested adds the request's additional questions and then its structured questions,
// in the given order, to the generated ones. Every appended question gets as Skill its topic:
// the guide skill or generated-question skill it best matches (see topicMatcher), or "".
//
// Without r.IntelligentlyOrder they all go after the generated questions. With it, each goes
// right after the last generated question of its topic; those without a topic, or whose topic
// has no generated question, go last. Relative order is kept in both cases. Both generators
// use this one function, so the model never reorders or rewrites a customer's question.
func appendRequested(generated []Question, skills []string, r Request, lx *lexicon) []Question {
	extra := make([]Question, 0, len(r.AdditionalQuestions)+len(r.StructuredQuestions))
	for _, q := range r.AdditionalQuestions {
		extra = append(extra, Question{Text: strings.TrimSpace(q), Source: SourceAdditional})
	}
	for _, q := range r.StructuredQuestions {
		extra = append(extra, Question{
			Text: strings.TrimSpace(q.Question), Source: SourceStructured,
			Answers: slices.Clone(q.Answers), TagName: q.TagName, TagInstructions: q.TagInstructions,
		})
	}
	if len(extra) == 0 {
		return generated
	}
	m := newTopicMatcher(lx, topics(generated, skills))
	for i := range extra {
		extra[i].Skill = m.match(extra[i].Text)
	}
	if !r.IntelligentlyOrder {
		return append(generated, extra...)
	}
	last := map[string]int{}
	for i, q := range generated {
		if q.Skill != "" {
			last[asciiLower(q.Skill)] = i
		}
	}
	after := make([][]Question, len(generated))
	var tail []Question
	for _, q := range extra {
		if i, ok := last[asciiLower(q.Skill)]; ok && q.Skill != "" {
			after[i] = append(after[i], q)
		} else {
			tail = append(tail, q)
		}
	}
	out := make([]Question, 0, len(generated)+len(extra))
	for i, q := range generated {
		out = append(out, q)
		out = append(out, after[i]...)
	}
	return append(out, tail...)
}

// topics lists the guide's skills, then generated-question skills not among them, without
// case-insensitive duplicates.
func topics(generated []Question, skills []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if k := asciiLower(s); s != "" && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	for _, s := range skills {
		add(s)
	}
	for _, q := range generated {
		add(q.Skill)
	}
	return out
}

// topicMatcher scores a question against topics: one point per lexicon skill they share (so
// "postgres tuning" matches "PostgreSQL"), plus the share of the topic's words found in the
// question when that share is at least half.
type topicMatcher struct {
	lx     *lexicon
	topics []string
	skills [][]int
	words  [][]string
}

func newTopicMatcher(lx *lexicon, topics []string) *topicMatcher {
	m := &topicMatcher{lx: lx, topics: topics}
	for _, t := range topics {
		m.skills = append(m.skills, lx.skillsIn(t))
		m.words = append(m.words, contentWords(t))
	}
	return m
}

// match returns the best-scoring topic of text, the first one on a tie, or "".
func (m *topicMatcher) match(text string) string {
	qs := m.lx.skillsIn(text)
	qw := contentWords(text)
	best, bestScore := "", 0.0
	for i, t := range m.topics {
		score := 0.0
		for _, s := range m.skills[i] {
			if slices.Contains(qs, s) {
				score++
			}
		}
		if n := len(m.words[i]); n > 0 {
			shared := 0
			for _, w := range m.words[i] {
				if slices.Contains(qw, w) {
					shared++
				}
			}
			if frac := float64(shared) / float64(n); frac >= 0.5 {
				score += frac
			}
		}
		if score > bestScore {
			best, bestScore = t, score
		}
	}
	return best
}

// contentWords are the words of s minus the ones every interview question uses.
func contentWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if !questionStopWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

var questionStopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "your": true, "you": true, "me": true, "my": true, "i": true,
	"about": true, "tell": true, "how": true, "what": true, "why": true, "when": true, "where": true,
	"which": true, "who": true, "describe": true, "experience": true, "time": true, "do": true,
	"did": true, "have": true, "is": true, "are": true, "was": true, "were": true,
	"work": true, "working": true, "skill": true, "knowledge": true, "would": true, "could": true,
	"can": true, "this": true, "that": true, "it": true, "as": true, "at": true, "by": true,
	"from": true, "be": true, "we": true, "our": true, "any": true, "us": true, "give": true,
	"example": true, "walk": true, "through": true, "please": true, "if": true, "so": true,
	"some": true, "there": true, "their": true, "they": true, "them": true, "been": true, "will": true,
	"use": true, "used": true, "using": true, "role": true, "job": true, "position": true, "yes": true,
	"no": true, "not": true, "all": true, "most": true, "more": true, "other": true, "into": true,
}
