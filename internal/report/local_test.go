package report

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/models"
)

func ptr[T any](v T) *T { return &v }

func TestLocalStrongTranscript(t *testing.T) {
	got := NewLocal().Evaluate(context.Background(), strongInput())
	want := Report{
		Status: StatusReady, Rating: ptr(4.0), Engine: EngineLocal, RubricVersion: RubricVersion(rubric),
		Summary: "Rated 4.00 of 5 on 2 of 3 criteria; strongest: Troubleshooting (5), weakest: Customer communication (3). " +
			"2 of 4 answers gave a concrete example; 1 follow-up was needed.",
		Criteria: []CriterionScore{
			{
				// Addressed by the first answer (explained, customer, informed, plain) and the
				// follow-up's (customers): an example (at my last), 4 specifics (Comcast, 30, 92,
				// increased), (44+22)/2 = 33 words, the second needed a follow-up: 2+1+1+0-1.
				Name: rubric[0].Name, Description: rubric[0].Description, Score: ptr(3),
				Rationale: "Addressed in 2 of 4 answers, with a concrete example and 4 specifics, averaging 33 words, 1 of them after a follow-up.",
				Evidence: []Evidence{
					{Seq: 1, Question: qComms, Quote: "At my last job at Comcast I explained a router outage to a hospital customer."},
					{Seq: 1, Question: qComms, Quote: "I kept them informed every 30 minutes by phone and wrote a plain summary for their manager."},
				},
			},
			{
				// network, resolved; for example, last year; Wi, Fi, Wireshark, 2; 48 words: 2+1+1+1.
				Name: rubric[1].Name, Description: rubric[1].Description, Score: ptr(5),
				Rationale: "Addressed in 1 of 4 answers, with a concrete example and 4 specifics, averaging 48 words.",
				Evidence: []Evidence{
					{Seq: 2, Question: qNetwork, Quote: "For example, last year a warehouse lost Wi-Fi every afternoon; I checked the logs in Wireshark, found a failing switch, replaced it and resolved the drops within 2 hours."},
					{Seq: 2, Question: qNetwork, Quote: "I start with the physical layer and work up the network stack."},
				},
			},
			{
				Name: rubric[2].Name, Description: rubric[2].Description,
				Rationale: "No answer mentions the terms of this criterion, so it is not scored.", Evidence: []Evidence{},
			},
		},
		Tags: []Tag{
			{Name: "licensed", Value: ptr("licensed"), Seq: 3, Rule: TagRuleMapping},
			{Name: "weekends", Value: ptr("Yes"), Seq: 6, Rule: TagRuleYesNo},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Evaluate(strong) =\n%s\nwant\n%s", dump(got), dump(want))
	}
	for _, c := range got.Criteria {
		for _, e := range c.Evidence {
			if !strings.Contains(answerOf(strongInput(), e.Seq), e.Quote) {
				t.Errorf("quote %q is not in the answer of turn %d", e.Quote, e.Seq)
			}
		}
	}
	// The same input always gives the same report.
	if again := NewLocal().Evaluate(context.Background(), strongInput()); !reflect.DeepEqual(again, got) {
		t.Errorf("Evaluate is not repeatable")
	}
}

func answerOf(in Input, seq int) string {
	for _, t := range in.Turns {
		if t.Seq == seq {
			return t.Answer
		}
	}
	return ""
}

// TestLocalInsufficientData: each thinness rule, and a transcript that addresses no criterion,
// gives insufficient data with its reason, no rating and every criterion unscored; the tags are
// still decided.
func TestLocalInsufficientData(t *testing.T) {
	long := "I start with the physical layer and work up the network stack, then I check every cable, every port and every setting one by one, and I write down what I find in a notebook so that the next person on the team can see what was done and why it was done that way."
	tagged := Turn{Seq: 9, StepIndex: 9, Source: models.TurnSourceStructured, Question: qLicence, Choices: []string{"Yes", "No"}, Answer: "No", TagName: "licensed"}
	tests := []struct {
		name     string
		criteria []Criterion
		turns    []Turn
		reason   Reason
		summary  string
	}{
		{"single words", rubric, []Turn{
			{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qComms, Answer: "Yes."},
			{Seq: 2, StepIndex: 1, Source: models.TurnSourceFollowUp, Question: qMore, Answer: "Customer."},
			{Seq: 3, StepIndex: 2, Source: models.TurnSourceGuide, Question: qNetwork, Answer: "Reboot"},
			{Seq: 4, StepIndex: 2, Source: models.TurnSourceFollowUp, Question: qMore, Answer: "Router"},
			{Seq: 5, StepIndex: 3, Source: models.TurnSourceAdditional, Question: qWhy, Answer: "Money"},
			tagged,
		}, ReasonTooFewWords, "Insufficient data: the answers hold 5 words in all, fewer than the 60 needed to judge."},
		{"most answers short", rubric, []Turn{
			{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qNetwork, Answer: long},
			{Seq: 2, StepIndex: 2, Source: models.TurnSourceGuide, Question: qComms, Answer: "I talk to customers."},
			{Seq: 3, StepIndex: 2, Source: models.TurnSourceFollowUp, Question: qMore, Answer: "Plainly."},
			{Seq: 4, StepIndex: 3, Source: models.TurnSourceAdditional, Question: qWhy, Answer: "Good pay and close to home."},
			tagged,
		}, ReasonShortAnswers, "Insufficient data: 2 of 3 answers have fewer than 10 words."},
		{"no answer in own words", rubric, []Turn{tagged}, ReasonNoAnswers,
			"Insufficient data: the candidate gave no answer in their own words."},
		{"open questions unanswered", rubric, []Turn{
			{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qNetwork},
			tagged,
		}, ReasonNoAnswers, "Insufficient data: the candidate gave no answer in their own words."},
		{"no rubric", nil, append(strongInput().Turns[:2:2], tagged), ReasonNoRubric,
			"Insufficient data: the job's interview guide has no grading criteria to score the answers against."},
		{"no criterion addressed", []Criterion{rubric[2]}, []Turn{
			{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qNetwork, Answer: long},
			{Seq: 2, StepIndex: 2, Source: models.TurnSourceGuide, Question: qComms, Answer: aComms},
			tagged,
		}, ReasonNotAddressed, "Insufficient data: no answer addresses any of the 1 grading criteria."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Criteria: tt.criteria, Turns: tt.turns}
			got := NewLocal().Evaluate(context.Background(), in)
			want := Report{
				Status: StatusInsufficientData, Reason: tt.reason, Summary: tt.summary, Engine: EngineLocal,
				RubricVersion: RubricVersion(tt.criteria), Criteria: make([]CriterionScore, len(tt.criteria)),
				Tags: []Tag{{Name: "licensed", Value: ptr("No"), Seq: 9, Rule: TagRuleChoice}},
			}
			for i, c := range tt.criteria {
				want.Criteria[i] = CriterionScore{Name: c.Name, Description: c.Description, Rationale: "Not scored: insufficient data.", Evidence: []Evidence{}}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Evaluate =\n%s\nwant\n%s", dump(got), dump(want))
			}
		})
	}
}

// TestLocalThresholds: the thinness rules' edges. 60 words in all are enough, 59 are not; half
// of the answers short is enough, more than half is not.
func TestLocalThresholds(t *testing.T) {
	words := func(n int, w string) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	c := []Criterion{{Name: "Networking"}}
	tests := []struct {
		name  string
		turns []string
		want  Reason
	}{
		{"60 words", []string{words(30, "network"), words(30, "network")}, ReasonNone},
		{"59 words", []string{words(30, "network"), words(29, "network")}, ReasonTooFewWords},
		{"half short", []string{words(55, "network"), words(9, "network")}, ReasonNone},
		{"more than half short", []string{words(60, "network"), words(9, "network"), words(9, "network")}, ReasonShortAnswers},
		{"10 words is not short", []string{words(60, "network"), words(10, "network"), words(10, "network")}, ReasonNone},
		{"punctuation is no word", []string{words(59, "network") + " - ... !", words(1, "network")}, ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Criteria: c}
			for i, a := range tt.turns {
				in.Turns = append(in.Turns, Turn{Seq: i + 1, StepIndex: i + 1, Source: models.TurnSourceGuide, Question: "Q?", Answer: a})
			}
			if got := NewLocal().Evaluate(context.Background(), in); got.Reason != tt.want {
				t.Errorf("reason = %q (%s), want %q", got.Reason, got.Summary, tt.want)
			}
		})
	}
}

// TestLocalScores: each point of the score, on one criterion ("Networking": stem "networ").
func TestLocalScores(t *testing.T) {
	filler := " and I check each step with care before I move on to the next one in the list"
	// filler has 18 words; plain 26, no example marker, no specific.
	plain := "I set up the network in the office" + filler + "."
	example := "For example I set up the network in the office" + filler + "."                                                                        // 28 words
	specifics := "I set up the network in the office with Cisco gear" + filler + " 3 times."                                                          // 31 words: Cisco, 3
	long := plain + " Then I check it again the next day and the day after that, so that nothing is left to chance."                                  // 46 words
	all := "For example I set up the network for 40 people with Cisco gear" + filler + ". Then I check it again the next day and the day after that." // 44 words: for example; 40, Cisco
	tests := []struct {
		name      string
		answers   []string
		followUp  bool
		score     int
		rationale string
	}{
		{"addressed only", []string{plain, plain, plain}, false, 2, "Addressed in 3 of 3 answers, without a concrete example and 0 specifics, averaging 26 words."},
		{"an example", []string{example, plain, plain}, false, 3, "Addressed in 3 of 3 answers, with a concrete example and 0 specifics, averaging 27 words."},
		{"two specifics", []string{specifics, plain, plain}, false, 3, "Addressed in 3 of 3 answers, without a concrete example and 2 specifics, averaging 28 words."},
		{"detailed", []string{long, long, long}, false, 3, "Addressed in 3 of 3 answers, without a concrete example and 0 specifics, averaging 46 words."},
		{"everything", []string{all, all, all}, false, 5, "Addressed in 3 of 3 answers, with a concrete example and 2 specifics, averaging 44 words."},
		{"everything after follow-ups", []string{all, all, all}, true, 4, "Addressed in 3 of 3 answers, with a concrete example and 2 specifics, averaging 46 words, 3 of them after a follow-up."},
		{"follow-ups on the lowest", []string{plain, plain, plain}, true, 1, "Addressed in 3 of 3 answers, without a concrete example and 0 specifics, averaging 28 words, 3 of them after a follow-up."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Criteria: []Criterion{{Name: "Networking"}}}
			seq := 0
			for i, a := range tt.answers {
				seq++
				in.Turns = append(in.Turns, Turn{Seq: seq, StepIndex: i + 1, Source: models.TurnSourceGuide, Question: "Q?", Answer: a})
				if tt.followUp {
					seq++
					in.Turns = append(in.Turns, Turn{Seq: seq, StepIndex: i + 1, Source: models.TurnSourceFollowUp, Question: "More?", Answer: "Nothing else."})
				}
			}
			got := NewLocal().Evaluate(context.Background(), in)
			if got.Status != StatusReady || len(got.Criteria) != 1 || got.Criteria[0].Score == nil {
				t.Fatalf("Evaluate = %s", dump(got))
			}
			c := got.Criteria[0]
			if *c.Score != tt.score || c.Rationale != tt.rationale || *got.Rating != float64(tt.score) {
				t.Errorf("score %d, rating %v, rationale %q; want %d, %q", *c.Score, *got.Rating, c.Rationale, tt.score, tt.rationale)
			}
		})
	}
}

func TestLocalTags(t *testing.T) {
	tests := []struct {
		name         string
		choices      []string
		instructions string
		answer       string
		value        *string
		rule         TagRule
	}{
		{"mapping arrow", []string{"Yes", "No"}, "Yes -> licensed; No -> not licensed", "No", ptr("not licensed"), TagRuleMapping},
		{"mapping if colon, lines, quotes", []string{"Full time", "Part time"}, "If 'Full time': full-time.\nIf 'Part time': part-time.", "Part time", ptr("part-time"), TagRuleMapping},
		{"mapping ignores case", nil, "YES => eligible", "yes", ptr("eligible"), TagRuleMapping},
		{"mapping equals", []string{"A", "B"}, "A = first shift; B = second shift", "B", ptr("second shift"), TagRuleMapping},
		{"mapping without a match falls to the choice", []string{"Yes", "No", "Maybe"}, "Yes -> licensed", "Maybe", ptr("Maybe"), TagRuleChoice},
		{"prose instructions: the choice", []string{"Yes", "No"}, "Set the tag from the candidate's answer.", "Yes", ptr("Yes"), TagRuleChoice},
		{"free text yes", nil, "Tag yes or no.", "Yeah, I have done that for years.", ptr("Yes"), TagRuleYesNo},
		{"free text I do", nil, "", "I do, since 2019.", ptr("Yes"), TagRuleYesNo},
		{"free text no", nil, "", "No, not yet.", ptr("No"), TagRuleYesNo},
		{"free text I don't", nil, "", "I don't have one.", ptr("No"), TagRuleYesNo},
		{"free text I have never", nil, "", "I have never worked nights.", ptr("No"), TagRuleYesNo},
		{"free text I'm not", nil, "", "I’m not able to.", ptr("No"), TagRuleYesNo},
		{"free text undecided", nil, "Tag yes or no.", "It depends on the week.", nil, TagRuleUndecided},
		{"yes inside is not a yes", nil, "", "Maybe yes.", nil, TagRuleUndecided},
		{"unanswered", []string{"Yes", "No"}, "Yes -> licensed", "", nil, TagRuleUnanswered},
		{"long value cut", []string{"Yes"}, "Yes -> " + strings.Repeat("x", 300), "Yes", ptr(strings.Repeat("x", MaxTagValueLen-1) + "…"), TagRuleMapping},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := Turn{Seq: 4, StepIndex: 2, Source: models.TurnSourceStructured, Question: "Q?", Choices: tt.choices, Answer: tt.answer, TagName: "tag", TagInstructions: tt.instructions}
			got := localTags([]Turn{{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: "Q?", Answer: "Yes"}, turn})
			want := []Tag{{Name: "tag", Value: tt.value, Seq: 4, Rule: tt.rule}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("tags = %s, want %s", dump(got), dump(want))
			}
		})
	}
}

// TestFeatures pins the word-level features the local rules read.
func TestFeatures(t *testing.T) {
	spec := func(s string) []string {
		var out []string
		for _, tok := range tokenize(s) {
			if k, ok := specific(tok); ok {
				out = append(out, k)
			}
		}
		return out
	}
	for s, want := range map[string][]string{
		"I moved 3.5 TB to AWS S3 in 2019.":                 {"number:3.5", "name:tb", "name:aws", "number:s3", "number:2019"},
		"We use PostgreSQL and Kubernetes. Kubernetes runs": {"name:postgresql", "name:kubernetes"},
		"I'm OK and I've saved 40,000 dollars":              {"outcome:saved", "number:40,000"},
		"Then it improved, e.g. a lot":                      {"outcome:improved"},
	} {
		if got := spec(s); !reflect.DeepEqual(got, want) {
			t.Errorf("specifics(%q) = %q, want %q", s, got, want)
		}
	}
	for w, want := range map[string]string{
		"communication": "commun", "communicate": "commun", "tests": "test", "tested": "test", "testing": "test",
		"customers": "custom", "customer": "custom", "safety": "safety", "sql": "sql", "issues": "issu",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
	for s, want := range map[string]bool{
		"For example, this.": true, "e.g. that": true, "When I was there": true, "Two years ago": true,
		"I remember it": true, "Every time": false, "When": false, "": false,
	} {
		if got := hasExample(tokenize(s)); got != want {
			t.Errorf("hasExample(%q) = %v", s, got)
		}
	}
	text := " First one. Version 3.5 is out!\nNo end\n\n  ...  \nLast?"
	var got []string
	for _, sp := range sentences(text) {
		got = append(got, text[sp[0]:sp[1]])
	}
	if want := []string{"First one.", "Version 3.5 is out!", "No end", "Last?"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sentences = %q, want %q", got, want)
	}
	long := strings.Repeat("wörd ", 100)
	if q := quote(long, 0, len(long)); !strings.HasPrefix(long, q) || len([]rune(q)) > MaxQuoteLen || strings.HasSuffix(q, " ") || len([]rune(q)) != 299 {
		t.Errorf("quote(500 characters) = %d characters %q", len([]rune(q)), q)
	}
	one := strings.Repeat("é", 400)
	if q := quote(one, 0, len(one)); q != strings.Repeat("é", MaxQuoteLen) {
		t.Errorf("quote(one long word) = %d characters", len([]rune(q)))
	}
}

func TestRubricVersion(t *testing.T) {
	v := RubricVersion(rubric)
	if v != RubricVersion(append([]Criterion(nil), rubric...)) || len(v) != len("sha256:")+16 || !strings.HasPrefix(v, "sha256:") {
		t.Errorf("RubricVersion = %q", v)
	}
	changed := append([]Criterion(nil), rubric...)
	changed[2].Description += " "
	swapped := []Criterion{rubric[1], rubric[0], rubric[2]}
	joined := []Criterion{{Name: "a", Description: "bc"}}
	split := []Criterion{{Name: "ab", Description: "c"}}
	for _, other := range [][]Criterion{changed, swapped, rubric[:2], nil} {
		if RubricVersion(other) == v {
			t.Errorf("RubricVersion(%v) = the rubric's", other)
		}
	}
	if RubricVersion(joined) == RubricVersion(split) {
		t.Errorf("RubricVersion does not separate name and description")
	}
}

func TestNewInput(t *testing.T) {
	guideID := mustUUID("00000000-0000-0000-0000-0000000000a1")
	licence, weekends, other := mustUUID("00000000-0000-0000-0000-0000000000b1"), mustUUID("00000000-0000-0000-0000-0000000000b2"), mustUUID("00000000-0000-0000-0000-0000000000b3")
	criteria := []models.GradingCriterion{
		{GuideID: guideID, Position: 2, Name: " Troubleshooting ", Description: " Finds faults. "},
		{GuideID: guideID, Position: 1, Name: "Communication", Description: ""},
		{GuideID: guideID, Position: 3, Name: "  "},
	}
	questions := []models.InterviewQuestion{
		{ID: licence, GuideID: guideID, Position: 2, Text: qLicence, Source: models.QuestionSourceStructured, Answers: models.StringArray{"Yes", "No"}, TagName: ptr("licensed"), TagInstructions: ptr(" Yes -> licensed ")},
		{ID: weekends, GuideID: guideID, Position: 3, Text: qWeekends, Source: models.QuestionSourceStructured, TagName: ptr("weekends")},
		{ID: other, GuideID: guideID, Position: 4, Text: "Shift?", Source: models.QuestionSourceStructured, TagName: ptr(" ")},
	}
	stale := mustUUID("00000000-0000-0000-0000-0000000000c9") // a question of a guide regenerated since
	turns := []models.InterviewTurn{
		{Seq: 3, StepIndex: 3, Source: "structured", QuestionID: &stale, Question: qWeekends, Answer: ptr("Yes")},
		{Seq: 1, StepIndex: 1, Source: "guide", Question: qComms, Answer: ptr(aComms)},
		{Seq: 2, StepIndex: 2, Source: "structured", QuestionID: &licence, Question: "reworded", Choices: models.StringArray{"Yes", "No"}, Answer: ptr("Yes")},
		{Seq: 4, StepIndex: 4, Source: "structured", QuestionID: &other, Question: "Shift?"},
		{Seq: 5, StepIndex: 5, Source: "structured", Question: "Unknown?", Answer: ptr("x")},
	}
	want := Input{
		Criteria: []Criterion{{Name: "Communication"}, {Name: "Troubleshooting", Description: "Finds faults."}},
		Turns: []Turn{
			{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qComms, Answer: aComms},
			{Seq: 2, StepIndex: 2, Source: models.TurnSourceStructured, Question: "reworded", Choices: []string{"Yes", "No"}, Answer: "Yes", TagName: "licensed", TagInstructions: "Yes -> licensed"},
			{Seq: 3, StepIndex: 3, Source: models.TurnSourceStructured, Question: qWeekends, Answer: "Yes", TagName: "weekends"},
			{Seq: 4, StepIndex: 4, Source: models.TurnSourceStructured, Question: "Shift?"},
			{Seq: 5, StepIndex: 5, Source: models.TurnSourceStructured, Question: "Unknown?", Answer: "x"},
		},
	}
	if got := NewInput(criteria, questions, turns); !reflect.DeepEqual(got, want) {
		t.Errorf("NewInput =\n%s\nwant\n%s", dump(got), dump(want))
	}
}

// BenchmarkLocalLargest evaluates the largest transcript an interview can hold: 50 questions,
// each answered and followed up in MaxAnswerLen (5,000) characters, against 6 criteria.
func BenchmarkLocalLargest(b *testing.B) {
	in := Input{Criteria: append(rubric, rubric...)}
	long := strings.Repeat(aComms+" "+aNetwork+"\n", 20)[:5000]
	for i := range 50 {
		in.Turns = append(in.Turns,
			Turn{Seq: 2*i + 1, StepIndex: i + 1, Source: models.TurnSourceGuide, Question: qComms, Answer: long},
			Turn{Seq: 2*i + 2, StepIndex: i + 1, Source: models.TurnSourceFollowUp, Question: qMore, Answer: long})
	}
	l := NewLocal()
	for b.Loop() {
		l.Evaluate(context.Background(), in)
	}
}
