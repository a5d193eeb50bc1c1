package seed

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// tsvectorText turns a document in tsvector's binary format (tsDoc.encode) into its text form.
func tsvectorText(t *testing.T, b []byte) string {
	t.Helper()
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	var out []string
	for range n {
		end := strings.IndexByte(string(b), 0)
		lexeme := string(b[:end])
		b = b[end+1:]
		np := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		var pos []string
		for range np {
			wp := binary.BigEndian.Uint16(b)
			b = b[2:]
			pos = append(pos, fmt.Sprintf("%d%s", wp&maxTSPos, [...]string{"", "C", "B", "A"}[wp>>14]))
		}
		q := strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(lexeme)
		out = append(out, "'"+q+"':"+strings.Join(pos, ","))
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes after the last lexeme", len(b))
	}
	return strings.Join(out, " ")
}

// TestSearchDocumentMatchesPostgres composes, for every family, documents that together use
// every string of the vocabulary, each skill and employer next to others in several orders, and
// compares each with candidate_search_document.
func TestSearchDocumentMatchesPostgres(t *testing.T) {
	db := pgtest.New(t)
	vocab, err := loadSearchVocab(t.Context(), db.SQL)
	if err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Title     string   `json:"title"`
		Skills    []string `json:"skills"`
		Employers []string `json:"employers"`
		Education string   `json:"education"`
		Location  string   `json:"location"`
		Doc       string   `json:"doc"`
	}
	rotate := func(list []string, k int) []string {
		if len(list) == 0 {
			return nil
		}
		k %= len(list)
		return append(append([]string{}, list[k:]...), list[:k]...)
	}
	w := newWorker(vocab)
	var docs []doc
	for fi := range families {
		f := &families[fi]
		var titles []string
		for _, ti := range f.candTitles {
			titles = append(titles, ti)
			if f.senior {
				titles = append(titles, "Senior "+ti)
			}
		}
		type edu struct {
			text   string
			school string
			degree int
		}
		var edus []edu
		for _, e := range f.education {
			n := len(e)
			if n <= 2 || e[n-2] != '|' {
				edus = append(edus, edu{text: e})
				continue
			}
			schools := universities
			if e[n-1] == 'C' {
				schools = communityColleges
			}
			for _, s := range schools {
				edus = append(edus, edu{text: e[:n-2] + ", " + s, school: s, degree: n - 1})
			}
		}
		skills := append(append([]string{}, f.skills...), genericSkills...)
		rows := max(len(titles), len(edus), len(cities), len(skills), len(f.employers))
		for i := range rows {
			title := titles[i%len(titles)]
			e := edus[i%len(edus)]
			ct := &cities[i%len(cities)]
			w.skills = rotate(skills, i)[:1+i%len(skills)]
			w.employers = rotate(f.employers, i)[:i%(len(f.employers)+1)]
			w.edu = append(w.edu[:0], e.text...)
			w.loc = append(append(append(w.loc[:0], ct.name...), ", "...), ct.state...)
			senior := strings.HasPrefix(title, "Senior ") && f.senior
			if senior {
				w.scratch = append(w.scratch[:0], title...)
			}
			w.searchDoc(senior, title, e.degree, e.school)
			if w.doc.missing != "" {
				t.Fatalf("%q is not in the vocabulary", w.doc.missing)
			}
			docs = append(docs, doc{title, append([]string{}, w.skills...), append([]string{}, w.employers...), e.text, string(w.loc), tsvectorText(t, w.tsv)})
		}
	}
	js, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	var n, differ int
	var example, want string
	err = db.SQL.QueryRow(`
		WITH d AS (
			SELECT e->>'doc' AS doc, candidate_search_document(e->>'title',
			           ARRAY(SELECT jsonb_array_elements_text(e->'skills')),
			           ARRAY(SELECT jsonb_array_elements_text(coalesce(nullif(e->'employers', 'null'), '[]'))),
			           e->>'education', e->>'location') AS want
			FROM jsonb_array_elements($1::jsonb) e
		)
		SELECT count(*), count(*) FILTER (WHERE doc::tsvector IS DISTINCT FROM want),
		       coalesce((SELECT doc FROM d WHERE doc::tsvector IS DISTINCT FROM want LIMIT 1), ''),
		       coalesce((SELECT want::text FROM d WHERE doc::tsvector IS DISTINCT FROM want LIMIT 1), '')
		FROM d`, string(js)).Scan(&n, &differ, &example, &want)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(docs) || n < 1000 {
		t.Fatalf("compared %d documents of %d", n, len(docs))
	}
	if differ != 0 {
		t.Errorf("%d of %d documents differ from candidate_search_document, e.g.\n got  %s\n want %s", differ, n, example, want)
	}
}
