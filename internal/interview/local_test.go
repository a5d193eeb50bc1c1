package interview

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// long is a 26-word answer without any example marker.
const long = "I really enjoy this kind of work and I think I am good at it because I care about quality and about the people around me."

func TestLocalFollowUp(t *testing.T) {
	goQ := Step{Index: 2, Total: 5, Kind: KindQuestion, Source: SourceGuide, Text: "Walk me through a Go service.", Skill: "Go"}
	plain := Step{Index: 3, Total: 5, Kind: KindQuestion, Source: SourceAdditional, Text: "Why do you want this job?"}
	structured := Step{Index: 4, Total: 5, Kind: KindQuestion, Source: SourceStructured, Text: "Licence?"}
	const (
		shortGo       = "Could you tell me more about your experience with Go? Please describe one situation: what you did and what happened."
		shortPlain    = "Could you tell me more? Please describe one situation from your own experience: what you did and what happened."
		exampleGo     = "Could you give a specific example from your own work with Go: the situation, what you did, and the result?"
		examplePlain  = "Could you give a specific example from your own experience: the situation, what you did, and the result?"
		withExample   = long + " For example, "
		nineteenWords = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
	)
	tests := []struct {
		name     string
		question Step
		answer   string
		reason   Reason
		want     string
	}{
		{"short, with skill", goQ, "I used Go a lot.", ReasonShort, shortGo},
		{"short, no skill", plain, "Because I like it.", ReasonShort, shortPlain},
		{"19 words is short even with an example", plain, strings.Replace(nineteenWords, "nineteen", "2019", 1), ReasonShort, shortPlain},
		{"punctuation alone is no word", plain, nineteenWords + " - — ...", ReasonShort, shortPlain},
		{"20 words without example", plain, nineteenWords + " twenty", ReasonNoExample, examplePlain},
		{"long without example, with skill", goQ, long, ReasonNoExample, exampleGo},
		{"long without example, no skill", plain, long, ReasonNoExample, examplePlain},
		{"for example", plain, withExample + "the team.", ReasonNone, ""},
		{"FOR EXAMPLE across a line break", plain, long + " FOR\nEXAMPLE the team.", ReasonNone, ""},
		{"e.g.", plain, long + " E.g. the team.", ReasonNone, ""},
		{"such as", plain, long + " Such as the team.", ReasonNone, ""},
		{"when I", plain, long + " When I joined the team.", ReasonNone, ""},
		{"once", plain, long + " Once, the team.", ReasonNone, ""},
		{"years ago", plain, long + " Three years ago the team.", ReasonNone, ""},
		{"in my previous", plain, long + " In my previous team.", ReasonNone, ""},
		{"a number", plain, long + " Our team of 12.", ReasonNone, ""},
		{"a percentage", plain, long + " About 40% less.", ReasonNone, ""},
		{"a year", plain, long + " Since 2019.", ReasonNone, ""},
		{"a month", plain, long + " Since March.", ReasonNone, ""},
		{"may is no month", plain, long + " It may help.", ReasonNoExample, examplePlain},
		{"past-tense action verb", plain, long + " I led the team.", ReasonNone, ""},
		{"another past-tense verb", goQ, long + " We migrated the billing service.", ReasonNone, ""},
		{"a verb inside a word does not count", plain, long + " Ledger and fixedness.", ReasonNoExample, examplePlain},
		{"when alone does not count", plain, long + " When needed.", ReasonNoExample, examplePlain},
		{"structured question: never", structured, "Yes", ReasonNone, ""},
		{"follow-up: never", goQ.FollowUp(exampleGo), "Not really.", ReasonNone, ""},
		{"intro: never", Step{Kind: KindIntro}, "", ReasonNone, ""},
	}
	l := NewLocal()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := l.FollowUp(context.Background(), tt.question, tt.answer)
			if d.Reason != tt.reason || d.Question != tt.want || d.Ask != (tt.want != "") {
				t.Errorf("FollowUp = %+v, want reason %q and %q", d, tt.reason, tt.want)
			}
			if wantEngine := map[bool]Engine{true: EngineLocal, false: ""}[Eligible(tt.question)]; d.Engine != wantEngine {
				t.Errorf("FollowUp engine = %q, want %q", d.Engine, wantEngine)
			}
			if again := l.FollowUp(context.Background(), tt.question, tt.answer); again != d {
				t.Errorf("FollowUp is not repeatable: %+v then %+v", d, again)
			}
		})
	}
}

func TestLocalWordingBounds(t *testing.T) {
	for _, skill := range []string{"", "Go", " Customer\n\tservice ", strings.Repeat("x", maxSkillInFollowUp), strings.Repeat("y", maxSkillInFollowUp+1)} {
		for _, r := range []Reason{ReasonShort, ReasonNoExample} {
			w := localWording(r, skill)
			if n := utf8.RuneCountInString(w); n > MaxFollowUpLen || strings.ContainsAny(w, "\n\t") || strings.Contains(w, "yyy") {
				t.Errorf("localWording(%s, %.20q) = %q (%d characters)", r, skill, w, n)
			}
		}
	}
	if w := localWording(ReasonShort, " Customer\n\tservice "); !strings.Contains(w, "with Customer service?") {
		t.Errorf("localWording does not collapse the skill's white space: %q", w)
	}
}
