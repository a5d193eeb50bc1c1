package jobtools

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// pipelineMetric is getCandidatePipelineStats' metric.
type pipelineMetric string

const (
	metricByStatus   pipelineMetric = "byStatus"
	metricByDecision pipelineMetric = "byDecision"
	metricFunnel     pipelineMetric = "funnel"
)

var pipelineMetrics = []pipelineMetric{metricByStatus, metricByDecision, metricFunnel}

func registerPipelineStats(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getCandidatePipelineStats",
		Title: "Candidate pipeline statistics",
		Description: "Candidate counts through the hiring pipeline, for one job or the whole company. Choose metric:\n" +
			"- byStatus: candidates per candidate status (the candidate record's status, e.g. new, screening, hired). " +
			"Company-wide it counts candidates added in the window; for a job, candidates who applied to it in the window.\n" +
			"- byDecision: interview sessions per recruiter decision (NONE = undecided, ACCEPTED, REJECTED, SUBMITTED, PLACED, " +
			"HIRED) and each decision's share; sessions are those invited in the window.\n" +
			"- funnel: a cohort funnel. The cohort is the candidates who entered the pipeline in the window (entry = their " +
			"first application or interview invitation; for a job, the first for that job). Each stage counts the cohort " +
			"members who ever reached it: applied (the whole cohort) -> invited (interview session) -> started -> completed " +
			"-> positive decision (ACCEPTED, SUBMITTED, PLACED or HIRED) -> hired, with stage-to-stage and overall " +
			"conversion percentages.\n" +
			"Scope: positionId (a job UUID) limits to that job; without it the job open in the client (job context) is used " +
			"when there is one; companyWide: true ignores the job context (positionId together with companyWide: true is refused). sinceDate/untilDate are optional ISO dates " +
			"(untilDate inclusive); without them all time is counted.",
		InputSchema: toolkit.InputSchema[PipelineStatsInput](map[string][]string{"metric": toolkit.Strings(pipelineMetrics)}),
	}, pipelineStats)
}

// PipelineStatsInput are getCandidatePipelineStats' arguments.
type PipelineStatsInput struct {
	Metric string `json:"metric" jsonschema:"byStatus, byDecision or funnel"`
	toolkit.ScopeArg
	toolkit.WindowArg
	toolkit.CompanyArg
}

// PipelineStatsOutput is getCandidatePipelineStats' structured result; the block of the chosen
// metric is set.
type PipelineStatsOutput struct {
	Metric     string            `json:"metric"`
	Scope      toolkit.Scope     `json:"scope"`
	Window     toolkit.WindowOut `json:"window"`
	WindowOn   string            `json:"windowOn" jsonschema:"which dates the window applies to"`
	ByStatus   *statusBlock      `json:"byStatus,omitempty"`
	ByDecision *decisionBlock    `json:"byDecision,omitempty"`
	Funnel     *funnelBlock      `json:"funnel,omitempty"`
	toolkit.Notices
}

type statusBlock struct {
	TotalCandidates int           `json:"totalCandidates"`
	Statuses        []statusCount `json:"statuses" jsonschema:"most frequent first"`
}

type statusCount struct {
	Status     string   `json:"status"`
	Candidates int      `json:"candidates"`
	Percent    *float64 `json:"percent" jsonschema:"share of totalCandidates"`
}

type decisionBlock struct {
	TotalSessions int             `json:"totalSessions"`
	Decisions     []decisionCount `json:"decisions" jsonschema:"every decision, in order NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED"`
}

type decisionCount struct {
	Decision string   `json:"decision"`
	Sessions int      `json:"sessions"`
	Percent  *float64 `json:"percent" jsonschema:"share of totalSessions"`
}

type funnelBlock struct {
	Stages []funnelStage `json:"stages"`
}

type funnelStage struct {
	Stage                  string   `json:"stage"`
	Label                  string   `json:"label"`
	Candidates             int      `json:"candidates" jsonschema:"cohort members who reached the stage"`
	ConversionFromPrevious *float64 `json:"conversionFromPrevious" jsonschema:"percent of the previous stage; null for the first stage or when the previous stage is 0"`
	ConversionFromApplied  *float64 `json:"conversionFromApplied" jsonschema:"percent of the applied stage; null when no candidate applied"`
}

func pipelineStats(ctx context.Context, call *toolkit.Call, in PipelineStatsInput) (PipelineStatsOutput, *toolkit.Text, error) {
	var out PipelineStatsOutput
	metric, err := toolkit.OneOf("metric", in.Metric, pipelineMetrics)
	if err != nil {
		return out, nil, err
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, 0, nil)
	if err != nil {
		return out, nil, err
	}
	scope, err := call.Scope(ctx, in.ScopeArg)
	if err != nil {
		return out, nil, err
	}
	job := scope.Job
	out.Metric, out.Scope, out.Window = string(metric), scope, w.Out("")
	switch metric {
	case metricByStatus:
		if job == nil {
			out.WindowOn = "candidate creation date"
		} else {
			out.WindowOn = "application date (candidates who applied to the job in the window)"
		}
		out.ByStatus, err = byStatus(ctx, call, job, w)
	case metricByDecision:
		out.WindowOn = "session invitation date"
		out.ByDecision, err = byDecision(ctx, call, job, w)
	case metricFunnel:
		if job == nil {
			out.WindowOn = "pipeline entry (each candidate's first application or invitation); stages count what this cohort reached at any time"
		} else {
			out.WindowOn = "entry into the job's pipeline (each candidate's first application to or invitation for the job); " +
				"stages count what this cohort reached in the job at any time"
		}
		out.Funnel, err = funnel(ctx, call, job, w)
	}
	if err != nil {
		return out, nil, err
	}
	return out, pipelineText(&out), nil
}

func byStatus(ctx context.Context, call *toolkit.Call, job *toolkit.JobRef, w toolkit.Window) (*statusBlock, error) {
	q := toolkit.NewQuery(call.Company.ID)
	var stmt string
	if job == nil {
		// candidate_daily for the whole UTC days of w, the candidates of the partial days.
		stmt = `SELECT status, sum(n)::bigint FROM (` + toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
			return `SELECT status, candidates FROM candidate_daily WHERE company_id = $1` + q.DayRange("day", w)
		}, func(w toolkit.Window) string {
			return `SELECT status, count(*) FROM candidates WHERE company_id = $1` + q.Range("created_at", w) + ` GROUP BY status`
		}) + `) x(status, n) GROUP BY status`
	} else {
		jobArg := q.Arg(job.ID)
		stmt = `SELECT c.status, count(*) FROM candidates c
			WHERE c.company_id = $1 AND c.id IN (
				SELECT a.candidate_id FROM applications a
				WHERE a.company_id = $1 AND a.job_id = ` + jobArg + `::uuid` + q.Range("a.created_at", w) + `)
			GROUP BY c.status`
	}
	b := &statusBlock{Statuses: []statusCount{}}
	err := collect(ctx, call.DB, stmt+` ORDER BY count(*) DESC, 1`, q.Args, func(r *sql.Rows) error {
		var s statusCount
		if err := r.Scan(&s.Status, &s.Candidates); err != nil {
			return err
		}
		b.TotalCandidates += s.Candidates
		b.Statuses = append(b.Statuses, s)
		return nil
	})
	for i := range b.Statuses {
		b.Statuses[i].Percent = toolkit.Percent(int64(b.Statuses[i].Candidates), int64(b.TotalCandidates))
	}
	return b, err
}

// sessionScope is the WHERE clause of the scope's sessions invited in w.
func sessionScope(q *toolkit.Query, job *toolkit.JobRef, w toolkit.Window) string {
	where := "company_id = $1"
	if job != nil {
		where += " AND job_id = " + q.Arg(job.ID) + "::uuid"
	}
	return where + q.Range("invited_at", w)
}

// byDecision counts the scope's sessions invited in w per decision. Company-wide it reads
// session_daily for the whole UTC days of w and the sessions of the partial days at its ends.
func byDecision(ctx context.Context, call *toolkit.Call, job *toolkit.JobRef, w toolkit.Window) (*decisionBlock, error) {
	q := toolkit.NewQuery(call.Company.ID)
	source := func(w toolkit.Window) string {
		return `SELECT decision, count(*) FROM interview_sessions WHERE ` + sessionScope(q, job, w) + ` GROUP BY decision`
	}
	var union string
	if job == nil {
		union = toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
			return `SELECT decision, sessions FROM session_daily WHERE company_id = $1` + q.DayRange("day", w)
		}, source)
	} else {
		union = source(w)
	}
	counts := map[string]int{}
	b := &decisionBlock{Decisions: []decisionCount{}}
	err := collect(ctx, call.DB, `SELECT decision, sum(n)::bigint FROM (`+union+`) p(decision, n) GROUP BY decision`, q.Args, func(r *sql.Rows) error {
		var d string
		var n int
		if err := r.Scan(&d, &n); err != nil {
			return err
		}
		counts[d] = n
		b.TotalSessions += n
		return nil
	})
	for _, d := range models.AllDecisions() {
		n := counts[string(d)]
		b.Decisions = append(b.Decisions, decisionCount{Decision: string(d), Sessions: n,
			Percent: toolkit.Percent(int64(n), int64(b.TotalSessions))})
	}
	return b, err
}

// funnelStages are the funnel's stages in order.
var funnelStages = []struct{ stage, label string }{
	{"applied", "Applied (the cohort: entered by application or invitation)"},
	{"invited", "Invited to an interview"},
	{"started", "Started the interview"},
	{"completed", "Completed the interview"},
	{"positiveDecision", "Positive decision (ACCEPTED, SUBMITTED, PLACED, HIRED)"},
	{"hired", "Hired"},
}

// funnel counts the cohort of candidates who entered the scope's pipeline in w by the stages they
// ever reached. Company-wide it reads journey_daily and candidate_journeys; for a job it derives the same
// per-candidate facts from the job's applications and sessions.
func funnel(ctx context.Context, call *toolkit.Call, job *toolkit.JobRef, w toolkit.Window) (*funnelBlock, error) {
	q := toolkit.NewQuery(call.Company.ID)
	const stages = `count(*) FILTER (WHERE invited), count(*) FILTER (WHERE started), count(*) FILTER (WHERE completed),
		count(*) FILTER (WHERE positive), count(*) FILTER (WHERE hired)`
	var stmt string
	if job == nil {
		// journey_daily for the whole UTC days of w, the journeys entered in the partial days.
		stmt = `SELECT coalesce(sum(a), 0)::bigint, coalesce(sum(i), 0)::bigint, coalesce(sum(s), 0)::bigint,
			coalesce(sum(c), 0)::bigint, coalesce(sum(p), 0)::bigint, coalesce(sum(h), 0)::bigint
			FROM (` + toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
			return `SELECT sum(candidates), sum(candidates) FILTER (WHERE invited), sum(candidates) FILTER (WHERE started),
				sum(candidates) FILTER (WHERE completed), sum(candidates) FILTER (WHERE positive), sum(candidates) FILTER (WHERE hired)
				FROM journey_daily WHERE company_id = $1` + q.DayRange("day", w)
		}, func(w toolkit.Window) string {
			return `SELECT count(*), ` + stages + ` FROM candidate_journeys WHERE company_id = $1` + q.Range("entered_at", w)
		}) + `) x(a, i, s, c, p, h)`
	} else {
		jobArg := q.Arg(job.ID)
		positive := q.Arg(textArray(toolkit.Strings(positiveDecisions)))
		// Each side groups one table, so the planner estimates the candidates (a UNION ALL
		// grouped at once gets a default estimate and a slower parallel plan).
		stmt = `SELECT count(*), ` + stages + ` FROM (
			SELECT least(a.entered, s.entered) AS entered_at, s.candidate_id IS NOT NULL AS invited,
			       s.started, s.completed, s.positive, s.hired
			FROM (
				SELECT candidate_id, min(created_at) AS entered FROM applications
				WHERE company_id = $1 AND job_id = ` + jobArg + `::uuid GROUP BY candidate_id
			) a
			FULL JOIN (
				SELECT candidate_id, min(invited_at) AS entered,
				       bool_or(started_at IS NOT NULL OR status IN ('STARTED', 'COMPLETED')) AS started,
				       bool_or(status = 'COMPLETED') AS completed,
				       bool_or(decision = ANY (` + positive + `::text[])) AS positive,
				       bool_or(decision = 'HIRED') AS hired
				FROM interview_sessions WHERE company_id = $1 AND job_id = ` + jobArg + `::uuid GROUP BY candidate_id
			) s USING (candidate_id)
		) j WHERE true` + q.Range("entered_at", w)
	}
	n := make([]int, len(funnelStages))
	if err := call.DB.QueryRowContext(ctx, stmt, q.Args...).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5]); err != nil {
		return nil, err
	}
	b := &funnelBlock{Stages: make([]funnelStage, len(funnelStages))}
	for i, st := range funnelStages {
		b.Stages[i] = funnelStage{Stage: st.stage, Label: st.label, Candidates: n[i],
			ConversionFromApplied: toolkit.Percent(int64(n[i]), int64(n[0]))}
		if i > 0 {
			b.Stages[i].ConversionFromPrevious = toolkit.Percent(int64(n[i]), int64(n[i-1]))
		}
	}
	b.Stages[0].ConversionFromApplied = nil
	return b, nil
}

func pipelineText(o *PipelineStatsOutput) *toolkit.Text {
	var t toolkit.Text
	title := map[string]string{"byStatus": "Candidates by status", "byDecision": "Sessions by decision", "funnel": "Candidate funnel"}[o.Metric]
	t.H1("%s", title)
	t.KV("Scope", o.Scope.String(), "Window", o.Window.String(), "Window applies to", o.WindowOn)
	t.Blank()
	switch {
	case o.ByStatus != nil:
		rows := make([][]string, 0, len(o.ByStatus.Statuses))
		for _, s := range o.ByStatus.Statuses {
			rows = append(rows, []string{s.Status, itoa(s.Candidates), toolkit.Pct(s.Percent)})
		}
		t.Table([]string{"Status", "Candidates", "Share"}, rows, "No candidates.")
		t.Blank()
		t.KV("Total candidates", itoa(o.ByStatus.TotalCandidates))
	case o.ByDecision != nil:
		rows := make([][]string, 0, len(o.ByDecision.Decisions))
		for _, d := range o.ByDecision.Decisions {
			rows = append(rows, []string{d.Decision, itoa(d.Sessions), toolkit.Pct(d.Percent)})
		}
		t.Table([]string{"Decision", "Sessions", "Share"}, rows, "")
		t.Blank()
		t.KV("Total sessions", itoa(o.ByDecision.TotalSessions))
	case o.Funnel != nil:
		rows := make([][]string, 0, len(o.Funnel.Stages))
		for i, s := range o.Funnel.Stages {
			prev, first := "—", "—"
			if i > 0 {
				prev, first = toolkit.Pct(s.ConversionFromPrevious), toolkit.Pct(s.ConversionFromApplied)
			}
			rows = append(rows, []string{fmt.Sprintf("%d. %s", i+1, s.Label), itoa(s.Candidates), prev, first})
		}
		t.Table([]string{"Stage", "Candidates", "From previous", "From applied"}, rows, "")
	}
	return &t
}
