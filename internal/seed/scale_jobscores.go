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
	type dayScore struct{ day, score, n int64 }
	byJob := map[int32][]dayScore{}
	for k, v := range r.jobScoreDaily.all() {
		if v[0] != 0 {
			byJob[k.job] = append(byJob[k.job], dayScore{int64(k.day), int64(k.score), v[0]})
		}
	}
	// A row: a job's counts at each point up to a day (int4Array sums them from each point up).
	type row struct {
		day int64
		job int32
		per []int64
	}
	var running, weekly, latest []row
	for job, rows := range byJob {
		slices.SortFunc(rows, func(a, b dayScore) int { return int(a.day - b.day) })
		var per [maxScorePoint + 1]int64
		for i, ds := range rows {
			per[ds.score] += ds.n
			if i+1 < len(rows) && rows[i+1].day == ds.day {
				continue
			}
			counts := slices.Clone(per[:])
			running = append(running, row{ds.day, job, counts})
			if i+1 == len(rows) {
				latest = append(latest, row{ds.day, job, counts})
				continue
			}
			for week := mondayAfter(ds.day); week <= rows[i+1].day; week += 7 {
				weekly = append(weekly, row{week, job, counts})
			}
		}
	}
	var array []byte
	write := func(table, columns string, rows []row) error {
		if len(rows) == 0 {
			return nil
		}
		slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.job, b.job)) })
		var b bulkload.Buf
		for _, r := range rows {
			array = int4Array(array[:0], r.per)
			b.Row(4)
			b.UUID(c.id)
			b.UUID(c.jobs[r.job].id)
			b.Date(r.day)
			b.Binary(array)
		}
		return bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: table, Columns: columns}, &b, nil)
	}
	const columns = "company_id, job_id, day, at_least"
	if err := write("job_score_running", columns, running); err != nil {
		return err
	}
	if err := write("job_score_latest", columns, latest); err != nil {
		return err
	}
	return write("job_score_weekly", "company_id, job_id, week, at_least", weekly)
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
