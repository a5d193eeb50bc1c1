package bulkload

import (
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/progress"
)

func newBoard() (*Progress, *TableProgress, *TableProgress) {
	p := NewProgress(nil, ProgressOptions{Label: "seed", Units: 1000, Unit: "candidates", Known: "company tables"})
	head := p.Add("companies", 1)
	big := p.Add("candidates", -1)
	return p, head, big
}

// frame is a log-mode frame at elapsed.
func frame(elapsed time.Duration, periodic, final bool) progress.Frame {
	return progress.Frame{Now: time.Now(), Elapsed: elapsed, Periodic: periodic, Final: final}
}

func TestProgressLogsALinePerStep(t *testing.T) {
	p, head, big := newBoard()
	var lines []string
	draw := func(f progress.Frame) { lines = append(lines, p.draw(f)...) }

	draw(frame(time.Second, false, false)) // nothing started: nothing to say
	head.SetState(Copying)
	head.rows.Store(1)
	head.SetState(Ready)
	big.SetState(Copying)
	big.rows.Add(500)
	big.units.Add(250)
	draw(frame(2*time.Second, false, false)) // copying, not periodic: quiet
	draw(frame(10*time.Second, true, false)) // periodic: the table in progress
	big.units.Add(750)
	big.rows.Add(1500)
	big.copied()
	big.SetState(Indexing)
	big.SetDetail("index 1/2 candidates_earth_idx")
	draw(frame(11*time.Second, false, false)) // indexing begins
	draw(frame(12*time.Second, false, false)) // still indexing: quiet
	big.SetState(Ready)
	draw(frame(13*time.Second, false, false)) // loaded
	p.SetPhase("analyze")
	draw(frame(14*time.Second, false, false)) // a phase of its own
	draw(frame(15*time.Second, false, false))
	p.Committed()
	p.SetPhase("done")
	draw(frame(16*time.Second, true, true)) // the tables of unknown size (the others are summed up by the caller) and the phase

	want := []string{
		"seed: 0:10 candidates 500 / ~2,000 25%",
		"seed: 0:11 candidates 2,000 / 2,000 100%",
		"seed: 0:13 candidates 2,000 / 2,000 100%",
		"seed: 0:14 analyze",
		"seed: 0:16 candidates 2,000 / 2,000 100%",
		"seed: 0:16 done",
	}
	ends := []string{"copying", "index 1/2 candidates_earth_idx", "waiting to commit", "analyze", "committed", "done"}
	if len(lines) != len(want) {
		t.Fatalf("log lines =\n%s\nwant %d lines", strings.Join(lines, "\n"), len(want))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) || !strings.HasSuffix(l, ends[i]) || strings.ContainsAny(l, "\r\n\x1b") {
			t.Errorf("log line %d = %q, want %q ... %q on one line", i, l, want[i], ends[i])
		}
	}
}

func TestProgressBoardOnATerminal(t *testing.T) {
	p, head, big := newBoard()
	head.SetState(Ready)
	head.rows.Store(1)
	big.SetState(Copying)
	big.rows.Add(500)
	big.units.Add(250)
	lines := p.draw(progress.Frame{Now: time.Now(), Elapsed: 5 * time.Second, Terminal: true})
	if len(lines) != 3 {
		t.Fatalf("board =\n%s\nwant 3 lines", strings.Join(lines, "\n"))
	}
	for i, want := range []string{"seed: 1,000 candidates  0:05  load", "  company tables", "  candidates"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("board line %d = %q, want prefix %q", i, lines[i], want)
		}
	}
	if !strings.HasSuffix(lines[1], "1 rows                       loaded") || !strings.Contains(lines[2], "500 / ~2,000") {
		t.Errorf("board =\n%s", strings.Join(lines, "\n"))
	}
}
