package interview

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/answertext"
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
	case answertext.CountWords(answer) < MinAnswerWords:
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

// hasExample reports whether an answer gives an example, judged from its words (letters and
// digits, compared in lower case; "e.g." reads as "e g"), English only. Any of these counts:
//
//   - a word holding a digit: a number, a year, a date, a percentage ("2019", "40%", "3rd");
//   - a month's name other than "may";
//   - a phrase that marks an example (answertext: "for example", "when I", "once", "years ago", ...);
//   - a past-tense action verb of pastActions ("built", "led", "fixed", ...).
func hasExample(answer string) bool {
	ws := answertext.Words(answer)
	for i, w := range ws {
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 || months[w] || pastActions[w] || answertext.ExamplePhraseAt(ws, i) {
			return true
		}
	}
	return false
}

var months = answertext.Set("january", "february", "march", "april", "june", "july", "august", "september",
	"october", "november", "december")

var pastActions = answertext.Set(
	"achieved", "analysed", "analyzed", "automated", "built", "coached", "completed", "configured",
	"coordinated", "created", "debugged", "delivered", "deployed", "designed", "developed",
	"diagnosed", "drove", "fixed", "handled", "hired", "implemented", "improved", "increased",
	"introduced", "launched", "led", "managed", "mentored", "migrated", "negotiated", "organised",
	"organized", "planned", "prepared", "presented", "reduced", "resolved", "reviewed", "rewrote",
	"saved", "shipped", "solved", "started", "supervised", "taught", "tested", "trained", "wrote",
)
