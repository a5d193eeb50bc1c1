package toolkit

import (
	"strings"
	"time"
)

// Rollup grains of the tables in migration 00007: days and 15-minute slots, both UTC.
const (
	Day  = 24 * time.Hour
	Slot = 15 * time.Minute
)

// Split divides a window for a rollup of the given grain: Inner is the part made of whole grains
// (read from the rollup; nil when the window holds none) and Edges the partial grains at either
// end (read from the source rows). Open ends stay open in Inner. Counts over Inner and Edges add
// up to the count over w, because the parts do not overlap.
type Split struct {
	Inner *Window
	Edges []Window
}

// SplitWindow splits w at grain boundaries (UTC; grain divides a day).
func SplitWindow(w Window, grain time.Duration) Split {
	var s Split
	inner := Window{}
	if w.Since != nil {
		t := w.Since.UTC().Truncate(grain)
		if t.Before(*w.Since) {
			t = t.Add(grain)
		}
		inner.Since = &t
	}
	if w.Until != nil {
		t := w.Until.UTC().Truncate(grain)
		inner.Until = &t
	}
	if inner.Since != nil && inner.Until != nil && !inner.Since.Before(*inner.Until) {
		// No whole grain inside: the whole window is an edge.
		if w.Since.Before(*w.Until) {
			s.Edges = []Window{w}
		}
		return s
	}
	s.Inner = &inner
	if w.Since != nil && inner.Since.After(*w.Since) {
		s.Edges = append(s.Edges, Window{Since: w.Since, Until: inner.Since})
	}
	if w.Until != nil && inner.Until.Before(*w.Until) {
		s.Edges = append(s.Edges, Window{Since: inner.Until, Until: w.Until})
	}
	return s
}

// DayRange returns " AND col >= $n AND col < $m" for a date column and a window of whole UTC
// days (Split's Inner for grain Day). The bounds are passed as dates, so the session time zone
// plays no part.
func (q *Query) DayRange(col string, w Window) string {
	var s string
	if w.Since != nil {
		s += " AND " + col + " >= " + q.Arg(w.Since.UTC().Format(time.DateOnly)) + "::date"
	}
	if w.Until != nil {
		s += " AND " + col + " < " + q.Arg(w.Until.UTC().Format(time.DateOnly)) + "::date"
	}
	return s
}

// SplitUnion returns the UNION ALL of rollup over the whole grains of w and of source over each
// partial grain at its ends (SplitWindow); both return the same columns (named by the
// caller's alias list), so sums over the union are the sums over w.
func SplitUnion(w Window, grain time.Duration, rollup, source func(Window) string) string {
	sp := SplitWindow(w, grain)
	var parts []string
	if sp.Inner != nil {
		parts = append(parts, "("+rollup(*sp.Inner)+")")
	}
	for _, e := range sp.Edges {
		parts = append(parts, "("+source(e)+")")
	}
	if len(parts) == 0 { // an empty window
		parts = append(parts, "("+source(w)+")")
	}
	return strings.Join(parts, "\n\t\tUNION ALL ")
}

// JobDays returns a statement yielding (job_id, sessions, completed, evaluated) whose sums per
// job are the job_daily counts of the company over a window of whole UTC days (Split's Inner
// for grain Day): each job's running totals (job_daily_running, migration 00059) before the
// window's end minus those before its start, one or two rows per job however long the window,
// plus the pending deltas in the window. Without an end, the upper bound is the job's folded
// totals (job_totals_folded); with one, the same for a job whose last running row
// (job_daily_latest, migration 00070) is before the end, else its last running row before the end
// (RunningBefore). A window with a start reads only the jobs whose last running row is on its
// first day or later: any other job's totals are the same before the start and before the end
// (its pending deltas come with the deltas), so the work follows the jobs active since the start,
// not every job. Every bound is read by day, not by a descent per job. A job may yield zero counts
// and more than one row.
func (q *Query) JobDays(w Window) string {
	values := func(r string) string { return r + `.sessions, ` + r + `.completed, ` + r + `.evaluated` }
	upper := `t.sessions, t.completed, t.evaluated` // no end: every folded day (job_totals_folded)
	lower, from, where := `0, 0, 0`, `job_totals_folded t`, `t.company_id = $1`
	if w.Since != nil {
		lower = `coalesce(b.sessions, 0), coalesce(b.completed, 0), coalesce(b.evaluated, 0)`
		from += ` JOIN job_daily_latest d ON d.company_id = t.company_id AND d.job_id = t.job_id
			LEFT JOIN ` + q.RunningBefore("job_daily", *w.Since, values) + ` b ON b.job_id = t.job_id`
		where += ` AND d.day >= ` + q.dayArg(*w.Since)
	} else if w.Until != nil {
		from += ` LEFT JOIN job_daily_latest d ON d.company_id = t.company_id AND d.job_id = t.job_id`
	}
	if w.Until != nil {
		// A job whose last running row is before the end has all of its totals before it.
		until := q.dayArg(*w.Until)
		upper = ``
		for i, c := range []string{"sessions", "completed", "evaluated"} {
			if i > 0 {
				upper += `, `
			}
			upper += `CASE WHEN d.day < ` + until + ` THEN t.` + c + ` ELSE coalesce(u.` + c + `, 0) END`
		}
		from += `
			LEFT JOIN ` + q.RunningBefore("job_daily", *w.Until, values) + ` u ON u.job_id = t.job_id`
	}
	return `SELECT job_id, u0 - l0, u1 - l1, u2 - l2 FROM (
			SELECT t.job_id, ` + upper + `, ` + lower + ` FROM ` + from + `
			WHERE ` + where + `) f(job_id, u0, u1, u2, l0, l1, l2)
		UNION ALL
		SELECT job_id, sessions, completed, evaluated FROM job_rollup_deltas
		WHERE company_id = $1 AND (sessions <> 0 OR completed <> 0 OR evaluated <> 0)` + q.DayRange("day", w)
}

// RunningBefore returns a derived table of the company's jobs' running rows of the last day
// before the day before (whole UTC days): (job_id, day, values), values being the columns
// values(alias) lists of <table>_running and <table>_weekly (job_daily or job_score), at most one
// row per job and none for a job without a row before it. It reads the running rows of the days
// from the Monday on or before that day and the weekly rows of that Monday (migration 00071):
// the last running row before a Monday is the job's weekly row of that Monday, for every job with
// a running row before it and one on or after it. So every job with a running row on that day or
// later (every job a window's bound reads here) has its row, read by day in two range scans, not
// by a B-tree descent per job.
func (q *Query) RunningBefore(table string, before time.Time, values func(alias string) string) string {
	d := before.UTC()
	monday := q.dayArg(d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)))
	return `(SELECT DISTINCT ON (x.job_id) x.* FROM (
				SELECT w.job_id, w.week - 1 AS day, ` + values("w") + ` FROM ` + table + `_weekly w
				WHERE w.company_id = $1 AND w.week = ` + monday + `
				UNION ALL
				SELECT r.job_id, r.day, ` + values("r") + ` FROM ` + table + `_running r
				WHERE r.company_id = $1 AND r.day >= ` + monday + ` AND r.day < ` + q.dayArg(d) + `) x
			ORDER BY x.job_id, x.day DESC)`
}

// dayArg is a date argument: t's UTC day.
func (q *Query) dayArg(t time.Time) string {
	return q.Arg(t.UTC().Format(time.DateOnly)) + "::date"
}

// JobScores returns a statement yielding (job_id, evaluated, at_or_above) whose sums per job are
// the company's cheating evaluations, and those with a whole score point at or above point, over
// a window of whole UTC days (Split's Inner for grain Day; point an SQL expression of type
// integer): each job's running counts (job_score_running, migration 00061; at_least[1] counts
// every evaluation) before the window's end minus those before its start, one or two rows per job
// however long the window, plus the pending deltas of job_score_daily in the window. The upper
// bound is the job's latest row (job_score_latest, migration 00066: the company's rows in one
// range scan) when the window runs to now or the row is before the window's end, else its last
// row before the end (RunningBefore). A window with a start reads only the jobs whose latest row
// is on its first day or later: any other job's running counts are the same before the start and
// before the end, so it has none in the window (its pending deltas come with the deltas); their
// lower bounds are read by day (RunningBefore). A job may yield zeros and more than one row.
func (q *Query) JobScores(w Window, point string) string {
	values := func(r string) string { return r + `.at_least[1] AS e, ` + r + `.at_least[` + point + ` + 1] AS f` }
	// The upper bound: the latest rows, or for a job whose latest row is on the window's end or
	// later, its last row before the end.
	from, where := `job_score_latest t`, "t.company_id = $1"
	upperE, upperF := "t.at_least[1]", "t.at_least["+point+" + 1]"
	if w.Until != nil {
		until := q.dayArg(*w.Until)
		from += ` LEFT JOIN ` + q.RunningBefore("job_score", *w.Until, values) + ` u ON u.job_id = t.job_id`
		upperE = "CASE WHEN t.day < " + until + " THEN " + upperE + " ELSE coalesce(u.e, 0) END"
		upperF = "CASE WHEN t.day < " + until + " THEN " + upperF + " ELSE coalesce(u.f, 0) END"
	}
	lowerE, lowerF := "0", "0"
	if w.Since != nil {
		from += ` LEFT JOIN ` + q.RunningBefore("job_score", *w.Since, values) + ` l ON l.job_id = t.job_id`
		where += " AND t.day >= " + q.dayArg(*w.Since)
		lowerE, lowerF = "coalesce(l.e, 0)", "coalesce(l.f, 0)"
	}
	return `SELECT t.job_id, ` + upperE + ` - ` + lowerE + `, ` + upperF + ` - ` + lowerF + ` FROM ` + from + `
		WHERE ` + where + `
		UNION ALL
		SELECT job_id, evaluated, CASE WHEN score >= ` + point + ` THEN evaluated ELSE 0 END FROM job_score_daily_deltas
		WHERE company_id = $1` + q.DayRange("day", w)
}
