package interviewtools

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

type cheatingMetric string

const (
	cheatFlaggedCandidates cheatingMetric = "flaggedCandidates"
	cheatFlaggedInterviews cheatingMetric = "flaggedInterviews"
	cheatFlaggedPercentage cheatingMetric = "flaggedPercentage"
	cheatByJob             cheatingMetric = "byJob"
	cheatFlaggedDetails    cheatingMetric = "flaggedDetails"
)

var cheatingMetrics = []cheatingMetric{cheatFlaggedCandidates, cheatFlaggedInterviews, cheatFlaggedPercentage, cheatByJob, cheatFlaggedDetails}

type jobSort string

const (
	sortByRate  jobSort = "rate"
	sortByCount jobSort = "count"
)

var jobSorts = []jobSort{sortByRate, sortByCount}

// Bounds of getCheatingDetectionStats.
const (
	cheatingMaxJobs    = 100
	cheatingMaxDetails = 50
)

func registerCheatingStats(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getCheatingDetectionStats",
		Title: "Cheating detection statistics",
		Description: "Cheating during the interview, as judged by the model-based evaluation of each interview session (eye and head tracking, voice, " +
			"transcript, multiple persons). A session is flagged when its cheating score is at or above the company's cheat threshold. " +
			"For identity signals use getFraudVerificationStats; for government-ID checks getIdentityVerificationStats; for one candidate getCandidateVerification. " +
			"Pick one metric:\n" +
			"- flaggedCandidates: distinct candidates with at least one flagged session.\n" +
			"- flaggedInterviews: number of flagged sessions.\n" +
			"- flaggedPercentage: flagged sessions / evaluated sessions.\n" +
			"- byJob: per job, evaluated and flagged sessions and the flag rate; sortByJobMetric rate (default; ties by count) or count; top 100 jobs.\n" +
			"- flaggedDetails: the flagged sessions with their sub-scores, highest score first (at most 50).\n" +
			"sinceDate/untilDate filter on the evaluation time (ISO dates, untilDate inclusive, UTC; default all time). " +
			"Scope: positionId limits to one job; otherwise the client's current job context applies when present; companyWide: true ignores the job context (positionId together with companyWide: true is refused). " +
			"Requires the company flag model_cheat_detection_enabled or fraud_detection_enabled.",
		InputSchema: toolkit.InputSchema[CheatingStatsInput](map[string][]string{"metric": toolkit.Strings(cheatingMetrics), "sortByJobMetric": toolkit.Strings(jobSorts)}),
	}, cheatingStats)
}

// CheatingStatsInput are getCheatingDetectionStats' arguments.
type CheatingStatsInput struct {
	Metric string `json:"metric" jsonschema:"the metric: flaggedCandidates, flaggedInterviews, flaggedPercentage, byJob or flaggedDetails"`
	toolkit.ScopeArg
	SortByJobMetric string `json:"sortByJobMetric,omitempty" jsonschema:"byJob only: rate (flagged / evaluated, default) or count (flagged sessions)"`
	toolkit.WindowArg
	toolkit.CompanyArg
}

// CheatingJobRow is one job of byJob.
type CheatingJobRow struct {
	JobID       string   `json:"jobId"`
	JobTitle    string   `json:"jobTitle"`
	JobLink     string   `json:"jobLink"`
	Evaluated   int64    `json:"evaluated" jsonschema:"sessions with a cheating evaluation"`
	Flagged     int64    `json:"flagged" jsonschema:"sessions at or above the threshold"`
	FlaggedRate *float64 `json:"flaggedRate" jsonschema:"flagged / evaluated in percent (one decimal)"`
}

// CheatingScores are the sub-scores of an evaluation (0-100; null when not measured).
type CheatingScores struct {
	EyeTracking  *float64 `json:"eyeTracking"`
	HeadTracking *float64 `json:"headTracking"`
	Voice        *float64 `json:"voice"`
	Transcript   *float64 `json:"transcript"`
	MultiPerson  *float64 `json:"multiPerson"`
}

// FlaggedSession is one flagged session of flaggedDetails.
type FlaggedSession struct {
	SessionID     string            `json:"sessionId"`
	SessionLink   string            `json:"sessionLink"`
	CandidateID   string            `json:"candidateId"`
	CandidateName string            `json:"candidateName"`
	CandidateLink string            `json:"candidateLink"`
	JobID         string            `json:"jobId"`
	JobTitle      string            `json:"jobTitle"`
	CheatingScore float64           `json:"cheatingScore"`
	SubScores     CheatingScores    `json:"subScores"`
	EvaluatedAt   string            `json:"evaluatedAt"`
	Evidence      *CheatingEvidence `json:"evidence" jsonschema:"why: per answer the page's pasted characters, time away and typing pace, the server's timing and identical answers; what was not checked"`
}

// CheatingStatsOutput is getCheatingDetectionStats' structured result.
type CheatingStatsOutput struct {
	Metric            string            `json:"metric"`
	Scope             toolkit.Scope     `json:"scope"`
	Window            toolkit.WindowOut `json:"window"`
	Threshold         float64           `json:"threshold" jsonschema:"the company's cheat threshold; flagged means score >= threshold"`
	FlaggedCandidates *int64            `json:"flaggedCandidates,omitzero"`
	FlaggedInterviews *int64            `json:"flaggedInterviews,omitzero"`
	Evaluated         *int64            `json:"evaluated,omitzero" jsonschema:"flaggedPercentage, byJob: sessions with an evaluation"`
	FlaggedPercentage *float64          `json:"flaggedPercentage,omitzero" jsonschema:"flagged / evaluated in percent (one decimal); absent when nothing was evaluated"`
	ByJob             []CheatingJobRow  `json:"byJob,omitzero"`
	SortByJobMetric   string            `json:"sortByJobMetric,omitzero"`
	Jobs              *int64            `json:"jobs,omitzero" jsonschema:"byJob: jobs with evaluations (rows capped at 100)"`
	FlaggedDetails    []FlaggedSession  `json:"flaggedDetails,omitzero"`
	TotalFlagged      *int64            `json:"totalFlagged,omitzero" jsonschema:"flaggedDetails: all flagged sessions (at most 50 are listed)"`
	toolkit.Notices
}

func cheatingStats(ctx context.Context, call *toolkit.Call, in CheatingStatsInput) (CheatingStatsOutput, *toolkit.Text, error) {
	var out CheatingStatsOutput
	metric, err := toolkit.OneOf("metric", in.Metric, cheatingMetrics)
	if err != nil {
		return out, nil, err
	}
	sort := sortByRate
	if in.SortByJobMetric != "" {
		if sort, err = toolkit.OneOf("sortByJobMetric", in.SortByJobMetric, jobSorts); err != nil {
			return out, nil, err
		}
		if metric != cheatByJob {
			call.Notice("sortByJobMetric applies only to metric byJob; ignored")
		}
	}
	co := call.Company
	if !co.ModelCheatDetectionEnabled && !co.FraudDetectionEnabled {
		return out, nil, toolkit.Errorf("cheating detection is off for company %s: enable model_cheat_detection_enabled (model-based cheating detection) "+
			"or fraud_detection_enabled in the company settings; getCompanyFeatures shows the current flags", co.Name)
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
	out = CheatingStatsOutput{Metric: string(metric), Scope: scope, Window: w.Out("cheating_evaluations.created_at"), Threshold: co.CheatThreshold}

	q := toolkit.NewQuery(co.ID)
	thr := q.Arg(co.CheatThreshold)
	flagged := "ce.cheating_score >= " + thr + "::numeric"
	// from is the evaluations in scope. They carry their session's candidate and job, so
	// company-wide figures read the evaluations alone (flagged ones: a range of
	// cheating_evaluations_company_score_idx); a job's evaluations are found through its sessions.
	from := " FROM cheating_evaluations ce"
	if job != nil {
		from += " JOIN interview_sessions s ON s.company_id = $1 AND s.id = ce.session_id AND s.job_id = " + q.Arg(*job)
	}
	from += " WHERE ce.company_id = $1" + q.Range("ce.created_at", w)

	t := &toolkit.Text{}
	t.H1("Cheating detection: %s", metric)
	t.KV("Scope", scope.String(), "Window", w.String()+" (by evaluation time)",
		"Flag rule", fmt.Sprintf("cheating score >= %s (company cheat threshold)", toolkit.Num(&co.CheatThreshold)))
	t.Blank()
	db := call.DB
	switch metric {
	case cheatFlaggedCandidates:
		// Company-wide for all time from candidate_scores, since a date from flag_last_daily;
		// otherwise (a job, a window with an end) the flagged evaluations.
		var n int64
		stmt, args := `SELECT count(*) FROM (SELECT DISTINCT ce.candidate_id`+from+` AND `+flagged+`) x`, q.Args
		switch {
		case job == nil && w.Since == nil && w.Until == nil:
			cq := toolkit.NewQuery(co.ID)
			stmt, args = flaggedCandidates(cq, "cheating", co.CheatThreshold), cq.Args
		case job == nil && w.Until == nil:
			cq := toolkit.NewQuery(co.ID)
			stmt, args = evaluationScores.flaggedCandidatesSince(cq, "cheating", w, co.CheatThreshold), cq.Args
		}
		if err := db.QueryRowContext(ctx, stmt, args...).Scan(&n); err != nil {
			return out, nil, err
		}
		out.FlaggedCandidates = &n
		t.KV("Flagged candidates", count(n))
		t.Line("(distinct candidates with at least one flagged interview)")
	case cheatFlaggedInterviews:
		var n int64
		stmt, args := flaggedStmt(q, from, flagged, job, w, co)
		if err := db.QueryRowContext(ctx, stmt, args...).Scan(&n); err != nil {
			return out, nil, err
		}
		out.FlaggedInterviews = &n
		t.KV("Flagged interviews", count(n))
	case cheatFlaggedPercentage:
		var evaluated, flaggedN int64
		// A job's evaluations in one pass; company-wide, evaluation_scores and evaluation_daily.
		stmt, args := `SELECT count(*) FILTER (WHERE `+flagged+`), count(*)`+from, q.Args
		if job == nil {
			cq := toolkit.NewQuery(co.ID)
			stmt, args = `SELECT (`+evaluationScores.flaggedCount(cq, w, co.CheatThreshold)+`), (`+evaluatedCount(cq, w)+`)`, cq.Args
		}
		if err := db.QueryRowContext(ctx, stmt, args...).Scan(&flaggedN, &evaluated); err != nil {
			return out, nil, err
		}
		out.FlaggedInterviews, out.Evaluated = &flaggedN, &evaluated
		out.FlaggedPercentage = toolkit.Percent(flaggedN, evaluated)
		t.KV("Flagged percentage", toolkit.Pct(out.FlaggedPercentage), "Flagged interviews", count(flaggedN), "Evaluated interviews", count(evaluated))
	case cheatByJob:
		if err := cheatingByJob(ctx, call, q, from, thr, flagged, job, w, sort, &out, t); err != nil {
			return out, nil, err
		}
	case cheatFlaggedDetails:
		if err := cheatingDetails(ctx, call, db, q, from, flagged, job, w, &out, t); err != nil {
			return out, nil, err
		}
	}
	return out, t, nil
}

// flaggedStmt is the statement counting the flagged evaluations in scope, with its arguments: a
// job's from its evaluations (q's), the company's from evaluation_scores (see
// scoreHistogram.flaggedCount).
func flaggedStmt(q *toolkit.Query, from, flagged string, job *uuid.UUID, w toolkit.Window, co *models.Company) (string, []any) {
	if job != nil {
		return `SELECT count(*)` + from + ` AND ` + flagged, q.Args
	}
	cq := toolkit.NewQuery(co.ID)
	return evaluationScores.flaggedCount(cq, w, co.CheatThreshold), cq.Args
}

// evaluatedCount is the statement counting the company's evaluations in w: evaluation_daily for
// the whole days and the evaluations of the partial days at the ends.
func evaluatedCount(q *toolkit.Query, w toolkit.Window) string {
	rollup := func(w toolkit.Window) string {
		return `SELECT sum(d.evaluated) FROM evaluation_daily d WHERE d.company_id = $1` + q.DayRange("d.day", w)
	}
	source := func(w toolkit.Window) string {
		return `SELECT count(*) FROM cheating_evaluations ce WHERE ce.company_id = $1` + q.Range("ce.created_at", w)
	}
	return `SELECT coalesce(sum(n), 0)::bigint FROM (` + toolkit.SplitUnion(w, toolkit.Day, rollup, source) + `) x(n)`
}

// cheatingByJob lists jobs by flag rate or count. Company-wide, the evaluated and flagged counts
// are the running counts per job and score point (byJobDays: two rows per job); for one job, one
// pass over its evaluations.
func cheatingByJob(ctx context.Context, call *toolkit.Call, q *toolkit.Query, from, thr, flagged string, job *uuid.UUID, w toolkit.Window,
	sort jobSort, out *CheatingStatsOutput, t *toolkit.Text) error {
	agg := `SELECT ce.job_id, count(*) AS evaluated, count(*) FILTER (WHERE ` + flagged + `) AS flagged` + from + ` GROUP BY ce.job_id`
	if job == nil {
		// A statement of its own: from's window and the threshold are arguments where used.
		q = toolkit.NewQuery(call.Company.ID)
		thr = q.Arg(call.Company.CheatThreshold)
		// Evaluated and flagged per job from the running counts per job and score point (whole
		// UTC days of w), the evaluations in the fraction of a point below the threshold's next
		// whole one (those days) and the evaluations of the partial days.
		agg = `SELECT job_id, sum(e)::bigint, sum(f)::bigint FROM (` + byJobDays(q, w, thr, call.Company.CheatThreshold) + `) u(job_id, e, f)
			GROUP BY job_id HAVING sum(e) > 0`
	}
	order := "a.part::float8 / a.count DESC, a.part DESC, a.count DESC"
	if sort == sortByCount {
		order = "a.part DESC, a.part::float8 / a.count DESC, a.count DESC"
	}
	r, err := call.RankJobs(ctx, q, agg, order, cheatingMaxJobs, "evaluations", string(sort))
	if err != nil {
		return err
	}
	out.ByJob, out.SortByJobMetric = make([]CheatingJobRow, 0, len(r.Rows)), string(sort)
	for _, j := range r.Rows {
		out.ByJob = append(out.ByJob, CheatingJobRow{JobID: j.ID.String(), JobTitle: j.Title, JobLink: j.Link, Evaluated: j.Count, Flagged: j.Part, FlaggedRate: j.Rate})
	}
	out.Jobs, out.Evaluated = &r.Jobs, &r.Count
	t.Line("Sorted by %s.", map[jobSort]string{sortByRate: "flag rate (ties by flagged count)", sortByCount: "flagged count (ties by rate)"}[sort])
	t.Blank()
	r.Table(t, "Job", "Evaluated", "Flagged", "Flag rate", "No evaluated interviews in this scope and window.")
	return nil
}

func cheatingDetails(ctx context.Context, call *toolkit.Call, db toolkit.Querier, q *toolkit.Query, from, flagged string, job *uuid.UUID, w toolkit.Window,
	out *CheatingStatsOutput, t *toolkit.Text) error {
	var total int64
	stmt, args := flaggedStmt(q, from, flagged, job, w, call.Company)
	if err := db.QueryRowContext(ctx, stmt, args...).Scan(&total); err != nil {
		return err
	}
	// The top rows first (an index walk on the score), then their candidates and jobs.
	lim := q.Arg(cheatingMaxDetails)
	rows, err := db.QueryContext(ctx, `WITH f AS (
			SELECT ce.session_id, ce.candidate_id, ce.job_id, ce.cheating_score, ce.eye_tracking_score, ce.head_tracking_score,
				ce.voice_score, ce.transcript_score, ce.multi_person_score, ce.created_at, ce.evidence`+from+` AND `+flagged+`
			ORDER BY ce.cheating_score DESC, ce.created_at DESC, ce.session_id
			LIMIT `+lim+`)
		SELECT f.session_id, f.candidate_id, c.first_name, c.last_name, f.job_id, j.title, f.cheating_score, f.eye_tracking_score,
			f.head_tracking_score, f.voice_score, f.transcript_score, f.multi_person_score, f.created_at, f.evidence
		FROM f
		JOIN candidates c ON c.company_id = $1 AND c.id = f.candidate_id
		JOIN jobs j ON j.company_id = $1 AND j.id = f.job_id
		ORDER BY f.cheating_score DESC, f.created_at DESC, f.session_id`, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	out.FlaggedDetails = []FlaggedSession{}
	var table [][]string
	for rows.Next() {
		var r FlaggedSession
		var sid, cid, jid uuid.UUID
		var first, last string
		var eye, head, voice, tr, multi sql.NullFloat64
		var at sql.NullTime
		var evidence sql.NullString
		if err := rows.Scan(&sid, &cid, &first, &last, &jid, &r.JobTitle, &r.CheatingScore, &eye, &head, &voice, &tr, &multi, &at, &evidence); err != nil {
			return err
		}
		r.Evidence = cheatingEvidence(call, nullBytes(evidence))
		r.SessionID, r.SessionLink = sid.String(), call.Env.Links.Session(sid)
		r.CandidateID, r.CandidateName, r.CandidateLink = cid.String(), fullName(first, last), call.Env.Links.Candidate(cid)
		r.JobID = jid.String()
		r.CheatingScore = toolkit.Round(r.CheatingScore, 2)
		r.SubScores = CheatingScores{toolkit.NullFloat(eye), toolkit.NullFloat(head), toolkit.NullFloat(voice), toolkit.NullFloat(tr), toolkit.NullFloat(multi)}
		r.EvaluatedAt = toolkit.Timestamp(at.Time)
		out.FlaggedDetails = append(out.FlaggedDetails, r)
		sc := r.SubScores
		table = append(table, []string{r.CandidateName, toolkit.OrDash(r.JobTitle), toolkit.Num(&r.CheatingScore), subScore(sc.EyeTracking), subScore(sc.HeadTracking),
			subScore(sc.Voice), subScore(sc.Transcript), subScore(sc.MultiPerson), toolkit.Date(at.Time), r.SessionLink})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	out.TotalFlagged = &total
	if total > cheatingMaxDetails {
		call.Notice("%d sessions are flagged; listing the %d with the highest scores", total, cheatingMaxDetails)
	}
	t.KV("Flagged interviews", count(total))
	t.Blank()
	t.Table([]string{"Candidate", "Job", "Score", "Eye", "Head", "Voice", "Transcript", "Multi-person", "Evaluated", "Session link"}, table,
		"No flagged interviews in this scope and window.")
	for _, r := range out.FlaggedDetails {
		t.Blank()
		t.Line("Why %s (session %s) is flagged, rules %s:", r.CandidateName, r.SessionID, r.Evidence.Rules)
		answerEvidenceText(t, r.Evidence)
	}
	return nil
}

// subScore is a sub-score as the text shows it: "not measured" for one the evaluation has no
// signal for (a text interview has no video, so no eye or head tracking), never 0.
func subScore(v *float64) string {
	if v == nil {
		return "not measured"
	}
	return toolkit.Num(v)
}

// byJobDays is the statement yielding (job_id, evaluated, flagged) whose sums per job are the
// company's evaluations in w and those at or above threshold (thr its argument):
// job_score_running at the threshold's next whole point over the whole UTC days
// (Query.JobScores: one or two rows per job), the evaluations in the fraction of a point between
// a fractional threshold and that point over those days, and the evaluations of the partial days
// at w's ends.
func byJobDays(q *toolkit.Query, w toolkit.Window, thr string, threshold float64) string {
	p := math.Ceil(threshold)
	return toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
		s := q.JobScores(w, "ceil("+thr+"::numeric)::int")
		if p != threshold {
			s += `
		UNION ALL
		SELECT ce.job_id, 0, count(*) FROM cheating_evaluations ce WHERE ce.company_id = $1 AND ce.cheating_score >= ` + thr + `::numeric
			AND ce.cheating_score < ` + numArg(q, p) + q.Range("ce.created_at", w) + ` GROUP BY 1`
		}
		return s
	}, func(w toolkit.Window) string {
		return `SELECT ce.job_id, count(*), count(*) FILTER (WHERE ce.cheating_score >= ` + thr + `::numeric) FROM cheating_evaluations ce
			WHERE ce.company_id = $1` + q.Range("ce.created_at", w) + ` GROUP BY 1`
	})
}
