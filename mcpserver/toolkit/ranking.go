package toolkit

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// RankedJob is one job of a ranked per-job table: a count (sessions, evaluations) and the part
// of it the metric is about (completed, flagged).
type RankedJob struct {
	ID                  uuid.UUID
	Title, Status, Link string
	Count, Part         int64
	// Rate is Part / Count in percent, one decimal; nil when Count is 0.
	Rate *float64
}

// JobRanking is a per-job table in rank order, cut at the maximum number of rows.
type JobRanking struct {
	Rows []RankedJob
	// Jobs and Count are over every job of the aggregate, listed or not.
	Jobs, Count int64
}

// RankJobs ranks the jobs of agg, a statement of (job_id, count, part) rows on q's arguments
// about the call's company's jobs (its rollups, whose rows reference a job), with their titles
// and statuses: ordered by order (an ORDER BY over a.count and a.part; ties by title and id), at
// most max rows. When more jobs have rows it notices "<n> jobs have <what>; showing the top
// <max> by <by>".
//
// The jobs are read for the top rows only: the max first by order, with the rows tied with the
// last of them (the title breaks those ties), not for every job of the aggregate (a probe of
// the jobs' key per job, 54,000 buffers per call at 20,000 jobs).
func (c *Call) RankJobs(ctx context.Context, q *Query, agg, order string, max int, what, by string) (*JobRanking, error) {
	lim := q.Arg(max)
	rows, err := c.DB.QueryContext(ctx, `WITH a(job_id, count, part) AS (`+agg+`),
		top AS (
			SELECT a.job_id, a.count, a.part, count(*) OVER () AS jobs, sum(a.count) OVER () AS total FROM a
			ORDER BY `+order+` FETCH FIRST `+lim+` ROWS WITH TIES)
		SELECT a.job_id, j.title, j.status, a.count, a.part, a.jobs, a.total
		FROM top a JOIN jobs j ON j.company_id = $1 AND j.id = a.job_id
		ORDER BY `+order+`, j.title, a.job_id LIMIT `+lim, q.Args...)
	if err != nil {
		return nil, fmt.Errorf("rank jobs by %s: %w", by, err)
	}
	defer rows.Close()
	r := &JobRanking{Rows: []RankedJob{}}
	for rows.Next() {
		var j RankedJob
		if err := rows.Scan(&j.ID, &j.Title, &j.Status, &j.Count, &j.Part, &r.Jobs, &r.Count); err != nil {
			return nil, fmt.Errorf("rank jobs by %s: %w", by, err)
		}
		j.Link, j.Rate = c.Env.Links.Job(j.ID), Percent(j.Part, j.Count)
		r.Rows = append(r.Rows, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rank jobs by %s: %w", by, err)
	}
	if r.Jobs > int64(max) {
		c.Notice("%d jobs have %s; showing the top %d by %s", r.Jobs, what, max, by)
	}
	return r, nil
}

// Table writes the ranking under the headers of its job, count, part and rate columns (a link
// column follows); empty is the line of an empty ranking.
func (r *JobRanking) Table(t *Text, job, count, part, rate, empty string) {
	table := make([][]string, 0, len(r.Rows))
	for _, j := range r.Rows {
		table = append(table, []string{OrDash(j.Title), fmt.Sprint(j.Count), fmt.Sprint(j.Part), Pct(j.Rate), j.Link})
	}
	t.Table([]string{job, count, part, rate, "Link"}, table, empty)
}
