package interviewtools

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

type statsMetric string

const (
	metricCompletedCandidates statsMetric = "completedCandidates"
	metricCompletedInterviews statsMetric = "completedInterviews"
	metricAverageDuration     statsMetric = "averageDuration"
	metricByInterviewer       statsMetric = "byInterviewer"
	metricByStatus            statsMetric = "byStatus"
	metricByMediumType        statsMetric = "byMediumType"
	metricTopCandidates       statsMetric = "topCandidates"
)

var statsMetrics = []statsMetric{metricCompletedCandidates, metricCompletedInterviews, metricAverageDuration,
	metricByInterviewer, metricByStatus, metricByMediumType, metricTopCandidates}

// Bounds of getInterviewStats.
const (
	topCandidatesDefault = 10
	topCandidatesMax     = 100
	maxInterviewerRows   = 100
)

func registerInterviewStats(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getInterviewStats",
		Title: "Interview volume statistics",
		Description: "Interview-volume metrics for a company or one job (an \"interviewer\" is this product's word for a job's AI interviewer). " +
			"Pick one metric per call:\n" +
			"- completedCandidates: distinct candidates with at least one COMPLETED interview.\n" +
			"- completedInterviews: number of COMPLETED interview sessions.\n" +
			"- averageDuration: mean length (seconds) of completed interviews with a recorded duration, and how many have none; " +
			"no median, minimum or maximum (company-wide figures come from pre-aggregated sums and counts).\n" +
			"- byInterviewer: per job, sessions invited, sessions completed and completion rate (completed / invited).\n" +
			"- byStatus: sessions per status (INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED, INCOMPLETE, DECLINED).\n" +
			"- byMediumType: sessions and completed sessions per interview medium (VIDEO, PHONE, ...).\n" +
			"- topCandidates: candidates ranked by their best-rated completed interview (recruiter rating, then the AI service rating), " +
			"one row per candidate with that session; " +
			"limit (default 10, max 100) and decision filter apply only here.\n" +
			"Dates: sinceDate/untilDate are ISO dates (untilDate inclusive) or RFC 3339 timestamps, no default (all time). " +
			"Completion metrics (completedCandidates, completedInterviews, averageDuration, topCandidates) filter on the completion time; " +
			"byStatus, byInterviewer and byMediumType filter on the invitation time (the cohort of sessions invited in the window). " +
			"Scope: positionId limits to one job; without it the client's current job context is used when there is one; companyWide: true ignores the job context (positionId together with companyWide: true is refused). " +
			"mediumType filters every metric. Needs no company feature flag.",
		InputSchema: toolkit.InputSchema[InterviewStatsInput](map[string][]string{"metric": toolkit.Strings(statsMetrics)}),
	}, interviewStats)
}

// InterviewStatsInput are getInterviewStats' arguments.
type InterviewStatsInput struct {
	Metric string `json:"metric" jsonschema:"the metric: completedCandidates, completedInterviews, averageDuration, byInterviewer, byStatus, byMediumType or topCandidates"`
	toolkit.ScopeArg
	toolkit.WindowArg
	Limit      *int     `json:"limit,omitempty" jsonschema:"topCandidates only: how many to return, default 10, max 100 (larger values are clamped)"`
	Decision   []string `json:"decision,omitempty" jsonschema:"topCandidates only: keep sessions whose recruiter decision is one of NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED"`
	MediumType []string `json:"mediumType,omitempty" jsonschema:"keep sessions of these interview media: VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS, NONE (applies to every metric)"`
	toolkit.CompanyArg
}

// DurationStats summarises completed interviews' durations (the mean only: company-wide it comes
// from completion_slots' sums, which hold no distribution).
type DurationStats struct {
	Sessions        int64    `json:"sessions" jsonschema:"completed sessions with a recorded duration"`
	WithoutDuration int64    `json:"withoutDuration" jsonschema:"completed sessions without a recorded duration (not averaged)"`
	AverageSeconds  *float64 `json:"averageSeconds" jsonschema:"mean duration in seconds (one decimal); null when no session"`
}

// InterviewerRow is one job of byInterviewer.
type InterviewerRow struct {
	JobID          string   `json:"jobId"`
	JobTitle       string   `json:"jobTitle"`
	JobStatus      string   `json:"jobStatus"`
	JobLink        string   `json:"jobLink"`
	Sessions       int64    `json:"sessions" jsonschema:"sessions invited in the window"`
	Completed      int64    `json:"completed" jsonschema:"of those, sessions now COMPLETED"`
	CompletionRate *float64 `json:"completionRate" jsonschema:"completed / sessions in percent (one decimal)"`
}

// StatusCount is one status of byStatus.
type StatusCount struct {
	Status  string   `json:"status"`
	Count   int64    `json:"count"`
	Percent *float64 `json:"percent" jsonschema:"share of all sessions in percent; null when there are none"`
}

// MediumCount is one medium of byMediumType.
type MediumCount struct {
	MediumType     string   `json:"mediumType"`
	Sessions       int64    `json:"sessions" jsonschema:"sessions invited in the window"`
	Completed      int64    `json:"completed" jsonschema:"of those, sessions now COMPLETED"`
	CompletionRate *float64 `json:"completionRate" jsonschema:"completed / sessions in percent; null when no session"`
}

// TopCandidate is one ranked candidate and their best rated completed session.
type TopCandidate struct {
	Rank            int      `json:"rank"`
	CandidateID     string   `json:"candidateId"`
	CandidateName   string   `json:"candidateName"`
	CandidateEmail  *string  `json:"candidateEmail"`
	CandidateLink   string   `json:"candidateLink"`
	SessionID       string   `json:"sessionId"`
	SessionLink     string   `json:"sessionLink"`
	JobID           string   `json:"jobId"`
	JobTitle        string   `json:"jobTitle"`
	RecruiterRating *float64 `json:"recruiterRating"`
	ServiceRating   *float64 `json:"serviceRating"`
	Decision        string   `json:"decision"`
	MediumType      string   `json:"mediumType"`
	CompletedAt     string   `json:"completedAt"`
}

// InterviewStatsOutput is getInterviewStats' structured result; only the requested metric's
// field is present.
type InterviewStatsOutput struct {
	Metric      string            `json:"metric"`
	Scope       toolkit.Scope     `json:"scope"`
	Window      toolkit.WindowOut `json:"window"`
	MediumTypes []string          `json:"mediumTypes,omitzero" jsonschema:"the mediumType filter applied"`

	CompletedCandidates *int64           `json:"completedCandidates,omitzero"`
	CompletedInterviews *int64           `json:"completedInterviews,omitzero"`
	AverageDuration     *DurationStats   `json:"averageDuration,omitzero"`
	ByInterviewer       []InterviewerRow `json:"byInterviewer,omitzero"`
	InterviewerJobs     *int64           `json:"interviewerJobs,omitzero" jsonschema:"byInterviewer: jobs with sessions in the window (rows are capped at 100)"`
	ByStatus            []StatusCount    `json:"byStatus,omitzero"`
	ByMediumType        []MediumCount    `json:"byMediumType,omitzero"`
	TotalSessions       *int64           `json:"totalSessions,omitzero" jsonschema:"byStatus, byMediumType, byInterviewer: all sessions in scope and window"`
	TopCandidates       []TopCandidate   `json:"topCandidates,omitzero"`
	Limit               *int             `json:"limit,omitzero" jsonschema:"topCandidates: the limit applied"`
	Decisions           []string         `json:"decisions,omitzero" jsonschema:"topCandidates: the decision filter applied"`
	toolkit.Notices
}

func interviewStats(ctx context.Context, call *toolkit.Call, in InterviewStatsInput) (InterviewStatsOutput, *toolkit.Text, error) {
	var out InterviewStatsOutput
	metric, err := toolkit.OneOf("metric", in.Metric, statsMetrics)
	if err != nil {
		return out, nil, err
	}
	mediums, err := toolkit.EachOf("mediumType", in.MediumType, models.AllMediumTypes())
	if err != nil {
		return out, nil, err
	}
	decisions, err := toolkit.EachOf("decision", in.Decision, models.AllDecisions())
	if err != nil {
		return out, nil, err
	}
	limit := 0
	if metric == metricTopCandidates {
		if limit, err = call.Limit("limit", in.Limit, topCandidatesDefault, 1, topCandidatesMax); err != nil {
			return out, nil, err
		}
	} else {
		if in.Limit != nil {
			call.Notice("limit applies only to metric topCandidates; ignored")
		}
		if len(decisions) > 0 {
			call.Notice("decision applies only to metric topCandidates; ignored")
		}
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, 0, nil)
	if err != nil {
		return out, nil, err
	}
	scope, err := call.Scope(ctx, in.ScopeArg)
	job := scope.JobID()
	if err != nil {
		return out, nil, err
	}
	basis := "completed_at"
	if metric == metricByStatus || metric == metricByInterviewer || metric == metricByMediumType {
		basis = "invited_at"
	}
	out = InterviewStatsOutput{Metric: string(metric), Scope: scope, Window: w.Out("interview_sessions." + basis), MediumTypes: toolkit.Strings(mediums)}

	q := toolkit.NewQuery(call.Company.ID)
	f := newFilters(q, job, mediums)

	t := &toolkit.Text{}
	t.H1("Interview stats: %s", metric)
	desc := map[string]string{"completed_at": "completion time", "invited_at": "invitation time"}[basis]
	t.KV("Scope", scope.String(), "Window", w.String()+" (by "+desc+")", "Media", mediaText(mediums))
	t.Blank()

	db := call.DB
	switch metric {
	case metricCompletedCandidates:
		n, err := completedCandidates(ctx, db, q, f, w)
		if err != nil {
			return out, nil, err
		}
		out.CompletedCandidates = &n
		t.KV("Completed candidates", count(n))
		t.Line("(distinct candidates with at least one COMPLETED interview)")
	case metricCompletedInterviews:
		c, err := completions(ctx, db, q, f, w)
		if err != nil {
			return out, nil, err
		}
		out.CompletedInterviews = &c.n
		t.KV("Completed interviews", count(c.n))
	case metricAverageDuration:
		c, err := completions(ctx, db, q, f, w)
		if err != nil {
			return out, nil, err
		}
		d := &DurationStats{Sessions: c.timed, WithoutDuration: c.n - c.timed}
		if c.timed > 0 {
			d.AverageSeconds = ptr(toolkit.Round(float64(c.seconds)/float64(c.timed), 1))
		}
		out.AverageDuration = d
		if d.Sessions == 0 {
			t.Line("No completed interview with a recorded duration in this scope and window.")
		} else {
			t.KV("Average", fmt.Sprintf("%s (%.1f s)", duration(*d.AverageSeconds), *d.AverageSeconds), "Sessions", count(d.Sessions))
		}
		if d.WithoutDuration > 0 {
			t.Line("%d completed session(s) have no recorded duration and are not included.", d.WithoutDuration)
		}
	case metricByStatus, metricByMediumType:
		counts, err := sessionCounts(ctx, db, q, f, w)
		if err != nil {
			return out, nil, err
		}
		if metric == metricByStatus {
			byStatus(counts, &out, t)
		} else {
			byMediumType(counts, mediums, &out, t)
		}
	case metricByInterviewer:
		if err := byInterviewer(ctx, call, q, f, w, &out, t); err != nil {
			return out, nil, err
		}
	case metricTopCandidates:
		out.Limit, out.Decisions = &limit, toolkit.Strings(decisions)
		if err := topCandidates(ctx, call, db, q, f, w, decisions, limit, &out, t); err != nil {
			return out, nil, err
		}
	}
	return out, t, nil
}

func mediaText(m []models.MediumType) string {
	if len(m) == 0 {
		return "all"
	}
	return fmt.Sprint(toolkit.Strings(m))
}

// completionCounts are completed sessions with their durations.
type completionCounts struct {
	n       int64 // completed sessions
	timed   int64 // of those, with a recorded duration
	seconds int64 // sum of the recorded durations
}

// completions counts the sessions completed in w: company-wide from completion_slot_totals
// (completion_slots with a medium filter) for the
// whole slots and the sessions of the partial slots at the ends, for a job from its sessions.
func completions(ctx context.Context, db toolkit.Querier, q *toolkit.Query, f filters, w toolkit.Window) (completionCounts, error) {
	source := func(w toolkit.Window) string {
		return `SELECT count(*), count(s.duration_seconds), coalesce(sum(s.duration_seconds), 0)
			FROM interview_sessions s WHERE s.company_id = $1 AND s.status = 'COMPLETED'` + f.on("s") + q.Range("s.completed_at", w)
	}
	var stmt string
	if f.job != "" {
		stmt = source(w)
	} else {
		// All media: completion_slot_totals (one row per slot, migration 00047).
		table := "completion_slot_totals"
		if f.media != "" {
			table = "completion_slots"
		}
		rollup := func(w toolkit.Window) string {
			return `SELECT sum(r.completed), sum(r.duration_n), sum(r.duration_sum)
				FROM ` + table + ` r WHERE r.company_id = $1` + f.on("r") + q.Range("r.slot", w)
		}
		stmt = `SELECT coalesce(sum(n), 0)::bigint, coalesce(sum(timed), 0)::bigint, coalesce(sum(seconds), 0)::bigint
			FROM (` + toolkit.SplitUnion(w, toolkit.Slot, rollup, source) + `) x(n, timed, seconds)`
	}
	var c completionCounts
	err := db.QueryRowContext(ctx, stmt, q.Args...).Scan(&c.n, &c.timed, &c.seconds)
	return c, err
}

// completedCandidates counts the distinct candidates with a session completed in w. Company-wide
// it reads the completion spans of candidate_journeys (all media) or candidate_media (per
// medium); for a job it reads the job's sessions.
func completedCandidates(ctx context.Context, db toolkit.Querier, q *toolkit.Query, f filters, w toolkit.Window) (int64, error) {
	var stmt string
	switch {
	case f.job != "":
		// DISTINCT in a subquery: Postgres streams candidates from an index in candidate order
		// (or hashes them) instead of sorting every session as count(DISTINCT) does.
		stmt = `SELECT count(*) FROM (SELECT DISTINCT s.candidate_id FROM interview_sessions s
			WHERE s.company_id = $1 AND s.status = 'COMPLETED'` + f.on("s") + q.Range("s.completed_at", w) + `) x`
	case f.nMedia == 0 && w.Since == nil && w.Until == nil:
		// All time: the candidates whose journey reached a completion.
		stmt = `SELECT coalesce(sum(candidates), 0)::bigint FROM journey_daily WHERE company_id = $1 AND completed`
	case f.nMedia == 0:
		// The candidates whose last completion is in w (most of them) from journey_last_daily for
		// the whole UTC days of w.
		last := func() string {
			return `SELECT coalesce(sum(n), 0)::bigint FROM (` + toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
				return `SELECT sum(r.candidates) FROM journey_last_daily r WHERE r.company_id = $1` + q.DayRange("r.day", w)
			}, func(w toolkit.Window) string {
				return `SELECT count(*) FROM candidate_journeys j WHERE j.company_id = $1 AND j.completed_n > 0` + q.Range("j.last_completed_at", w)
			}) + `) x(n)`
		}
		stmt = spanCount(q, w, `candidate_journeys j WHERE j.company_id = $1 AND j.completed_n > 0`, "", false, last)
	case f.nMedia == 1 && w.Since == nil && w.Until == nil:
		// All time by one medium: the candidates of candidate_media per medium.
		stmt = `SELECT coalesce(sum(candidates), 0)::bigint FROM media_candidates j WHERE j.company_id = $1` + f.on("j")
	default:
		// A candidate completed by one of the media in w when one of its rows for them did;
		// with several media a candidate can have several such rows.
		stmt = spanCount(q, w, `candidate_media j WHERE j.company_id = $1`+f.on("j"), f.on("s"), f.nMedia > 1, nil)
	}
	var n int64
	err := db.QueryRowContext(ctx, stmt, q.Args...).Scan(&n)
	return n, err
}

// spanCount is the statement counting the candidates of spans ("table j WHERE ...", rows with a
// candidate and the first_completed_at, last_completed_at and completed_n of some of its
// completions) with one of those completions in w: distinct candidates when a candidate can have
// several rows, else rows. Disjoint parts, each an index range of its own: the last completion in
// w; the first in w and the last after it; both outside w on either side with a completion in
// between (three completions or more), checked on the sessions matching sessionFilter.
//
// last, when not nil, gives the statement counting the first part (not with distinct).
func spanCount(q *toolkit.Query, w toolkit.Window, spans, sessionFilter string, distinct bool, last func() string) string {
	sel := `SELECT count(*) FROM ` + spans
	if distinct {
		sel = `SELECT j.candidate_id FROM ` + spans
	}
	var parts []string
	if last != nil && !distinct {
		parts = append(parts, last())
	} else {
		parts = append(parts, sel+q.Range("j.last_completed_at", w))
	}
	if w.Until != nil {
		until := q.Arg(*w.Until)
		parts = append(parts, sel+q.Range("j.first_completed_at", w)+" AND j.last_completed_at >= "+until)
		if w.Since != nil {
			since := q.Arg(*w.Since)
			parts = append(parts, sel+` AND j.completed_n >= 3 AND j.first_completed_at < `+since+` AND j.last_completed_at >= `+until+`
				AND EXISTS (SELECT 1 FROM interview_sessions s WHERE s.company_id = $1 AND s.candidate_id = j.candidate_id
					AND s.status = 'COMPLETED'`+sessionFilter+` AND s.completed_at >= `+since+` AND s.completed_at < `+until+`)`)
		}
	}
	if distinct {
		return "SELECT count(*) FROM (SELECT DISTINCT candidate_id FROM (" + strings.Join(parts, " UNION ALL ") + ") u) x"
	}
	return "SELECT (" + strings.Join(parts, ") + (") + ")"
}

// statusMedium keys session counts by status and medium.
type statusMedium struct{ status, medium string }

// sessionCounts counts the sessions invited in w by status and medium: company-wide from
// session_daily for the whole days and the sessions of the partial days at the ends, for a job
// from its sessions.
func sessionCounts(ctx context.Context, db toolkit.Querier, q *toolkit.Query, f filters, w toolkit.Window) (map[statusMedium]int64, error) {
	source := func(w toolkit.Window) string {
		return `SELECT s.status, s.medium_type, count(*) FROM interview_sessions s
			WHERE s.company_id = $1` + f.on("s") + q.Range("s.invited_at", w) + ` GROUP BY 1, 2`
	}
	var stmt string
	if f.job != "" {
		stmt = source(w)
	} else {
		rollup := func(w toolkit.Window) string {
			return `SELECT d.status, d.medium_type, sum(d.sessions) FROM session_daily d
				WHERE d.company_id = $1` + f.on("d") + q.DayRange("d.day", w) + ` GROUP BY 1, 2`
		}
		stmt = `SELECT status, medium_type, sum(n)::bigint FROM (` + toolkit.SplitUnion(w, toolkit.Day, rollup, source) + `) x(status, medium_type, n) GROUP BY 1, 2`
	}
	rows, err := db.QueryContext(ctx, stmt, q.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := map[statusMedium]int64{}
	for rows.Next() {
		var k statusMedium
		var n int64
		if err := rows.Scan(&k.status, &k.medium, &n); err != nil {
			return nil, err
		}
		counts[k] = n
	}
	return counts, rows.Err()
}

func byStatus(counts map[statusMedium]int64, out *InterviewStatsOutput, t *toolkit.Text) {
	perStatus := map[string]int64{}
	var total int64
	for k, n := range counts {
		perStatus[k.status] += n
		total += n
	}
	out.ByStatus = []StatusCount{}
	var table [][]string
	for _, st := range models.AllSessionStatuses() {
		n := perStatus[string(st)]
		c := StatusCount{Status: string(st), Count: n, Percent: toolkit.Percent(n, total)}
		out.ByStatus = append(out.ByStatus, c)
		table = append(table, []string{c.Status, count(c.Count), toolkit.Pct(c.Percent)})
	}
	out.TotalSessions = &total
	t.Table([]string{"Status", "Sessions", "Share"}, table, "")
	t.Blank()
	t.KV("Total sessions", count(total))
}

func byMediumType(counts map[statusMedium]int64, filter []models.MediumType, out *InterviewStatsOutput, t *toolkit.Text) {
	type sc struct{ sessions, completed int64 }
	perMedium := map[string]sc{}
	var total int64
	for k, n := range counts {
		c := perMedium[k.medium]
		c.sessions += n
		if k.status == string(models.SessionStatusCompleted) {
			c.completed += n
		}
		perMedium[k.medium] = c
		total += n
	}
	media := filter
	if len(media) == 0 {
		media = models.AllMediumTypes()
	}
	out.ByMediumType = []MediumCount{}
	var table [][]string
	for _, m := range media {
		c := perMedium[string(m)]
		r := MediumCount{MediumType: string(m), Sessions: c.sessions, Completed: c.completed, CompletionRate: toolkit.Percent(c.completed, c.sessions)}
		out.ByMediumType = append(out.ByMediumType, r)
		table = append(table, []string{r.MediumType, count(r.Sessions), count(r.Completed), toolkit.Pct(r.CompletionRate)})
	}
	out.TotalSessions = &total
	t.Table([]string{"Medium", "Sessions", "Completed", "Completion rate"}, table, "")
	t.Blank()
	t.KV("Total sessions", count(total))
}

// byInterviewer counts sessions invited in w per job: company-wide without a medium filter from
// job_totals (all time) or the running totals per job (toolkit.Query.JobDays) plus the sessions
// of the partial days at the window's ends;
// with a job or a medium filter from the sessions (job_daily has no medium).
func byInterviewer(ctx context.Context, call *toolkit.Call, q *toolkit.Query, f filters, w toolkit.Window, out *InterviewStatsOutput, t *toolkit.Text) error {
	source := func(w toolkit.Window) string {
		return `SELECT s.job_id, count(*) AS sessions, count(*) FILTER (WHERE s.status = 'COMPLETED') AS completed
			FROM interview_sessions s WHERE s.company_id = $1` + f.on("s") + q.Range("s.invited_at", w) + `
			GROUP BY s.job_id`
	}
	var agg string
	switch {
	case f.job != "" || f.media != "": // job_daily has no medium; one job's sessions are few
		agg = source(w)
	case w.Since == nil && w.Until == nil:
		agg = `SELECT t.job_id, t.sessions, t.completed FROM job_totals t WHERE t.company_id = $1 AND t.sessions > 0`
	default: // running totals for the whole UTC days of w, the sessions of the partial days
		agg = `SELECT job_id, sum(sessions)::bigint AS sessions, sum(completed)::bigint AS completed FROM (` +
			toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
				return `SELECT job_id, sessions, completed FROM (` + q.JobDays(w) + `) d(job_id, sessions, completed, evaluated)`
			}, source) + `) u GROUP BY job_id HAVING sum(sessions) > 0`
	}
	r, err := call.RankJobs(ctx, q, agg, "a.count DESC, a.part DESC", maxInterviewerRows, "sessions", "sessions")
	if err != nil {
		return err
	}
	out.ByInterviewer = make([]InterviewerRow, 0, len(r.Rows))
	for _, j := range r.Rows {
		out.ByInterviewer = append(out.ByInterviewer, InterviewerRow{JobID: j.ID.String(), JobTitle: j.Title, JobStatus: j.Status, JobLink: j.Link,
			Sessions: j.Count, Completed: j.Part, CompletionRate: j.Rate})
	}
	out.InterviewerJobs, out.TotalSessions = &r.Jobs, &r.Count
	r.Table(t, "Job (interviewer)", "Sessions", "Completed", "Completion rate", "No sessions in this scope and window.")
	t.Blank()
	t.KV("Jobs", count(r.Jobs), "Total sessions", count(r.Count))
	t.Line("Completion rate = sessions now COMPLETED / sessions invited in the window.")
	return nil
}

// topCandidates ranks candidates by their best rated completed session, one row each. The
// sessions are walked in rank order (an index walk, interview_sessions_company_rank_idx) a page at
// a time, each page joined to its candidates and jobs; a candidate's first session in that order
// is their best, later ones are skipped, and the walk stops once limit candidates are found. (A
// candidate has few sessions, so one page of a little more than limit rows nearly always does.)
func topCandidates(ctx context.Context, call *toolkit.Call, db toolkit.Querier, q *toolkit.Query, f filters, w toolkit.Window, decisions []models.Decision, limit int, out *InterviewStatsOutput, t *toolkit.Text) error {
	decision := ""
	if len(decisions) > 0 {
		decision = " AND s.decision = ANY(" + q.Arg(toolkit.Strings(decisions)) + "::text[])"
	}
	page := limit + limit/4 + 4
	where := f.on("s") + decision + q.Range("s.completed_at", w)
	stmt := `WITH top AS (
			SELECT s.id, s.candidate_id, s.job_id, s.recruiter_rating, s.service_rating, s.decision, s.medium_type, s.completed_at
			FROM interview_sessions s
			WHERE s.company_id = $1 AND s.status = 'COMPLETED'
			  AND (s.recruiter_rating IS NOT NULL OR s.service_rating IS NOT NULL)` + where + `
			ORDER BY s.recruiter_rating DESC NULLS LAST, s.service_rating DESC NULLS LAST, s.completed_at DESC, s.id
			LIMIT ` + q.Arg(page) + ` OFFSET ` + q.Arg(0) + `)
		SELECT top.id, top.candidate_id, c.first_name, c.last_name, c.email, top.job_id, j.title, top.recruiter_rating, top.service_rating,
			top.decision, top.medium_type, top.completed_at
		FROM top
		JOIN candidates c ON c.company_id = $1 AND c.id = top.candidate_id
		JOIN jobs j ON j.company_id = $1 AND j.id = top.job_id
		ORDER BY top.recruiter_rating DESC NULLS LAST, top.service_rating DESC NULLS LAST, top.completed_at DESC, top.id`
	offsetArg := len(q.Args) - 1
	out.TopCandidates = []TopCandidate{}
	seen := map[uuid.UUID]bool{}
	var table [][]string
	for start := 0; len(out.TopCandidates) < limit; start += page {
		q.Args[offsetArg] = start
		n, err := rankPage(ctx, call, db, stmt, q.Args, limit, seen, out, &table)
		if err != nil {
			return fmt.Errorf("rank top candidates: %w", err)
		}
		if n < page {
			break
		}
	}
	filter := "all decisions"
	if len(decisions) > 0 {
		filter = "decision in " + fmt.Sprint(toolkit.Strings(decisions))
	}
	t.Line("Candidates ranked by their best completed interview (recruiter rating, then AI service rating; unrated sessions are left out), one row each; %s; limit %d.", filter, limit)
	t.Blank()
	t.Table([]string{"#", "Candidate", "Job", "Recruiter", "Service", "Decision", "Completed", "Candidate link", "Session link"}, table,
		"No rated completed interview in this scope and window.")
	return nil
}

// rankPage reads one page of ranked sessions, adding the best session of every candidate not
// seen yet until out holds limit of them; it returns how many sessions the page had.
func rankPage(ctx context.Context, call *toolkit.Call, db toolkit.Querier, stmt string, args []any, limit int, seen map[uuid.UUID]bool,
	out *InterviewStatsOutput, table *[][]string) (int, error) {
	rows, err := db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		var r TopCandidate
		var sid, cid, jid uuid.UUID
		var first, last string
		var email sql.NullString
		var rr, sr sql.NullFloat64
		var completed sql.NullTime
		if err := rows.Scan(&sid, &cid, &first, &last, &email, &jid, &r.JobTitle, &rr, &sr, &r.Decision, &r.MediumType, &completed); err != nil {
			return n, err
		}
		if seen[cid] || len(out.TopCandidates) >= limit {
			continue
		}
		seen[cid] = true
		r.Rank = len(out.TopCandidates) + 1
		r.SessionID, r.SessionLink = sid.String(), call.Env.Links.Session(sid)
		r.CandidateID, r.CandidateLink, r.CandidateName, r.CandidateEmail = cid.String(), call.Env.Links.Candidate(cid), fullName(first, last), toolkit.NullString(email)
		r.JobID = jid.String()
		r.RecruiterRating, r.ServiceRating = toolkit.NullFloat(rr), toolkit.NullFloat(sr)
		r.CompletedAt = toolkit.Timestamp(completed.Time)
		out.TopCandidates = append(out.TopCandidates, r)
		*table = append(*table, []string{fmt.Sprint(r.Rank), r.CandidateName, toolkit.OrDash(r.JobTitle), toolkit.Num(r.RecruiterRating), toolkit.Num(r.ServiceRating),
			r.Decision, toolkit.Date(completed.Time), r.CandidateLink, r.SessionLink})
	}
	return n, rows.Err()
}
