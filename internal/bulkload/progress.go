package bulkload

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/recruitd/recruitd/internal/progress"
)

// State is where a table's load stands.
type State int32

// The states of a table, in order.
const (
	Pending State = iota
	Copying
	Indexing
	Ready // loaded, waiting for the other tables before committing
	Done  // committed
)

// TableProgress counts one table's rows. A table whose row count is not known up front also
// counts the load's units its rows stand for, which give the share done and an estimated total.
type TableProgress struct {
	name      string
	exact     int64 // known total rows, or -1
	rows      atomic.Int64
	units     atomic.Int64
	state     atomic.Int32
	began     atomic.Int64 // Unix nanoseconds the copy started
	copiedAt  atomic.Int64 // Unix nanoseconds the copy ended
	detail    atomic.Pointer[string]
	lastState State // of the last log line (log mode)
}

// SetState moves the table to s.
func (t *TableProgress) SetState(s State) {
	if s == Copying {
		t.began.CompareAndSwap(0, time.Now().UnixNano())
	}
	t.state.Store(int32(s))
}

// SetDetail says what the table is doing while Indexing; "" says nothing more.
func (t *TableProgress) SetDetail(s string) { t.detail.Store(&s) }

// Rows is the number of rows copied.
func (t *TableProgress) Rows() int64 { return t.rows.Load() }

func (t *TableProgress) copied() { t.copiedAt.Store(time.Now().UnixNano()) }

// ProgressOptions configures a Progress.
type ProgressOptions struct {
	Label string // what is loading, first on every line: "seed"
	Units int64  // the load's units of work in all
	Unit  string // their name: "candidates"
	// Known names the one line that sums the tables whose row count is known up front
	// (terminal mode): "company tables".
	Known string
}

// Progress is the board of a load: every table with its rows, rate, share done and ETA,
// redrawn in place on a terminal; elsewhere, a line per table when it starts indexing and when
// it is loaded, every 10s a line per table in progress, a line per phase, and the final state
// of each table.
type Progress struct {
	o       ProgressOptions
	w       io.Writer
	tables  []*TableProgress
	phase   atomic.Pointer[string]
	logged  string // the phase of the last log line (log mode)
	display *progress.Display
}

// NewProgress returns the board of a load shown on w (nil: none), in phase "load".
func NewProgress(w io.Writer, o ProgressOptions) *Progress {
	p := &Progress{o: o, w: w, logged: "load"}
	p.SetPhase("load")
	return p
}

// Add adds a table with exact rows in all, or -1 when unknown.
func (p *Progress) Add(name string, exact int64) *TableProgress {
	t := &TableProgress{name: name, exact: exact}
	p.tables = append(p.tables, t)
	return t
}

// SetPhase names what the load as a whole is doing.
func (p *Progress) SetPhase(name string) { p.phase.Store(&name) }

// Start starts showing the board.
func (p *Progress) Start() {
	p.display = progress.Start(p.w, progress.Options{Terminal: progress.IsTerminal(p.w)}, p.draw)
}

// Committed marks every table Done.
func (p *Progress) Committed() {
	for _, t := range p.tables {
		t.SetState(Done)
	}
}

// Finish stops the board and draws its final state; phase replaces the phase shown when set.
func (p *Progress) Finish(phase string) {
	if phase != "" {
		p.SetPhase(phase)
	}
	if p.display != nil {
		p.display.Stop()
	}
}

func (p *Progress) draw(f progress.Frame) []string {
	if f.Terminal {
		return p.board(f)
	}
	var out []string
	for _, t := range p.tables {
		st := State(t.state.Load())
		if t.exact >= 0 && !f.Final || st == Pending {
			continue // tables of known size load in a blink
		}
		changed := st != t.lastState && (st == Indexing || st == Ready)
		t.lastState = st
		if changed || f.Periodic && (st == Copying || st == Indexing) || f.Final && t.exact < 0 {
			out = append(out, fmt.Sprintf("%s: %s %s", p.o.Label, progress.Clock(f.Elapsed), strings.Join(strings.Fields(p.tableLine(t, f.Now)), " ")))
		}
	}
	if phase := *p.phase.Load(); f.Final || phase != p.logged {
		out = append(out, fmt.Sprintf("%s: %s %s", p.o.Label, progress.Clock(f.Elapsed), phase))
		p.logged = phase
	}
	return out
}

// board is every table, the ones of known size summed on one line.
func (p *Progress) board(f progress.Frame) []string {
	out := []string{fmt.Sprintf("%s: %s %s  %s  %s", p.o.Label, progress.Thousands(p.o.Units), p.o.Unit, progress.Clock(f.Elapsed), *p.phase.Load())}
	var knownRows int64
	knownDone := true
	for _, t := range p.tables {
		if t.exact >= 0 {
			knownRows += t.rows.Load()
			knownDone = knownDone && State(t.state.Load()) >= Ready
		}
	}
	state := "copying"
	if knownDone {
		state = "loaded"
	}
	out = append(out, fmt.Sprintf("  %-24s %13s rows                       %s", p.o.Known, progress.Thousands(knownRows), state))
	for _, t := range p.tables {
		if t.exact < 0 {
			out = append(out, p.tableLine(t, f.Now))
		}
	}
	return out
}

// tableLine is "  name  done / total  pct  rate  ETA  state".
func (p *Progress) tableLine(t *TableProgress, now time.Time) string {
	rows, units := t.rows.Load(), t.units.Load()
	st := State(t.state.Load())
	total := "?"
	pct := 0.0
	if p.o.Units > 0 {
		pct = 100 * float64(units) / float64(p.o.Units)
	}
	switch {
	case st >= Indexing || units == p.o.Units && t.copiedAt.Load() != 0:
		total = progress.Thousands(rows)
		pct = 100
	case units > 0:
		total = "~" + progress.Thousands(int64(float64(rows)*float64(p.o.Units)/float64(units)))
	}
	var elapsed time.Duration
	if b := t.began.Load(); b != 0 {
		end := now.UnixNano()
		if c := t.copiedAt.Load(); c != 0 {
			end = c
		}
		elapsed = time.Duration(end - b)
	}
	rate, eta := "", ""
	if elapsed > 0 && rows > 0 {
		rate = progress.Thousands(int64(float64(rows)/elapsed.Seconds())) + " rows/s"
	}
	if st == Copying && units > 0 && elapsed > 0 {
		left := time.Duration(float64(elapsed) * float64(p.o.Units-units) / float64(units))
		eta = "ETA " + progress.Clock(left)
	}
	what := ""
	switch st {
	case Pending:
		what = "waiting"
	case Copying:
		what = "copying"
	case Indexing:
		what = "indexing"
		if d := t.detail.Load(); d != nil && *d != "" {
			what = *d
		}
	case Ready:
		what = "loaded in " + progress.Clock(elapsed) + ", waiting to commit"
	case Done:
		what = "committed"
	}
	return fmt.Sprintf("  %-24s %13s / %-12s %4.0f%%  %16s  %-10s %s", t.name, progress.Thousands(rows), total, pct, rate, eta, what)
}
