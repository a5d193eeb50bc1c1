package interviewtools

import (
	"math"
	"strconv"
	"strings"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// scoreHistogram is a score rollup of migration 00047 (rows by whole score point and UTC day)
// and the source table it counts.
type scoreHistogram struct {
	rollup, n      string // the rollup table and its count column
	source         string // the source table
	score, at      string // the source's score and time columns
	flaggedIsBelow bool   // flagged means score < threshold (fraud) rather than score >= threshold
}

var (
	evaluationScores = scoreHistogram{rollup: "evaluation_scores", n: "evaluated", source: "cheating_evaluations", score: "cheating_score", at: "created_at"}
	fraudScores      = scoreHistogram{rollup: "fraud_scores", n: "verifications", source: "fraud_verifications", score: "overall_verification_score", at: "created_at", flaggedIsBelow: true}
)

// flaggedCount is the statement counting the company's source rows in w on the flagged side of
// threshold. The whole score points on that side and the whole UTC days of w come from the
// rollup; the fraction of a point between the threshold and the next whole point (none for a
// whole threshold) and the partial days at w's ends come from the source rows (ranges of their
// score and time indexes). So the rows read are bounded by points times days, not by the pool.
func (h scoreHistogram) flaggedCount(q *toolkit.Query, w toolkit.Window, threshold float64) string {
	t := numArg(q, threshold)
	score := "s." + h.score
	flagged := score + " >= " + t
	if h.flaggedIsBelow {
		flagged = score + " < " + t
	}
	rollup := func(w toolkit.Window) string {
		// The point arguments are added here: a window without a whole day has no rollup part,
		// and an argument no statement part uses has no type.
		var whole, part string
		if h.flaggedIsBelow {
			p := math.Floor(threshold)
			whole = "r.score < " + q.Arg(int16(p))
			part = score + " >= " + numArg(q, p) + " AND " + score + " < " + t
		} else {
			p := math.Ceil(threshold)
			whole = "r.score >= " + q.Arg(int16(p))
			part = score + " >= " + t + " AND " + score + " < " + numArg(q, p)
		}
		return `SELECT sum(r.` + h.n + `) FROM ` + h.rollup + ` r WHERE r.company_id = $1 AND ` + whole + q.DayRange("r.day", w) +
			` UNION ALL SELECT count(*) FROM ` + h.source + ` s WHERE s.company_id = $1 AND ` + part + q.Range("s."+h.at, w)
	}
	source := func(w toolkit.Window) string {
		return `SELECT count(*) FROM ` + h.source + ` s WHERE s.company_id = $1 AND ` + flagged + q.Range("s."+h.at, w)
	}
	return `SELECT coalesce(sum(n), 0)::bigint FROM (` + toolkit.SplitUnion(w, toolkit.Day, rollup, source) + `) x(n)`
}

// flaggedOp is the comparison of a flagged score with the threshold (an argument is added only
// where it is used: one a statement leaves unused has no type).
func (h scoreHistogram) flaggedOp() string {
	if h.flaggedIsBelow {
		return " < "
	}
	return " >= "
}

// numArg adds v as a numeric argument (exact decimal, as the score columns hold it).
func numArg(q *toolkit.Query, v float64) string {
	return q.Arg(strconv.FormatFloat(v, 'f', -1, 64)) + "::numeric"
}

// flaggedCandidates is the statement counting the company's candidates with a score on the
// flagged side of threshold for all time (kind "cheating": highest cheating score at or above it;
// "fraud": lowest fraud score below it): candidate_score_counts for the whole points past it,
// candidate_scores for the fraction of a point at it.
func flaggedCandidates(q *toolkit.Query, kind string, threshold float64) string {
	t := numArg(q, threshold)
	var whole, part string
	if kind == "fraud" {
		p := math.Floor(threshold)
		whole = "r.score < " + q.Arg(int16(p))
		part = "s.min_fraud >= " + numArg(q, p) + " AND s.min_fraud < " + t
	} else {
		p := math.Ceil(threshold)
		whole = "r.score >= " + q.Arg(int16(p))
		part = "s.max_cheating >= " + t + " AND s.max_cheating < " + numArg(q, p)
	}
	return `SELECT coalesce(sum(n), 0)::bigint FROM (
			SELECT sum(r.candidates) FROM candidate_score_counts r WHERE r.company_id = $1 AND r.kind = ` + q.Arg(kind) + ` AND ` + whole + `
			UNION ALL
			SELECT count(*) FROM candidate_scores s WHERE s.company_id = $1 AND ` + part + `
		) x(n)`
}

// flaggedCandidatesSince is the statement counting the company's candidates with a source row
// on the flagged side of threshold at or after w.Since (w has no end; kind is "cheating" or
// "fraud"). The candidates whose last row flagged at the whole threshold p (cheating: the next
// whole point up; fraud: the whole point down, both as strict as the threshold or stricter) falls
// on a whole UTC day of w come from flag_last_daily (migration 00052): at most 101 rows a day.
// The source rows add the others: rows flagged at the threshold but not at p (the fraction of a
// point between them, none for a whole threshold) and rows of the partial day before w's first
// midnight, of candidates with no row flagged at p from that midnight on.
func (h scoreHistogram) flaggedCandidatesSince(q *toolkit.Query, kind string, w toolkit.Window, threshold float64) string {
	midnight := *toolkit.SplitWindow(w, toolkit.Day).Inner.Since
	p := math.Ceil(threshold)
	if h.flaggedIsBelow {
		p = math.Floor(threshold)
	}
	day := toolkit.Window{Since: &midnight}
	stmt := `SELECT coalesce(sum(r.candidates), 0)::bigint FROM flag_last_daily r
		WHERE r.company_id = $1 AND r.kind = ` + q.Arg(kind) + q.DayRange("r.day", day) + ` AND r.point >= ` + q.Arg(int16(p))
	score := "s." + h.score
	at := "s." + h.at
	var parts []string
	if p != threshold {
		lo, hi := threshold, p
		if h.flaggedIsBelow {
			lo, hi = p, threshold
		}
		band := score + " >= " + numArg(q, lo) + " AND " + score + " < " + numArg(q, hi)
		parts = append(parts, `SELECT s.candidate_id FROM `+h.source+` s WHERE s.company_id = $1 AND `+band+q.Range(at, w))
	}
	if w.Since.Before(midnight) {
		flagged := score + h.flaggedOp() + numArg(q, threshold)
		parts = append(parts, `SELECT s.candidate_id FROM `+h.source+` s WHERE s.company_id = $1 AND `+flagged+q.Range(at, toolkit.Window{Since: w.Since, Until: &midnight}))
	}
	if len(parts) == 0 {
		return stmt
	}
	flaggedAtP := "o." + h.score + h.flaggedOp() + numArg(q, p)
	return `SELECT (` + stmt + `) + (SELECT count(*) FROM (SELECT DISTINCT candidate_id FROM (` + strings.Join(parts, " UNION ALL ") + `) u) c
		WHERE NOT EXISTS (SELECT 1 FROM ` + h.source + ` o WHERE o.company_id = $1 AND o.candidate_id = c.candidate_id
			AND ` + flaggedAtP + ` AND o.` + h.at + ` >= ` + q.Arg(midnight) + `))`
}
