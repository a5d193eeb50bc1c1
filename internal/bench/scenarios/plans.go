package scenarios

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// logSpan is a byte range [from, to) of the Postgres log.
type logSpan struct{ from, to int64 }

type slowPlan struct {
	ms   float64
	text string
}

// printSlowPlans prints the n slowest statements auto_explain logged in the spans, with plans.
func printSlowPlans(out io.Writer, logPath string, spans []logSpan, n int) {
	f, err := os.Open(logPath)
	if err != nil {
		return
	}
	defer f.Close()
	var plans []slowPlan
	for _, sp := range spans {
		plans = append(plans, readPlans(io.NewSectionReader(f, sp.from, sp.to-sp.from))...)
	}
	printPlans(out, logPath, plans, n)
}

// readPlans parses the auto_explain entries of a piece of the log.
func readPlans(r io.Reader) []slowPlan {
	var plans []slowPlan
	head := regexp.MustCompile(`duration: ([0-9.]+) ms\s+plan:`)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cur *slowPlan
	for sc.Scan() {
		line := sc.Text()
		if m := head.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			plans = append(plans, slowPlan{ms: v})
			cur = &plans[len(plans)-1]
			continue
		}
		if cur != nil && (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ")) {
			cur.text += line + "\n"
			continue
		}
		cur = nil
	}
	return plans
}

// printPlans prints the n slowest distinct statements of plans.
func printPlans(out io.Writer, logPath string, plans []slowPlan, n int) {
	sort.Slice(plans, func(i, j int) bool { return plans[i].ms > plans[j].ms })
	// One plan per statement: the slowest run of each of the n slowest distinct statements.
	seen := map[string]bool{}
	distinct := plans[:0:0]
	for _, p := range plans {
		key := queryText(p.text)
		if !seen[key] {
			seen[key] = true
			distinct = append(distinct, p)
		}
	}
	if len(plans) == 0 {
		fmt.Fprintf(out, "no statement took longer than %s\n", slowPlanThreshold)
		return
	}
	fmt.Fprintf(out, "\n%d statement(s) took longer than %s; the slowest %d distinct ones with their plans (all in %s):\n", len(plans), slowPlanThreshold, min(n, len(distinct)), logPath)
	for _, p := range distinct[:min(n, len(distinct))] {
		fmt.Fprintf(out, "\n--- %.1f ms\n%s", p.ms, p.text)
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// queryText is the "Query Text:" part of an auto_explain entry (its lines are indented twice),
// without the plan, whose buffer counts differ between runs of one statement.
func queryText(entry string) string {
	var b strings.Builder
	for i, line := range strings.Split(entry, "\n") {
		if i > 0 && !strings.HasPrefix(line, "\t\t") {
			break
		}
		b.WriteString(strings.TrimSpace(line) + " ")
	}
	return b.String()
}
