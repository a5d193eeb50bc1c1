package seed

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/recruitd/recruitd/internal/bulkload"
)

// jobScoreDayKey is a row of job_score_daily (migration 00061): a job's cheating evaluations of
// a UTC day at a whole score point.
type jobScoreDayKey struct {
	job        int32 // genJob.index
	day, score int32
}

// maxScorePoint is the highest whole cheating score point; job_score_running's at_least has
// maxScorePoint + 1 elements.
const maxScorePoint = 100

// writeJobScoreDaily writes job_score_daily's folded rows (a view over them and the pending
// deltas, like job_daily).
func writeJobScoreDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.jobScoreDaily.all() {
		b.Row(5)
		b.UUID(c.id)
		b.UUID(c.jobs[k.job].id)
		b.Date(int64(k.day))
		b.Int2(int(k.score))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "job_score_daily_folded", "company_id, job_id, day, score", "evaluated", &b)
}

// writeJobScoreRunning writes job_score_running's rows of the generated jobs, as
// job_score_running_rows computes them from job_score_daily_folded: for each job and each day
// with evaluations, the job's evaluations up to that day at or above each whole point; and each
// job's last one to job_score_latest (migration 00066), and to job_score_weekly (migration
// 00071) the row before each Monday after the job's first day and up to its last. The generated
// jobs are the load's own, so no row of theirs exists yet. The running and weekly rows are
// written in the order of their days, as the folds write them, so that a reader of one day's
// rows of every job (toolkit's RunningBefore) reads adjacent rows, not a page per job.
func writeJobScoreRunning(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	// The job-day-score counts in the order of their days, then jobs: the running rows are
	// written as the sweep reaches them, each job's counts per point carried along.
	type dayScore struct {
		day, score, n int64
		job           int32
	}
	var all []dayScore
	lastDay := make([]int64, len(c.jobs))
	for k, v := range r.jobScoreDaily.all() {
		if v[0] != 0 {
			all = append(all, dayScore{int64(k.day), int64(k.score), v[0], k.job})
			lastDay[k.job] = max(lastDay[k.job], int64(k.day))
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(a, b dayScore) int { return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.job, b.job)) })
	type weekRow struct {
		week int64
		job  int32
		per  []int64
	}
	var (
		b, latest bulkload.Buf
		weekly    []weekRow
		array     []byte
		per       = make([][]int64, len(c.jobs)) // a job's counts at each point so far
		prevDay   = make([]int64, len(c.jobs))   // the day of its last row so far
	)
	put := func(buf *bulkload.Buf, job int32, day int64, counts []int64) {
		array = int4Array(array[:0], counts)
		buf.Row(4)
		buf.UUID(c.id)
		buf.UUID(c.jobs[job].id)
		buf.Date(day)
		buf.Binary(array)
	}
	for i := 0; i < len(all); {
		job, day := all[i].job, all[i].day
		if per[job] == nil {
			per[job] = make([]int64, maxScorePoint+1)
		} else {
			// The Mondays since the job's last row take that row's counts (one copy for all).
			if week := mondayAfter(prevDay[job]); week <= day {
				counts := slices.Clone(per[job])
				for ; week <= day; week += 7 {
					weekly = append(weekly, weekRow{week, job, counts})
				}
			}
		}
		for ; i < len(all) && all[i].job == job && all[i].day == day; i++ {
			per[job][all[i].score] += all[i].n
		}
		put(&b, job, day, per[job])
		if day == lastDay[job] {
			put(&latest, job, day, per[job])
		}
		prevDay[job] = day
	}
	slices.SortFunc(weekly, func(a, b weekRow) int { return cmp.Or(cmp.Compare(a.week, b.week), cmp.Compare(a.job, b.job)) })
	var w bulkload.Buf
	for _, row := range weekly {
		put(&w, row.job, row.week, row.per)
	}
	const columns = "company_id, job_id, day, at_least"
	if err := bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: "job_score_running", Columns: columns}, &b, nil); err != nil {
		return err
	}
	if err := bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: "job_score_latest", Columns: columns}, &latest, nil); err != nil {
		return err
	}
	if w.Rows() == 0 {
		return nil
	}
	return bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: "job_score_weekly", Columns: "company_id, job_id, week, at_least"}, &w, nil)
}

// mondayAfter is the first Monday after the day (days since 1970-01-01, a Thursday).
func mondayAfter(day int64) int64 {
	isoDow := ((day+3)%7+7)%7 + 1 // Monday 1 ... Sunday 7
	return day + 8 - isoDow
}

// int4Array appends to dst the binary int4[] of the suffix sums of per: element p is the sum of
// per[p:].
func int4Array(dst []byte, per []int64) []byte {
	dst = binary.BigEndian.AppendUint32(dst, 1)  // dimensions
	dst = binary.BigEndian.AppendUint32(dst, 0)  // has nulls
	dst = binary.BigEndian.AppendUint32(dst, 23) // int4
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(per)))
	dst = binary.BigEndian.AppendUint32(dst, 1) // lower bound
	start := len(dst)
	for range per {
		dst = binary.BigEndian.AppendUint32(dst, 4)
		dst = binary.BigEndian.AppendUint32(dst, 0)
	}
	var sum int64
	for p := len(per) - 1; p >= 0; p-- {
		sum += per[p]
		binary.BigEndian.PutUint32(dst[start+8*p+4:], uint32(int32(sum)))
	}
	return dst
}
