package seed

import (
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/bulkload"
)

// BenchmarkGenerate measures generating one candidate with every row that hangs off it.
func BenchmarkGenerate(b *testing.B) { benchGenerate(b, false, allTables()) }

// BenchmarkGenerateWithRollups is BenchmarkGenerate counting the company-wide rollups too, as
// the workers of a parallel load do.
func BenchmarkGenerateWithRollups(b *testing.B) { benchGenerate(b, true, allTables()) }

// BenchmarkGenerateCandidates measures generating one candidate's row alone, as the generator
// that feeds the candidates of a parallel load does.
func BenchmarkGenerateCandidates(b *testing.B) { benchGenerate(b, false, []int{tCandidates}) }

// benchGenerate generates b.N candidates of one company into the buffers of tables (emptied
// every thousand candidates), counting the rollups when rollups is set.
func benchGenerate(b *testing.B, rollups bool, tables []int) {
	o := ScaleOptions{Companies: 2, Candidates: b.N, SessionsPerCandidate: 3, Seed: 1, AsOf: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := planCompany(1, 2, &o, o.AsOf.UnixMicro())
	c.buildCompany()
	w := newWorker(plainVocab())
	if rollups {
		w.agg = rollupAgg{}
	}
	var bufs [numBig]*bulkload.Buf
	for _, t := range tables {
		bufs[t] = &bulkload.Buf{}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			for _, t := range tables {
				bufs[t].Reset()
			}
		}
		w.candidate(c, i, &bufs)
	}
}

// allTables is every big table.
func allTables() []int {
	ts := make([]int, numBig)
	for t := range ts {
		ts[t] = t
	}
	return ts
}

// plainVocab stands in for loadSearchVocab without a database: a lexeme per word, the word in
// lower case.
func plainVocab() searchVocab {
	v := searchVocab{}
	for _, s := range searchStrings() {
		p := &tsPiece{}
		for i, f := range strings.Fields(s) {
			p.lexemes = append(p.lexemes, tsLexeme{strings.ToLower(f), []uint16{uint16(i + 1)}})
			p.span++
		}
		v[s] = p
	}
	return v
}
