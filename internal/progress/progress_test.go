package progress

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// manual is the options of a display whose frames the test draws itself, through step.
func manual(o Options) Options {
	o.tick = time.Hour
	return o
}

// step draws a frame at d's start plus at.
func step(d *Display, at time.Duration) { d.render(d.began.Add(at), false) }

// counter is a draw function reporting *n: every frame on a terminal, Periodic and Final frames
// in log mode.
func counter(n *int) func(Frame) []string {
	return func(f Frame) []string {
		if !f.Terminal && !f.Periodic {
			return nil
		}
		return []string{fmt.Sprintf("step %d", *n)}
	}
}

func TestDisplayLogModeWritesOneLinePerStep(t *testing.T) {
	var out bytes.Buffer
	n := 0
	d := Start(&out, manual(Options{Terminal: IsTerminal(&out), LogEvery: 10 * time.Second}), counter(&n))
	for i := 1; i <= 3; i++ {
		n = i
		step(d, time.Duration(10*i)*time.Second)
		step(d, time.Duration(10*i+1)*time.Second) // between periodic frames: nothing
	}
	d.Stop()
	got := out.String()
	if strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("log mode output holds a carriage return or an escape sequence: %q", got)
	}
	want := "step 1\nstep 2\nstep 3\nstep 3\n" // a line per step, then the final one
	if got != want {
		t.Errorf("Display output = %q, want %q", got, want)
	}
}

func TestDisplayTerminalRedrawsInPlace(t *testing.T) {
	var out bytes.Buffer
	frames := 0
	d := Start(&out, manual(Options{Terminal: true}), func(f Frame) []string {
		if !f.Terminal || f.Periodic {
			t.Errorf("frame %+v, want a terminal frame that is not periodic", f)
		}
		frames++
		if f.Final {
			return []string{"done"}
		}
		return []string{"header", fmt.Sprintf("frame %d", frames)}
	})
	step(d, time.Second)
	step(d, 2*time.Second)
	d.Stop()
	// The first frame draws two lines; each later one goes back up the lines drawn, clears each
	// line it draws, then what a longer block left below.
	want := "\r\x1b[2Kheader\n\r\x1b[2Kframe 1\n\x1b[J" +
		"\x1b[2A\r\x1b[2Kheader\n\r\x1b[2Kframe 2\n\x1b[J" +
		"\x1b[2A\r\x1b[2Kdone\n\x1b[J"
	if got := out.String(); got != want {
		t.Errorf("Display output = %q, want %q", got, want)
	}
}

func TestDisplayTicks(t *testing.T) {
	var out bytes.Buffer
	n := 7
	d := Start(&out, Options{Terminal: true, tick: time.Millisecond}, counter(&n))
	time.Sleep(50 * time.Millisecond)
	d.Stop()
	if got := strings.Count(out.String(), "step 7"); got < 3 {
		t.Errorf("Display drew %d frames in 50 ticks, want at least 3: %q", got, out.String())
	}
}

func TestIsTerminal(t *testing.T) {
	var b bytes.Buffer
	if IsTerminal(&b) {
		t.Errorf("IsTerminal(bytes.Buffer) = true, want false")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Errorf("IsTerminal(%q) = true, want false", f.Name())
	}
}

func TestNilWriterDrawsNothing(t *testing.T) {
	d := Start(nil, Options{}, func(Frame) []string {
		t.Error("draw called for a nil writer")
		return nil
	})
	d.Stop()
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -5: "-5"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0:00", 1500 * time.Millisecond: "0:02", 61 * time.Second: "1:01", 3723 * time.Second: "1:02:03"} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%s) = %q, want %q", d, got, want)
		}
	}
}
