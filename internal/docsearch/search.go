package docsearch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQueryRunes bounds the length of a query.
const MaxQueryRunes = 500

// Errors of Search about the query. Their messages are written for the tool's caller.
var (
	ErrEmptyQuery   = errors.New(`query is empty: ask a how-to question, for example "how do I create a job"`)
	ErrQueryTooLong = fmt.Errorf("query is longer than %d characters: ask a shorter question", MaxQueryRunes)
)

// Answer is what Search found: a short extract of the best sections and where it comes from.
type Answer struct {
	Query string `json:"query"`
	// Found is false when no section matched; Text then says so and Points and Citations are
	// empty.
	Found bool `json:"found"`
	// Match is "all" when sections hold every term of the query, "some" when none did and the
	// answer rests on sections holding at least half of them; "" when nothing was found.
	Match string `json:"match,omitempty"`
	// Points are the quoted sentences, list items and table rows, in reading order.
	Points []Point `json:"points"`
	// Citations are the sections quoted, best first.
	Citations []Citation `json:"citations"`
	// Text is the answer as markdown: the points, each marked with its citation number, then the
	// numbered sources with their links.
	Text string `json:"text"`
}

// Point is one quoted piece of a section.
type Point struct {
	Text string `json:"text"`
	// Code is a short code block the text introduces (it ends with ':'), fences included.
	Code string `json:"code,omitempty"`
	// Citation is the 1-based number of the point's section in Answer.Citations.
	Citation int `json:"citation"`
}

// Citation is a documentation section an answer quotes.
type Citation struct {
	// Title is "<document title> › <section title>".
	Title string `json:"title"`
	// URL is the section's link (links.Builder.Doc of Doc and Anchor; no fragment for a document's preamble).
	URL string `json:"url"`
	// Snippet is a sentence, list item or table row of the section, as plain text: the best one
	// the points do not quote already.
	Snippet string `json:"snippet"`
	Doc     string `json:"doc"`
	Anchor  string `json:"anchor"`
}

const (
	maxSections     = 3   // sections an answer draws from
	maxPoints       = 4   // points of an answer
	minPoints       = 2   // points an answer has when the sections hold that many
	maxAnswerRunes  = 900 // the points stop growing past this length
	maxTerms        = 24  // terms of a query considered
	maxSnippetRunes = 220
	supplementBelow = 3 // other sections are quoted while the answer has fewer points
)

// fillers are words of questions that say nothing about the subject ("how do I", "what happens
// when"). Most English stop words are dropped by Postgres already; these are the rest.
var fillers = map[string]bool{
	"how": true, "what": true, "whats": true, "which": true, "who": true, "when": true, "where": true, "why": true,
	"do": true, "does": true, "did": true, "can": true, "could": true, "should": true, "would": true, "will": true,
	"may": true, "might": true, "must": true, "shall": true, "i": true, "im": true, "me": true, "my": true, "we": true,
	"our": true, "you": true, "your": true, "is": true, "are": true, "the": true, "a": true, "an": true,
	"happen": true, "happens": true, "happened": true, "please": true, "tell": true, "explain": true, "show": true,
	"know": true, "need": true, "want": true, "way": true, "ways": true, "possible": true, "able": true, "use": true,
	"using": true, "work": true, "works": true, "mean": true, "means": true, "meaning": true, "recruitd": true,
	"documentation": true, "docs": true, "doc": true, "help": true, "guide": true, "someone": true, "something": true,
	"thing": true, "things": true, "supposed": true,
}

// Search answers a how-to question from the indexed documentation (see Sync). Sections are
// ranked with websearch_to_tsquery('english', query), question words removed, and ts_rank_cd;
// when no section holds every term, sections holding at least half of the query's terms are
// ranked instead (an OR of the terms, more terms first). The answer quotes the 2 to 4 sentences,
// list items or table rows of the best sections that share most terms with the query, and cites
// each section with the link docURL builds of its page and anchor (links.Builder.Doc). A
// question nothing matches gives an Answer with Found false, not an error; an empty query or
// one longer than MaxQueryRunes gives ErrEmptyQuery or ErrQueryTooLong.
func Search(ctx context.Context, db Querier, query string, docURL func(name, anchor string) string) (*Answer, error) {
	query = normaliseQuery(query)
	if query == "" {
		return nil, ErrEmptyQuery
	}
	if utf8.RuneCountInString(query) > MaxQueryRunes {
		return nil, ErrQueryTooLong
	}
	andText, terms := parseQuery(query)
	if len(terms) == 0 {
		return notFound(query), nil
	}
	secs, err := rankSections(ctx, db, andText, terms)
	if err != nil {
		return nil, err
	}
	if len(secs) == 0 {
		return notFound(query), nil
	}
	ans := &Answer{Query: query, Found: true, Match: "some", Points: []Point{}, Citations: []Citation{}}
	if secs[0].all {
		ans.Match = "all"
	}

	var cands []candidate
	for si, s := range secs {
		for ui, u := range splitUnits(s.body) {
			cands = append(cands, candidate{unit: u, sec: si, pos: ui})
		}
	}
	if err := scoreUnits(ctx, db, terms, cands); err != nil {
		return nil, err
	}

	chosen := choose(cands, secs)
	quoted := map[*candidate]bool{}
	cited := map[int]bool{0: true} // the best section is cited even when nothing is quoted from it
	for _, i := range chosen {
		quoted[&cands[i]] = true
		cited[cands[i].sec] = true
	}
	number := map[int]int{} // section index → citation number
	for si, s := range secs {
		if !cited[si] {
			continue
		}
		number[si] = len(ans.Citations) + 1
		ans.Citations = append(ans.Citations, Citation{
			Title:   s.docTitle + " › " + s.title,
			URL:     docURL(s.doc, s.anchor),
			Snippet: snippet(cands, si, quoted),
			Doc:     s.doc,
			Anchor:  s.anchor,
		})
	}
	for _, i := range chosen {
		c := cands[i]
		ans.Points = append(ans.Points, Point{Text: c.text, Code: c.code, Citation: number[c.sec]})
	}
	ans.Text = render(ans)
	return ans, nil
}

func notFound(query string) *Answer {
	a := &Answer{Query: query, Points: []Point{}, Citations: []Citation{}}
	a.Text = fmt.Sprintf("No matching documentation for %q. Try other words: the name of an endpoint, tool, "+
		"setting, error code or CLI command, for example \"create a job\", \"partner callback signature\" or \"connect an MCP client\".", query)
	return a
}

// normaliseQuery trims the query and turns control characters (NUL among them) and invalid
// UTF-8 into spaces.
func normaliseQuery(q string) string {
	q = strings.ToValidUTF8(q, " ")
	q = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, q)
	return strings.TrimSpace(q)
}

// parseQuery returns the text given to websearch_to_tsquery (the query without filler words,
// unchanged when it quotes a phrase) and the query's distinct terms for the fallback: runs of
// letters and digits, lower-cased, without fillers and without the words of excluded ("-word")
// tokens.
func parseQuery(q string) (andText string, terms []string) {
	if strings.Contains(q, `"`) {
		andText = q
	} else {
		var kept []string
		for _, f := range strings.Fields(q) {
			w := strings.ToLower(strings.Trim(f, "?!.,;:()'’"))
			if fillers[strings.ReplaceAll(strings.ReplaceAll(w, "'", ""), "’", "")] {
				continue
			}
			kept = append(kept, f)
		}
		andText = strings.Join(kept, " ")
	}
	seen := map[string]bool{}
	apostrophes := strings.NewReplacer("'", "", "’", "")
	for _, token := range strings.Fields(strings.ToLower(q)) {
		if len(token) > 1 && token[0] == '-' {
			continue
		}
		for _, w := range strings.FieldsFunc(apostrophes.Replace(token), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsNumber(r)
		}) {
			if fillers[w] || seen[w] || len(terms) == maxTerms {
				continue
			}
			seen[w] = true
			terms = append(terms, w)
		}
	}
	return andText, terms
}

type section struct {
	doc, anchor, title, docTitle, body string
	all                                bool    // holds every term (websearch query)
	matched, total                     int     // terms held, terms of the query
	rank                               float64 // ts_rank_cd
}

// termsCTE is the query's terms ($2) as stemmed single-term queries, without duplicates ("job"
// and "jobs") and stop words. The OR query is built from their text form, so no user input is
// ever parsed as tsquery syntax.
const termsCTE = `terms AS (
    SELECT DISTINCT tq FROM (SELECT plainto_tsquery('english', t) AS tq FROM unnest($2::text[]) AS t) x
    WHERE numnode(tq) > 0
)`

// sectionsSQL ranks sections: those matching the websearch query first, then those matching
// some terms, by the number of terms held. Within a tier, sections whose title holds more terms
// come first (headings are written as the questions they answer), then ts_rank_cd with length
// normalisation. Terms are deduplicated after stemming ("job" and "jobs").
const sectionsSQL = `
WITH ` + termsCTE + `, q AS (
    SELECT websearch_to_tsquery('english', $1) AS andq, (SELECT string_agg(tq::text, ' | ') FROM terms)::tsquery AS orq
), ranked AS (
    SELECT s.doc, s.anchor, s.title, s.doc_title, s.body, s.position,
           numnode(q.andq) > 0 AND s.search @@ q.andq AS all_terms,
           (SELECT count(*) FROM terms WHERE s.search @@ terms.tq) AS matched,
           (SELECT count(*) FROM terms WHERE to_tsvector('english', s.title) @@ terms.tq) AS title_matched,
           ts_rank_cd(s.search, CASE WHEN numnode(q.andq) > 0 AND s.search @@ q.andq THEN q.andq ELSE q.orq END, 1) AS rank
    FROM doc_sections s, q
    WHERE (numnode(q.andq) > 0 AND s.search @@ q.andq) OR (numnode(q.orq) > 0 AND s.search @@ q.orq)
)
SELECT doc, anchor, title, doc_title, body, all_terms, matched, (SELECT count(*) FROM terms), rank
FROM ranked
ORDER BY all_terms DESC, CASE WHEN all_terms THEN 0 ELSE matched END DESC, title_matched DESC, rank DESC, doc, position
LIMIT 8`

// rankSections returns up to maxSections sections worth quoting, best first: only sections
// holding every term when there are any; otherwise those holding the most terms, at least half.
func rankSections(ctx context.Context, db Querier, andText string, terms []string) ([]section, error) {
	rows, err := db.QueryContext(ctx, sectionsSQL, andText, terms)
	if err != nil {
		return nil, fmt.Errorf("search docs: %w", err)
	}
	defer rows.Close()
	var all []section
	for rows.Next() {
		var s section
		if err := rows.Scan(&s.doc, &s.anchor, &s.title, &s.docTitle, &s.body, &s.all, &s.matched, &s.total, &s.rank); err != nil {
			return nil, fmt.Errorf("search docs: %w", err)
		}
		all = append(all, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search docs: %w", err)
	}
	if len(all) == 0 {
		return nil, nil
	}
	best := all[0]
	var out []section
	for _, s := range all {
		switch {
		case len(out) == maxSections:
		case best.all && s.all && s.rank >= best.rank/4:
			out = append(out, s)
		case !best.all && s.matched*2 >= s.total && s.matched == best.matched:
			out = append(out, s)
		}
	}
	return out, nil
}

type candidate struct {
	unit
	sec, pos int     // section index, unit index within the section
	matched  int     // query terms the unit holds
	rank     float64 // ts_rank_cd of the unit against the OR query
	score    float64
}

// unitsSQL scores units by the query terms they hold and ts_rank_cd against the OR query.
const unitsSQL = `
WITH ` + termsCTE + `, q AS (SELECT (SELECT string_agg(tq::text, ' | ') FROM terms)::tsquery AS orq)
SELECT u.i, (SELECT count(*) FROM terms WHERE v.v @@ terms.tq), coalesce(ts_rank_cd(v.v, q.orq), 0)
FROM unnest($1::text[]) WITH ORDINALITY AS u(txt, i)
CROSS JOIN LATERAL (SELECT to_tsvector('english', u.txt) AS v) v, q`

// scoreUnits fills matched and rank of every candidate.
func scoreUnits(ctx context.Context, db Querier, terms []string, cands []candidate) error {
	texts := make([]string, len(cands))
	for i, c := range cands {
		texts[i] = c.text
	}
	rows, err := db.QueryContext(ctx, unitsSQL, texts, terms)
	if err != nil {
		return fmt.Errorf("search docs: score: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			i, matched int
			rank       float64
		)
		if err := rows.Scan(&i, &matched, &rank); err != nil {
			return fmt.Errorf("search docs: score: %w", err)
		}
		cands[i-1].matched, cands[i-1].rank = matched, rank
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search docs: score: %w", err)
	}
	return nil
}

// snippet is the best unit of section si that the answer does not quote already (else its best
// unit), as plain text of at most maxSnippetRunes.
func snippet(cands []candidate, si int, quoted map[*candidate]bool) string {
	var best *candidate
	for i := range cands {
		c := &cands[i]
		if c.sec != si {
			continue
		}
		if best == nil || (quoted[best] && !quoted[c]) || (quoted[best] == quoted[c] && c.score > best.score) {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	return truncate(plainText(best.text), maxSnippetRunes)
}

// choose picks the answer's points and returns their indexes in cands, in reading order: the
// opening unit of the best section, which says what the section is about, then the units that
// score best. A unit scores by the share of the query's terms it holds and its rank, with a
// bonus for the opening units of the other sections. Points come from the best section; the
// other sections add at most two each while the answer has fewer than supplementBelow points.
// Units holding no term are quoted only to give the answer minPoints points, from the best
// section in reading order.
func choose(cands []candidate, secs []section) []int {
	if len(cands) == 0 {
		return nil
	}
	total := max(secs[0].total, 1)
	maxRank := 0.0
	for _, c := range cands {
		maxRank = max(maxRank, c.rank)
	}
	for i := range cands {
		c := &cands[i]
		c.score = float64(c.matched) / float64(total)
		if maxRank > 0 {
			c.score += 0.3 * c.rank / maxRank
		}
		c.score += []float64{0.3, 0.1, 0}[min(c.sec, 2)]
		if c.pos == 0 && c.sec > 0 {
			c.score += 0.1
		}
	}
	var order []int
	for i := range cands {
		if i > 0 || cands[0].sec != 0 { // cands are in reading order: index 0 of section 0 is the lead
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return cands[order[a]].score > cands[order[b]].score })
	if cands[0].sec == 0 {
		order = append([]int{0}, order...)
	}

	var chosen []int
	taken := map[int]bool{}
	perSection := map[int]int{}
	runes := 0
	take := func(i int) {
		chosen = append(chosen, i)
		taken[i] = true
		perSection[cands[i].sec]++
		runes += utf8.RuneCountInString(cands[i].text)
	}
	full := func() bool {
		return len(chosen) == maxPoints || (len(chosen) >= minPoints && runes >= maxAnswerRunes)
	}
	// The best section first; other sections only add to a thin answer.
	for pass := range 2 {
		for n, i := range order {
			c := cands[i]
			if full() || (pass == 1 && len(chosen) >= supplementBelow) {
				break
			}
			lead := n == 0 && c.sec == 0 && c.pos == 0
			if (pass == 0) != (c.sec == 0) || (c.matched == 0 && !lead) || perSection[c.sec] == perSectionCap(c.sec) {
				continue
			}
			take(i)
		}
	}
	for i := 0; i < len(cands) && cands[i].sec == 0 && len(chosen) < minPoints; i++ {
		if !taken[i] {
			take(i)
		}
	}
	sort.Ints(chosen) // cands are in reading order
	return chosen
}

func perSectionCap(sec int) int {
	if sec == 0 {
		return maxPoints
	}
	return 2
}

// render writes an Answer as markdown.
func render(a *Answer) string {
	var b strings.Builder
	for _, p := range a.Points {
		fmt.Fprintf(&b, "- %s [%d]\n", p.Text, p.Citation)
		if p.Code != "" {
			for _, l := range strings.Split(p.Code, "\n") {
				b.WriteString("  " + l + "\n")
			}
		}
	}
	b.WriteString("\nSources:\n")
	for i, c := range a.Citations {
		fmt.Fprintf(&b, "[%d] %s: %s\n", i+1, c.Title, c.URL)
	}
	return b.String()
}
