package seed

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The candidates' search document (migration 00051) is computed here rather than by Postgres,
// whose to_tsvector costs about 30 µs of CPU per candidate on the load's critical path. It is
// candidate_search_document(title, skills, employers, education, location) exactly:
//
//   - Postgres gives the lexemes of every string of the vocabulary the generator draws from
//     (loadSearchVocab), with their positions and the number of positions the string takes up
//     in a longer text (a word, stop words included, takes one; punctuation none);
//   - the parser splits text at spaces, so a text made of vocabulary strings joined by spaces (the
//     skills, the employers, "degree, school") has their lexemes at their positions shifted by the
//     positions the strings before them take up;
//   - setweight labels every position, and || shifts the positions of its right operand by the
//     highest position of its left one, merging the positions of a lexeme found in both.
//
// TestScaleIsDeterministic compares every row with the trigger's value (the checked load), and
// the parallel load checks a sample before committing (checkSearch).

// searchSentinel ends each vocabulary string in loadSearchVocab: its position, less one, is the
// number of positions the string takes up.
const searchSentinel = "zqxjkw"

// tsLexeme is a lexeme of a vocabulary string and its positions (from 1) in it.
type tsLexeme struct {
	lexeme string
	pos    []uint16
}

// tsPiece is to_tsvector('english', s) of a vocabulary string s and the positions s takes up.
type tsPiece struct {
	lexemes []tsLexeme
	span    uint16
}

// searchVocab maps each vocabulary string to its piece.
type searchVocab map[string]*tsPiece

// Weights of setweight.
const (
	weightA uint16 = 3
	weightB uint16 = 2
	weightC uint16 = 1
	weightD uint16 = 0
)

// maxTSPos is the highest position a tsvector stores (MAXENTRYPOS - 1).
const maxTSPos = 1<<14 - 1

// searchStrings is every string a candidate's search document is made of: the titles (with the
// "Senior " prefix where the family takes one), skills, employers, education (a degree followed
// by a school is two strings, the degree with its comma), schools and locations.
func searchStrings() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i := range families {
		f := &families[i]
		for _, t := range f.candTitles {
			add(t)
			if f.senior {
				add("Senior " + t)
			}
		}
		for _, s := range f.skills {
			add(s)
		}
		for _, s := range f.employers {
			add(s)
		}
		for _, e := range f.education {
			if n := len(e); n > 2 && e[n-2] == '|' {
				add(e[:n-2] + ",")
			} else {
				add(e)
			}
		}
	}
	for _, list := range [][]string{genericSkills, universities, communityColleges} {
		for _, s := range list {
			add(s)
		}
	}
	for i := range cities {
		add(cities[i].name + ", " + cities[i].state)
	}
	return out
}

// loadSearchVocab asks Postgres for the lexemes of searchStrings.
func loadSearchVocab(ctx context.Context, db *sql.DB) (searchVocab, error) {
	words := searchStrings()
	for _, w := range words {
		if strings.ContainsAny(w, "\n") {
			return nil, fmt.Errorf("search vocabulary: %q holds a newline", w)
		}
	}
	rows, err := db.QueryContext(ctx, `
		SELECT a.i, t.lexeme, array_to_string(t.positions, ',')
		FROM unnest(string_to_array($1, E'\n')) WITH ORDINALITY a(s, i),
		     unnest(to_tsvector('english', a.s || ' ' || $2)) t`,
		strings.Join(words, "\n"), searchSentinel)
	if err != nil {
		return nil, fmt.Errorf("search vocabulary: %w", err)
	}
	defer rows.Close()
	v := make(searchVocab, len(words))
	for _, w := range words {
		v[w] = &tsPiece{}
	}
	for rows.Next() {
		var i int
		var lexeme, positions string
		if err := rows.Scan(&i, &lexeme, &positions); err != nil {
			return nil, fmt.Errorf("search vocabulary: %w", err)
		}
		if i < 1 || i > len(words) {
			return nil, fmt.Errorf("search vocabulary: row of string %d", i)
		}
		p := v[words[i-1]]
		var pos []uint16
		for _, f := range strings.Split(positions, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n >= maxTSPos {
				return nil, fmt.Errorf("search vocabulary: position %q of %q", f, words[i-1])
			}
			pos = append(pos, uint16(n))
		}
		if lexeme == searchSentinel {
			if len(pos) != 1 {
				return nil, fmt.Errorf("search vocabulary: sentinel at %v in %q", pos, words[i-1])
			}
			p.span = pos[0] - 1
			continue
		}
		p.lexemes = append(p.lexemes, tsLexeme{lexeme, pos})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search vocabulary: %w", err)
	}
	for _, w := range words {
		p := v[w]
		for _, l := range p.lexemes {
			if l.pos[len(l.pos)-1] > p.span {
				return nil, fmt.Errorf("search vocabulary: %q has %s at %v past its %d positions", w, l.lexeme, l.pos, p.span)
			}
		}
	}
	return v, nil
}

// tsEntry is a lexeme at a weighted position (weight << 14 | position).
type tsEntry struct {
	lexeme string
	wpos   uint16
}

// tsDoc builds a search document, component after component.
type tsDoc struct {
	vocab   searchVocab
	entries []tsEntry
	shift   uint16 // the highest position so far: what || shifts the next component by
	comp    uint16 // positions taken up by the current component's pieces so far
	compMax uint16 // the highest position of the current component
	weight  uint16
	missing string // the first string not in the vocabulary, if any; kept until read
}

// reset starts a new document.
func (d *tsDoc) reset() {
	d.entries, d.shift = d.entries[:0], 0
}

// begin starts setweight(to_tsvector('english', text), weight) where text is the pieces added
// next, joined by spaces.
func (d *tsDoc) begin(weight uint16) {
	d.weight, d.comp, d.compMax = weight, 0, 0
}

// piece adds the vocabulary string s to the current component.
func (d *tsDoc) piece(s string) {
	p, ok := d.vocab[s]
	if !ok {
		d.miss(s)
		return
	}
	d.add(p)
}

// pieceBytes is piece for a string held in bytes.
func (d *tsDoc) pieceBytes(s []byte) {
	p, ok := d.vocab[string(s)]
	if !ok {
		d.miss(string(s))
		return
	}
	d.add(p)
}

func (d *tsDoc) miss(s string) {
	if d.missing == "" {
		d.missing = s
	}
}

func (d *tsDoc) add(p *tsPiece) {
	for _, l := range p.lexemes {
		for _, pos := range l.pos {
			at := d.comp + pos
			d.compMax = max(d.compMax, at)
			d.entries = append(d.entries, tsEntry{l.lexeme, d.weight<<14 | min(d.shift+at, maxTSPos)})
		}
	}
	d.comp += p.span
}

// end closes the current component: || shifts the next one by its highest position.
func (d *tsDoc) end() {
	d.shift = min(d.shift+d.compMax, maxTSPos)
}

// encode appends the document in tsvector's binary format (tsvectorrecv): the number of
// lexemes, then each lexeme in order (bytewise, a prefix first), NUL-terminated, with its number
// of positions and the positions in increasing order.
func (d *tsDoc) encode(b []byte) []byte {
	slices.SortFunc(d.entries, func(x, y tsEntry) int {
		if c := strings.Compare(x.lexeme, y.lexeme); c != 0 {
			return c
		}
		return int(x.wpos&maxTSPos) - int(y.wpos&maxTSPos)
	})
	// Drop repeated (lexeme, position) pairs as to_tsvector does.
	e := d.entries
	n := 0
	for i := range e {
		if n > 0 && e[n-1].lexeme == e[i].lexeme && e[n-1].wpos&maxTSPos == e[i].wpos&maxTSPos {
			continue
		}
		e[n] = e[i]
		n++
	}
	e = e[:n]
	lexemes := 0
	for i := range e {
		if i == 0 || e[i].lexeme != e[i-1].lexeme {
			lexemes++
		}
	}
	b = binary.BigEndian.AppendUint32(b, uint32(lexemes))
	for i := 0; i < len(e); {
		j := i
		for j < len(e) && e[j].lexeme == e[i].lexeme {
			j++
		}
		b = append(b, e[i].lexeme...)
		b = append(b, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(j-i))
		for k := i; k < j; k++ {
			b = binary.BigEndian.AppendUint16(b, e[k].wpos)
		}
		i = j
	}
	return b
}
