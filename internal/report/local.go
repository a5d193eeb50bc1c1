package report

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/recruitd/recruitd/internal/answertext"
	"github.com/recruitd/recruitd/models"
)

// Thresholds of the local rules.
const (
	// MinTotalWords: answers holding fewer words in all are too thin to judge.
	MinTotalWords = 60
	// MinResponseWords: a question answered (with its follow-up) in fewer words is short; when
	// more than half of the questions are, the answers are too thin to judge.
	MinResponseWords = 10
	// DetailedWords: the mean words per answer of a criterion that earns the detail point.
	DetailedWords = 40
	// localEvidence is the most quotes the local rules give a criterion.
	localEvidence = 2
)

// Local is the deterministic evaluator: no network, and one input always gives the same report.
// Its rules, in order (docs/reports.md):
//
//  1. The answers the criteria are scored on are the open ones: generated, additional and
//     follow-up questions and structured questions without choices. A question and its
//     follow-up are one response; a response's words are its answers' words (countWords).
//  2. Insufficient data, rating nil: no criteria (ReasonNoRubric); no open answer
//     (ReasonNoAnswers); fewer than MinTotalWords words in all (ReasonTooFewWords); more than
//     half of the responses under MinResponseWords words (ReasonShortAnswers).
//  3. A criterion's terms are the stems of its name and description (terms); a response
//     addresses it when one of its words has one of those stems. A criterion no response
//     addresses gets no score. When none is addressed: insufficient data (ReasonNotAddressed).
//  4. An addressed criterion scores 2, plus 1 when one of its responses gives an example
//     (hasExample), plus 1 when they hold at least 2 distinct specifics (specific), plus 1 when
//     they average at least DetailedWords words, minus 1 when at least half of them needed a
//     follow-up; kept within MinScore to MaxScore.
//  5. Its evidence: up to 2 sentences of its responses' answers that hold one of its terms,
//     the best first (2 points per distinct term, 1 per specific, 1 for an example marker;
//     ties in transcript order), each cut to MaxQuoteLen characters at a word boundary.
//  6. The rating is the mean of the scores, rounded to two decimals.
//
// Tags are decided for every report, whatever its status (see localTag).
type Local struct{}

// NewLocal returns the local evaluator.
func NewLocal() *Local { return &Local{} }

// response is a question answered in the candidate's own words and its follow-up.
type response struct {
	answers  []answer
	words    int
	followUp bool // a follow-up was asked
}

// answer is one answered turn with the features the rules read, computed once.
type answer struct {
	turn      *Turn
	stems     []string // of its words, in order
	example   bool
	specifics []string // distinct keys
	sentences []sentence
}

// sentence is a sentence of an answer: its span, its words' stems, and its points before the
// criterion's terms (1 per specific, 1 for an example marker).
type sentence struct {
	start, end int
	stems      []string
	points     int
}

func newAnswer(t *Turn) answer {
	toks := tokenize(t.Answer)
	a := answer{turn: t, stems: make([]string, len(toks)), example: hasExample(toks), specifics: specifics(toks)}
	for i, tok := range toks {
		a.stems[i] = stem(tok.lower)
	}
	k := 0
	for _, sp := range sentences(t.Answer) {
		for k < len(toks) && toks[k].start < sp[0] {
			k++
		}
		j := k
		for j < len(toks) && toks[j].end <= sp[1] {
			j++
		}
		st := sentence{start: sp[0], end: sp[1], stems: a.stems[k:j], points: len(specifics(toks[k:j]))}
		if hasExample(toks[k:j]) {
			st.points++
		}
		a.sentences = append(a.sentences, st)
		k = j
	}
	return a
}

// specifics returns the distinct specifics of toks (specific).
func specifics(toks []token) []string {
	var out []string
	for _, t := range toks {
		if k, ok := specific(t); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// responses groups the open turns by plan step, in transcript order.
func responses(in Input) []*response {
	var out []*response
	byStep := map[int]*response{}
	for i := range in.Turns {
		t := &in.Turns[i]
		if !t.open() {
			continue
		}
		r := byStep[t.StepIndex]
		if r == nil {
			r = &response{}
			byStep[t.StepIndex] = r
			out = append(out, r)
		}
		if t.Source == models.TurnSourceFollowUp {
			r.followUp = true
		}
		if t.Answer != "" {
			r.answers = append(r.answers, newAnswer(t))
			r.words += countWords(t.Answer)
		}
	}
	return out
}

// Evaluate implements Evaluator.
func (*Local) Evaluate(_ context.Context, in Input) Report {
	r := Report{RubricVersion: RubricVersion(in.Criteria), Engine: EngineLocal, Tags: localTags(in.Turns)}
	rs := responses(in)
	if reason, why := thinness(in, rs); reason != ReasonNone {
		return insufficient(r, in, reason, why)
	}
	var scored []int
	for _, c := range in.Criteria {
		cs := scoreCriterion(c, rs)
		if cs.Score != nil {
			scored = append(scored, *cs.Score)
		}
		r.Criteria = append(r.Criteria, cs)
	}
	if len(scored) == 0 {
		r.Criteria = nil
		return insufficient(r, in, ReasonNotAddressed,
			fmt.Sprintf("no answer addresses any of the %d grading criteria", len(in.Criteria)))
	}
	r.Status = StatusReady
	rating := mean(scored)
	r.Rating = &rating
	r.Summary = localSummary(r, rs)
	return r
}

// thinness applies rule 2: the reason the answers are too thin to judge, and its words.
func thinness(in Input, rs []*response) (Reason, string) {
	total, answered, short := 0, 0, 0
	for _, r := range rs {
		total += r.words
		if len(r.answers) > 0 {
			answered++
		}
		if r.words < MinResponseWords {
			short++
		}
	}
	switch {
	case len(in.Criteria) == 0:
		return ReasonNoRubric, "the job's interview guide has no grading criteria to score the answers against"
	case answered == 0:
		return ReasonNoAnswers, "the candidate gave no answer in their own words"
	case total < MinTotalWords:
		return ReasonTooFewWords, fmt.Sprintf("the answers hold %d words in all, fewer than the %d needed to judge", total, MinTotalWords)
	case 2*short > len(rs):
		return ReasonShortAnswers, fmt.Sprintf("%d of %d answers have fewer than %d words", short, len(rs), MinResponseWords)
	}
	return ReasonNone, ""
}

// insufficient completes r as a report with insufficient data: every criterion listed without
// a score, the reason in the summary.
func insufficient(r Report, in Input, reason Reason, why string) Report {
	r.Status, r.Reason, r.Rating = StatusInsufficientData, reason, nil
	r.Summary = "Insufficient data: " + why + "."
	r.Criteria = make([]CriterionScore, len(in.Criteria))
	for i, c := range in.Criteria {
		r.Criteria[i] = CriterionScore{Name: c.Name, Description: c.Description, Rationale: "Not scored: insufficient data.", Evidence: []Evidence{}}
	}
	return r
}

// scoreCriterion applies rules 3 to 5 to one criterion.
func scoreCriterion(c Criterion, rs []*response) CriterionScore {
	cs := CriterionScore{Name: c.Name, Description: c.Description, Evidence: []Evidence{}}
	ts := terms(c)
	var addressed []*response
	for _, r := range rs {
		if slices.ContainsFunc(r.answers, func(a answer) bool { return matches(a.stems, ts) > 0 }) {
			addressed = append(addressed, r)
		}
	}
	if len(addressed) == 0 {
		cs.Rationale = "No answer mentions the terms of this criterion, so it is not scored."
		return cs
	}
	example, followUps, words := false, 0, 0
	specifics := map[string]bool{}
	for _, r := range addressed {
		words += r.words
		if r.followUp {
			followUps++
		}
		for _, a := range r.answers {
			example = example || a.example
			for _, k := range a.specifics {
				specifics[k] = true
			}
		}
	}
	meanWords := int(math.Round(float64(words) / float64(len(addressed))))
	score := 2
	if example {
		score++
	}
	if len(specifics) >= 2 {
		score++
	}
	if meanWords >= DetailedWords {
		score++
	}
	if 2*followUps >= len(addressed) && followUps > 0 {
		score--
	}
	score = min(max(score, MinScore), MaxScore)
	cs.Score = &score
	cs.Rationale = rationale(len(addressed), len(rs), example, len(specifics), meanWords, followUps)
	cs.Evidence = evidence(addressed, ts)
	return cs
}

// matches counts the distinct terms of ts among stems.
func matches(stems []string, ts map[string]bool) int {
	var seen []string
	for _, s := range stems {
		if ts[s] && !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	return len(seen)
}

func rationale(addressed, all int, example bool, specifics, meanWords, followUps int) string {
	ex := "without a concrete example"
	if example {
		ex = "with a concrete example"
	}
	s := fmt.Sprintf("Addressed in %d of %d answers, %s and %s, averaging %d words", addressed, all, ex, plural(specifics, "specific", "specifics"), meanWords)
	switch {
	case followUps == 1 && addressed == 1:
		s += ", after a follow-up"
	case followUps > 0:
		s += fmt.Sprintf(", %d of them after a follow-up", followUps)
	}
	return s + "."
}

// evidence applies rule 5.
func evidence(addressed []*response, ts map[string]bool) []Evidence {
	type candidate struct {
		ev     Evidence
		points int
		seq    int
		start  int
	}
	var cands []candidate
	for _, r := range addressed {
		for _, a := range r.answers {
			for _, sn := range a.sentences {
				m := matches(sn.stems, ts)
				if m == 0 {
					continue
				}
				cands = append(cands, candidate{
					ev:     Evidence{Seq: a.turn.Seq, Question: a.turn.Question, Quote: quote(a.turn.Answer, sn.start, sn.end)},
					points: 2*m + sn.points, seq: a.turn.Seq, start: sn.start,
				})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(b.points-a.points, a.seq-b.seq, a.start-b.start)
	})
	out := []Evidence{}
	for _, c := range cands[:min(len(cands), localEvidence)] {
		out = append(out, c.ev)
	}
	return out
}

// localSummary is the review of a ready report: the rating, the strongest and weakest scored
// criteria, the examples given and the follow-ups needed.
func localSummary(r Report, rs []*response) string {
	var best, worst *CriterionScore
	scored := 0
	for i := range r.Criteria {
		c := &r.Criteria[i]
		if c.Score == nil {
			continue
		}
		scored++
		if best == nil || *c.Score > *best.Score {
			best = c
		}
		if worst == nil || *c.Score < *worst.Score {
			worst = c
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Rated %.2f of %d on %d of %d criteria", *r.Rating, MaxScore, scored, len(r.Criteria))
	if *best.Score != *worst.Score {
		fmt.Fprintf(&b, "; strongest: %s (%d), weakest: %s (%d)", clip(oneLine(best.Name), 60), *best.Score, clip(oneLine(worst.Name), 60), *worst.Score)
	}
	examples, followUps := 0, 0
	for _, x := range rs {
		if slices.ContainsFunc(x.answers, func(a answer) bool { return a.example }) {
			examples++
		}
		if x.followUp {
			followUps++
		}
	}
	fmt.Fprintf(&b, ". %d of %d answers gave a concrete example", examples, len(rs))
	switch followUps {
	case 0:
		b.WriteString("; no follow-up was needed.")
	case 1:
		b.WriteString("; 1 follow-up was needed.")
	default:
		fmt.Fprintf(&b, "; %d follow-ups were needed.", followUps)
	}
	return b.String()
}

func mean(xs []int) float64 {
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return math.Round(float64(sum)/float64(len(xs))*100) / 100
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// localTags decides the tag of every structured turn with a tagName (localTag).
func localTags(turns []Turn) []Tag {
	out := []Tag{}
	for _, t := range turns {
		if t.TagName != "" {
			out = append(out, localTag(t))
		}
	}
	return out
}

// localTag decides a tag's value from the answer by the first rule that applies:
//
//  1. unanswered: no value;
//  2. mapping: the instructions hold "<answer> -> <value>" (also "=>", "→", ":" or "=", with an
//     optional leading "if"; pairs separated by ";" or line breaks; quotes around either side
//     and a final period are dropped), whose left side equals the answer ignoring case: that
//     value;
//  3. choice: the answer is one of the question's choices: the choice;
//  4. yes-no: the answer starts with a yes ("yes", "yeah", "sure", "I do", "I have", ...): "Yes";
//     with a no ("no", "never", "I don't", "I have not", ...): "No";
//  5. otherwise undecided: no value.
//
// A value is cut to MaxTagValueLen characters.
func localTag(t Turn) Tag {
	tag := Tag{Name: t.TagName, Seq: t.Seq, Rule: TagRuleUndecided}
	answer := strings.TrimSpace(t.Answer)
	if answer == "" {
		tag.Rule = TagRuleUnanswered
		return tag
	}
	value := mapped(t.TagInstructions, answer)
	switch {
	case value != "":
		tag.Rule = TagRuleMapping
	case slices.Contains(t.Choices, answer):
		tag.Rule, value = TagRuleChoice, answer
	default:
		if value = yesNo(answer); value != "" {
			tag.Rule = TagRuleYesNo
		}
	}
	if value != "" {
		value = clip(oneLine(value), MaxTagValueLen)
		tag.Value = &value
	}
	return tag
}

var mappingRule = regexp.MustCompile(`^(?i:if\s+)?(.+?)\s*(?:=>|->|→|:|=)\s*(.+)$`)

// mapped returns the value instructions map answer to, or "".
func mapped(instructions, answer string) string {
	for _, part := range strings.FieldsFunc(instructions, func(r rune) bool { return r == ';' || r == '\n' }) {
		m := mappingRule.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			continue
		}
		left := unquote(m[1])
		right := unquote(strings.TrimSuffix(strings.TrimSpace(m[2]), "."))
		if right != "" && strings.EqualFold(left, answer) && !hasControl(right) {
			return right
		}
	}
	return ""
}

func unquote(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'“”‘’`))
}

// yesNo returns "Yes" or "No" when answer starts with one of the phrases of yesPhrases or
// noPhrases (the no phrases first: "I do not" is a no), else "".
func yesNo(answer string) string {
	toks := tokenize(answer)
	starts := func(ps [][]string) bool {
		for _, p := range ps {
			if len(toks) >= len(p) && slices.EqualFunc(toks[:len(p)], p, func(t token, w string) bool { return t.lower == w }) {
				return true
			}
		}
		return false
	}
	switch {
	case starts(noPhrases):
		return "No"
	case starts(yesPhrases):
		return "Yes"
	}
	return ""
}

var noPhrases = answertext.Phrases(
	"no", "nope", "nah", "never", "not", "negative", "false", "none",
	"i have never", "i have no", "i've never", "i’ve never", "i never",
	"i do not", "i don't", "i don’t", "i have not", "i haven't", "i haven’t", "i am not", "i'm not", "i’m not",
	"i cannot", "i can't", "i can’t", "i will not", "i won't", "i won’t",
)

var yesPhrases = answertext.Phrases(
	"yes", "yeah", "yep", "yup", "sure", "correct", "true", "absolutely", "definitely",
	"certainly", "affirmative", "indeed", "of course", "i do", "i have", "i am", "i'm", "i’m",
	"i can", "i will",
)
