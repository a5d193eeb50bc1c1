package interview

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinAnswerWords is the shortest answer, in words, that the local interviewer takes without a
// follow-up. A word is a run of non-space characters holding a letter or a digit.
const MinAnswerWords = 20

// maxSkillInFollowUp bounds the skill named in a follow-up, in characters.
const maxSkillInFollowUp = 100

// Local is the deterministic interviewer: no network, and the same question and answer always
// give the same Decision. After an answer to an eligible question it asks
//
//   - ReasonShort when the answer has fewer than MinAnswerWords words;
//   - else ReasonNoExample when the answer has no example marker (see hasExample);
//   - else nothing.
//
// The wording is fixed: one text per reason, naming the question's skill when it has one (and
// it is at most 100 characters).
type Local struct{}

// NewLocal returns the local interviewer.
func NewLocal() *Local { return &Local{} }

// FollowUp implements Interviewer.
func (*Local) FollowUp(_ context.Context, question Step, answer string) Decision {
	if !Eligible(question) {
		return Decision{}
	}
	d := Decision{Engine: EngineLocal}
	switch {
	case countWords(answer) < MinAnswerWords:
		d.Reason = ReasonShort
	case !hasExample(answer):
		d.Reason = ReasonNoExample
	default:
		return d
	}
	d.Ask, d.Question = true, localWording(d.Reason, question.Skill)
	return d
}

// localWording is the follow-up's text for reason, about skill when it is not blank.
func localWording(reason Reason, skill string) string {
	skill = strings.Join(strings.FieldsFunc(skill, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if utf8.RuneCountInString(skill) > maxSkillInFollowUp {
		skill = ""
	}
	switch {
	case reason == ReasonShort && skill != "":
		return fmt.Sprintf("Could you tell me more about your experience with %s? Please describe one situation: what you did and what happened.", skill)
	case reason == ReasonShort:
		return "Could you tell me more? Please describe one situation from your own experience: what you did and what happened."
	case skill != "":
		return fmt.Sprintf("Could you give a specific example from your own work with %s: the situation, what you did, and the result?", skill)
	}
	return "Could you give a specific example from your own experience: the situation, what you did, and the result?"
}

func countWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// hasExample reports whether an answer gives an example, judged from its words (letters and
// digits, compared in lower case; "e.g." reads as "e g"), English only. Any of these counts:
//
//   - a word holding a digit: a number, a year, a date, a percentage ("2019", "40%", "3rd");
//   - a month's name other than "may";
//   - a phrase of examplePhrases ("for example", "when I", "once", "years ago", ...);
//   - a past-tense action verb of pastActions ("built", "led", "fixed", ...).
func hasExample(answer string) bool {
	ws := tokens(answer)
	for i, w := range ws {
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 || months[w] || pastActions[w] {
			return true
		}
		for _, p := range examplePhrases {
			if len(ws)-i >= len(p) && slices.Equal(ws[i:i+len(p)], p) {
				return true
			}
		}
	}
	return false
}

// tokens are the lower-cased runs of letters, digits and inner apostrophes of s.
func tokens(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
	out := fields[:0]
	for _, f := range fields {
		if f = strings.Trim(f, "'’"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

var examplePhrases = phrases(
	"for example", "for instance", "such as", "e g", "once", "one time", "there was a time",
	"when i", "when we", "when my", "i remember", "at my last", "in my last", "in my previous",
	"in my current", "at my current", "last year", "last month", "last week", "ago",
)

func phrases(ps ...string) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Fields(p)
	}
	return out
}

var months = set("january", "february", "march", "april", "june", "july", "august", "september",
	"october", "november", "december")

var pastActions = set(
	"achieved", "analysed", "analyzed", "automated", "built", "coached", "completed", "configured",
	"coordinated", "created", "debugged", "delivered", "deployed", "designed", "developed",
	"diagnosed", "drove", "fixed", "handled", "hired", "implemented", "improved", "increased",
	"introduced", "launched", "led", "managed", "mentored", "migrated", "negotiated", "organised",
	"organized", "planned", "prepared", "presented", "reduced", "resolved", "reviewed", "rewrote",
	"saved", "shipped", "solved", "started", "supervised", "taught", "tested", "trained", "wrote",
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
