package seed

import (
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
// jobs are the load's own, so no row of theirs exists yet.
func writeJobScoreRunning(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	type dayScore struct{ day, score, n int64 }
	byJob := map[int32][]dayScore{}
	for k, v := range r.jobScoreDaily.all() {
		if v[0] != 0 {
			byJob[k.job] = append(byJob[k.job], dayScore{int64(k.day), int64(k.score), v[0]})
		}
	}
	var b, latest, weekly bulkload.Buf
	var array []byte
	for job, rows := range byJob {
		slices.SortFunc(rows, func(a, b dayScore) int { return int(a.day - b.day) })
		var per [maxScorePoint + 1]int64
		for i, row := range rows {
			per[row.score] += row.n
			if i+1 < len(rows) && rows[i+1].day == row.day {
				continue
			}
			array = int4Array(array[:0], per[:])
			put := func(buf *bulkload.Buf, day int64) {
				buf.Row(4)
				buf.UUID(c.id)
				buf.UUID(c.jobs[job].id)
				buf.Date(day)
				buf.Binary(array)
			}
			put(&b, row.day)
			if i+1 == len(rows) {
				put(&latest, row.day)
				continue
			}
			for week := mondayAfter(row.day); week <= rows[i+1].day; week += 7 {
				put(&weekly, week)
			}
		}
	}
	if b.Rows() == 0 {
		return nil
	}
	const columns = "company_id, job_id, day, at_least"
	if err := bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: "job_score_running", Columns: columns}, &b, nil); err != nil {
		return err
	}
	if err := bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: "job_score_latest", Columns: columns}, &latest, nil); err != nil {
		return err
	}
	if weekly.Rows() == 0 {
		return nil
	}
	return bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: "job_score_weekly", Columns: "company_id, job_id, week, at_least"}, &weekly, nil)
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
