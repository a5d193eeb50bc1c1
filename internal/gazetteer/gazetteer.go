// Package gazetteer resolves US place names ("Austin, TX", "san francisco", "NYC", "Texas") to
// places with coordinates, from an embedded table of the populated places of the United States
// and Puerto Rico (GeoNames cities1000, see SOURCE.md).
//
// Lookup resolves a whole string that names a place; FindIn finds a place mentioned inside free
// text. A city name without a state resolves to the most significant place of that name (largest
// population, then the higher administrative rank). State names and USPS codes resolve to a
// place of Kind State, which has no coordinates.
package gazetteer

//go:generate go run ./internal/gen -src ${CITIES1000} -out places.tsv.gz

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:embed places.tsv.gz
var placesGz []byte

// Kind says whether a Place is a city (a point) or a whole state.
type Kind uint8

const (
	City  Kind = iota // a populated place with coordinates
	State             // a state, DC or Puerto Rico; Lat and Lon are zero
)

// Place is a resolved location.
type Place struct {
	Name       string  // "Austin"; for a State, the state's name ("Texas")
	State      string  // USPS code: "TX"
	Lat, Lon   float64 // WGS84 degrees; zero for a State
	Population int     // GeoNames population figure; 0 when unknown or for a State
	Kind       Kind
	feature    string // GeoNames feature code (PPL, PPLA, ...)
}

// String is "Austin, TX" for a city and "Texas" for a state.
func (p Place) String() string {
	if p.Kind == State {
		return p.Name
	}
	return p.Name + ", " + p.State
}

// StateName is the full name of the place's state ("Texas").
func (p Place) StateName() string { return stateNames[p.State] }

type index struct {
	places []Place
	byName map[string][]int32 // normalised name -> places, most significant first
	maxLen int                // most tokens in a normalised name or alias
}

var (
	loadOnce   sync.Once
	idx        *index
	stateNames = map[string]string{}
	stateByKey = map[string]string{} // normalised state name or alias -> code
)

func init() {
	for _, s := range states {
		stateNames[s.code] = s.name
		stateByKey[normalize(s.name)] = s.code
	}
	for k, v := range stateAliases {
		stateByKey[normalize(k)] = v
	}
}

func load() *index {
	loadOnce.Do(func() {
		var err error
		idx, err = parse(placesGz)
		if err != nil {
			panic(fmt.Sprintf("gazetteer: embedded table: %v", err)) // a build defect, caught by the tests
		}
	})
	return idx
}

func parse(gz []byte) (*index, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	ix := &index{byName: map[string][]int32{}}
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("line %d: %d fields", line, len(f))
		}
		lat, err1 := strconv.ParseFloat(f[3], 64)
		lon, err2 := strconv.ParseFloat(f[4], 64)
		pop, err3 := strconv.Atoi(f[5])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("line %d: bad number", line)
		}
		name := strings.TrimSuffix(f[0], ", D.C.") // GeoNames calls the capital "Washington, D.C."
		p := Place{Name: name, State: f[2], Lat: lat, Lon: lon, Population: pop, Kind: City, feature: f[6]}
		i := int32(len(ix.places))
		ix.places = append(ix.places, p)
		keys := []string{normalize(name)}
		if f[1] != "" {
			keys = append(keys, normalize(f[1]))
		}
		for _, k := range keys {
			if k == "" || (len(ix.byName[k]) > 0 && ix.byName[k][len(ix.byName[k])-1] == i) {
				continue
			}
			ix.byName[k] = append(ix.byName[k], i)
			ix.maxLen = max(ix.maxLen, strings.Count(k, " ")+1)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ix.places) == 0 {
		return nil, fmt.Errorf("no places")
	}
	for _, ids := range ix.byName {
		slices.SortStableFunc(ids, func(a, b int32) int { return ix.more(a, b) })
	}
	for k := range aliases {
		ix.maxLen = max(ix.maxLen, strings.Count(normalize(k), " ")+1)
	}
	return ix, nil
}

// more orders places most significant first: population, then administrative rank.
func (ix *index) more(a, b int32) int {
	pa, pb := ix.places[a], ix.places[b]
	return cmp.Or(cmp.Compare(pb.Population, pa.Population), cmp.Compare(rank(pb.feature), rank(pa.feature)))
}

func rank(feature string) int {
	switch feature {
	case "PPLC":
		return 5
	case "PPLA":
		return 4
	case "PPLA2":
		return 3
	case "PPL", "PPLA3", "PPLA4":
		return 2
	case "PPLX":
		return 0
	}
	return 1
}

// Len is the number of places in the table.
func Len() int { return len(load().places) }

// Lookup resolves text that names one place: "Austin, TX", "austin texas", "San Francisco",
// "NYC", "St. Louis", "Washington DC", "Texas", "TX". A trailing "USA"/"US"/"United States" is
// ignored. A city without a state resolves to the most significant place of that name.
func Lookup(text string) (Place, bool) {
	toks := tokenize(text)
	for len(toks) > 0 {
		if n := countrySuffix(toks); n > 0 {
			toks = toks[:len(toks)-n]
			continue
		}
		break
	}
	if len(toks) == 0 || len(toks) > 8 {
		return Place{}, false
	}
	ix := load()
	key := joinNorm(toks)
	if p, ok := ix.alias(key); ok {
		return p, true
	}
	// City followed by a state name or code.
	for n := min(3, len(toks)-1); n >= 1; n-- {
		code, ok := stateCode(toks[len(toks)-n:], true)
		if !ok {
			continue
		}
		if p, ok := ix.city(joinNorm(toks[:len(toks)-n]), code); ok {
			return p, true
		}
	}
	if code, ok := stateCode(toks, true); ok {
		return statePlace(code), true
	}
	return ix.city(key, "")
}

// city returns the most significant place called key, in state code when code is not empty.
func (ix *index) city(key, code string) (Place, bool) {
	for _, i := range ix.byName[key] {
		if code == "" || ix.places[i].State == code {
			return ix.places[i], true
		}
	}
	return Place{}, false
}

func (ix *index) alias(key string) (Place, bool) {
	target, ok := aliasByKey()[key]
	if !ok {
		return Place{}, false
	}
	name, code, _ := strings.Cut(target, "|")
	return ix.city(normalize(name), code)
}

var aliasByKey = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(aliases))
	for k, v := range aliases {
		m[normalize(k)] = v
	}
	return m
})

func statePlace(code string) Place {
	return Place{Name: stateNames[code], State: code, Kind: State}
}

// stateCode resolves tokens that are exactly a state name, alias or (when codes) USPS code.
func stateCode(toks []token, codes bool) (string, bool) {
	key := joinNorm(toks)
	if c, ok := stateByKey[key]; ok {
		return c, true
	}
	if codes && len(toks) == 1 && len(toks[0].norm) == 2 {
		c := strings.ToUpper(toks[0].norm)
		if _, ok := stateNames[c]; ok {
			return c, true
		}
	}
	return "", false
}

// countrySuffix is the number of trailing tokens naming the country (0 when none).
func countrySuffix(toks []token) int {
	n := len(toks)
	last := toks[n-1].norm
	switch {
	case last == "usa" || last == "us" || last == "america":
		if n >= 2 && toks[n-2].norm == "united" { // "United States of America" handled below
			return 0
		}
		if n >= 4 && joinNorm(toks[n-4:]) == "united states of america" {
			return 4
		}
		return 1
	case n >= 2 && joinNorm(toks[n-2:]) == "united states":
		return 2
	}
	return 0
}

// token is one word of a text: its byte span, its original spelling and its normalised form.
type token struct {
	start, end int
	orig       string
	norm       string
	commaAfter bool // a comma follows before the next token
}

// tokenize splits text into words of letters and digits. Apostrophes and periods inside or
// after a word are dropped ("D.C." -> "d", "c"; "Coeur d'Alene" -> "coeur", "dalene"); hyphens
// and other punctuation separate words.
func tokenize(text string) []token {
	var toks []token
	i := 0
	for i < len(text) {
		r, w := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			if r == ',' && len(toks) > 0 {
				toks[len(toks)-1].commaAfter = true
			}
			i += w
			continue
		}
		start := i
		for i < len(text) {
			r, w := utf8.DecodeRuneInString(text[i:])
			if isWord(r) || ((r == '\'' || r == '’') && i+w < len(text) && isWordAt(text, i+w)) {
				i += w
				continue
			}
			break
		}
		orig := text[start:i]
		toks = append(toks, token{start: start, end: i, orig: orig, norm: normWord(orig)})
		if len(toks) > 400 {
			break
		}
	}
	return toks
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isWordAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWord(r)
}

// normWord lower-cases a word, strips diacritics and apostrophes and expands the abbreviations
// used in place names (st -> saint, ft -> fort, mt -> mount).
func normWord(w string) string {
	var b strings.Builder
	for _, r := range w {
		switch {
		case r == '\'' || r == '’':
		case r < utf8.RuneSelf:
			b.WriteByte(byte(unicode.ToLower(r)))
		default:
			r = unicode.ToLower(r)
			if a, ok := fold[r]; ok {
				b.WriteString(a)
			} else {
				b.WriteRune(r)
			}
		}
	}
	s := b.String()
	switch s {
	case "st", "ste":
		return "saint"
	case "ft":
		return "fort"
	case "mt":
		return "mount"
	}
	return s
}

// fold maps the accented Latin letters of US place names to ASCII.
var fold = func() map[rune]string {
	m := map[rune]string{}
	for _, g := range []struct{ to, from string }{
		{"a", "àáâãäåā"}, {"c", "çć"}, {"e", "èéêëē"}, {"i", "ìíîïī"}, {"n", "ñń"},
		{"o", "òóôõöøō"}, {"u", "ùúûüū"}, {"y", "ýÿ"}, {"ae", "æ"}, {"ss", "ß"},
	} {
		for _, r := range g.from {
			m[r] = g.to
		}
	}
	return m
}()

// normalize is the lookup key of a name: its normalised words joined by single spaces.
func normalize(s string) string { return joinNorm(tokenize(s)) }

func joinNorm(toks []token) string {
	switch len(toks) {
	case 0:
		return ""
	case 1:
		return toks[0].norm
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.norm)
	}
	return b.String()
}
