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
// plus the pending deltas in the window. A window with a start reads only the jobs whose last
// running row is on its first day or later (job_daily_latest, migration 00070): any other job's
// totals are the same before the start and before the end (its pending deltas come with the
// deltas), so the probes follow the jobs active since the start, not every job. A job may yield
// zero counts and more than one row.
func (q *Query) JobDays(w Window) string {
	upper := `t.sessions, t.completed, t.evaluated` // no end: every folded day (job_totals_folded)
	var lateral string
	if w.Until != nil {
		upper = `coalesce(u.sessions, 0), coalesce(u.completed, 0), coalesce(u.evaluated, 0)`
		lateral += `
			LEFT JOIN LATERAL (SELECT r.sessions, r.completed, r.evaluated FROM job_daily_running r
				WHERE r.company_id = $1 AND r.job_id = t.job_id AND r.day < ` + q.Arg(w.Until.UTC().Format(time.DateOnly)) + `::date
				ORDER BY r.day DESC LIMIT 1) u ON true`
	}
	lower, from, where := `0, 0, 0`, `job_totals_folded t`, `t.company_id = $1`
	if w.Since != nil {
		since := q.Arg(w.Since.UTC().Format(time.DateOnly)) + `::date`
		lower = `coalesce(b.sessions, 0), coalesce(b.completed, 0), coalesce(b.evaluated, 0)`
		from += ` JOIN job_daily_latest d ON d.company_id = t.company_id AND d.job_id = t.job_id`
		where += ` AND d.day >= ` + since
		lateral += `
			LEFT JOIN LATERAL (SELECT r.sessions, r.completed, r.evaluated FROM job_daily_running r
				WHERE r.company_id = $1 AND r.job_id = t.job_id AND r.day < ` + since + `
				ORDER BY r.day DESC LIMIT 1) b ON true`
	}
	return `SELECT job_id, u0 - l0, u1 - l1, u2 - l2 FROM (
			SELECT t.job_id, ` + upper + `, ` + lower + ` FROM ` + from + lateral + `
			WHERE ` + where + `) f(job_id, u0, u1, u2, l0, l1, l2)
		UNION ALL
		SELECT job_id, sessions, completed, evaluated FROM job_rollup_deltas
		WHERE company_id = $1 AND (sessions <> 0 OR completed <> 0 OR evaluated <> 0)` + q.DayRange("day", w)
}

// JobScores returns a statement yielding (job_id, evaluated, at_or_above) whose sums per job are
// the company's cheating evaluations, and those with a whole score point at or above point, over
// a window of whole UTC days (Split's Inner for grain Day; point an SQL expression of type
// integer): each job's running counts (job_score_running, migration 00061; at_least[1] counts
// every evaluation) before the window's end minus those before its start, one or two rows per job
// however long the window, plus the pending deltas of job_score_daily in the window. A window
// that runs to now ends at the job's latest row, read from job_score_latest (migration 00066: the
// company's rows in one range scan, not a probe of the running rows per job). A window with a
// start reads only the jobs whose latest row is on its first day or later: any other job's
// running counts are the same before the start and before the end, so it has none in the window
// (its pending deltas come with the deltas). The probes then follow the jobs evaluated since the
// start, not every job. A job may yield zeros and more than one row.
func (q *Query) JobScores(w Window, point string) string {
	bound := func(alias, job, before string) string {
		return `
		LEFT JOIN LATERAL (SELECT r.at_least[1] AS e, r.at_least[` + point + ` + 1] AS f FROM job_score_running r
			WHERE r.company_id = $1 AND r.job_id = ` + job + ` AND r.day < ` + before + `
			ORDER BY r.day DESC LIMIT 1) ` + alias + ` ON true`
	}
	day := func(t *time.Time) string { return q.Arg(t.UTC().Format(time.DateOnly)) + "::date" }
	// The upper bound: the latest rows, or each job's last row before the window's end.
	from, job, where := `job_score_latest t`, "t.job_id", "t.company_id = $1"
	upperE, upperF := "t.at_least[1]", "t.at_least["+point+" + 1]"
	if w.Until != nil {
		if w.Since == nil {
			from, job = `jobs t`, "t.id"
		}
		from += bound("u", job, day(w.Until))
		upperE, upperF = "coalesce(u.e, 0)", "coalesce(u.f, 0)"
	}
	lowerE, lowerF := "0", "0"
	if w.Since != nil {
		since := day(w.Since)
		from += bound("l", job, since)
		where += " AND t.day >= " + since
		lowerE, lowerF = "coalesce(l.e, 0)", "coalesce(l.f, 0)"
	}
	return `SELECT ` + job + `, ` + upperE + ` - ` + lowerE + `, ` + upperF + ` - ` + lowerF + ` FROM ` + from + `
		WHERE ` + where + `
		UNION ALL
		SELECT job_id, evaluated, CASE WHEN score >= ` + point + ` THEN evaluated ELSE 0 END FROM job_score_daily_deltas
		WHERE company_id = $1` + q.DayRange("day", w)
}
