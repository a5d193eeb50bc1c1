package seed

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Load states of a table.
const (
	statePending int32 = iota
	stateCopying
	stateIndexing
	stateReady // loaded, waiting for the other tables before committing
	stateDone
)

// tableProgress counts one table's rows. Big tables also count the candidates whose rows were
// sent, which gives the share done and an estimated total.
type tableProgress struct {
	name      string
	exact     int64 // known total rows, or -1
	rows      atomic.Int64
	cands     atomic.Int64
	state     atomic.Int32
	began     atomic.Int64 // Unix nanoseconds the copy started
	copiedAt  atomic.Int64 // Unix nanoseconds the copy ended
	detail    atomic.Pointer[string]
	lastState int32 // of the last log line (log mode)
}

func (p *tableProgress) setState(s int32) {
	if s == stateCopying {
		p.began.CompareAndSwap(0, time.Now().UnixNano())
	}
	p.state.Store(s)
}

func (p *tableProgress) copied() { p.copiedAt.Store(time.Now().UnixNano()) }

func (p *tableProgress) setDetail(s string) { p.detail.Store(&s) }

// progress shows the load on w: redrawn in place on a terminal, as a log line per table every
// logEvery otherwise.
type progress struct {
	w          io.Writer
	tty        bool
	totalCands int64
	tables     []*tableProgress
	began      time.Time
	phaseName  atomic.Pointer[string]
	stop       chan struct{}
	stopped    sync.WaitGroup
	drawn      int // lines drawn last time (terminal mode)
	lastLog    time.Time
}

const (
	redrawEvery = 250 * time.Millisecond
	logEvery    = 10 * time.Second
)

func newProgress(w io.Writer, totalCands int64) *progress {
	p := &progress{w: w, totalCands: totalCands, stop: make(chan struct{})}
	if f, ok := w.(*os.File); ok {
		_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
		p.tty = err == nil
	}
	p.phase("load")
	return p
}

func (p *progress) add(name string, exact int64) *tableProgress {
	t := &tableProgress{name: name, exact: exact}
	p.tables = append(p.tables, t)
	return t
}

func (p *progress) phase(name string) { p.phaseName.Store(&name) }

func (p *progress) start() {
	p.began = time.Now()
	p.lastLog = p.began
	if p.w == nil {
		return
	}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		every := redrawEvery
		if !p.tty {
			every = time.Second
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				p.render(false)
			}
		}
	}()
}

// finish stops the display and draws its final state; phase replaces the phase shown when set.
func (p *progress) finish(phase string) {
	if p.w == nil {
		return
	}
	close(p.stop)
	p.stopped.Wait()
	if phase != "" {
		p.phase(phase)
	}
	p.render(true)
}

func (p *progress) render(final bool) {
	now := time.Now()
	if p.tty {
		var b strings.Builder
		if p.drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
		}
		lines := p.lines(now)
		for _, l := range lines {
			b.WriteString("\r\x1b[2K")
			b.WriteString(l)
			b.WriteByte('\n')
		}
		p.drawn = len(lines)
		io.WriteString(p.w, b.String())
		return
	}
	// Log mode: a line per table that changed state, and every logEvery a line per table in
	// progress.
	periodic := final || now.Sub(p.lastLog) >= logEvery
	if periodic {
		p.lastLog = now
	}
	var b strings.Builder
	for _, t := range p.tables {
		st := t.state.Load()
		if t.exact >= 0 && !final || st == statePending {
			continue // company-level tables load in a blink
		}
		changed := st != t.lastState && (st == stateIndexing || st == stateReady)
		t.lastState = st
		if changed || periodic && (st == stateCopying || st == stateIndexing) || final && t.exact < 0 {
			fmt.Fprintf(&b, "seed: %s %s\n", fmtDuration(now.Sub(p.began)), strings.Join(strings.Fields(p.tableLine(t, now)), " "))
		}
	}
	if final {
		fmt.Fprintf(&b, "seed: %s %s\n", fmtDuration(now.Sub(p.began)), *p.phaseName.Load())
	}
	io.WriteString(p.w, b.String())
}

func (p *progress) lines(now time.Time) []string {
	out := []string{fmt.Sprintf("seeding %s candidates  %s  %s", fmtCount(p.totalCands), fmtDuration(now.Sub(p.began)), *p.phaseName.Load())}
	var headRows int64
	headDone := true
	for _, t := range p.tables {
		if t.exact >= 0 {
			headRows += t.rows.Load()
			headDone = headDone && t.state.Load() >= stateReady
			continue
		}
	}
	state := "copying"
	if headDone {
		state = "loaded"
	}
	out = append(out, fmt.Sprintf("  %-24s %13s rows                       %s", "company tables", fmtCount(headRows), state))
	for _, t := range p.tables {
		if t.exact < 0 {
			out = append(out, p.tableLine(t, now))
		}
	}
	return out
}

// tableLine is "  name  done / total  pct  rate  ETA  state".
func (p *progress) tableLine(t *tableProgress, now time.Time) string {
	rows, cands := t.rows.Load(), t.cands.Load()
	st := t.state.Load()
	total := "?"
	pct := 0.0
	if p.totalCands > 0 {
		pct = 100 * float64(cands) / float64(p.totalCands)
	}
	switch {
	case st >= stateIndexing || cands == p.totalCands && t.copiedAt.Load() != 0:
		total = fmtCount(rows)
		pct = 100
	case cands > 0:
		total = "~" + fmtCount(int64(float64(rows)*float64(p.totalCands)/float64(cands)))
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
		rate = fmtCount(int64(float64(rows)/elapsed.Seconds())) + " rows/s"
	}
	if st == stateCopying && cands > 0 && elapsed > 0 {
		left := time.Duration(float64(elapsed) * float64(p.totalCands-cands) / float64(cands))
		eta = "ETA " + fmtDuration(left)
	}
	what := ""
	switch st {
	case statePending:
		what = "waiting"
	case stateCopying:
		what = "copying"
	case stateIndexing:
		what = "indexing"
		if d := t.detail.Load(); d != nil && *d != "" {
			what = *d
		}
	case stateReady:
		what = "loaded in " + fmtDuration(elapsed) + ", waiting to commit"
	case stateDone:
		what = "committed"
	}
	return fmt.Sprintf("  %-24s %13s / %-12s %4.0f%%  %16s  %-10s %s", t.name, fmtCount(rows), total, pct, rate, eta, what)
}

// fmtCount writes n with thousands separators.
func fmtCount(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fmtDuration writes d as m:ss (or h:mm:ss).
func fmtDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
