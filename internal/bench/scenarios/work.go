package scenarios

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// planWork is the work of one logged plan: the rows its table scans read (the rows they
// returned and the rows their filters removed, times loops, of every Seq, Index, Index Only,
// Bitmap Heap and Tid Scan) and the pages its top node touched (shared hit plus read). Unlike latency it does not depend on the machine's load.
type planWork struct {
	rows, pages int64
	query       string
}

var (
	scanRows    = regexp.MustCompile(`(?:->\s+|^\s*)(?:Parallel )?(?:Seq|Index|Index Only|Bitmap Heap|Tid|Tid Range) Scan\b.*\(actual rows=([0-9]+) loops=([0-9]+)\)`)
	planNode    = regexp.MustCompile(`\(actual rows=`)
	removedRows = regexp.MustCompile(`Rows Removed by (?:Filter|Index Recheck): ([0-9]+)`)
	bufferPages = regexp.MustCompile(`Buffers: shared(?: hit=([0-9]+))?(?: read=([0-9]+))?`)
)

// workOf reads the work of an auto_explain entry (slowPlan.text).
func workOf(entry string) planWork {
	w := planWork{query: strings.Join(strings.Fields(queryText(entry)), " ")}
	w.query = strings.TrimPrefix(w.query, "Query Text: ")
	pagesSeen := false
	var loops int64 // of the last plan node when it is a table scan, else 0
	for _, line := range strings.Split(entry, "\n") {
		if planNode.MatchString(line) {
			loops = 0
		}
		if m := scanRows.FindStringSubmatch(line); m != nil {
			r, _ := strconv.ParseInt(m[1], 10, 64)
			loops, _ = strconv.ParseInt(m[2], 10, 64)
			w.rows += r * loops
		}
		if m := removedRows.FindStringSubmatch(line); m != nil && loops > 0 {
			r, _ := strconv.ParseInt(m[1], 10, 64)
			w.rows += r * loops
		}
		if m := bufferPages.FindStringSubmatch(line); m != nil && !pagesSeen {
			pagesSeen = true // the first Buffers line is the top node's: the statement's total
			hit, _ := strconv.ParseInt(m[1], 10, 64)
			read, _ := strconv.ParseInt(m[2], 10, 64)
			w.pages = hit + read
		}
	}
	return w
}

// toolWork sums the work of one tool's measured calls.
type toolWork struct {
	calls       int
	statements  int
	rows, pages int64
	top         planWork // the statement that read the most rows
}

func (t toolWork) rowsPerCall() float64 { return float64(t.rows) / float64(max(t.calls, 1)) }

// readToolWork reads the work of every plan logged in span (auto_explain of every statement).
func readToolWork(logPath string, span logSpan, calls int) toolWork {
	tw := toolWork{calls: calls}
	f, err := os.Open(logPath)
	if err != nil {
		return tw
	}
	defer f.Close()
	for _, p := range readPlans(io.NewSectionReader(f, span.from, span.to-span.from)) {
		w := workOf(p.text)
		tw.statements++
		tw.rows += w.rows
		tw.pages += w.pages
		if w.rows > tw.top.rows || tw.top.query == "" {
			tw.top = w
		}
	}
	return tw
}

// printWork prints each tool's rows read and pages touched per call.
func printWork(out io.Writer, work map[string]toolWork) {
	fmt.Fprintf(out, "\nwork per call (every statement's plan, auto_explain): rows read by table scans, pages touched\n")
	fmt.Fprintf(out, "%-32s %6s %12s %12s %12s  %s\n", "tool", "stmts", "rows/call", "pages/call", "top rows", "top statement")
	for _, tool := range slices.Sorted(maps.Keys(work)) {
		w := work[tool]
		q := w.top.query
		if len(q) > 90 {
			q = q[:90] + "…"
		}
		fmt.Fprintf(out, "%-32s %6.1f %12.0f %12.0f %12d  %s\n", tool, float64(w.statements)/float64(max(w.calls, 1)), w.rowsPerCall(),
			float64(w.pages)/float64(max(w.calls, 1)), w.top.rows, q)
	}
}

// printWorkGrowth prints each tool's rows read per call at every size, its growth from one size
// to the next (scaled to 10x the data beside growthTarget), and the rows a call would read at 10M
// candidates on the power law through the two largest sizes.
func printWorkGrowth(out io.Writer, sizes []int, work []map[string]toolWork) {
	const at = 10_000_000
	fmt.Fprintf(out, "\nrows read per call by size; growth from each size to the next, scaled to 10x the data (target <= %.1fx per 10x); extrapolated to %s\n",
		growthTarget, humanCount(at))
	fmt.Fprintf(out, "%-32s", "tool")
	for _, n := range sizes {
		fmt.Fprintf(out, " %10s", humanCount(n))
	}
	for i := 1; i < len(sizes); i++ {
		fmt.Fprintf(out, " %14s", humanCount(sizes[i-1])+"->"+humanCount(sizes[i]))
	}
	fmt.Fprintf(out, " %10s  %s\n", humanCount(at)+"?", "verdict")
	for _, tool := range slices.Sorted(maps.Keys(work[len(work)-1])) {
		fmt.Fprintf(out, "%-32s", tool)
		for i := range sizes {
			fmt.Fprintf(out, " %10.0f", work[i][tool].rowsPerCall())
		}
		ok := true
		var g10 float64
		for i := 1; i < len(sizes); i++ {
			a, b := work[i-1][tool].rowsPerCall(), work[i][tool].rowsPerCall()
			g := 1.0
			if a > 0 && b > 0 {
				g = b / a
			} else if b > 0 {
				g = math.Inf(1)
			}
			g10 = math.Pow(g, 1/math.Log10(float64(sizes[i])/float64(sizes[i-1])))
			// A few rows more are no growth: the bound is on work that scales.
			if g10 > growthTarget && b-a > 100 {
				ok = false
			}
			fmt.Fprintf(out, " %5.2fx(%5.2fx)", g, g10)
		}
		last := work[len(work)-1][tool].rowsPerCall()
		if n := sizes[len(sizes)-1]; len(sizes) > 1 && n < at && !math.IsInf(g10, 0) {
			last *= math.Pow(g10, math.Log10(float64(at)/float64(n)))
		}
		fmt.Fprintf(out, " %10.0f  %s\n", last, verdict(ok))
	}
}
