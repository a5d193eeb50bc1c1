package interviewtools

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

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
			"- averageDuration: mean and median length (seconds) of completed interviews.\n" +
			"- byInterviewer: per job, sessions invited, sessions completed and completion rate (completed / invited).\n" +
			"- byStatus: sessions per status (INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED).\n" +
			"- byMediumType: sessions and completed sessions per interview medium (VIDEO, PHONE, ...).\n" +
			"- topCandidates: best-rated completed interviews, ranked by recruiter rating, then by the AI service rating; " +
			"limit (default 10, max 100) and decision filter apply only here.\n" +
			"Dates: sinceDate/untilDate are ISO dates (untilDate inclusive) or RFC 3339 timestamps, no default (all time). " +
			"Completion metrics (completedCandidates, completedInterviews, averageDuration, topCandidates) filter on the completion time; " +
			"byStatus, byInterviewer and byMediumType filter on the invitation time (the cohort of sessions invited in the window). " +
			"Scope: positionId limits to one job; without it the client's current job context is used when there is one; companyWide=true ignores both. " +
			"mediumType filters every metric. Needs no company feature flag.",
		InputSchema: toolkit.InputSchema[InterviewStatsInput](map[string][]string{"metric": toolkit.Strings(statsMetrics)}),
	}, interviewStats)
}

// InterviewStatsInput are getInterviewStats' arguments.
type InterviewStatsInput struct {
	Metric      string   `json:"metric" jsonschema:"the metric: completedCandidates, completedInterviews, averageDuration, byInterviewer, byStatus, byMediumType or topCandidates"`
	PositionID  string   `json:"positionId,omitempty" jsonschema:"job UUID to limit to; defaults to the current job context when the client has one"`
	CompanyWide bool     `json:"companyWide,omitempty" jsonschema:"true for company-wide figures even when a job context is present"`
	SinceDate   string   `json:"sinceDate,omitempty" jsonschema:"inclusive start: ISO date (YYYY-MM-DD, UTC) or RFC 3339 timestamp; omitted means no lower bound"`
	UntilDate   string   `json:"untilDate,omitempty" jsonschema:"end: an ISO date includes that whole day (UTC); an RFC 3339 timestamp is exclusive; omitted means no upper bound"`
	Limit       *int     `json:"limit,omitempty" jsonschema:"topCandidates only: how many to return, default 10, max 100 (larger values are clamped)"`
	Decision    []string `json:"decision,omitempty" jsonschema:"topCandidates only: keep sessions whose recruiter decision is one of NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED"`
	MediumType  []string `json:"mediumType,omitempty" jsonschema:"keep sessions of these interview media: VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS, NONE (applies to every metric)"`
	toolkit.CompanyArg
}

// DurationStats summarises completed interviews' durations.
type DurationStats struct {
	Sessions        int64    `json:"sessions" jsonschema:"completed sessions with a recorded duration"`
	WithoutDuration int64    `json:"withoutDuration" jsonschema:"completed sessions without a recorded duration (not averaged)"`
	AverageSeconds  *float64 `json:"averageSeconds" jsonschema:"mean duration in seconds (one decimal); null when no session"`
	MedianSeconds   *float64 `json:"medianSeconds" jsonschema:"median duration in seconds; null when no session"`
	MinSeconds      *int64   `json:"minSeconds" jsonschema:"shortest duration in seconds"`
	MaxSeconds      *int64   `json:"maxSeconds" jsonschema:"longest duration in seconds"`
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

// TopCandidate is one ranked completed session.
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
	Metric      string    `json:"metric"`
	Scope       Scope     `json:"scope"`
	Window      WindowOut `json:"window"`
	MediumTypes []string  `json:"mediumTypes,omitzero" jsonschema:"the mediumType filter applied"`

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
	scope, job, err := resolveScope(ctx, call, in.PositionID, in.CompanyWide)
	if err != nil {
		return out, nil, err
	}
	basis := "completed_at"
	if metric == metricByStatus || metric == metricByInterviewer || metric == metricByMediumType {
		basis = "invited_at"
	}
	out = InterviewStatsOutput{Metric: string(metric), Scope: scope, Window: windowOut(w, "interview_sessions."+basis), MediumTypes: toolkit.Strings(mediums)}

	q := toolkit.NewQuery(call.Company.ID)
	if job != nil {
		q.Where("s.job_id = %s", q.Arg(*job))
	}
	if len(mediums) > 0 {
		q.Where("s.medium_type = ANY(%s::text[])", q.Arg(toolkit.Strings(mediums)))
	}
	q.Window("s."+basis, w)

	t := &toolkit.Text{}
	t.H1("Interview stats: %s", metric)
	desc := map[string]string{"completed_at": "completion time", "invited_at": "invitation time"}[basis]
	t.KV("Scope", scope.text(), "Window", w.String()+" (by "+desc+")", "Media", mediaText(mediums))
	t.Blank()

	db, err := begin(ctx, call)
	if err != nil {
		return out, nil, err
	}
	defer db.Rollback()
	switch metric {
	case metricCompletedCandidates, metricCompletedInterviews:
		stmt := `SELECT count(*) FROM interview_sessions s WHERE s.company_id = $1 AND s.status = 'COMPLETED'` + q.And()
		if metric == metricCompletedCandidates {
			// DISTINCT in a subquery: Postgres streams candidates from an index in candidate order
			// (or hashes them) instead of sorting every session as count(DISTINCT) does.
			stmt = `SELECT count(*) FROM (SELECT DISTINCT s.candidate_id FROM interview_sessions s
				WHERE s.company_id = $1 AND s.status = 'COMPLETED'` + q.And() + `) x`
		}
		var n int64
		if err := db.QueryRowContext(ctx, stmt, q.Args...).Scan(&n); err != nil {
			return out, nil, err
		}
		if metric == metricCompletedCandidates {
			out.CompletedCandidates = &n
			t.KV("Completed candidates", count(n))
			t.Line("(distinct candidates with at least one COMPLETED interview)")
		} else {
			out.CompletedInterviews = &n
			t.KV("Completed interviews", count(n))
		}
	case metricAverageDuration:
		d, err := durationStats(ctx, db, q)
		if err != nil {
			return out, nil, err
		}
		out.AverageDuration = d
		if d.Sessions == 0 {
			t.Line("No completed interview with a recorded duration in this scope and window.")
		} else {
			t.KV("Average", fmt.Sprintf("%s (%.1f s)", duration(*d.AverageSeconds), *d.AverageSeconds),
				"Median", fmt.Sprintf("%s (%.1f s)", duration(*d.MedianSeconds), *d.MedianSeconds),
				"Shortest", duration(float64(*d.MinSeconds)),
				"Longest", duration(float64(*d.MaxSeconds)),
				"Sessions", count(d.Sessions))
		}
		if d.WithoutDuration > 0 {
			t.Line("%d completed session(s) have no recorded duration and are not included.", d.WithoutDuration)
		}
	case metricByStatus:
		if err := byStatus(ctx, db, q, &out, t); err != nil {
			return out, nil, err
		}
	case metricByMediumType:
		if err := byMediumType(ctx, db, q, mediums, &out, t); err != nil {
			return out, nil, err
		}
	case metricByInterviewer:
		if err := byInterviewer(ctx, call, db, q, &out, t); err != nil {
			return out, nil, err
		}
	case metricTopCandidates:
		out.Limit, out.Decisions = &limit, toolkit.Strings(decisions)
		if err := topCandidates(ctx, call, db, q, decisions, limit, &out, t); err != nil {
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

// durationStats computes mean and exact median from the histogram of durations (one row per
// distinct duration), which Postgres aggregates without sorting the sessions.
func durationStats(ctx context.Context, db querier, q *toolkit.Query) (*DurationStats, error) {
	rows, err := db.QueryContext(ctx, `SELECT s.duration_seconds, count(*) FROM interview_sessions s
		WHERE s.company_id = $1 AND s.status = 'COMPLETED'`+q.And()+` GROUP BY 1`, q.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type bin struct{ v, n int64 }
	var bins []bin
	d := &DurationStats{}
	for rows.Next() {
		var v sql.NullInt64
		var n int64
		if err := rows.Scan(&v, &n); err != nil {
			return nil, err
		}
		if !v.Valid {
			d.WithoutDuration += n
			continue
		}
		bins = append(bins, bin{v.Int64, n})
		d.Sessions += n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if d.Sessions == 0 {
		return d, nil
	}
	slices.SortFunc(bins, func(a, b bin) int { return int(a.v - b.v) })
	var sum float64
	for _, b := range bins {
		sum += float64(b.v) * float64(b.n)
	}
	// nth returns the k-th (0-based) duration in ascending order.
	nth := func(k int64) int64 {
		for _, b := range bins {
			if k < b.n {
				return b.v
			}
			k -= b.n
		}
		return bins[len(bins)-1].v
	}
	n := d.Sessions
	median := float64(nth(n / 2))
	if n%2 == 0 {
		median = (float64(nth(n/2-1)) + median) / 2
	}
	d.AverageSeconds = ptr(toolkit.Round(sum/float64(n), 1))
	d.MedianSeconds = ptr(median)
	d.MinSeconds, d.MaxSeconds = ptr(bins[0].v), ptr(bins[len(bins)-1].v)
	return d, nil
}

func byStatus(ctx context.Context, db querier, q *toolkit.Query, out *InterviewStatsOutput, t *toolkit.Text) error {
	rows, err := db.QueryContext(ctx, `SELECT s.status, count(*) FROM interview_sessions s
		WHERE s.company_id = $1`+q.And()+` GROUP BY 1`, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	counts := map[string]int64{}
	var total int64
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return err
		}
		counts[st] = n
		total += n
	}
	if err := rows.Err(); err != nil {
		return err
	}
	out.ByStatus = []StatusCount{}
	var table [][]string
	for _, st := range models.AllSessionStatuses() {
		c := StatusCount{Status: string(st), Count: counts[string(st)], Percent: toolkit.Percent(counts[string(st)], total)}
		out.ByStatus = append(out.ByStatus, c)
		table = append(table, []string{c.Status, count(c.Count), toolkit.Pct(c.Percent)})
	}
	out.TotalSessions = &total
	t.Table([]string{"Status", "Sessions", "Share"}, table, "")
	t.Blank()
	t.KV("Total sessions", count(total))
	return nil
}

func byMediumType(ctx context.Context, db querier, q *toolkit.Query, filter []models.MediumType, out *InterviewStatsOutput, t *toolkit.Text) error {
	rows, err := db.QueryContext(ctx, `SELECT s.medium_type, count(*), count(*) FILTER (WHERE s.status = 'COMPLETED')
		FROM interview_sessions s WHERE s.company_id = $1`+q.And()+` GROUP BY 1`, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	type sc struct{ sessions, completed int64 }
	counts := map[string]sc{}
	var total int64
	for rows.Next() {
		var m string
		var c sc
		if err := rows.Scan(&m, &c.sessions, &c.completed); err != nil {
			return err
		}
		counts[m] = c
		total += c.sessions
	}
	if err := rows.Err(); err != nil {
		return err
	}
	media := filter
	if len(media) == 0 {
		media = models.AllMediumTypes()
	}
	out.ByMediumType = []MediumCount{}
	var table [][]string
	for _, m := range media {
		c := counts[string(m)]
		r := MediumCount{MediumType: string(m), Sessions: c.sessions, Completed: c.completed, CompletionRate: toolkit.Percent(c.completed, c.sessions)}
		out.ByMediumType = append(out.ByMediumType, r)
		table = append(table, []string{r.MediumType, count(r.Sessions), count(r.Completed), toolkit.Pct(r.CompletionRate)})
	}
	out.TotalSessions = &total
	t.Table([]string{"Medium", "Sessions", "Completed", "Completion rate"}, table, "")
	t.Blank()
	t.KV("Total sessions", count(total))
	return nil
}

func byInterviewer(ctx context.Context, call *toolkit.Call, db querier, q *toolkit.Query, out *InterviewStatsOutput, t *toolkit.Text) error {
	lim := q.Arg(maxInterviewerRows)
	rows, err := db.QueryContext(ctx, `WITH agg AS (
			SELECT s.job_id, count(*) AS sessions, count(*) FILTER (WHERE s.status = 'COMPLETED') AS completed
			FROM interview_sessions s WHERE s.company_id = $1`+q.And()+`
			GROUP BY s.job_id)
		SELECT a.job_id, j.title, j.status, a.sessions, a.completed, count(*) OVER (), sum(a.sessions) OVER ()
		FROM agg a JOIN jobs j ON j.company_id = $1 AND j.id = a.job_id
		ORDER BY a.sessions DESC, a.completed DESC, j.title, a.job_id
		LIMIT `+lim, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	out.ByInterviewer = []InterviewerRow{}
	var jobs, total int64
	var table [][]string
	for rows.Next() {
		var r InterviewerRow
		var id uuid.UUID
		if err := rows.Scan(&id, &r.JobTitle, &r.JobStatus, &r.Sessions, &r.Completed, &jobs, &total); err != nil {
			return err
		}
		r.JobID, r.JobLink = id.String(), call.Env.Links.Job(id)
		r.CompletionRate = toolkit.Percent(r.Completed, r.Sessions)
		out.ByInterviewer = append(out.ByInterviewer, r)
		table = append(table, []string{orDash(r.JobTitle), count(r.Sessions), count(r.Completed), toolkit.Pct(r.CompletionRate), r.JobLink})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if jobs > maxInterviewerRows {
		call.Notice("%d jobs have sessions; showing the %d with the most sessions", jobs, maxInterviewerRows)
	}
	out.InterviewerJobs, out.TotalSessions = &jobs, &total
	t.Table([]string{"Job (interviewer)", "Sessions", "Completed", "Completion rate", "Link"}, table, "No sessions in this scope and window.")
	t.Blank()
	t.KV("Jobs", count(jobs), "Total sessions", count(total))
	t.Line("Completion rate = sessions now COMPLETED / sessions invited in the window.")
	return nil
}

func topCandidates(ctx context.Context, call *toolkit.Call, db querier, q *toolkit.Query, decisions []models.Decision, limit int, out *InterviewStatsOutput, t *toolkit.Text) error {
	if len(decisions) > 0 {
		q.Where("s.decision = ANY(%s::text[])", q.Arg(toolkit.Strings(decisions)))
	}
	lim := q.Arg(limit)
	rows, err := db.QueryContext(ctx, `SELECT s.id, s.candidate_id, c.first_name, c.last_name, c.email,
			s.job_id, j.title, s.recruiter_rating, s.service_rating, s.decision, s.medium_type, s.completed_at
		FROM interview_sessions s
		JOIN candidates c ON c.company_id = $1 AND c.id = s.candidate_id
		JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id
		WHERE s.company_id = $1 AND s.status = 'COMPLETED'
		  AND (s.recruiter_rating IS NOT NULL OR s.service_rating IS NOT NULL)`+q.And()+`
		ORDER BY s.recruiter_rating DESC NULLS LAST, s.service_rating DESC NULLS LAST, s.completed_at DESC, s.id
		LIMIT `+lim, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	out.TopCandidates = []TopCandidate{}
	var table [][]string
	for rows.Next() {
		var r TopCandidate
		var sid, cid, jid uuid.UUID
		var first, last string
		var email sql.NullString
		var rr, sr sql.NullFloat64
		var completed sql.NullTime
		if err := rows.Scan(&sid, &cid, &first, &last, &email, &jid, &r.JobTitle, &rr, &sr, &r.Decision, &r.MediumType, &completed); err != nil {
			return err
		}
		r.Rank = len(out.TopCandidates) + 1
		r.SessionID, r.SessionLink = sid.String(), call.Env.Links.Session(sid)
		r.CandidateID, r.CandidateLink, r.CandidateName, r.CandidateEmail = cid.String(), call.Env.Links.Candidate(cid), fullName(first, last), nullString(email)
		r.JobID = jid.String()
		r.RecruiterRating, r.ServiceRating = nullFloat(rr), nullFloat(sr)
		r.CompletedAt = toolkit.Timestamp(completed.Time)
		out.TopCandidates = append(out.TopCandidates, r)
		table = append(table, []string{fmt.Sprint(r.Rank), r.CandidateName, orDash(r.JobTitle), toolkit.Num(r.RecruiterRating), toolkit.Num(r.ServiceRating),
			r.Decision, toolkit.Date(completed.Time), r.CandidateLink, r.SessionLink})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	filter := "all decisions"
	if len(decisions) > 0 {
		filter = "decision in " + fmt.Sprint(toolkit.Strings(decisions))
	}
	t.Line("Completed interviews ranked by recruiter rating, then AI service rating (unrated sessions are left out); %s; limit %d.", filter, limit)
	t.Blank()
	t.Table([]string{"#", "Candidate", "Job", "Recruiter", "Service", "Decision", "Completed", "Candidate link", "Session link"}, table,
		"No rated completed interview in this scope and window.")
	return nil
}
