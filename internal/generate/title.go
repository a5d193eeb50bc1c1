package generate

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fallbackTitle is the title of a description from which none can be inferred.
const fallbackTitle = "Open Position"

// roleNouns are the head nouns of job titles. Those marked true are also ordinary words ("lead
// the team", "our server", "a leader in fintech"): they count in a title-like line or after
// "we are hiring", but not alone there, and never when counting role mentions in running text.
var roleNouns = map[string]bool{
	"engineer": false, "developer": false, "programmer": false, "architect": true, "scientist": false,
	"analyst": false, "manager": false, "director": false, "specialist": false, "coordinator": false,
	"associate": true, "representative": false, "rep": false, "consultant": false, "administrator": false,
	"technician": false, "tech": true, "nurse": false, "physician": false, "doctor": false, "surgeon": false,
	"dentist": false, "hygienist": false, "pharmacist": false, "therapist": false, "counselor": false,
	"counsellor": false, "psychologist": false, "paramedic": false, "emt": false, "caregiver": false,
	"aide": false, "attendant": false, "assistant": false, "designer": false, "accountant": false,
	"auditor": false, "bookkeeper": false, "clerk": false, "cashier": false, "driver": true, "operator": true,
	"picker": false, "packer": false, "handler": true, "loader": false, "sorter": false, "stocker": false,
	"merchandiser": false, "supervisor": false, "officer": false, "agent": true, "advisor": false,
	"adviser": false, "executive": true, "intern": false, "apprentice": false, "electrician": false,
	"plumber": false, "carpenter": false, "welder": false, "mechanic": false, "machinist": false,
	"fitter": false, "installer": false, "inspector": false, "chef": false, "cook": false, "server": true,
	"bartender": false, "barista": false, "host": true, "hostess": false, "housekeeper": false,
	"receptionist": false, "concierge": true, "busser": false, "dishwasher": false, "steward": false,
	"teacher": false, "tutor": false, "instructor": false, "educator": false, "professor": false,
	"lecturer": false, "trainer": false, "coach": true, "writer": false, "editor": false, "copywriter": false,
	"marketer": false, "recruiter": false, "sourcer": false, "buyer": true, "planner": false,
	"strategist": false, "researcher": false, "tester": false, "dispatcher": false, "controller": true,
	"teller": false, "underwriter": false, "adjuster": false, "broker": false, "cleaner": false,
	"janitor": false, "custodian": false, "guard": true, "worker": true, "laborer": false, "labourer": false,
	"landscaper": false, "painter": false, "roofer": false, "mover": false, "courier": false,
	"chauffeur": false, "lead": true, "head": true, "vp": true, "president": true, "founder": true,
	"partner": true, "owner": true, "leader": true, "member": true, "paralegal": false, "attorney": false,
	"lawyer": false, "solicitor": false, "secretary": false, "scheduler": false, "estimator": false,
	"surveyor": false, "drafter": false, "producer": false, "photographer": false, "videographer": false,
	"animator": false, "artist": false, "stylist": false, "cosmetologist": false, "esthetician": false,
	"phlebotomist": false, "sonographer": false, "radiographer": false, "technologist": false,
	"midwife": false, "practitioner": false, "medic": false, "dietitian": false, "nutritionist": false,
	"optometrist": false, "veterinarian": false, "groomer": false, "nanny": false, "porter": false,
	"valet": false, "runner": true, "expeditor": false, "foreman": false, "superintendent": false,
	"sre": false, "dba": false, "dev": true, "generalist": false, "liaison": false, "ambassador": false, "advocate": true,
	"navigator": false, "processor": true, "collector": false, "investigator": false, "examiner": false,
	"actuary": false, "economist": false, "statistician": false, "biologist": false, "chemist": false,
	"pilot": true, "captain": true, "crew": true, "staff": true, "cto": false, "cfo": false, "coo": false,
	"ceo": false, "ciso": false, "evangelist": false, "translator": false, "interpreter": false,
	"librarian": false, "journalist": false, "reporter": false, "auditor-in-charge": false,
}

// roleNoun reports whether w (any case, surrounding punctuation ignored) is a role noun, its
// singular form, and whether it is ambiguous.
func roleNoun(w string) (singular string, ambiguous, ok bool) {
	w = asciiLower(strings.TrimFunc(w, func(r rune) bool { return !isWordRune(r) }))
	if amb, found := roleNouns[w]; found {
		return w, amb, true
	}
	for _, suf := range []string{"s", "es"} {
		if s, cut := strings.CutSuffix(w, suf); cut && len(s) > 1 {
			if amb, found := roleNouns[s]; found {
				return s, amb, true
			}
		}
	}
	return "", false, false
}

// cleanTitle collapses whitespace, drops control characters and bounds t to MaxTitleLen.
func cleanTitle(t string) string {
	t = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(t, ""))
	return truncate(strings.Join(strings.Fields(t), " "), MaxTitleLen)
}

// inferTitle finds a job title in a description, in order of trust: a labelled line ("Job
// Title: ..."), a title-like line near the top, a hiring phrase ("We are hiring a ..."), the
// most mentioned role noun phrase; fallbackTitle when all fail. The result is never empty.
func inferTitle(desc string) string {
	desc = normalize(desc)
	lines := splitLines(desc)
	for _, find := range []func() string{
		func() string { return labelledTitle(lines) },
		func() string { return headingTitle(lines) },
		func() string { return hiringTitle(desc) },
		func() string { return prominentRole(desc) },
	} {
		if t := tidyTitle(find()); t != "" {
			return t
		}
	}
	return fallbackTitle
}

// tidyTitle trims punctuation and emphasis around a found title and bounds it.
func tidyTitle(t string) string {
	t = strings.TrimFunc(t, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`.,;:!-–—|*_"'“”`, r)
	})
	return cleanTitle(t)
}

var titleLabels = []string{"job title", "position title", "role title", "job role", "job position", "job name", "title", "position", "role", "job", "opening", "vacancy"}

// labelledTitle returns the value of a "Job Title:" (or "Position:", "Role:" ...) line, or of
// the line after a bare label; employment types ("Position: Full-time") are skipped.
func labelledTitle(lines []line) string {
	for i, l := range lines[:min(len(lines), 40)] {
		low := asciiLower(l.text)
		for _, lab := range titleLabels {
			rest, ok := strings.CutPrefix(low, lab)
			if !ok {
				continue
			}
			rest = strings.TrimLeft(rest, " ")
			if !strings.HasPrefix(rest, ":") {
				continue
			}
			value := strings.TrimSpace(l.text[len(l.text)-len(rest)+1:])
			if value == "" && i+1 < len(lines) {
				value = lines[i+1].text
			}
			if value == "" || len(strings.Fields(value)) > 12 || employmentType(value) {
				continue
			}
			return value
		}
	}
	return ""
}

func employmentType(v string) bool {
	switch strings.Trim(asciiLower(v), " .") {
	case "full-time", "full time", "part-time", "part time", "contract", "contractor", "temporary", "temp",
		"seasonal", "remote", "hybrid", "on-site", "onsite", "on site", "permanent", "internship",
		"freelance", "per diem", "prn", "open", "filled", "tbd", "n/a":
		return true
	}
	return false
}

// sentenceWords mark a line as running text rather than a title.
var sentenceWords = map[string]bool{
	"we": true, "we're": true, "our": true, "you": true, "you'll": true, "your": true, "is": true,
	"are": true, "will": true, "looking": true, "hiring": true, "seeking": true, "join": true,
	"this": true, "that": true, "who": true, "what": true, "how": true, "why": true, "about": true,
	"can": true, "must": true, "should": true, "have": true, "has": true, "be": true,
}

// headingTitle returns the first of the top lines that reads like a title: short, not a
// sentence, not a bullet or a section heading, and holding a role noun.
func headingTitle(lines []line) string {
	for _, l := range lines[:min(len(lines), 8)] {
		if titleLike(l) {
			return l.text
		}
	}
	return ""
}

// titleLike reports a line that reads like a job title (see headingTitle). An ambiguous role
// noun counts only as the first or last word of the title proper: "Server", "Shift Lead".
func titleLike(l line) bool {
	if l.bullet || len(strings.Fields(l.text)) > 10 || utf8.RuneCountInString(l.text) > 100 {
		return false
	}
	if strings.ContainsAny(l.text[len(l.text)-1:], ".!?,;") || strings.Contains(l.text, ":") || sectionOf(l) != secNone {
		return false
	}
	core := l.text // without a qualifier: "Account Executive (B2B SaaS)", "Nurse - Nights"
	for _, sep := range []string{" (", " - ", " – ", " — ", " | ", ", ", " / "} {
		if i := strings.Index(core, sep); i > 0 {
			core = core[:i]
		}
	}
	ws := strings.Fields(core)
	role := false
	for i, w := range ws {
		lw := asciiLower(strings.TrimFunc(w, func(r rune) bool { return !isWordRune(r) && r != '\'' }))
		if sentenceWords[lw] {
			return false
		}
		sing, amb, ok := roleNoun(w)
		if ok && (!amb || (sing == lw && (i == 0 || i == len(ws)-1))) {
			role = true
		}
	}
	return role
}

var hiringTriggers = [][]string{
	{"hiring", "looking for", "seeking", "recruiting", "join us as", "join our team as", "join the team as", "to hire", "searching for", "in search of", "need a", "need an", "needs a", "needs an", "want a", "want an"},
	{"as a", "as an", "as our", "opening for", "position of", "role of", "vacancy for"},
}

// articles and fillers are skipped after a hiring phrase: "an experienced, motivated Nurse".
var articles = map[string]bool{
	"a": true, "an": true, "the": true, "one": true, "two": true, "our": true, "your": true, "their": true,
	"next": true, "new": true, "additional": true, "several": true, "few": true, "some": true,
}

var fillers = map[string]bool{
	"experienced": true, "talented": true, "motivated": true, "passionate": true, "skilled": true,
	"driven": true, "dedicated": true, "enthusiastic": true, "friendly": true, "reliable": true,
	"hardworking": true, "hard-working": true, "energetic": true, "detail-oriented": true, "seasoned": true,
	"creative": true, "curious": true, "highly": true, "self-motivated": true, "results-driven": true,
	"dynamic": true, "exceptional": true, "outstanding": true, "great": true, "strong": true,
	"qualified": true, "awesome": true, "amazing": true, "brilliant": true, "proactive": true,
	"ambitious": true, "customer-focused": true, "mission-driven": true, "hands-on": true, "positive": true,
	"outgoing": true, "caring": true, "compassionate": true, "organized": true, "organised": true,
	"versatile": true, "fantastic": true, "world-class": true, "rockstar": true, "superstar": true,
	"eager": true, "resourceful": true, "thoughtful": true, "pragmatic": true,
}

var phraseStops = map[string]bool{
	"to": true, "who": true, "that": true, "which": true, "with": true, "for": true, "in": true, "at": true,
	"on": true, "from": true, "will": true, "you": true, "responsible": true, "based": true,
	"located": true, "starting": true, "immediately": true, "join": true, "is": true, "are": true,
	"was": true, "or": true, "by": true, "as": true, "whose": true, "where": true, "willing": true,
	"able": true, "ready": true, "like": true, "because": true, "if": true, "when": true,
}

// hiringTitle extracts the role after phrases such as "we are hiring a" or "as a".
func hiringTitle(desc string) string {
	low := asciiLower(desc)
	for tier, triggers := range hiringTriggers {
		type at struct{ start, end int }
		var found []at
		for _, tr := range triggers {
			for off := 0; ; {
				i := strings.Index(low[off:], tr)
				if i < 0 {
					break
				}
				s, e := off+i, off+i+len(tr)
				off = e
				if wordStart(desc, s, alias{text: tr}) && e < len(desc) && (desc[e] == ' ' || desc[e] == ':') && !afterDeterminer(low[:s]) {
					found = append(found, at{s, e})
				}
			}
		}
		slices.SortFunc(found, func(a, b at) int { return cmp.Compare(a.start, b.start) })
		for _, f := range found[:min(len(found), 50)] {
			if t := rolePhrase(desc[f.end:], tier == 0); t != "" {
				return t
			}
		}
	}
	return ""
}

// afterDeterminer reports whether before ends with a word such as "the" or "your": "your hiring
// manager" is not a hiring phrase.
func afterDeterminer(before string) bool {
	ws := strings.Fields(before[max(len(before)-12, 0):])
	if len(ws) == 0 {
		return false
	}
	switch ws[len(ws)-1] {
	case "the", "your", "our", "a", "an", "their", "his", "her", "my", "its", "this":
		return true
	}
	return false
}

// rolePhrase reads a role noun phrase at the start of s: "a Senior Backend Engineer to ..." is
// "Senior Backend Engineer". It returns "" when the words hold no role noun and are not a
// Title Cased phrase, and for a lone ambiguous role noun unless loneAmbiguous ("we're hiring
// servers", but not "as a leader").
func rolePhrase(s string, loneAmbiguous bool) string {
	s = s[:min(len(s), 300)]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	s = strings.TrimLeft(s, ": ")
	ws := strings.Fields(s)
	if len(ws) > 16 {
		ws = ws[:16]
	}
	i := 0
	for i < len(ws) && (articles[asciiLower(ws[i])] || fillers[asciiLower(strings.TrimRight(ws[i], ","))]) {
		i++
	}
	var phrase []string
	for ; i < len(ws) && len(phrase) < 8; i++ {
		w := ws[i]
		if r, _ := utf8.DecodeRuneInString(w); strings.ContainsRune("([{\"“", r) || strings.ContainsAny(w, "–—|") || w == "-" {
			break
		}
		core := strings.TrimRight(w, ".,;:!?)\"”")
		lw := asciiLower(core)
		if lw == "and" || lw == "&" || lw == "of" {
			if len(phrase) == 0 || i+1 >= len(ws) || !startsUpper(phrase[len(phrase)-1]) || !startsUpper(ws[i+1]) {
				break
			}
		} else if phraseStops[lw] || core == "" {
			break
		}
		phrase = append(phrase, core)
		if core != w {
			break
		}
	}
	last := -1
	for j, w := range phrase {
		if _, _, ok := roleNoun(w); ok {
			last = j
		}
	}
	if last < 0 {
		if len(phrase) == 0 || len(phrase) > 5 || smallWord(phrase[0]) {
			return ""
		}
		for _, w := range phrase {
			if !startsUpper(w) && !smallWord(w) {
				return ""
			}
		}
		return titleCase(phrase)
	}
	sing, amb, _ := roleNoun(phrase[last])
	end := last + 1
	if end+1 < len(phrase) && asciiLower(phrase[end]) == "of" { // Head of Growth
		end = len(phrase)
	}
	phrase = phrase[:end]
	if amb && len(phrase) == 1 && !loneAmbiguous {
		return ""
	}
	if asciiLower(phrase[last]) != sing {
		phrase[last] = matchCase(sing, phrase[last])
	}
	return titleCase(phrase)
}

// prominentRole returns the most mentioned role noun with its most common modifiers
// ("data analyst" twice and "analyst" once: "Data Analyst").
func prominentRole(desc string) string {
	type mention struct {
		head, phrase string
		pos          int
	}
	ws := strings.Fields(desc)
	var ms []mention
	for i, w := range ws {
		sing, amb, ok := roleNoun(w)
		if !ok || amb || strings.HasPrefix(w, "(") {
			continue
		}
		if i+1 < len(ws) && isWordRune([]rune(w)[len([]rune(w))-1]) {
			if _, amb2, ok2 := roleNoun(ws[i+1]); ok2 && !amb2 {
				continue // "nurse practitioner": the head is the second noun
			}
		}
		parts := []string{matchCase(sing, strings.TrimFunc(w, func(r rune) bool { return !isWordRune(r) }))}
		for j := i - 1; j >= 0 && j >= i-2; j-- {
			p := ws[j]
			lp := asciiLower(p)
			if strings.TrimFunc(p, func(r rune) bool { return !isWordRune(r) && r != '-' && r != '&' }) != p ||
				articles[lp] || fillers[lp] || phraseStops[lp] || sentenceWords[lp] || smallWord(lp) || lp == "hiring" {
				break
			}
			parts = append([]string{p}, parts...)
		}
		ms = append(ms, mention{head: sing, phrase: titleCase(parts), pos: i})
	}
	if len(ms) == 0 {
		return ""
	}
	count := func(key func(mention) string) map[string]int {
		c := map[string]int{}
		for _, m := range ms {
			c[key(m)]++
		}
		return c
	}
	heads := count(func(m mention) string { return m.head })
	best := ms[0]
	for _, m := range ms {
		if heads[m.head] > heads[best.head] {
			best = m
		}
	}
	phrases := count(func(m mention) string { return asciiLower(m.phrase) })
	choice := ""
	for _, m := range ms {
		if m.head != best.head || !strings.Contains(m.phrase, " ") {
			continue
		}
		if choice == "" || phrases[asciiLower(m.phrase)] > phrases[asciiLower(choice)] {
			choice = m.phrase
		}
	}
	if choice == "" {
		choice = titleCase([]string{best.head})
	}
	return choice
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

func smallWord(w string) bool {
	switch asciiLower(w) {
	case "of", "and", "&", "the", "for", "in", "to", "at", "a", "an", "on", "or", "with":
		return true
	}
	return false
}

// titleCase capitalises lower-case words ("senior backend engineer" is "Senior Backend
// Engineer"), leaving mixed-case words ("iOS", "DevOps") and inner small words alone.
func titleCase(ws []string) string {
	if shouting(ws) {
		ws = slices.Clone(ws)
		for i, w := range ws {
			ws[i] = asciiLower(w)
		}
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		switch {
		case i > 0 && smallWord(w):
			out[i] = asciiLower(w)
		case w == asciiLower(w):
			parts := strings.Split(w, "-")
			for j, p := range parts {
				if _, ok := roleAcronyms[p]; ok {
					parts[j] = strings.ToUpper(p)
				} else {
					parts[j] = firstUpper(p)
				}
			}
			out[i] = strings.Join(parts, "-")
		default:
			out[i] = w
		}
	}
	return strings.Join(out, " ")
}

// shouting reports an all-caps phrase with at least one long word ("TRUCK DRIVERS").
func shouting(ws []string) bool {
	long := false
	for _, w := range ws {
		if w != strings.ToUpper(w) {
			return false
		}
		long = long || len(w) >= 5
	}
	return long
}

var roleAcronyms = map[string]struct{}{"sre": {}, "dba": {}, "emt": {}, "vp": {}, "cto": {}, "cfo": {}, "coo": {}, "ceo": {}, "ciso": {}, "it": {}, "hr": {}, "qa": {}, "ui": {}, "ux": {}, "rn": {}, "lpn": {}, "cna": {}, "cdl": {}, "hvac": {}, "seo": {}, "crm": {}, "ai": {}, "ml": {}, "a": {}, "b": {}, "ii": {}, "iii": {}, "iv": {}}

// matchCase spells the lower-case word sing in the case of orig ("Engineers": "Engineer").
func matchCase(sing, orig string) string {
	switch {
	case orig == strings.ToUpper(orig) && len(orig) > 1:
		return strings.ToUpper(sing)
	case startsUpper(orig):
		return firstUpper(sing)
	}
	return sing
}
