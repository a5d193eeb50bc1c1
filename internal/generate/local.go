package generate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Local is the deterministic, rule-based Generator: no network, and the same Request always
// gives the same Guide. It finds skills with a lexicon, extracts requirements and
// responsibilities from the description's sections and sentences, and fills question, criterion
// and objective templates chosen by hashing what they are about. AdditionalContext biases it:
// skills named there come first and always get a question, skills it says to avoid get none,
// and a "focus on ..." phrase gets its own question, criterion and learning objective.
type Local struct {
	lx *lexicon
}

// NewLocal returns a Local generator.
func NewLocal() *Local { return &Local{lx: newLexicon()} }

// Generate implements Generator. Its only errors are a permanent one for invalid input and the
// context's error.
func (l *Local) Generate(ctx context.Context, r Request) (*Guide, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("generate guide locally: %w", err)
	}
	if err := validate(r); err != nil {
		return nil, err
	}
	lx := l.lx
	if lx == nil {
		lx = newLexicon()
	}
	a := analyze(lx, r)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("generate guide locally: %w", err)
	}
	return finish(a.guide(), r, lx), nil
}

// analysis is what Local reads from a request.
type analysis struct {
	lx               *lexicon
	title            string
	skills           []int // guide skills, context-named first
	ask              []int // skills that get a question
	focus            string
	responsibilities []duty
	requirements     []string
}

// duty is a responsibility; verb is true when text starts with a base-form verb ("design and
// build APIs"), so it reads after "to".
type duty struct {
	text string
	verb bool
}

const (
	maxLocalSkills  = 12
	maxSkillAsks    = 5
	minLocalQs      = 7
	maxLocalQs      = 10
	maxDutyLen      = 160
	maxFocusLen     = 120
	maxQuotedReqLen = 200
)

// analyze reads the title, ranked skills, context bias, responsibilities and requirements of r.
func analyze(lx *lexicon, r Request) *analysis {
	desc := normalize(r.Description)
	a := &analysis{lx: lx, title: cleanTitle(r.Title)}
	if a.title == "" {
		a.title = inferTitle(desc)
	}
	its := items(splitLines(desc))
	avoid, wanted, focus, ctxWords := readContext(lx, normalize(r.AdditionalContext))
	a.focus = focus

	ranked := rankSkills(lx, a.title, its)
	for _, id := range slices.Concat(wanted, ranked) {
		if !slices.Contains(a.skills, id) && !slices.Contains(avoid, id) {
			a.skills = append(a.skills, id)
		}
	}
	if len(a.skills) == 0 {
		for _, name := range []string{"Communication", "Problem Solving", "Reliability"} {
			if id := lx.lookup(name); id >= 0 && !slices.Contains(avoid, id) {
				a.skills = append(a.skills, id)
			}
		}
	}
	a.ask = pickAsks(lx, a.skills, len(wanted))
	for _, id := range ranked {
		if slices.Contains(avoid, id) {
			a.skills = append(a.skills, id) // still a skill of the job, just not asked about
		}
	}
	a.skills = a.skills[:min(len(a.skills), maxLocalSkills)]
	a.responsibilities = duties(its, ctxWords, lx, a.ask)
	a.requirements = requirements(its, ctxWords, a.title)
	return a
}

// rankSkills orders the skills of a description by weight: a mention counts 1 (at most five
// times), 1.5 in a requirement or responsibility, half for soft skills, and 3 in the title.
// Ties go to the earlier mention. Sections about the company and benefits are ignored.
func rankSkills(lx *lexicon, title string, its []item) []int {
	type stat struct {
		score float64
		first int
	}
	stats := map[int]*stat{}
	add := func(id int, w float64, pos int) {
		s, ok := stats[id]
		if !ok {
			s = &stat{first: pos}
			stats[id] = s
		}
		s.score += w
		s.first = min(s.first, pos)
	}
	for _, id := range lx.skillsIn(title) {
		add(id, 3, -1)
	}
	counts := map[int]int{}
	for _, it := range its {
		if it.sec == secOther {
			continue
		}
		bonus := it.sec == secRequirements || it.sec == secResponsibilities || isRequirement(it.text, title) || isDuty(it.text)
		var seen []int
		for _, h := range lx.find(it.text) {
			if slices.Contains(seen, h.skill) {
				continue
			}
			seen = append(seen, h.skill)
			w := 0.0
			if counts[h.skill] < 5 {
				w = 1
			}
			counts[h.skill]++
			if bonus {
				w += 0.5
			}
			if lx.entries[h.skill].kind == kSoft {
				w /= 2
			}
			add(h.skill, w, it.pos*maxInputBytes+h.start)
		}
	}
	ranked := make([]int, 0, len(stats))
	for id := range stats {
		ranked = append(ranked, id)
	}
	slices.SortFunc(ranked, func(x, y int) int {
		if c := cmp.Compare(stats[y].score, stats[x].score); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(stats[x].first, stats[y].first), cmp.Compare(x, y))
	})
	return ranked
}

// pickAsks chooses the skills that get a question: every context-named skill (the first
// wanted of skills), then the best ranked ones, with at most one licence, one soft skill and one
// language among those, since a question per certificate says little; more only when nothing
// else is left.
func pickAsks(lx *lexicon, skills []int, wanted int) []int {
	n := maxSkillAsks - 1
	if wanted > 0 {
		n = maxSkillAsks
	}
	ask := slices.Clone(skills[:min(wanted, n)])
	var later []int
	per := map[kind]int{}
	for _, id := range skills[len(ask):] {
		if len(ask) == n {
			break
		}
		k := lx.entries[id].kind
		if (k == kCred || k == kSoft || k == kLang) && per[k] > 0 {
			later = append(later, id)
			continue
		}
		per[k]++
		ask = append(ask, id)
	}
	return append(ask, later[:min(len(later), n-len(ask))]...)
}

// readContext splits the additional context into skills to avoid (named in a sentence with
// "avoid", "don't", "skip" ...), skills wanted (named anywhere else, in order), the first focus
// phrase ("focus on X"), and its content words.
func readContext(lx *lexicon, ctx string) (avoid, wanted []int, focus string, ws map[string]bool) {
	ws = map[string]bool{}
	for _, l := range splitLines(ctx) {
		for _, s := range sentences(l.text) {
			ids := lx.skillsIn(s)
			if negative(s) {
				avoid = append(avoid, ids...)
				continue
			}
			for _, id := range ids {
				if !slices.Contains(wanted, id) {
					wanted = append(wanted, id)
				}
			}
			for _, w := range contentWords(s) {
				ws[w] = true
			}
			if focus == "" {
				focus = focusPhrase(s)
			}
		}
	}
	wanted = slices.DeleteFunc(wanted, func(id int) bool { return slices.Contains(avoid, id) })
	return avoid, wanted, focus, ws
}

// negative reports a sentence that asks not to cover something.
func negative(s string) bool {
	low := " " + asciiLower(s) + " "
	for _, cue := range []string{" don't ", " don’t ", " do not ", " avoid ", " skip ", " no questions ", " not ask ", " never ", " exclude ", " not focus ", " without asking ", " not relevant ", " isn't relevant ", " is irrelevant "} {
		if strings.Contains(low, cue) {
			return true
		}
	}
	return false
}

var focusTriggers = []string{"focus on", "focus more on", "focus heavily on", "emphasis on", "emphasize", "emphasise", "prioritize", "prioritise", "ask about", "dig into", "probe", "concentrate on", "particularly", "especially", "interested in", "care about", "weight on"}

// focusPhrase returns what follows "focus on" (and similar) up to the end of the clause.
func focusPhrase(s string) string {
	low := asciiLower(s)
	best := -1
	var end int
	for _, t := range focusTriggers {
		if i := strings.Index(low, t); i >= 0 && (best < 0 || i < best) && wordStart(s, i, alias{text: t}) {
			best, end = i, i+len(t)
		}
	}
	if best < 0 {
		return ""
	}
	p := s[end:]
	if i := strings.IndexAny(p, ".;!?\n"); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSpace(strings.Trim(p, " :,-–—\"“”"))
	for _, pre := range []string{"the candidate's ", "the candidate’s ", "candidates' ", "their ", "the "} {
		if rest, ok := strings.CutPrefix(asciiLower(p), pre); ok {
			p = p[len(p)-len(rest):]
		}
	}
	if len(strings.Fields(p)) < 1 {
		return ""
	}
	return truncate(p, maxFocusLen)
}

// isRequirement reports a sentence or bullet that states a requirement. The job's title does
// not count: "We are hiring a Licensed Practical Nurse" names the job, it asks for no license.
func isRequirement(t, title string) bool {
	low := asciiLower(t)
	if title = asciiLower(strings.TrimSpace(title)); title != "" {
		low = strings.ReplaceAll(low, title, " ")
	}
	for _, m := range []string{"required", "requirement", "must ", "experience with", "experience in", "years of", "years’", "years'", "proficien", "knowledge of", "familiarity with", "familiar with", "certif", "degree", "license", "licence", "ability to", "able to"} {
		if strings.Contains(low, m) {
			return true
		}
	}
	return yearsPattern(low)
}

// yearsPattern reports an "N+ years" or "N years" requirement.
func yearsPattern(low string) bool {
	for i := 0; i < len(low); i++ {
		if low[i] < '0' || low[i] > '9' {
			continue
		}
		j := i
		for j < len(low) && (low[j] >= '0' && low[j] <= '9' || low[j] == '+' || low[j] == '-' || low[j] == ' ') {
			j++
		}
		if strings.HasPrefix(low[j:], "year") || strings.HasPrefix(low[j:], "yr") {
			return true
		}
		i = j
	}
	return false
}

// requirements lists the description's requirements, those with years of experience, "must"
// and words of the additional context first, then those under a requirements heading before
// the sentences that only read like one.
func requirements(its []item, ctxWords map[string]bool, title string) []string {
	type req struct {
		text  string
		score int
	}
	var rs []req
	for _, it := range its {
		if it.sec == secOther || (it.sec != secRequirements && !isRequirement(it.text, title)) {
			continue
		}
		t := strings.TrimRight(it.text, ".;: ")
		if len(strings.Fields(t)) < 3 {
			continue
		}
		low := asciiLower(t)
		score := 3 * overlap(contentWords(t), ctxWords)
		if yearsPattern(low) {
			score += 2
		}
		if strings.Contains(low, "must") || strings.Contains(low, "required") {
			score++
		}
		if it.sec == secRequirements {
			score++
		}
		rs = append(rs, req{text: truncate(t, maxQuotedReqLen), score: score})
	}
	slices.SortStableFunc(rs, func(a, b req) int { return cmp.Compare(b.score, a.score) })
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.text
	}
	return out
}

var dutyPrefixes = []string{"you will be responsible for ", "you'll be responsible for ", "you’ll be responsible for ", "in this role, you will ", "in this role you will ", "in this role, you'll ", "as part of the team, you will ", "you will ", "you'll ", "you’ll ", "you would ", "will be responsible for ", "responsible for ", "will ", "to "}

// duties lists the description's responsibilities: items of a responsibilities section and
// sentences that start with an action verb, those about context words and asked skills first.
func duties(its []item, ctxWords map[string]bool, lx *lexicon, ask []int) []duty {
	type scored struct {
		duty
		score int
	}
	var ds []scored
	for _, it := range its {
		if it.sec == secOther || it.sec == secRequirements {
			continue
		}
		t := stripDutyPrefix(strings.TrimRight(it.text, ".;: "))
		first, _, _ := strings.Cut(t, " ")
		base, form := verbForm(first)
		if it.sec != secResponsibilities && base == "" {
			continue
		}
		if len(strings.Fields(t)) < 3 {
			continue
		}
		d := duty{text: shortenDuty(t)}
		if form == "base" {
			d.verb = true
			d.text = base + d.text[len(first):]
		}
		score := 3 * overlap(contentWords(d.text), ctxWords)
		for _, id := range lx.skillsIn(d.text) {
			if slices.Contains(ask, id) {
				score++
			}
		}
		if it.sec == secResponsibilities {
			score++
		}
		ds = append(ds, scored{duty: d, score: score})
	}
	slices.SortStableFunc(ds, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	out := make([]duty, len(ds))
	for i, d := range ds {
		out[i] = d.duty
	}
	return out
}

// stripDutyPrefix removes "You will", "Responsible for" and the like from a responsibility.
func stripDutyPrefix(t string) string {
	for _, p := range dutyPrefixes {
		if rest, ok := strings.CutPrefix(asciiLower(t), p); ok {
			return t[len(t)-len(rest):]
		}
	}
	return t
}

// isDuty reports whether t starts with an action verb, after any "You will".
func isDuty(t string) bool {
	first, _, _ := strings.Cut(stripDutyPrefix(t), " ")
	base, _ := verbForm(first)
	return base != ""
}

// shortenDuty keeps the first clause of a long responsibility.
func shortenDuty(t string) string {
	if len([]rune(t)) <= maxDutyLen {
		return t
	}
	for _, sep := range []string{"; ", " – ", " — ", " - ", ", ", " ("} {
		if i := strings.Index(t, sep); i >= 30 && i <= maxDutyLen*4 {
			if c := t[:i]; len([]rune(c)) <= maxDutyLen {
				return c
			}
		}
	}
	return truncate(t, maxDutyLen)
}

// overlap counts the words of ws in set.
func overlap(ws []string, set map[string]bool) int {
	n := 0
	for _, w := range ws {
		if set[w] {
			n++
		}
	}
	return n
}

// verbForm maps w to its base-form action verb and says which form w was: "base", "s"
// (manages), "ing" (managing); base is "" when w is not a known action verb.
func verbForm(w string) (base, form string) {
	lw := asciiLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
	if actionVerbs[lw] {
		return lw, "base"
	}
	if s, ok := strings.CutSuffix(lw, "ies"); ok && actionVerbs[s+"y"] {
		return s + "y", "s"
	}
	for _, suf := range []string{"s", "es"} {
		if s, ok := strings.CutSuffix(lw, suf); ok && actionVerbs[s] {
			return s, "s"
		}
	}
	if s, ok := strings.CutSuffix(lw, "ing"); ok {
		cands := []string{s, s + "e"}
		if n := len(s); n >= 2 && s[n-1] == s[n-2] {
			cands = append(cands, s[:n-1]) // planning: plan
		}
		for _, c := range cands {
			if actionVerbs[c] {
				return c, "ing"
			}
		}
	}
	return "", ""
}

// actionVerbs start responsibilities ("Design and build ...").
var actionVerbs = map[string]bool{
	"administer": true, "advise": true, "analyse": true, "analyze": true, "answer": true,
	"architect": true, "assemble": true, "assess": true, "assist": true, "audit": true,
	"automate": true, "bake": true, "bring": true, "build": true, "care": true, "champion": true,
	"chart": true, "clean": true, "clear": true, "close": true, "coach": true, "code": true,
	"collaborate": true, "collect": true, "communicate": true, "comply": true, "conduct": true,
	"configure": true, "consult": true, "contribute": true, "cook": true, "coordinate": true,
	"count": true, "cover": true, "craft": true, "create": true, "cultivate": true, "debug": true,
	"define": true, "deliver": true, "deploy": true, "design": true, "develop": true,
	"diagnose": true, "dispense": true, "document": true, "drive": true, "educate": true,
	"engage": true, "ensure": true, "establish": true, "evaluate": true, "execute": true,
	"fabricate": true, "facilitate": true, "follow": true, "foster": true, "generate": true,
	"greet": true, "grow": true, "guide": true, "handle": true, "help": true, "identify": true,
	"implement": true, "improve": true, "inspect": true, "install": true, "integrate": true,
	"interview": true, "investigate": true, "iterate": true, "keep": true, "label": true,
	"launch": true, "lead": true, "lift": true, "load": true, "maintain": true, "make": true,
	"manage": true, "market": true, "measure": true, "mentor": true, "merchandise": true,
	"migrate": true, "mix": true, "model": true, "monitor": true, "move": true, "mow": true,
	"negotiate": true, "observe": true, "onboard": true, "operate": true, "optimise": true,
	"optimize": true, "organise": true, "organize": true, "oversee": true, "own": true, "pack": true,
	"participate": true, "partner": true, "perform": true, "pick": true, "plan": true,
	"prepare": true, "present": true, "prioritise": true, "prioritize": true, "process": true,
	"program": true, "promote": true, "prospect": true, "protect": true, "prototype": true,
	"provide": true, "receive": true, "reconcile": true, "record": true, "recruit": true,
	"refactor": true, "repair": true, "report": true, "represent": true, "research": true,
	"resolve": true, "respond": true, "restock": true, "review": true, "run": true, "scale": true,
	"scan": true, "schedule": true, "secure": true, "sell": true, "serve": true, "set": true,
	"shape": true, "ship": true, "sort": true, "source": true, "stock": true, "supervise": true,
	"support": true, "take": true, "teach": true, "test": true, "track": true, "train": true,
	"translate": true, "transport": true, "treat": true, "troubleshoot": true, "unload": true,
	"uphold": true, "use": true, "verify": true, "welcome": true, "weld": true, "wire": true,
	"work": true, "write": true,
}
