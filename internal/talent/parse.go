// Package talent is the core of the searchCandidates tool: Parse turns a recruiter's
// natural-language request into a structured Query, and Search runs it against a company's
// talent pool (table candidates) as one parameterised SQL statement.
//
// Matching, on the weighted candidates.search document (title and skills A, employers B,
// education C, location D):
//   - a role ("backend engineer") is required: each of its words or a synonym ("developer",
//     "back-end"); several roles ("frontend or backend engineer") are alternatives;
//   - skills: at least one is required, and candidates with more of them rank higher;
//   - employers: one is required, in the text index and then exactly in candidates.employers
//     (case-insensitive, "Google" also finds "Google LLC");
//   - years: a filter on years_experience (a NULL never matches a years filter); "senior",
//     "junior" and the like only raise the rank of titles that say so;
//   - education: the minimum degree level and the field, as patterns on candidates.education;
//   - location: a city is a radius (default 25 miles) around its coordinates, through the GiST
//     index on point(longitude, latitude) (radiusBoxes); a state filters candidates.state;
//   - work-arrangement preferences (remote, hybrid, onsite, relocation) are reported as not
//     filterable: the talent pool has no such data, and matching the words would drop people;
//   - other words rank; they are required (any of them) only when nothing else is asked.
//
// Order: ts_rank_cd relevance, then most recently updated. When more than PoolSize candidates
// match, only the PoolSize most recently updated are ranked, and the count stops at CountCap.
package talent

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/gazetteer"
)

// MaxQueryLen bounds the query text, in bytes; Parse ignores the rest.
const MaxQueryLen = 1000

// Query is the structured reading of a request.
type Query struct {
	Raw string // the text parsed (trimmed, at most MaxQueryLen bytes)

	// Roles are the job titles asked for ("backend engineer"); a candidate must match one.
	Roles []Role
	// Seniority is "senior", "junior", "lead", ... It only raises the rank of candidates whose
	// title says so; it filters nothing (years do).
	Seniority string
	// Skills are canonical skill names ("Go", "Kubernetes"); a candidate must have at least one
	// and ranks higher the more it has.
	Skills []string
	// Location is where candidates must be: a city (radius search) or a whole state.
	Location     *gazetteer.Place
	LocationText string // the words it was read from
	// MinYears and MaxYears bound years_experience (inclusive).
	MinYears, MaxYears *int
	// Education is the degree asked for, nil when none.
	Education *Education
	// Employers are past or current employers; a candidate must list one of them.
	Employers []string
	// Preferences are work-arrangement wishes ("remote", "hybrid", "onsite", "relocation"). The
	// talent pool records none, so they are reported as not filterable and filter nothing.
	Preferences []string
	// Keywords are the remaining words. They raise the rank of candidates that mention them and
	// are required (any of them) only when the query has no role, skill or employer.
	Keywords []string

	skillTerms [][]string // per skill: canonical name and the alias written, searched OR'ed
}

// Role is one job title of a query.
type Role struct {
	Title     string   // as read: "backend engineer"
	Head      string   // the role noun, singular: "engineer"
	Modifiers []string // the words before it: "backend"
}

// Education is a degree requirement.
type Education struct {
	// Level is the minimum degree: "associate", "bachelor", "master", "phd", or "" for any
	// degree (for example "CS degree").
	Level string
	// Field is the field of study ("computer science"), "" for any.
	Field string
}

// degreeLevels orders Education.Level values; a requirement accepts its level and above.
var degreeLevels = []string{"associate", "bachelor", "master", "phd"}

// LevelAtLeast reports the levels that satisfy a minimum level.
func LevelAtLeast(level string) []string {
	i := slices.Index(degreeLevels, level)
	if i < 0 {
		return nil
	}
	return degreeLevels[i:]
}

// HasCriteria reports whether the query restricts anything at all.
func (q Query) HasCriteria() bool {
	return len(q.Roles) > 0 || len(q.Skills) > 0 || q.Location != nil || q.MinYears != nil ||
		q.MaxYears != nil || q.Education != nil || len(q.Employers) > 0 || len(q.Keywords) > 0
}

// Parse reads a natural-language request. It never fails: words it does not understand become
// Keywords. Only the first MaxQueryLen bytes are read.
func Parse(query string) Query {
	text := clean(query)
	q := Query{Raw: text}
	if text == "" {
		return q
	}
	p := &parser{text: text, lower: asciiLower(text), claimed: make([]bool, len(text))}

	// A "City, ST" mention first: "Mobile, AL" is a place, not the word "mobile".
	if m, ok := gazetteer.FindIn(text); ok && m.Strong {
		q.setLocation(m, text)
		p.claim(m.Start, m.End)
	}
	p.years(&q)
	p.education(&q)
	p.employers(&q)
	p.preferences(&q)
	p.seniority(&q)
	p.roles(&q)
	p.skills(&q)
	if q.Location == nil {
		if m, ok := gazetteer.FindIn(p.masked()); ok {
			q.setLocation(m, text)
			p.claim(m.Start, m.End)
		}
	}
	p.keywords(&q)
	return q
}

func (q *Query) setLocation(m gazetteer.Match, text string) {
	pl := m.Place
	q.Location = &pl
	q.LocationText = text[m.Start:m.End]
}

// clean bounds the query, drops invalid UTF-8 and control characters and trims it.
func clean(s string) string {
	if len(s) > MaxQueryLen {
		cut := MaxQueryLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.ToValidUTF8(s, " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\uFEFF' {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

type parser struct {
	text, lower string
	claimed     []bool
}

func (p *parser) claim(s, e int) {
	for i := max(s, 0); i < min(e, len(p.claimed)); i++ {
		p.claimed[i] = true
	}
}

func (p *parser) free(s, e int) bool { return !slices.Contains(p.claimed[s:e], true) }

// masked is the text with claimed bytes blanked, offsets unchanged.
func (p *parser) masked() string {
	b := []byte(p.text)
	for i, c := range p.claimed {
		if c {
			b[i] = ' '
		}
	}
	return string(b)
}

// each runs fn on every unclaimed match of re (on the lower-cased text), claiming what fn accepts.
func (p *parser) each(re *regexp.Regexp, fn func(m []int) bool) {
	for _, m := range re.FindAllStringSubmatchIndex(p.lower, -1) {
		if p.free(m[0], m[1]) && fn(m) {
			p.claim(m[0], m[1])
		}
	}
}

func (p *parser) group(m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return p.lower[m[2*g]:m[2*g+1]]
}

const yrs = `(?:years?|yrs?|yoe)(?:\s+of)?(?:\s+(?:professional|relevant|industry|work|hands-on))?(?:\s+experience|\s+exp\b)?`

var (
	reYearsRange = regexp.MustCompile(`\b(\d{1,2})\s*(?:-|–|to)\s*(\d{1,2})\s*\+?\s*` + yrs)
	reYearsMin   = regexp.MustCompile(`(?:\b(at least|minimum(?: of)?|min\.?|over|more than)\s+)?\b(\d{1,2})\s*(\+|plus)?\s*` + yrs)
	reYearsMax   = regexp.MustCompile(`\b(up to|at most|no more than|less than|under|fewer than|max(?:imum)?(?: of)?)\s+(\d{1,2})\s*` + yrs)
)

func (p *parser) years(q *Query) {
	set := func(dst **int, n int) {
		if n >= 0 && n <= 60 {
			*dst = &n
		}
	}
	p.each(reYearsRange, func(m []int) bool {
		lo, _ := strconv.Atoi(p.group(m, 1))
		hi, _ := strconv.Atoi(p.group(m, 2))
		if lo > hi {
			lo, hi = hi, lo
		}
		set(&q.MinYears, lo)
		set(&q.MaxYears, hi)
		return true
	})
	p.each(reYearsMax, func(m []int) bool {
		n, _ := strconv.Atoi(p.group(m, 2))
		switch p.group(m, 1) {
		case "less than", "under", "fewer than":
			n--
		}
		set(&q.MaxYears, n)
		return true
	})
	p.each(reYearsMin, func(m []int) bool {
		n, _ := strconv.Atoi(p.group(m, 2))
		switch p.group(m, 1) {
		case "over", "more than":
			n++
		}
		set(&q.MinYears, n)
		return true
	})
	if q.MinYears != nil && q.MaxYears != nil && *q.MinYears > *q.MaxYears {
		q.MaxYears = nil
	}
}

var (
	reDegree = regexp.MustCompile(`\b(ph\.?\s?d\.?|doctorate|doctoral degree|master'?s?(?:\s+degree)?|m\.s\.|m\.sc\.?|msc|ms|m\.a\.|mba|m\.?eng|bachelor'?s?(?:\s+degree)?|b\.s\.|b\.sc\.?|bsc|bs|b\.a\.|ba|b\.?eng|undergrad(?:uate)?(?:\s+degree)?|associate'?s?\s+degree|aas|degree|graduate|grad|major(?:ed)?|diploma)\b`)
	reField  = regexp.MustCompile(`\b(computer science|comp\.?\s?sci|cs|computer engineering|software engineering|electrical engineering|ee|mechanical engineering|civil engineering|chemical engineering|engineering|mathematics|math|maths|applied math|statistics|stats|physics|data science|information technology|information systems|business administration|business|finance|accounting|economics|marketing|nursing|psychology|biology|chemistry|communications|journalism|law|education|design|human resources)\b`)
)

var degreeLevelOf = map[string]string{
	"phd": "phd", "ph.d.": "phd", "ph.d": "phd", "ph d": "phd", "doctorate": "phd", "doctoral degree": "phd",
	"mba": "master", "msc": "master", "ms": "master", "m.s.": "master", "m.sc": "master", "m.sc.": "master",
	"m.a.": "master", "meng": "master", "m.eng": "master",
	"bsc": "bachelor", "bs": "bachelor", "b.s.": "bachelor", "b.sc": "bachelor", "b.sc.": "bachelor",
	"ba": "bachelor", "b.a.": "bachelor", "beng": "bachelor", "b.eng": "bachelor",
	"aas": "associate",
}

var fieldOf = map[string]string{
	"cs": "computer science", "comp sci": "computer science", "compsci": "computer science",
	"comp.sci": "computer science", "comp. sci": "computer science", "ee": "electrical engineering",
	"math": "mathematics", "maths": "mathematics", "applied math": "mathematics", "stats": "statistics",
	"business": "business administration",
}

func (p *parser) education(q *Query) {
	var ed Education
	found := false
	p.each(reDegree, func(m []int) bool {
		w := p.group(m, 1)
		// "BS"/"MS"/"BA" must be capitals or spelled with dots; "ms" is also a title ("ms jones").
		if raw := p.text[m[2]:m[3]]; len(raw) <= 3 && !strings.Contains(raw, ".") && raw != strings.ToUpper(raw) && w != "mba" && w != "msc" && w != "bsc" {
			if w == "ms" || w == "bs" || w == "ba" || w == "aas" {
				return false
			}
		}
		lvl := degreeLevelOf[w]
		switch {
		case strings.HasPrefix(w, "master"):
			lvl = "master"
		case strings.HasPrefix(w, "bachelor"), strings.HasPrefix(w, "undergrad"):
			lvl = "bachelor"
		case strings.HasPrefix(w, "associate"):
			lvl = "associate"
		case strings.HasPrefix(w, "ph"):
			lvl = "phd"
		}
		if w == "mba" && ed.Field == "" {
			ed.Field = "business administration"
		}
		if rank(lvl) > rank(ed.Level) {
			ed.Level = lvl
		}
		found = true
		return true
	})
	if !found {
		return
	}
	p.each(reField, func(m []int) bool {
		if ed.Field != "" && ed.Field != "business administration" {
			return false
		}
		f := p.group(m, 1)
		if f == "cs" && p.text[m[2]:m[3]] != "CS" && !near(p.lower, m[2], m[3], "degree", "in", "bs", "ms", "ba") {
			return false
		}
		if g, ok := fieldOf[f]; ok {
			f = g
		}
		ed.Field = f
		return true
	})
	// "in" between a degree and its field ("BS in CS") is part of the education phrase.
	q.Education = &ed
}

func rank(level string) int { return slices.Index(degreeLevels, level) }

// near reports whether one of words is adjacent (one word before or after) to the span s:e.
func near(lower string, s, e int, words ...string) bool {
	before := strings.Fields(lower[max(0, s-12):s])
	after := strings.Fields(lower[e:min(len(lower), e+12)])
	for _, w := range words {
		if (len(before) > 0 && strings.Trim(before[len(before)-1], ",.;:'s") == w) ||
			(len(after) > 0 && strings.Trim(after[0], ",.;:") == w) {
			return true
		}
	}
	return false
}

var (
	reEmployerLead = regexp.MustCompile(`(?i)\b(?:ex-|ex\s+|former\s+|previously\s+(?:at|with|@)\s+|formerly\s+(?:at|with|of|@)\s+|prior\s+(?:at|with)\s+|(?:who\s+)?(?:has\s+|have\s+)?(?:worked|works|working|work experience)\s+(?:at|for|with)\s+|alumni\s+of\s+|alum\s+of\s+|experience\s+at\s+|background\s+at\s+)`)
	reEmployerName = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9&.'’-]*(?:\s+[A-Z0-9][A-Za-z0-9&.'’-]*){0,2})`)
	reEmployerSep  = regexp.MustCompile(`^(?:\s*(?:/|,|\bor\b|\band\b|&)\s*)`)
)

// groups of employers written as one word.
var employerGroups = map[string][]string{
	"faang":    {"Meta", "Facebook", "Apple", "Amazon", "Netflix", "Google"},
	"maang":    {"Meta", "Apple", "Amazon", "Netflix", "Google"},
	"big tech": {"Google", "Meta", "Apple", "Amazon", "Microsoft"},
	"big 4":    {"Deloitte", "PwC", "EY", "KPMG"}, "big four": {"Deloitte", "PwC", "EY", "KPMG"},
}

// employerStop ends an employer name list: "ex-Google engineers".
var employerStop = map[string]bool{
	"engineer": true, "engineers": true, "developer": true, "developers": true, "people": true,
	"candidates": true, "folks": true, "employees": true, "alumni": true, "experience": true,
	"with": true, "in": true, "near": true, "who": true, "and": true, "or": true, "preferred": true,
	"a": true, "an": true, "the": true, "years": true, "year": true,
}

func (p *parser) employers(q *Query) {
	for _, loc := range reEmployerLead.FindAllStringIndex(p.text, -1) {
		pos := loc[1]
		if !p.free(loc[0], loc[1]) {
			continue
		}
		lead := strings.ToLower(p.text[loc[0]:loc[1]])
		claimedTo := loc[1]
		for n := 0; n < 5 && pos < len(p.text); n++ {
			rest := p.text[pos:]
			m := reEmployerName.FindStringSubmatchIndex(rest)
			if m == nil {
				break
			}
			name := strings.TrimRight(rest[m[2]:m[3]], ".'’-")
			words := strings.Fields(name)
			for i, w := range words { // stop at a role word: "ex-Google engineers"
				if employerStop[strings.ToLower(w)] || (i > 0 && roleNouns[singular(strings.ToLower(w))]) {
					words = words[:i]
					break
				}
			}
			if len(words) == 0 || !p.free(pos, pos+len(name)) {
				break
			}
			name = strings.Join(words, " ")
			// A lower-case word is only an employer right after "ex-" or "at" ("ex-google").
			if r, _ := utf8.DecodeRuneInString(name); unicode.IsLower(r) && n > 0 {
				break
			}
			if g, ok := employerGroups[strings.ToLower(name)]; ok {
				q.Employers = appendUnique(q.Employers, g...)
			} else if !(strings.HasPrefix(lead, "ex") && roleNouns[singular(strings.ToLower(name))]) {
				q.Employers = appendUnique(q.Employers, canonicalEmployer(name))
			}
			end := pos + strings.Index(rest, name) + len(name)
			claimedTo = end
			sep := reEmployerSep.FindStringIndex(p.text[end:])
			if sep == nil {
				break
			}
			pos = end + sep[1]
		}
		p.claim(loc[0], claimedTo)
	}
	p.each(reEmployerGroup, func(m []int) bool {
		q.Employers = appendUnique(q.Employers, employerGroups[p.group(m, 1)]...)
		return true
	})
}

var reEmployerGroup = regexp.MustCompile(`\b(faang|maang|big tech)\b`)

// canonicalEmployer capitalises a lower-case name ("google" -> "Google").
func canonicalEmployer(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if unicode.IsLower(r) {
		return string(unicode.ToUpper(r)) + s[n:]
	}
	return s
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, it) }) {
			list = append(list, it)
		}
	}
	return list
}

var rePreference = regexp.MustCompile(`\b(?:(?:open|willing|happy|able)\s+to\s+(?:work\s+)?)?(fully\s+remote|remote(?:-first|\s+only|\s+work)?|work\s+from\s+home|wfh|hybrid|on-?site|in[- ]office|in[- ]person|relocat(?:e|ion|ing)|willing\s+to\s+move)\b`)

func (p *parser) preferences(q *Query) {
	p.each(rePreference, func(m []int) bool {
		w := p.group(m, 1)
		var pref string
		switch {
		case strings.Contains(w, "remote"), w == "wfh", strings.Contains(w, "home"):
			pref = "remote"
		case w == "hybrid":
			pref = "hybrid"
		case strings.HasPrefix(w, "relocat"), strings.Contains(w, "move"):
			pref = "relocation"
		default:
			pref = "onsite"
		}
		q.Preferences = appendUnique(q.Preferences, pref)
		return true
	})
}

var reSeniority = regexp.MustCompile(`\b(senior|sr\.?|junior|jr\.?|entry[- ]level|mid[- ]level|mid-senior|intermediate|principal|staff|lead|head of|new grad(?:uate)?|experienced|seasoned)(?:\s|$|[,;])`)

func (p *parser) seniority(q *Query) {
	p.each(reSeniority, func(m []int) bool {
		w := strings.TrimSuffix(p.group(m, 1), ".")
		// "lead"/"staff" followed by a role noun is the seniority; alone they may be the role.
		switch w {
		case "lead", "staff":
			next := nextWord(p.lower, m[3])
			if !roleNouns[singular(next)] && roleModifiers[next] == nil {
				return false
			}
		}
		if q.Seniority == "" {
			q.Seniority = map[string]string{"sr": "senior", "jr": "junior", "entry level": "junior",
				"entry-level": "junior", "new grad": "junior", "new graduate": "junior", "seasoned": "senior",
				"experienced": "senior", "mid level": "mid", "mid-level": "mid", "intermediate": "mid",
				"head of": "lead", "mid-senior": "senior"}[w]
			if q.Seniority == "" {
				q.Seniority = w
			}
		}
		p.claim(m[2], m[3])
		return false // claimed the word only, not the following space
	})
}

func nextWord(lower string, pos int) string {
	f := strings.FieldsFunc(lower[pos:], func(r rune) bool { return !isWordRune(r) && r != '-' })
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// singular strips an English plural from a role word.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		if _, ok := roleNouns[w[:len(w)-1]]; ok {
			return w[:len(w)-1]
		}
	}
	return w
}

type word struct {
	s, e int
	w    string // lower-case
}

func (p *parser) words() []word {
	var ws []word
	i := 0
	for i < len(p.lower) {
		r, n := utf8.DecodeRuneInString(p.lower[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		s := i
		for i < len(p.lower) {
			r, n := utf8.DecodeRuneInString(p.lower[i:])
			if isWordRune(r) || ((r == '-' || r == '/' || r == '+' || r == '#' || r == '.') && i+n < len(p.lower) && isWordRune(rune(p.lower[i+n]))) {
				i += n
				continue
			}
			if r == '+' || r == '#' {
				i += n
				continue
			}
			break
		}
		ws = append(ws, word{s, i, p.lower[s:i]})
	}
	return ws
}

func (p *parser) roles(q *Query) {
	ws := p.words()
	for i, w := range ws {
		if !p.free(w.s, w.e) {
			continue
		}
		head := singular(w.w)
		ambiguous, ok := roleNouns[head]
		if !ok {
			continue
		}
		j := i
		for j > 0 && roleModifiers[ws[j-1].w] != nil && p.free(ws[j-1].s, ws[j-1].e) && adjacent(p.text, ws[j-1], ws[j]) {
			j--
		}
		if ambiguous && j == i {
			continue
		}
		// A modifier that is the next role's head ("nurse practitioner") stays a modifier.
		mods := make([]string, 0, i-j)
		for _, m := range ws[j:i] {
			mods = append(mods, m.w)
		}
		q.addRole(head, mods)
		p.claim(ws[j].s, w.e)
		// "frontend or backend engineer": a modifier before "or"/"and" is another role.
		for j >= 2 && len(mods) > 0 && (ws[j-1].w == "or" || ws[j-1].w == "and") && roleModifiers[ws[j-2].w] != nil && p.free(ws[j-2].s, ws[j-2].e) {
			q.addRole(head, []string{ws[j-2].w})
			p.claim(ws[j-2].s, ws[j-1].e)
			j -= 2
		}
	}
}

func (q *Query) addRole(head string, mods []string) {
	title := strings.Join(append(slices.Clone(mods), head), " ")
	if !slices.ContainsFunc(q.Roles, func(r Role) bool { return r.Title == title }) {
		q.Roles = append(q.Roles, Role{Title: title, Head: head, Modifiers: mods})
	}
}

// adjacent reports whether only spaces or a hyphen separate two words.
func adjacent(text string, a, b word) bool {
	return strings.Trim(text[a.e:b.s], " -") == ""
}

func (p *parser) skills(q *Query) {
	lx := skills()
	for _, h := range lx.find(p.text, p.lower, p.claimed) {
		name := skillTable[h.skill].name
		written := strings.ToLower(p.text[h.start:h.end])
		if i := slices.Index(q.Skills, name); i >= 0 {
			q.skillTerms[i] = appendUnique(q.skillTerms[i], written)
		} else {
			q.Skills = append(q.Skills, name)
			q.skillTerms = append(q.skillTerms, appendUnique([]string{strings.ToLower(name)}, written))
		}
		p.claim(h.start, h.end)
	}
}

// fillers are words of a request that say nothing about the candidate.
var fillers = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`a an the and or of for with without to in on at by from near around who whom whose
		that which this these those is are be been being am was were has have had having do does did
		find me us show give get list search looking look seeking seek need needs want wants hire hiring
		candidate candidates people person persons someone somebody anyone profiles profile talent pool
		folks individuals applicants applicant experience experienced exp strong solid good great deep
		excellent proven skills skill skilled knowledge background familiarity familiar plus bonus
		nice must should can could would will please any some all ideally preferably preferred required
		level years year yrs yr yoe degree based located within miles mile mi km radius area metro
		close nearby etc also like as than more less least most at it its their our my your i we you
		they them he she his her open willing happy able know knows knowing worked works
		who's someone's`) {
		fillers[w] = true
	}
}

func (p *parser) keywords(q *Query) {
	for _, w := range p.words() {
		if !p.free(w.s, w.e) || fillers[w.w] || len(w.w) < 2 {
			continue
		}
		if _, err := strconv.Atoi(w.w); err == nil {
			continue
		}
		q.Keywords = appendUnique(q.Keywords, w.w)
		if len(q.Keywords) >= 20 {
			break
		}
	}
}

// String is the interpretation shown to the user: `role "backend engineer" · skills Go, Kubernetes · ...`.
func (q Query) String() string {
	var parts []string
	if len(q.Roles) > 0 {
		titles := make([]string, len(q.Roles))
		for i, r := range q.Roles {
			titles[i] = strconv.Quote(r.Title)
		}
		parts = append(parts, "role "+strings.Join(titles, " or "))
	}
	if q.Seniority != "" {
		parts = append(parts, "seniority "+q.Seniority+" (ranking hint)")
	}
	if len(q.Skills) > 0 {
		parts = append(parts, "skills "+strings.Join(q.Skills, ", ")+" (at least one; more rank higher)")
	}
	switch {
	case q.MinYears != nil && q.MaxYears != nil:
		parts = append(parts, fmt.Sprintf("%d-%d years of experience", *q.MinYears, *q.MaxYears))
	case q.MinYears != nil:
		parts = append(parts, fmt.Sprintf("%d+ years of experience", *q.MinYears))
	case q.MaxYears != nil:
		parts = append(parts, fmt.Sprintf("at most %d years of experience", *q.MaxYears))
	}
	if q.Location != nil {
		parts = append(parts, "location "+q.Location.String())
	}
	if q.Education != nil {
		s := "degree"
		switch q.Education.Level {
		case "phd":
			s = "PhD"
		case "master":
			s = "master's degree or higher"
		case "bachelor":
			s = "bachelor's degree or higher"
		case "associate":
			s = "associate degree or higher"
		}
		if q.Education.Field != "" {
			s += " in " + q.Education.Field
		}
		parts = append(parts, "education "+s)
	}
	if len(q.Employers) > 0 {
		parts = append(parts, "employers "+strings.Join(q.Employers, " or "))
	}
	if len(q.Keywords) > 0 {
		parts = append(parts, "keywords "+strings.Join(q.Keywords, ", "))
	}
	if len(q.Preferences) > 0 {
		parts = append(parts, "not filterable (no such data in the talent pool): "+strings.Join(q.Preferences, ", "))
	}
	if len(parts) == 0 {
		return "everyone (no criteria)"
	}
	return strings.Join(parts, " · ")
}
