package seed

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/recruitd/recruitd/internal/bulkload"
	"github.com/recruitd/recruitd/models"
)

// tally is a rollup table's rows being counted: a key's counts, width of them. The counts of
// all keys share one slice, in the order the keys came, and the map holds a key's place in it:
// a generating worker adds to a few million rows (job_score_daily's keys are nearly one per
// evaluation), and a slice of counts per key cost an allocation each, more for the collector to
// scan, and a second cache miss per add.
type tally[K comparable] struct {
	width int
	index map[K]int32
	keys  []K
	vals  []int64
}

func newTally[K comparable](width int) tally[K] {
	return tally[K]{width: width, index: map[K]int32{}}
}

// add adds v to the counts of k, from the first.
func (t *tally[K]) add(k K, v ...int64) {
	i, ok := t.index[k]
	if !ok {
		i = int32(len(t.keys))
		t.index[k] = i
		t.keys = append(t.keys, k)
		t.vals = append(t.vals, make([]int64, t.width)...)
	}
	row := t.vals[int(i)*t.width:]
	for j, x := range v {
		row[j] += x
	}
}

// all yields each key with its counts.
func (t *tally[K]) all() iter.Seq2[K, []int64] {
	return func(yield func(K, []int64) bool) {
		for i, k := range t.keys {
			if !yield(k, t.vals[i*t.width:(i+1)*t.width:(i+1)*t.width]) {
				return
			}
		}
	}
}

func (t *tally[K]) merge(o *tally[K]) {
	for k, v := range o.all() {
		t.add(k, v...)
	}
}

// companyRollups are one company's counts of the rollups a parallel load computes from the rows
// it generates (rollup.Generated), as rollup_rebuild computes them from the source tables; the
// load adds them to the company's rows (the demo tenant has some, kept by the triggers).
type companyRollups struct {
	sessionDaily  tally[sessionDayKey]     // sessions
	slots         tally[slotKey]           // completed, duration_n, duration_sum
	jobDaily      tally[jobDayKey]         // sessions, completed, evaluated
	jobTotals     tally[*genJob]           // applicants, sessions, completed, evaluated
	evalDaily     tally[int64]             // evaluated, by day
	evalScores    tally[scoreKey]          // evaluated, by whole score and day
	jobEvalScores tally[jobScoreKey]       // evaluated
	jobScoreDaily tally[jobScoreDayKey]    // evaluated (scale_jobscores.go)
	fraudDaily    tally[int64]             // verifications, the five flags, the four bands
	fraudScores   tally[scoreKey]          // verifications
	identityDaily tally[identityKey]       // verifications
	candDaily     tally[statusDayKey]      // candidates
	scoreCounts   tally[kindScoreKey]      // candidates
	mediaCands    tally[models.MediumType] // candidates
	journeyDaily  tally[journeyKey]        // candidates
	journeyLast   tally[int64]             // candidates, by day of the last completion
	flagLast      tally[flagKey]           // candidates (signed)
}

// The keys of the biggest tallies hold no pointers or strings and fit in eight bytes or so:
// their maps take the fast paths for such keys and the collector skips them.

type flagKey struct {
	day   int32
	point int16
	fraud bool // else cheating
}

// flagRow is a cheating evaluation or fraud verification of a candidate, for flag_last_daily.
type flagRow struct {
	created int64
	id      uuidv
	floor   int // floor of the score
}

type sessionDayKey struct {
	day      int64 // days since 1970-01-01 (UTC)
	status   models.SessionStatus
	medium   models.MediumType
	decision models.Decision
}

type slotKey struct {
	slot   int64 // completed_at in microseconds, down to its 15-minute slot
	medium models.MediumType
}

type jobDayKey struct {
	day int32
	job int32 // genJob.index
}

type scoreKey struct{ score, day int32 }

type jobScoreKey struct {
	score int32
	job   int32 // genJob.index
}

type identityKey struct {
	day            int64
	status, reason string
}

type statusDayKey struct {
	day    int64
	status string
}

type kindScoreKey struct {
	kind  string
	score int64
}

type journeyKey struct {
	day                                 int64
	started, completed, positive, hired bool
}

func newCompanyRollups() *companyRollups {
	return &companyRollups{
		sessionDaily:  newTally[sessionDayKey](1),
		slots:         newTally[slotKey](3),
		jobDaily:      newTally[jobDayKey](3),
		jobTotals:     newTally[*genJob](4),
		evalDaily:     newTally[int64](1),
		evalScores:    newTally[scoreKey](1),
		jobEvalScores: newTally[jobScoreKey](1),
		jobScoreDaily: newTally[jobScoreDayKey](1),
		fraudDaily:    newTally[int64](10),
		fraudScores:   newTally[scoreKey](1),
		identityDaily: newTally[identityKey](1),
		candDaily:     newTally[statusDayKey](1),
		scoreCounts:   newTally[kindScoreKey](1),
		mediaCands:    newTally[models.MediumType](1),
		journeyDaily:  newTally[journeyKey](1),
		journeyLast:   newTally[int64](1),
		flagLast:      newTally[flagKey](1),
	}
}

func (r *companyRollups) merge(o *companyRollups) {
	r.sessionDaily.merge(&o.sessionDaily)
	r.slots.merge(&o.slots)
	r.jobDaily.merge(&o.jobDaily)
	r.jobTotals.merge(&o.jobTotals)
	r.evalDaily.merge(&o.evalDaily)
	r.evalScores.merge(&o.evalScores)
	r.jobEvalScores.merge(&o.jobEvalScores)
	r.jobScoreDaily.merge(&o.jobScoreDaily)
	r.fraudDaily.merge(&o.fraudDaily)
	r.fraudScores.merge(&o.fraudScores)
	r.identityDaily.merge(&o.identityDaily)
	r.candDaily.merge(&o.candDaily)
	r.scoreCounts.merge(&o.scoreCounts)
	r.mediaCands.merge(&o.mediaCands)
	r.journeyDaily.merge(&o.journeyDaily)
	r.journeyLast.merge(&o.journeyLast)
	r.flagLast.merge(&o.flagLast)
}

// rollupAgg is a generating worker's rollups, per company.
type rollupAgg map[*companyGen]*companyRollups

func (a rollupAgg) of(c *companyGen) *companyRollups {
	r := a[c]
	if r == nil {
		r = newCompanyRollups()
		a[c] = r
	}
	return r
}

const slotWidth = 15 * minute

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// candidate counts a generated candidate.
func (r *companyRollups) candidate(status string, created int64) {
	r.candDaily.add(statusDayKey{created / day, status}, 1)
}

// session counts a generated session.
func (r *companyRollups) session(s *sessRow) {
	invitedDay := s.invited / day
	completed := s.status == models.SessionStatusCompleted
	r.sessionDaily.add(sessionDayKey{invitedDay, s.status, s.medium, s.decision}, 1)
	r.jobDaily.add(jobDayKey{int32(invitedDay), int32(s.job.index)}, 1, b2i(completed))
	r.jobTotals.add(s.job, 0, 1, b2i(completed))
	if !completed {
		return
	}
	durN, durSum := int64(0), int64(0)
	if s.duration >= 0 {
		durN, durSum = 1, int64(s.duration)
	}
	r.slots.add(slotKey{s.completed - s.completed%slotWidth, s.medium}, 1, durN, durSum)
}

// applicant counts a candidate's first application to job.
func (r *companyRollups) applicant(job *genJob) { r.jobTotals.add(job, 1) }

// evaluation counts a generated cheating evaluation of job made at created with score (in
// hundredths).
func (r *companyRollups) evaluation(job *genJob, created int64, score int) {
	d, s := created/day, int64(score/100)
	r.jobDaily.add(jobDayKey{int32(d), int32(job.index)}, 0, 0, 1)
	r.jobTotals.add(job, 0, 0, 0, 1)
	r.evalDaily.add(d, 1)
	r.evalScores.add(scoreKey{int32(s), int32(d)}, 1)
	r.jobEvalScores.add(jobScoreKey{int32(s), int32(job.index)}, 1)
	r.jobScoreDaily.add(jobScoreDayKey{int32(job.index), int32(d), int32(s)}, 1)
}

// cheatingSteps counts the steps of flag_last_daily (migration 00052) of a candidate's cheating
// evaluations: the evaluation that is the candidate's last flagged one at thresholds lo < t <= hi
// counts +1 at hi and -1 at lo on its day, lo being the highest floor of the later evaluations
// (by created_at, then id; -1 when none) and hi its own floor. rows is reordered.
func (r *companyRollups) cheatingSteps(rows []flagRow) {
	slices.SortFunc(rows, func(a, b flagRow) int {
		if c := cmp.Compare(a.created, b.created); c != 0 {
			return c
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
	later := -1
	for i := len(rows) - 1; i >= 0; i-- {
		lo, hi := later, rows[i].floor
		r.flagStep(false, rows[i].created, lo, hi)
		later = max(later, rows[i].floor)
	}
}

// flagStep counts a step from lo to hi of flag_last_daily on the day of created, of the fraud
// kind or else the cheating kind.
func (r *companyRollups) flagStep(fraud bool, created int64, lo, hi int) {
	if hi <= lo {
		return
	}
	d := created / day
	if hi >= 0 {
		r.flagLast.add(flagKey{int32(d), int16(hi), fraud}, 1)
	}
	if lo >= 0 {
		r.flagLast.add(flagKey{int32(d), int16(lo), fraud}, -1)
	}
}

// fraud counts a generated fraud verification (score in hundredths), a candidate's only one:
// its flag_last_daily step goes from its floor to 100.
func (r *companyRollups) fraud(created int64, score int, disposable, voip, vpn, thin, footprint bool) {
	r.flagStep(true, created, score/100, 100)
	d := created / day
	r.fraudDaily.add(d, 1, b2i(disposable), b2i(voip), b2i(vpn), b2i(thin), b2i(footprint),
		b2i(score < 2500), b2i(score >= 2500 && score < 5000), b2i(score >= 5000 && score < 7500), b2i(score >= 7500))
	r.fraudScores.add(scoreKey{int32(score / 100), int32(d)}, 1)
}

// identity counts a generated identity verification, with its reason as identity_reason gives it.
func (r *companyRollups) identity(created int64, status models.IdentityStatus, failure string) {
	reason := ""
	if status == models.IdentityStatusFailed {
		reason = strings.Trim(failure, " ")
		if utf8.RuneCountInString(reason) > 500 {
			reason = string([]rune(reason)[:500])
		}
	}
	r.identityDaily.add(identityKey{created / day, string(status), reason}, 1)
}

// journey counts a candidate's row of candidate_journeys (invited is always true: the generator
// writes one for candidates with sessions).
func (r *companyRollups) journey(entered int64, started, completed, positive, hired bool, last int64, n int) {
	r.journeyDaily.add(journeyKey{entered / day, started, completed, positive, hired}, 1)
	if n > 0 {
		r.journeyLast.add(last/day, 1)
	}
}

// media counts a candidate's row of candidate_media.
func (r *companyRollups) media(m models.MediumType) { r.mediaCands.add(m, 1) }

// scores counts a candidate's row of candidate_scores (-1: none).
func (r *companyRollups) scores(maxCheating, minFraud int) {
	if maxCheating >= 0 {
		r.scoreCounts.add(kindScoreKey{"cheating", int64(maxCheating / 100)}, 1)
	}
	if minFraud >= 0 {
		r.scoreCounts.add(kindScoreKey{"fraud", int64(minFraud / 100)}, 1)
	}
}

// writeRollups adds the company's generated rollups to its rows, one table after the other.
func writeRollups(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	for _, f := range []func(context.Context, pgx.Tx, *companyGen, *companyRollups) error{
		writeSessionDaily, writeCompletionSlots, writeCompletionSlotTotals, writeJobDaily, writeJobTotals,
		writeEvaluationDaily, writeEvaluationScores, writeJobEvaluationScores, writeFraudDaily, writeFraudScores,
		writeIdentityDaily, writeCandidateDaily, writeCandidateScoreCounts, writeMediaCandidates,
		writeJourneyDaily, writeJourneyLastDaily, writeFlagLastDaily, writeJobScoreDaily, writeJobScoreRunning,
	} {
		if err := f(ctx, tx, c, r); err != nil {
			return err
		}
	}
	return nil
}

func counts(b *bulkload.Buf, v []int64) {
	for _, x := range v {
		b.Int8(x)
	}
}

func writeSessionDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.sessionDaily.all() {
		b.Row(6)
		b.UUID(c.id)
		b.Date(k.day)
		b.Text(string(k.status))
		b.Text(string(k.medium))
		b.Text(string(k.decision))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "session_daily_folded", "company_id, day, status, medium_type, decision", "sessions", &b)
}

func writeCompletionSlots(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.slots.all() {
		b.Row(6)
		b.UUID(c.id)
		b.TS(k.slot)
		b.Text(string(k.medium))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "completion_slots_folded", "company_id, slot, medium_type", "completed, duration_n, duration_sum", &b)
}

func writeCompletionSlotTotals(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	totals := newTally[int64](3)
	for k, v := range r.slots.all() {
		totals.add(k.slot, v...)
	}
	var b bulkload.Buf
	for slot, v := range totals.all() {
		b.Row(5)
		b.UUID(c.id)
		b.TS(slot)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "completion_slot_totals_folded", "company_id, slot", "completed, duration_n, duration_sum", &b)
}

// writeJobDaily writes job_daily's folded rows (job_daily is a view over them and the pending
// deltas, migration 00050).
func writeJobDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.jobDaily.all() {
		b.Row(6)
		b.UUID(c.id)
		b.Date(int64(k.day))
		b.UUID(c.jobs[k.job].id)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "job_daily_folded", "company_id, day, job_id", "sessions, completed, evaluated", &b)
}

// writeJobTotals writes job_totals' folded rows (a view, as job_daily).
func writeJobTotals(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for job, v := range r.jobTotals.all() {
		b.Row(6)
		b.UUID(c.id)
		b.UUID(job.id)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "job_totals_folded", "company_id, job_id", "applicants, sessions, completed, evaluated", &b)
}

func writeEvaluationDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for d, v := range r.evalDaily.all() {
		b.Row(3)
		b.UUID(c.id)
		b.Date(d)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "evaluation_daily", "company_id, day", "evaluated", &b)
}

func writeEvaluationScores(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.evalScores.all() {
		b.Row(4)
		b.UUID(c.id)
		b.Int2(int(k.score))
		b.Date(int64(k.day))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "evaluation_scores", "company_id, score, day", "evaluated", &b)
}

func writeJobEvaluationScores(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.jobEvalScores.all() {
		b.Row(4)
		b.UUID(c.id)
		b.Int2(int(k.score))
		b.UUID(c.jobs[k.job].id)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "job_evaluation_scores", "company_id, score, job_id", "evaluated", &b)
}

func writeFraudDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for d, v := range r.fraudDaily.all() {
		b.Row(12)
		b.UUID(c.id)
		b.Date(d)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "fraud_daily", "company_id, day",
		"verifications, disposable_email, voip_phone, vpn_proxy_ip, thin_profile, footprint_anomaly, band_0_25, band_25_50, band_50_75, band_75_100", &b)
}

func writeFraudScores(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.fraudScores.all() {
		b.Row(4)
		b.UUID(c.id)
		b.Int2(int(k.score))
		b.Date(int64(k.day))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "fraud_scores", "company_id, score, day", "verifications", &b)
}

func writeIdentityDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.identityDaily.all() {
		b.Row(5)
		b.UUID(c.id)
		b.Date(k.day)
		b.Text(k.status)
		b.Text(k.reason)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "identity_daily", "company_id, day, status, reason", "verifications", &b)
}

func writeCandidateDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.candDaily.all() {
		b.Row(4)
		b.UUID(c.id)
		b.Date(k.day)
		b.Text(k.status)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "candidate_daily_folded", "company_id, day, status", "candidates", &b)
}

func writeCandidateScoreCounts(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.scoreCounts.all() {
		b.Row(4)
		b.UUID(c.id)
		b.Text(k.kind)
		b.Int2(int(k.score))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "candidate_score_counts", "company_id, kind, score", "candidates", &b)
}

func writeMediaCandidates(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for m, v := range r.mediaCands.all() {
		b.Row(3)
		b.UUID(c.id)
		b.Text(string(m))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "media_candidates_folded", "company_id, medium_type", "candidates", &b)
}

func writeJourneyDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.journeyDaily.all() {
		b.Row(8)
		b.UUID(c.id)
		b.Date(k.day)
		b.Bool(true)
		b.Bool(k.started)
		b.Bool(k.completed)
		b.Bool(k.positive)
		b.Bool(k.hired)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "journey_daily_folded", "company_id, day, invited, started, completed, positive, hired", "candidates", &b)
}

func writeJourneyLastDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for d, v := range r.journeyLast.all() {
		b.Row(3)
		b.UUID(c.id)
		b.Date(d)
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "journey_last_daily_folded", "company_id, day", "candidates", &b)
}

func writeFlagLastDaily(ctx context.Context, tx pgx.Tx, c *companyGen, r *companyRollups) error {
	var b bulkload.Buf
	for k, v := range r.flagLast.all() {
		if v[0] == 0 {
			continue
		}
		b.Row(5)
		b.UUID(c.id)
		b.Text(flagKind(k.fraud))
		b.Date(int64(k.day))
		b.Int2(int(k.point))
		counts(&b, v)
	}
	return addRollupRows(ctx, tx, "flag_last_daily", "company_id, kind, day, point", "candidates", &b)
}

// addRollupRows adds the rows of b (the columns keys, then counts) to table: a row whose key is
// there already gets its counts added.
func addRollupRows(ctx context.Context, tx pgx.Tx, table, keys, counts string, b *bulkload.Buf) error {
	if b.Rows() == 0 {
		return nil
	}
	stage := "seed_stage_" + table
	if _, err := tx.Exec(ctx, "CREATE TEMP TABLE "+stage+" (LIKE "+table+")"); err != nil {
		return fmt.Errorf("stage %s: %w", table, err)
	}
	cols := keys + ", " + counts
	if err := bulkload.CopyBuf(ctx, tx, bulkload.Table{Name: stage, Columns: cols}, b, nil); err != nil {
		return err
	}
	var set []string
	for _, col := range strings.Split(counts, ", ") {
		set = append(set, col+" = t."+col+" + excluded."+col)
	}
	stmt := "INSERT INTO " + table + " AS t (" + cols + ") SELECT " + cols + " FROM " + stage +
		" ON CONFLICT (" + keys + ") DO UPDATE SET " + strings.Join(set, ", ")
	if _, err := tx.Exec(ctx, stmt+"; DROP TABLE "+stage); err != nil {
		return fmt.Errorf("add %s: %w", table, err)
	}
	return nil
}

// flagKind is flag_last_daily's kind of a flagKey.
func flagKind(fraud bool) string {
	if fraud {
		return "fraud"
	}
	return "cheating"
}
