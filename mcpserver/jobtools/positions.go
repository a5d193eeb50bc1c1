package jobtools

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// positionMetric is getPositionStats' metric.
type positionMetric string

const (
	metricOpenPositions         positionMetric = "openPositions"
	metricTotalPositions        positionMetric = "totalPositions"
	metricCandidatesPerPosition positionMetric = "candidatesPerPosition"
)

var positionMetrics = []positionMetric{metricOpenPositions, metricTotalPositions, metricCandidatesPerPosition}

// maxPositionsListed bounds the per-position lists of getPositionStats (the tool has no limit
// argument; getJobsSummary pages through every job).
const maxPositionsListed = 50

func registerPositionStats(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getPositionStats",
		Title: "Position statistics",
		Description: "Position-level (job-level) metrics for the company. Choose metric:\n" +
			"- openPositions: how many positions are open for applications, by status, with the newest open ones listed.\n" +
			"- totalPositions: how many positions exist, split into open/closed and by status (GENERATING, ACTIVE, PAUSED, FAILED).\n" +
			"- candidatesPerPosition: distinct candidates who ever applied to each position (from applications; every invited " +
			"candidate has one; the date filters select positions, not applications), with the average and median per position (positions without candidates count as 0) and " +
			"the positions with the most candidates.\n" +
			"Optional filters: sinceDate/untilDate (ISO dates on the position's creation date; untilDate inclusive), " +
			"status (job status, any case). Soft-deleted positions are never counted. Lists show at most 50 positions; " +
			"getJobsSummary pages through all jobs.",
		InputSchema: toolkit.InputSchema[PositionStatsInput](map[string][]string{"metric": toolkit.Strings(positionMetrics)}),
	}, positionStats)
}

// PositionStatsInput are getPositionStats' arguments.
type PositionStatsInput struct {
	Metric    string `json:"metric" jsonschema:"openPositions, totalPositions or candidatesPerPosition"`
	SinceDate string `json:"sinceDate,omitempty" jsonschema:"only positions created on or after this ISO date"`
	UntilDate string `json:"untilDate,omitempty" jsonschema:"only positions created on or before this ISO date (inclusive)"`
	Status    string `json:"status,omitempty" jsonschema:"only positions in this job status: GENERATING, ACTIVE, PAUSED or FAILED (any case)"`
	toolkit.CompanyArg
}

// PositionStatsOutput is getPositionStats' structured result; the block of the chosen metric is
// set.
type PositionStatsOutput struct {
	Metric                string                 `json:"metric"`
	CreatedWindow         toolkit.WindowOut      `json:"createdWindow" jsonschema:"position creation window"`
	Status                *string                `json:"status" jsonschema:"the job status filter; null when none"`
	OpenPositions         *openPositions         `json:"openPositions,omitempty"`
	TotalPositions        *totalPositions        `json:"totalPositions,omitempty"`
	CandidatesPerPosition *candidatesPerPosition `json:"candidatesPerPosition,omitempty"`
	toolkit.Notices
}

type openPositions struct {
	Count     int            `json:"count" jsonschema:"positions open for applications"`
	ByStatus  map[string]int `json:"byStatus" jsonschema:"open positions per job status"`
	Positions []positionRow  `json:"positions" jsonschema:"open positions, newest first (at most 50)"`
	Truncated bool           `json:"truncated" jsonschema:"true when more open positions exist than listed"`
}

type totalPositions struct {
	Count    int            `json:"count" jsonschema:"positions (not deleted)"`
	Open     int            `json:"open"`
	Closed   int            `json:"closed"`
	ByStatus map[string]int `json:"byStatus" jsonschema:"positions per job status"`
}

type candidatesPerPosition struct {
	Positions                  int           `json:"positions" jsonschema:"positions considered"`
	PositionsWithoutCandidates int           `json:"positionsWithoutCandidates"`
	Average                    *float64      `json:"average" jsonschema:"mean distinct candidates per position (two decimals); null without positions"`
	Median                     *float64      `json:"median" jsonschema:"median distinct candidates per position; null without positions"`
	Max                        int           `json:"max"`
	TopPositions               []positionRow `json:"topPositions" jsonschema:"positions with the most candidates (at most 50)"`
	Truncated                  bool          `json:"truncated" jsonschema:"true when more positions exist than listed"`
}

type positionRow struct {
	toolkit.JobRef
	CreatedAt  string `json:"createdAt"`
	Candidates *int   `json:"candidates,omitempty" jsonschema:"distinct candidates who applied (candidatesPerPosition only)"`

	created time.Time
}

func positionStats(ctx context.Context, call *toolkit.Call, in PositionStatsInput) (PositionStatsOutput, *toolkit.Text, error) {
	var out PositionStatsOutput
	metric, err := toolkit.OneOf("metric", in.Metric, positionMetrics)
	if err != nil {
		return out, nil, err
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, 0, nil)
	if err != nil {
		return out, nil, err
	}
	out.Metric, out.CreatedWindow = string(metric), w.Out("")
	q := toolkit.NewQuery(call.Company.ID)
	where := "company_id = $1 AND NOT is_deleted" + q.Range("created_at", w)
	if s := strings.TrimSpace(in.Status); s != "" {
		st, err := toolkit.OneOfFold("status", s, models.AllJobStatuses())
		if err != nil {
			return out, nil, err
		}
		where += " AND status = " + q.Arg(string(st))
		v := string(st)
		out.Status = &v
	}
	if metric == metricOpenPositions {
		where += " AND is_open"
	}
	if metric != metricCandidatesPerPosition && w.Since == nil && w.Until == nil {
		// Counts from job_counts (a few rows, whatever the company's jobs); the list of
		// openPositions is its first page.
		if err := positionCounts(ctx, call, metric, where, q.Args, out.Status, &out); err != nil {
			return out, nil, err
		}
		return out, positionsText(&out), nil
	}
	if metric == metricCandidatesPerPosition {
		if out.CandidatesPerPosition, err = perPosition(ctx, call, where, q.Args); err != nil {
			return out, nil, err
		}
		return out, positionsText(&out), nil
	}
	jobs, err := loadPositions(ctx, call, where, q.Args, 0)
	if err != nil {
		return out, nil, err
	}
	switch metric {
	case metricOpenPositions:
		o := &openPositions{Count: len(jobs), ByStatus: statusCounts(jobs), Positions: []positionRow{}}
		o.Positions = jobs[:min(len(jobs), maxPositionsListed)]
		o.Truncated = len(jobs) > maxPositionsListed
		out.OpenPositions = o
	case metricTotalPositions:
		o := &totalPositions{Count: len(jobs), ByStatus: statusCounts(jobs)}
		for _, j := range jobs {
			if j.IsOpen {
				o.Open++
			} else {
				o.Closed++
			}
		}
		out.TotalPositions = o
	}
	return out, positionsText(&out), nil
}

// positionCounts answers openPositions and totalPositions without a creation window from
// job_counts (migration 00059): the company's non-deleted jobs by status and open, in the status
// filter when set; openPositions lists the newest maxPositionsListed open ones.
func positionCounts(ctx context.Context, call *toolkit.Call, metric positionMetric, where string, args []any, status *string, out *PositionStatsOutput) error {
	byStatus := statusCounts(nil)
	var open, closed int
	err := collect(ctx, call.DB, `
		SELECT status, is_open, sum(jobs)::bigint FROM job_counts
		WHERE company_id = $1 AND NOT is_deleted AND jobs <> 0 AND ($2::text IS NULL OR status = $2)
		GROUP BY 1, 2`, []any{call.Company.ID, status}, func(r *sql.Rows) error {
		var st string
		var isOpen bool
		var n int
		if err := r.Scan(&st, &isOpen, &n); err != nil {
			return err
		}
		if isOpen {
			open += n
		} else if metric == metricOpenPositions {
			return nil
		} else {
			closed += n
		}
		byStatus[st] += n
		return nil
	})
	if err != nil {
		return err
	}
	if metric == metricTotalPositions {
		out.TotalPositions = &totalPositions{Count: open + closed, Open: open, Closed: closed, ByStatus: byStatus}
		return nil
	}
	jobs, err := loadPositions(ctx, call, where, args, maxPositionsListed)
	if err != nil {
		return err
	}
	out.OpenPositions = &openPositions{Count: open, ByStatus: byStatus, Positions: jobs, Truncated: open > len(jobs)}
	return nil
}

// loadPositions returns the company's jobs matching where, newest first (at most ~2,000 per
// company, read through jobs_company_created_idx / jobs_company_status_idx); the first limit
// when limit > 0.
func loadPositions(ctx context.Context, call *toolkit.Call, where string, args []any, limit int) ([]positionRow, error) {
	jobs := []positionRow{}
	page := ""
	if limit > 0 {
		page = fmt.Sprintf(" LIMIT %d", limit)
	}
	err := collect(ctx, call.DB, `
		SELECT id, title, external_id, status, is_open, created_at FROM jobs
		WHERE `+where+` ORDER BY created_at DESC, id DESC`+page, args, func(r *sql.Rows) error {
		var p positionRow
		var id uuid.UUID
		if err := r.Scan(&id, &p.Title, &p.ExternalID, &p.Status, &p.IsOpen, &p.created); err != nil {
			return err
		}
		p.ID, p.Link, p.CreatedAt = id.String(), call.Env.Links.Job(id), tsStr(p.created)
		jobs = append(jobs, p)
		return nil
	})
	return jobs, err
}

func statusCounts(jobs []positionRow) map[string]int {
	m := map[string]int{}
	for _, s := range models.AllJobStatuses() {
		m[string(s)] = 0
	}
	for _, j := range jobs {
		m[j.Status]++
	}
	return m
}

// perPosition computes the distinct applicants per position from job_totals (no row: none) in
// one statement: the positions' count, those without candidates, the sum, maximum and median,
// and only the listed positions' rows (the most candidates first, ties newest first).
func perPosition(ctx context.Context, call *toolkit.Call, where string, args []any) (*candidatesPerPosition, error) {
	o := &candidatesPerPosition{TopPositions: []positionRow{}}
	var sum int64
	var med sql.NullFloat64
	err := collect(ctx, call.DB, `
		WITH p AS MATERIALIZED (
			SELECT j.id, j.created_at, coalesce(t.applicants, 0)::bigint AS n
			FROM (SELECT id, created_at FROM jobs WHERE `+where+`) j
			LEFT JOIN job_totals t ON t.company_id = $1 AND t.job_id = j.id
		), s AS (
			SELECT count(*) AS positions, count(*) FILTER (WHERE n = 0) AS zero, coalesce(sum(n), 0)::bigint AS total,
			       coalesce(max(n), 0) AS max, percentile_cont(0.5) WITHIN GROUP (ORDER BY n) AS median
			FROM p
		), top AS (
			SELECT id, created_at, n FROM p ORDER BY n DESC, created_at DESC, id DESC LIMIT `+strconv.Itoa(maxPositionsListed)+`
		)
		SELECT s.positions, s.zero, s.total, s.max, s.median, j.id, j.title, j.external_id, j.status, j.is_open, j.created_at, top.n
		FROM s LEFT JOIN (top JOIN jobs j ON j.company_id = $1 AND j.id = top.id) ON true
		ORDER BY top.n DESC, top.created_at DESC, top.id DESC`, args, func(r *sql.Rows) error {
		var id uuid.NullUUID
		var title, external, status sql.NullString
		var open sql.NullBool
		var created sql.NullTime
		var n sql.NullInt64
		if err := r.Scan(&o.Positions, &o.PositionsWithoutCandidates, &sum, &o.Max, &med, &id, &title, &external, &status, &open, &created, &n); err != nil {
			return err
		}
		if !id.Valid {
			return nil
		}
		c := int(n.Int64)
		p := positionRow{CreatedAt: tsStr(created.Time), Candidates: &c, created: created.Time}
		p.ID, p.Link, p.Title, p.ExternalID, p.Status, p.IsOpen = id.UUID.String(), call.Env.Links.Job(id.UUID), title.String, external.String, status.String, open.Bool
		o.TopPositions = append(o.TopPositions, p)
		return nil
	})
	if err != nil || o.Positions == 0 {
		return o, err
	}
	avg, m := toolkit.Round(float64(sum)/float64(o.Positions), 2), med.Float64
	o.Average, o.Median = &avg, &m
	o.Truncated = o.Positions > maxPositionsListed
	return o, nil
}

func positionsText(o *PositionStatsOutput) *toolkit.Text {
	var t toolkit.Text
	filters := "created " + o.CreatedWindow.String()
	if o.Status != nil {
		filters += "; status " + *o.Status
	}
	filters += "; soft-deleted positions excluded"
	statusRows := func(m map[string]int) [][]string {
		var rows [][]string
		for _, s := range models.AllJobStatuses() {
			rows = append(rows, []string{string(s), itoa(m[string(s)])})
		}
		return rows
	}
	listRows := func(ps []positionRow, withCandidates bool) [][]string {
		rows := make([][]string, 0, len(ps))
		for _, p := range ps {
			r := []string{p.Title, p.Status, yesNo(p.IsOpen), dateStr(p.created)}
			if withCandidates {
				r = append(r, itoa(*p.Candidates))
			}
			rows = append(rows, append(r, p.ID, p.Link))
		}
		return rows
	}
	switch {
	case o.OpenPositions != nil:
		p := o.OpenPositions
		t.H1("Open positions: %d", p.Count)
		t.KV("Filters", filters, "Open", "open for applications (any status unless filtered)")
		t.H2("By status")
		t.Table([]string{"Status", "Open positions"}, statusRows(p.ByStatus), "")
		t.H2("Open positions (newest first%s)", truncNote(p.Truncated, len(p.Positions), p.Count))
		t.Table([]string{"Title", "Status", "Open", "Created", "jobId", "Link"}, listRows(p.Positions, false), "No open positions.")
	case o.TotalPositions != nil:
		p := o.TotalPositions
		t.H1("Total positions: %d", p.Count)
		t.KV("Filters", filters, "Open", itoa(p.Open), "Closed", itoa(p.Closed))
		t.H2("By status")
		t.Table([]string{"Status", "Positions"}, statusRows(p.ByStatus), "")
	case o.CandidatesPerPosition != nil:
		p := o.CandidatesPerPosition
		t.H1("Candidates per position")
		t.KV(
			"Filters", filters,
			"Counted", "distinct candidates with an application to the position",
			"Positions", itoa(p.Positions),
			"Average per position", toolkit.Num(p.Average),
			"Median per position", toolkit.Num(p.Median),
			"Most on one position", itoa(p.Max),
			"Positions without candidates", itoa(p.PositionsWithoutCandidates),
		)
		t.H2("Positions with the most candidates%s", truncNote(p.Truncated, len(p.TopPositions), p.Positions))
		t.Table([]string{"Title", "Status", "Open", "Created", "Candidates", "jobId", "Link"}, listRows(p.TopPositions, true), "No positions.")
	}
	return &t
}

func truncNote(truncated bool, shown, total int) string {
	if !truncated {
		return ""
	}
	return fmt.Sprintf("; first %d of %d", shown, total)
}
