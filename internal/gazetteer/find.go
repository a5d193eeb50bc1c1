package gazetteer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is a place found inside free text.
type Match struct {
	Place      Place
	Start, End int // byte offsets of the place's words in the text
	// Strong is true for an unambiguous mention: "City, ST", "City State", a well-known nickname
	// ("NYC") or a state name. A weak match is a bare city name, accepted only after a location
	// word ("near Austin") or when it is a capitalised large city.
	Strong bool
}

// locationWords introduce a place: "near Austin", "based in Denver", "within 20 miles of Boise".
var locationWords = map[string]bool{
	"near": true, "in": true, "around": true, "at": true, "from": true, "outside": true, "of": true,
	"to": true, "nearby": true, "by": true, "within": true, "located": true, "based": true, "close": true,
	"area": true, "metro": true, "greater": true,
}

// weakStop are place names that are also ordinary words of hiring queries; they are never taken
// as a bare city name (they still match as "Mobile, AL").
var weakStop = map[string]bool{
	"remote": true, "mobile": true, "golden": true, "security": true, "commerce": true,
	"industry": true, "university": true, "college": true, "home": true, "energy": true,
	"opportunity": true, "experience": true, "senior": true, "junior": true, "lead": true,
	"manager": true, "sales": true, "hybrid": true, "onsite": true, "office": true, "union": true,
	"enterprise": true, "progress": true, "liberty": true, "independence": true, "unity": true,
	"harmony": true, "justice": true, "friendship": true, "freedom": true, "success": true,
	"reading": true, "marketing": true, "temple": true, "surprise": true, "why": true, "rural": true,
	"plain": true, "normal": true, "ideal": true, "java": true, "ruby": true, "rust": true, "swift": true,
	"spring": true, "phoenix": true, "aurora": true, "django": true, "boulder": true, "pearl": true,
	"helm": true, "nodejs": true, "data": true, "cloud": true, "english": true, "french": true,
	"german": true, "spanish": true, "media": true, "buffalo": true, "orange": true, "jupiter": true,
	"mercury": true, "eureka": true, "delta": true, "alpha": true, "beta": true, "ada": true,
	"apple": true, "oracle": true, "amazon": true, "stripe": true, "google": true, "meta": true,
	"ex": true, "open": true, "ready": true, "young": true, "early": true, "vision": true,
	"beaver": true, "victoria": true, "elgin": true, "paris": true, "london": true, "dublin": true,
	"berlin": true, "athens": true, "milan": true, "cairo": true, "lima": true, "vienna": true,
	"florence": true, "troy": true, "alexandria": true, "columbia": true, "lafayette": true,
	"canton": true, "eagle": true, "bend": true, "moore": true, "kent": true, "allen": true,
	"cary": true, "frisco": true, "austin": false,
}

type candidate struct {
	m     Match
	class int // 3 city+state, 2 nickname, 1 state, 0 bare city
	n     int // tokens covered
}

// FindIn finds the best place mentioned in text. "City, ST" and "City State" patterns win, then
// well-known nicknames ("NYC", "Bay Area"), then state names, then bare city names, which are
// accepted only after a location word ("near", "in", "based in", "within 10 miles of") or as a
// capitalised city of at least 250,000 people. Among equals the longer, then the earlier,
// mention wins.
func FindIn(text string) (Match, bool) {
	toks := tokenize(text)
	if len(toks) == 0 {
		return Match{}, false
	}
	ix := load()
	aka := aliasByKey()
	var best *candidate
	consider := func(c candidate) {
		if best == nil || c.class > best.class || (c.class == best.class && c.n > best.n) {
			best = &c
		}
	}
	for i := range toks {
		prep := i > 0 && locationWords[toks[i-1].norm]
		for L := min(ix.maxLen, len(toks)-i); L >= 1; L-- {
			span := toks[i : i+L]
			key := joinNorm(span)
			if target, ok := aka[key]; ok && aliasOK(span) {
				name, code, _ := strings.Cut(target, "|")
				if p, ok := ix.city(normalize(name), code); ok {
					end := i + L
					if c, n, ok := stateAt(toks, end); ok && c == code {
						end += n
					}
					consider(candidate{m: match(text, toks, i, end, p, true), class: 2, n: end - i})
				}
			}
			if ids := ix.byName[key]; len(ids) > 0 {
				if code, n, ok := stateAt(toks, i+L); ok {
					if p, ok := ix.city(key, code); ok {
						consider(candidate{m: match(text, toks, i, i+L+n, p, true), class: 3, n: L + n})
					}
				}
				p := ix.places[ids[0]]
				if weakOK(span, p, prep) {
					consider(candidate{m: match(text, toks, i, i+L, p, false), class: 0, n: L})
				}
			}
			if L <= 4 {
				if code, ok := stateCode(span, false); ok && (prep || capitalised(span) || L > 1) {
					consider(candidate{m: match(text, toks, i, i+L, statePlace(code), true), class: 1, n: L})
				}
			}
		}
		// A bare USPS code: upper-case, and after a location word when it is also a common word.
		if t := toks[i]; len(t.orig) == 2 && t.orig == strings.ToUpper(t.orig) {
			code := t.orig
			if _, ok := stateNames[code]; ok && (prep || !abbrEnglish[code]) {
				consider(candidate{m: match(text, toks, i, i+1, statePlace(code), true), class: 1, n: 1})
			}
		}
	}
	if best == nil {
		return Match{}, false
	}
	return best.m, true
}

// stateAt reads a state name or USPS code starting at token j (a city's state): it returns the
// code and the number of tokens. A code that is also a common word ("in", "or") must be
// upper-case or follow a comma.
func stateAt(toks []token, j int) (string, int, bool) {
	for n := min(3, len(toks)-j); n >= 1; n-- {
		span := toks[j : j+n]
		if code, ok := stateCode(span, false); ok {
			return code, n, true
		}
		if n == 1 && len(span[0].norm) == 2 {
			code := strings.ToUpper(span[0].norm)
			if _, ok := stateNames[code]; !ok {
				continue
			}
			if !abbrEnglish[code] || span[0].orig == code || toks[j-1].commaAfter {
				return code, 1, true
			}
		}
	}
	return "", 0, false
}

// aliasOK refuses nicknames that are ordinary words in lower case ("la").
func aliasOK(span []token) bool {
	if len(span) == 1 && len(span[0].orig) <= 2 {
		return span[0].orig == strings.ToUpper(span[0].orig)
	}
	return true
}

func weakOK(span []token, p Place, prep bool) bool {
	if len(span) == 1 && weakStop[span[0].norm] {
		return false
	}
	if len(span) == 1 && len(span[0].norm) < 3 {
		return false
	}
	caps := capitalised(span)
	switch {
	case prep:
		return caps || p.Population >= 100_000 || len(span) > 1
	case len(span) > 1:
		return caps || p.Population >= 50_000
	default:
		return caps && p.Population >= 250_000
	}
}

// capitalised reports whether every word starts with an upper-case letter.
func capitalised(span []token) bool {
	for _, t := range span {
		r, _ := utf8.DecodeRuneInString(t.orig)
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

func match(text string, toks []token, i, j int, p Place, strong bool) Match {
	_ = text
	return Match{Place: p, Start: toks[i].start, End: toks[j-1].end, Strong: strong}
}
