// Package progress shows how far a long command has got (recruitd seed, recruitd bench). On a
// terminal it redraws a block of lines in place; anywhere else (a file, a pipe, a CI log) it
// appends a line per step instead, so the output reads top to bottom and holds no carriage
// returns or cursor movements.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
)

// Frame is one drawing of a Display, handed to its draw function.
type Frame struct {
	Now     time.Time
	Elapsed time.Duration // since Start
	// Terminal means the lines returned replace the block drawn last time; otherwise they are
	// appended to the output, so draw returns only what is worth a line of its own.
	Terminal bool
	// Periodic is set in log mode (not Terminal) once every Options.LogEvery and on the final
	// frame: the time for a line per piece of work still under way.
	Periodic bool
	// Final is the last frame, drawn by Stop.
	Final bool
}

// Options configures a Display.
type Options struct {
	// Terminal redraws in place; IsTerminal says whether a writer is one.
	Terminal bool
	// LogEvery is how often a frame is Periodic in log mode; 0 means 10s.
	LogEvery time.Duration
	tick     time.Duration // tests: the interval between frames instead of the mode's
}

// Display calls its draw function every tick (4 a second on a terminal, 1 a second otherwise)
// until Stop, and writes the lines it returns. Frames are drawn one at a time, from one
// goroutine, so draw may keep state between them.
type Display struct {
	w        io.Writer
	o        Options
	draw     func(Frame) []string
	began    time.Time
	lastLog  time.Time
	drawn    int // lines of the block on screen (terminal)
	stop     chan struct{}
	finished chan struct{}
}

const (
	redrawEvery = 250 * time.Millisecond
	pollEvery   = time.Second
)

// IsTerminal reports whether w is a terminal, where a Display may redraw in place.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Start draws on w until Stop; a nil w draws nothing.
func Start(w io.Writer, o Options, draw func(Frame) []string) *Display {
	if o.LogEvery <= 0 {
		o.LogEvery = 10 * time.Second
	}
	now := time.Now()
	d := &Display{w: w, o: o, draw: draw, began: now, lastLog: now, stop: make(chan struct{}), finished: make(chan struct{})}
	if w == nil {
		close(d.finished)
		return d
	}
	every := pollEvery
	if o.Terminal {
		every = redrawEvery
	}
	if o.tick > 0 {
		every = o.tick
	}
	go func() {
		defer close(d.finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-d.stop:
				return
			case now := <-tick.C:
				d.render(now, false)
			}
		}
	}()
	return d
}

// Stop ends the ticks and draws the final frame. It is called once.
func (d *Display) Stop() {
	if d.w == nil {
		return
	}
	close(d.stop)
	<-d.finished
	d.render(time.Now(), true)
}

func (d *Display) render(now time.Time, final bool) {
	f := Frame{Now: now, Elapsed: now.Sub(d.began), Terminal: d.o.Terminal, Final: final}
	if !f.Terminal && (final || now.Sub(d.lastLog) >= d.o.LogEvery) {
		f.Periodic = true
		d.lastLog = now
	}
	lines := d.draw(f)
	if len(lines) == 0 && (!f.Terminal || d.drawn == 0) {
		return
	}
	var b strings.Builder
	if f.Terminal {
		if d.drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", d.drawn) // back to the block's first line
		}
		for _, l := range lines {
			b.WriteString("\r\x1b[2K")
			b.WriteString(l)
			b.WriteByte('\n')
		}
		b.WriteString("\x1b[J") // what a longer block left below
		d.drawn = len(lines)
	} else {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	io.WriteString(d.w, b.String())
}

// Thousands writes n with thousands separators: 1234567 is "1,234,567".
func Thousands(n int64) string {
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

// Clock writes d, rounded to the second, as m:ss, or h:mm:ss from an hour on.
func Clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
