package interviewtools_test

import (
	"database/sql"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// Company-wide figures come from the rollups of migration 00007 plus the source rows of the
// partial slots or days at the window's ends; the tests here add rows by SQL (so the triggers fill
// the rollups) and compare the tools with counts written by hand or computed from the source rows.

// addCompleted inserts a COMPLETED session of job J3 invited, completed and evaluated at the same
// instant, so every basis (invitation, completion, evaluation) sees it at that instant.
func (f *fixture) addCompleted(t *testing.T, cand, at, medium string, dur int, score float64) {
	t.Helper()
	id := f.insertID(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at,
		duration_seconds, created_at) VALUES ($1, $2, $3, 'COMPLETED', $4, $5, $5, $6, $5) RETURNING id`,
		f.acme.ID, f.cand[cand], f.job["J3"], medium, ts(at), dur)
	f.exec(t, `INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at) VALUES ($1, $2, $3, $4)`,
		f.acme.ID, id, score, ts(at))
}

func TestRollupWindowEdges(t *testing.T) {
	f := setup(t)
	// The window [2026-05-10T10:07:00Z, 2026-05-12T13:52:30Z) cuts a 15-minute slot and a day at
	// each end; the fixture has nothing in May.
	for _, r := range []struct {
		cand, at, medium string
		dur              int
		score            float64
	}{
		{"Clone01", "2026-05-10T10:00:00Z", "VIDEO", 3000, 99}, // out: the start of the first cut slot
		{"Clone02", "2026-05-10T10:06:59Z", "VIDEO", 1000, 99}, // out: just before the start
		{"Clone03", "2026-05-10T10:07:00Z", "PHONE", 100, 80},  // in: the start
		{"Clone04", "2026-05-11T00:00:00Z", "VIDEO", 200, 10},  // in: a whole day
		{"Clone05", "2026-05-12T13:45:00Z", "PHONE", 400, 75},  // in: the start of the last cut slot
		{"Clone06", "2026-05-12T13:52:29Z", "VIDEO", 300, 90},  // in: just before the end
		{"Clone07", "2026-05-12T13:52:30Z", "VIDEO", 2000, 99}, // out: the end
	} {
		f.addCompleted(t, r.cand, r.at, r.medium, r.dur, r.score)
	}
	win := func(since, until string) map[string]any {
		return map[string]any{"sinceDate": since, "untilDate": until}
	}
	cases := []struct {
		name                         string
		w                            map[string]any
		n                            int64
		avg                          float64
		video, phone, evald, flagged int64
		hours                        map[int]int64 // UTC
	}{
		// Clone03 Clone04 Clone05 Clone06: (100+200+400+300)/4; flagged 80 75 90.
		{"ragged", win("2026-05-10T10:07:00Z", "2026-05-12T13:52:30Z"), 4, 250, 2, 2, 4, 3, map[int]int64{10: 1, 0: 1, 13: 2}},
		// One second wider at both ends: + Clone02 Clone07.
		{"wider", win("2026-05-10T10:06:59Z", "2026-05-12T13:52:31Z"), 6, 666.7, 4, 2, 6, 5, map[int]int64{10: 2, 0: 1, 13: 3}},
		// Inside one slot (no whole slot or day): Clone02 Clone03.
		{"one slot", win("2026-05-10T10:06:59Z", "2026-05-10T10:07:01Z"), 2, 550, 1, 1, 2, 2, map[int]int64{10: 2}},
		// Whole slots and a cut one within one day: Clone05 Clone06.
		{"one day", win("2026-05-12T13:00:00Z", "2026-05-12T13:52:30Z"), 2, 350, 1, 1, 2, 2, map[int]int64{13: 2}},
		// Aligned on days: all seven.
		{"days", win("2026-05-10", "2026-05-12"), 7, 1000, 5, 2, 7, 6, map[int]int64{10: 3, 0: 1, 13: 3}},
		// Open start (the fixture's March and April rows count too): 7 + 7 completed.
		{"open start", map[string]any{"untilDate": "2026-05-10T10:07:00Z"}, 9, -1, -1, -1, 8, 7, nil},
		{"open end", map[string]any{"sinceDate": "2026-05-12T13:52:29Z"}, 2, 1150, 2, 0, 2, 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stat := func(metric string) statsOut {
				t.Helper()
				return metricCall[statsOut](t, f, "getInterviewStats", metric, c.w)
			}
			if o := stat("completedInterviews"); i64(o.CompletedInterviews) != c.n {
				t.Errorf("completedInterviews = %d, want %d", i64(o.CompletedInterviews), c.n)
			}
			if c.avg >= 0 {
				if o := stat("completedCandidates"); i64(o.CompletedCandidates) != c.n { // one candidate each
					t.Errorf("completedCandidates = %d, want %d", i64(o.CompletedCandidates), c.n)
				}
				if d := stat("averageDuration").AverageDuration; d.Sessions != c.n || f64(d.AverageSeconds) != c.avg {
					t.Errorf("averageDuration = %+v, want %d sessions, mean %v", d, c.n, c.avg)
				}
			}
			if c.video >= 0 {
				o := stat("byMediumType")
				got := map[string][2]int64{}
				for _, m := range o.ByMediumType {
					got[m.MediumType] = [2]int64{m.Sessions, m.Completed}
				}
				if got["VIDEO"] != [2]int64{c.video, c.video} || got["PHONE"] != [2]int64{c.phone, c.phone} || i64(o.TotalSessions) != c.n {
					t.Errorf("byMediumType = %v (total %d), want VIDEO %d PHONE %d", got, i64(o.TotalSessions), c.video, c.phone)
				}
				o = stat("byStatus")
				if i64(o.TotalSessions) != c.n || o.ByStatus[2].Status != "COMPLETED" || o.ByStatus[2].Count != c.n {
					t.Errorf("byStatus = %+v", o.ByStatus)
				}
				o = stat("byInterviewer")
				if len(o.ByInterviewer) != 1 || o.ByInterviewer[0].JobTitle != "Data Analyst" || o.ByInterviewer[0].Completed != c.n {
					t.Errorf("byInterviewer = %+v", o.ByInterviewer)
				}
			}
			cheat := func(metric string) cheatOut {
				t.Helper()
				return metricCall[cheatOut](t, f, "getCheatingDetectionStats", metric, c.w)
			}
			if o := cheat("flaggedPercentage"); i64(o.Evaluated) != c.evald || i64(o.FlaggedInterviews) != c.flagged {
				t.Errorf("flaggedPercentage = %d/%d, want %d/%d", i64(o.FlaggedInterviews), i64(o.Evaluated), c.flagged, c.evald)
			}
			if c.video >= 0 {
				if o := cheat("flaggedCandidates"); i64(o.FlaggedCandidates) != c.flagged {
					t.Errorf("flaggedCandidates = %d, want %d", i64(o.FlaggedCandidates), c.flagged)
				}
				if o := cheat("byJob"); len(o.ByJob) != 1 || o.ByJob[0].Evaluated != c.evald || o.ByJob[0].Flagged != c.flagged {
					t.Errorf("byJob = %+v", o.ByJob)
				}
			}
			if c.hours != nil {
				a := maps.Clone(c.w)
				a["timezone"] = "UTC"
				o, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", a, nil)
				got := map[int]int64{}
				for _, b := range o.Buckets {
					if b.Count > 0 {
						got[b.Hour] = b.Count
					}
				}
				if !maps.Equal(got, c.hours) {
					t.Errorf("hours = %v, want %v", got, c.hours)
				}
			}
		})
	}
	// Asia/Kolkata (+05:30): 10:07 -> 15:37, 00:00 -> 05:30, 13:45 and 13:52 -> 19:15 and 19:22.
	o, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2026-05-10T10:07:00Z",
		"untilDate": "2026-05-12T13:52:30Z", "timezone": "Asia/Kolkata"}, nil)
	if o.Total != 4 || o.Buckets[15].Count != 1 || o.Buckets[5].Count != 1 || o.Buckets[19].Count != 2 {
		t.Errorf("Kolkata = %+v", o.Buckets)
	}
}

func TestCompletedCandidatesSpanning(t *testing.T) {
	f := setup(t)
	// The window [06-10, 06-20) against each candidate's completions (the fixture has none in June).
	add := func(cand, status, at string) {
		t.Helper()
		f.exec(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at, created_at)
			VALUES ($1, $2, $3, $4, 'VIDEO', $5, $5, $5)`, f.acme.ID, f.cand[cand], f.job["J3"], status, ts(at))
	}
	add("Clone01", "COMPLETED", "2026-06-01T00:00:00Z") // before, inside and after: counts
	add("Clone01", "COMPLETED", "2026-06-15T00:00:00Z")
	add("Clone01", "COMPLETED", "2026-06-25T00:00:00Z")
	add("Clone02", "COMPLETED", "2026-06-01T00:00:00Z") // before and after only
	add("Clone02", "COMPLETED", "2026-06-25T00:00:00Z")
	add("Clone03", "COMPLETED", "2026-06-01T00:00:00Z") // three completions, none inside; a cancelled one inside
	add("Clone03", "COMPLETED", "2026-06-05T00:00:00Z")
	add("Clone03", "COMPLETED", "2026-06-25T00:00:00Z")
	add("Clone03", "CANCELLED", "2026-06-15T00:00:00Z")
	add("Clone04", "COMPLETED", "2026-06-05T00:00:00Z") // first before, last inside: counts
	add("Clone04", "COMPLETED", "2026-06-12T00:00:00Z")
	add("Clone05", "COMPLETED", "2026-06-19T23:59:59Z") // first inside, last after: counts
	add("Clone05", "COMPLETED", "2026-06-20T00:00:00Z")
	add("Clone06", "COMPLETED", "2026-06-20T00:00:00Z") // only at the (exclusive) end
	// VIDEO before and after, PHONE inside: counts for all media and for PHONE, not for VIDEO.
	add("Clone07", "COMPLETED", "2026-06-01T00:00:00Z")
	add("Clone07", "COMPLETED", "2026-06-25T00:00:00Z")
	add("Clone07", "COMPLETED", "2026-06-18T00:00:00Z")
	f.exec(t, `UPDATE interview_sessions SET medium_type = 'PHONE' WHERE candidate_id = $1 AND completed_at = $2`,
		f.cand["Clone07"], ts("2026-06-18T00:00:00Z"))
	for _, c := range []struct {
		since, until string
		want         int64
	}{
		{"2026-06-10T00:00:00Z", "2026-06-20T00:00:00Z", 4}, // Clone01 Clone04 Clone05 Clone07
		{"2026-06-10T00:00:00Z", "2026-06-20T00:00:01Z", 5}, // + Clone06
		{"2026-06-15T00:00:01Z", "2026-06-25T00:00:00Z", 3}, // Clone05 Clone06 Clone07 (Clone01's 06-15 is just out)
		{"2026-06-15T00:00:00Z", "", 6},                     // every June candidate but Clone04
		{"", "2026-06-10T00:00:00Z", 10},                    // Clone01-04, Clone07 and the fixture's C1-C5
		{"", "", 12},
	} {
		args := map[string]any{"metric": "completedCandidates"}
		if c.since != "" {
			args["sinceDate"] = c.since
		}
		if c.until != "" {
			args["untilDate"] = c.until
		}
		o, _ := call[statsOut](t, f, nil, "getInterviewStats", args, nil)
		if i64(o.CompletedCandidates) != c.want {
			t.Errorf("completedCandidates [%s, %s) = %d, want %d", c.since, c.until, i64(o.CompletedCandidates), c.want)
		}
		// With a medium filter the sessions are read (every completion of acme is VIDEO, PHONE or BOTH).
		args["mediumType"] = []string{"VIDEO", "PHONE", "BOTH"}
		o, _ = call[statsOut](t, f, nil, "getInterviewStats", args, nil)
		if i64(o.CompletedCandidates) != c.want {
			t.Errorf("completedCandidates [%s, %s) with media = %d, want %d", c.since, c.until, i64(o.CompletedCandidates), c.want)
		}
		// One medium reads candidate_media: compare with the distinct candidates of the sessions.
		for _, m := range []string{"VIDEO", "PHONE"} {
			var want int64
			if err := f.h.Store.SQL().QueryRowContext(t.Context(), `SELECT count(DISTINCT candidate_id) FROM interview_sessions
				WHERE company_id = $1 AND status = 'COMPLETED' AND medium_type = $2
				AND ($3 = '' OR completed_at >= $3::timestamptz) AND ($4 = '' OR completed_at < $4::timestamptz)`,
				f.acme.ID, m, c.since, c.until).Scan(&want); err != nil {
				t.Fatal(err)
			}
			args["mediumType"] = []string{m}
			o, _ = call[statsOut](t, f, nil, "getInterviewStats", args, nil)
			if i64(o.CompletedCandidates) != want {
				t.Errorf("completedCandidates [%s, %s) by %s = %d, want %d", c.since, c.until, m, i64(o.CompletedCandidates), want)
			}
		}
		f.checkSource(t, c.since, c.until)
	}
}

func TestRollupsFollowChanges(t *testing.T) {
	f := setup(t)
	all := map[string]any{}
	step := func(what string) {
		t.Helper()
		for _, w := range [][2]string{{"", ""}, {"2026-03-06T13:30:00Z", "2026-04-13T21:59:00Z"}, {"2026-03-16T12:00:00Z", ""}} {
			f.checkSource(t, w[0], w[1])
		}
		if t.Failed() {
			t.Fatalf("after %s", what)
		}
	}
	stat := func(metric string, args map[string]any) statsOut {
		t.Helper()
		return metricCall[statsOut](t, f, "getInterviewStats", metric, args)
	}
	step("setup")

	// A session leaves COMPLETED: S10 (C5 keeps S11).
	f.exec(t, `UPDATE interview_sessions SET status = 'CANCELLED' WHERE id = $1`, f.sess["S10"])
	if o := stat("completedInterviews", all); i64(o.CompletedInterviews) != 6 {
		t.Errorf("completedInterviews after cancelling S10 = %d, want 6", i64(o.CompletedInterviews))
	}
	step("cancelling S10")

	// A completion moves: S4 from 04-10 22:15 (18:15 New York) to 03-20 10:00 (06:00).
	f.exec(t, `UPDATE interview_sessions SET completed_at = '2026-03-20T10:00:00Z' WHERE id = $1`, f.sess["S4"])
	o, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", nil, nil)
	if o.Total != 3 || o.Buckets[18].Count != 0 || o.Buckets[6].Count != 1 {
		t.Errorf("time of day after moving S4 = %+v", o.Buckets)
	}
	step("moving S4")

	// A session is deleted (its evaluation goes with it): S11, C5's last completion.
	f.exec(t, `DELETE FROM interview_sessions WHERE id = $1`, f.sess["S11"])
	if o := stat("completedCandidates", all); i64(o.CompletedCandidates) != 4 {
		t.Errorf("completedCandidates after deleting S11 = %d, want 4", i64(o.CompletedCandidates))
	}
	step("deleting S11")

	// Several rows in one statement: every VIDEO session becomes PHONE, durations change.
	f.exec(t, `UPDATE interview_sessions SET medium_type = 'PHONE', duration_seconds = duration_seconds + 60 WHERE company_id = $1 AND medium_type = 'VIDEO'`, f.acme.ID)
	if o := stat("byMediumType", all); o.ByMediumType[0].MediumType != "VIDEO" || o.ByMediumType[0].Sessions != 0 || o.ByMediumType[1].Sessions != 8 {
		t.Errorf("byMediumType after the bulk update = %+v", o.ByMediumType)
	}
	step("the bulk update")

	// byInterviewer for all time reads job_totals: J1 S1 S2 S5 S6 S9 (S1 S2 S9 completed), J2 S3 S4 S7 S8 S10 (S3 S4).
	if o := stat("byInterviewer", all); len(o.ByInterviewer) != 2 || o.ByInterviewer[0].Sessions != 5 || o.ByInterviewer[0].Completed != 3 ||
		o.ByInterviewer[1].Sessions != 5 || o.ByInterviewer[1].Completed != 2 {
		t.Errorf("byInterviewer = %+v", o.ByInterviewer)
	}

	// Evaluations change: S2 40 -> 95 (now flagged), S1's is deleted.
	// Left: J1 S2 95, S9 95; J2 S3 70, S4 88: all flagged.
	f.exec(t, `UPDATE cheating_evaluations SET cheating_score = 95 WHERE session_id = $1`, f.sess["S2"])
	f.exec(t, `DELETE FROM cheating_evaluations WHERE session_id = $1`, f.sess["S1"])
	c, _ := call[cheatOut](t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "byJob"}, nil)
	if len(c.ByJob) != 2 || c.ByJob[0].Evaluated != 2 || c.ByJob[0].Flagged != 2 || c.ByJob[1].Evaluated != 2 || c.ByJob[1].Flagged != 2 || i64(c.Evaluated) != 4 {
		t.Errorf("byJob after the evaluation changes = %+v", c.ByJob)
	}
	c, _ = call[cheatOut](t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "flaggedPercentage"}, nil)
	if i64(c.Evaluated) != 4 || i64(c.FlaggedInterviews) != 4 || f64(c.FlaggedPercentage) != 100 {
		t.Errorf("flaggedPercentage after the evaluation changes = %+v", c)
	}
	step("the evaluation changes")

	// A whole job goes (its sessions and their evaluations cascade): J2.
	f.exec(t, `DELETE FROM jobs WHERE id = $1`, f.job["J2"])
	if o := stat("byInterviewer", all); len(o.ByInterviewer) != 1 || o.ByInterviewer[0].JobTitle != "Backend Engineer" {
		t.Errorf("byInterviewer after deleting J2 = %+v", o.ByInterviewer)
	}
	step("deleting J2")
}

func TestTimeOfDayZones(t *testing.T) {
	f := setup(t)
	// Completions every 97 minutes from 03-05 to 04-08: the US (03-08), EU (03-29) and Lord Howe
	// (04-05, half an hour) clock changes; a quarter of the sessions expire instead.
	f.exec(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at,
			duration_seconds, created_at)
		SELECT $1, (SELECT id FROM candidates WHERE company_id = $1 AND first_name = 'Clone' ORDER BY last_name OFFSET i % 11 LIMIT 1),
			$2, CASE WHEN i % 4 = 0 THEN 'EXPIRED' ELSE 'COMPLETED' END, (ARRAY['VIDEO', 'PHONE', 'SMS'])[1 + i % 3],
			at - interval '1 day', CASE WHEN i % 4 <> 0 THEN at END, CASE WHEN i % 5 <> 0 THEN 60 + i % 900 END, at - interval '1 day'
		FROM generate_series(timestamptz '2026-03-05T00:03:00Z', '2026-04-08T00:00:00Z', interval '97 minutes') WITH ORDINALITY g(at, i)`,
		f.acme.ID, f.job["J3"])
	f.exec(t, `INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at)
		SELECT s.company_id, s.id, (date_part('minute', s.completed_at)::int * 7) % 100, s.completed_at + interval '7 minutes'
		FROM interview_sessions s WHERE s.company_id = $1 AND s.job_id = $2 AND s.status = 'COMPLETED'`, f.acme.ID, f.job["J3"])

	windows := []struct{ since, until string }{
		{"2026-03-05", "2026-04-07"},                     // local dates
		{"2026-03-07", "2026-03-09"},                     // the US change
		{"2026-03-28", "2026-03-30"},                     // the EU change
		{"2026-04-04", "2026-04-06"},                     // the Lord Howe change
		{"2026-03-07T22:13:00Z", "2026-03-30T01:07:00Z"}, // ragged
		{"2026-03-08T06:59:59Z", "2026-03-08T07:00:01Z"}, // inside one slot
	}
	for _, tz := range []string{"UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range windows {
			o, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": w.since, "untilDate": w.until, "timezone": tz}, nil)
			since, until := zoneBound(t, w.since, loc, false), zoneBound(t, w.until, loc, true)
			rows, err := f.h.Store.SQL().QueryContext(t.Context(), `SELECT date_part('hour', completed_at AT TIME ZONE $2)::int, count(*)
				FROM interview_sessions WHERE company_id = $1 AND status = 'COMPLETED' AND completed_at >= $3 AND completed_at < $4 GROUP BY 1`,
				f.acme.ID, tz, since, until)
			if err != nil {
				t.Fatal(err)
			}
			var want [24]int64
			for rows.Next() {
				var h int
				var n int64
				if err := rows.Scan(&h, &n); err != nil {
					t.Fatal(err)
				}
				want[h] = n
			}
			rows.Close()
			var got [24]int64
			for _, b := range o.Buckets {
				got[b.Hour] = b.Count
			}
			if got != want {
				t.Errorf("%s %v: hours %v, want %v", tz, w, got, want)
			}
		}
	}
	for _, w := range windows[4:] {
		f.checkSource(t, w.since, w.until)
	}
	f.checkSource(t, "2026-03-05T00:00:00Z", "2026-04-07T00:00:00Z")
}

// zoneBound reads a window end as the tool does: an RFC 3339 timestamp as is, a date as the start
// of that local day (of the next day for an end, which includes its day).
func zoneBound(t *testing.T, s string, loc *time.Location, end bool) time.Time {
	t.Helper()
	if d, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		if end {
			return d.AddDate(0, 0, 1)
		}
		return d
	}
	return ts(s)
}

// checkSource compares acme's company-wide figures for [since, until) (RFC 3339, "" is open) with
// counts over the source rows.
func (f *fixture) checkSource(t *testing.T, since, until string) {
	t.Helper()
	args := map[string]any{}
	var lo, hi sql.NullTime
	if since != "" {
		args["sinceDate"], lo = since, sql.NullTime{Time: ts(since), Valid: true}
	}
	if until != "" {
		args["untilDate"], hi = until, sql.NullTime{Time: ts(until), Valid: true}
	}
	db, ctx, w := f.h.Store.SQL(), t.Context(), fmt.Sprintf("[%s, %s)", since, until)
	in := func(col string) string {
		return fmt.Sprintf("($2::timestamptz IS NULL OR %[1]s >= $2) AND ($3::timestamptz IS NULL OR %[1]s < $3)", col)
	}
	var completed, candidates, timed int64
	var mean sql.NullFloat64
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT candidate_id), count(duration_seconds), avg(duration_seconds)
		FROM interview_sessions WHERE company_id = $1 AND status = 'COMPLETED' AND `+in("completed_at"), f.acme.ID, lo, hi).
		Scan(&completed, &candidates, &timed, &mean); err != nil {
		t.Fatal(err)
	}
	stat := func(metric string) statsOut {
		t.Helper()
		return metricCall[statsOut](t, f, "getInterviewStats", metric, args)
	}
	if o := stat("completedInterviews"); i64(o.CompletedInterviews) != completed {
		t.Errorf("%s completedInterviews = %d, source %d", w, i64(o.CompletedInterviews), completed)
	}
	if o := stat("completedCandidates"); i64(o.CompletedCandidates) != candidates {
		t.Errorf("%s completedCandidates = %d, source %d", w, i64(o.CompletedCandidates), candidates)
	}
	wantMean := -1.0
	if mean.Valid {
		wantMean = toolkit.Round(mean.Float64, 1)
	}
	if d := stat("averageDuration").AverageDuration; d.Sessions != timed || d.WithoutDuration != completed-timed || f64(d.AverageSeconds) != wantMean {
		t.Errorf("%s averageDuration = %+v, source %d/%d mean %v", w, d, timed, completed, wantMean)
	}

	rows, err := db.QueryContext(ctx, `SELECT status, medium_type, count(*) FROM interview_sessions
		WHERE company_id = $1 AND `+in("invited_at")+` GROUP BY 1, 2`, f.acme.ID, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	byStatus, byMedium := map[string]int64{}, map[string][2]int64{}
	for rows.Next() {
		var st, m string
		var n int64
		if err := rows.Scan(&st, &m, &n); err != nil {
			t.Fatal(err)
		}
		byStatus[st] += n
		c := byMedium[m]
		c[0] += n
		if st == "COMPLETED" {
			c[1] += n
		}
		byMedium[m] = c
	}
	rows.Close()
	for _, s := range stat("byStatus").ByStatus {
		if s.Count != byStatus[s.Status] {
			t.Errorf("%s byStatus %s = %d, source %d", w, s.Status, s.Count, byStatus[s.Status])
		}
	}
	for _, m := range stat("byMediumType").ByMediumType {
		if got := [2]int64{m.Sessions, m.Completed}; got != byMedium[m.MediumType] {
			t.Errorf("%s byMediumType %s = %v, source %v", w, m.MediumType, got, byMedium[m.MediumType])
		}
	}

	// Evaluations, with the session's candidate and job read through the session.
	var evaluated, flagged, flaggedCands int64
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE ce.cheating_score >= co.cheat_threshold),
			count(DISTINCT s.candidate_id) FILTER (WHERE ce.cheating_score >= co.cheat_threshold)
		FROM cheating_evaluations ce JOIN companies co ON co.id = ce.company_id JOIN interview_sessions s ON s.id = ce.session_id
		WHERE ce.company_id = $1 AND `+in("ce.created_at"), f.acme.ID, lo, hi).Scan(&evaluated, &flagged, &flaggedCands); err != nil {
		t.Fatal(err)
	}
	cheat := func(metric string) cheatOut {
		t.Helper()
		return metricCall[cheatOut](t, f, "getCheatingDetectionStats", metric, args)
	}
	if o := cheat("flaggedPercentage"); i64(o.Evaluated) != evaluated || i64(o.FlaggedInterviews) != flagged {
		t.Errorf("%s flaggedPercentage = %d/%d, source %d/%d", w, i64(o.FlaggedInterviews), i64(o.Evaluated), flagged, evaluated)
	}
	if o := cheat("flaggedCandidates"); i64(o.FlaggedCandidates) != flaggedCands {
		t.Errorf("%s flaggedCandidates = %d, source %d", w, i64(o.FlaggedCandidates), flaggedCands)
	}
	var jobs int64
	if err := db.QueryRowContext(ctx, `SELECT count(DISTINCT s.job_id) FROM cheating_evaluations ce JOIN interview_sessions s ON s.id = ce.session_id
		WHERE ce.company_id = $1 AND `+in("ce.created_at"), f.acme.ID, lo, hi).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if o := cheat("byJob"); i64(o.Evaluated) != evaluated || i64(o.Jobs) != jobs {
		t.Errorf("%s byJob = %d evaluations in %d jobs, source %d in %d", w, i64(o.Evaluated), i64(o.Jobs), evaluated, jobs)
	}
}

func TestVerificationRollupWindowEdges(t *testing.T) {
	f := setup(t)
	// Fraud and identity verifications around the edges of [2026-05-10T10:07:00Z,
	// 2026-05-12T13:52:30Z) (the fixture's are in March and April); each window's figures are
	// compared with counts over the rows.
	for i, r := range []struct {
		cand, at string
		score    float64
	}{
		{"Clone01", "2026-05-10T00:00:00Z", 10},  // the start of the first cut day
		{"Clone02", "2026-05-10T10:06:59Z", 60},  // just before the start
		{"Clone03", "2026-05-10T10:07:00Z", 49},  // the start
		{"Clone04", "2026-05-11T00:00:00Z", 25},  // a whole day
		{"Clone05", "2026-05-11T23:59:59Z", 100}, // a whole day
		{"Clone06", "2026-05-12T13:52:29Z", 75},  // just before the end
		{"Clone07", "2026-05-12T13:52:30Z", 5},   // the end
		{"Clone08", "2026-05-12T23:59:59Z", 50},  // the end of the last cut day
	} {
		f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, disposable_email, voip_phone,
			vpn_proxy_ip, thin_profile, footprint_anomaly, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			f.acme.ID, f.cand[r.cand], r.score, i%2 == 0, i%3 == 0, i%4 == 0, i < 3, i > 5, ts(r.at))
		status := []string{"PENDING", "VERIFIED", "FAILED", "EXPIRED"}[i%4]
		reason := []any{nil, " Document expired ", "Selfie mismatch", ""}[i%4]
		if i%4 == 0 {
			status = "FAILED"
		}
		f.exec(t, `INSERT INTO identity_verifications (company_id, candidate_id, job_id, status, failure_reason, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, f.acme.ID, f.cand[r.cand], f.job["J3"], status, reason, ts(r.at))
	}
	for _, w := range [][2]string{
		{"2026-05-10T10:07:00Z", "2026-05-12T13:52:30Z"},
		{"2026-05-10T10:06:59Z", "2026-05-12T13:52:31Z"},
		{"2026-05-10T10:00:00Z", "2026-05-10T10:10:00Z"}, // inside one day
		{"2026-05-10", "2026-05-12"},                     // whole days (untilDate inclusive)
		{"2026-05-11T00:00:00Z", ""},
		{"", "2026-05-11T12:00:00Z"},
		{"", ""},
	} {
		args := map[string]any{"metric": "riskBreakdown", "threshold": 50}
		where := "company_id = $1"
		sqlArgs := []any{f.acme.ID}
		if w[0] != "" {
			args["sinceDate"] = w[0]
			sqlArgs = append(sqlArgs, w[0])
			where += fmt.Sprintf(" AND created_at >= $%d::timestamptz", len(sqlArgs))
		}
		if w[1] != "" {
			args["untilDate"] = w[1]
			until := w[1]
			if len(until) == len(time.DateOnly) { // an ISO date includes the day
				until = ts(until+"T00:00:00Z").AddDate(0, 0, 1).Format(time.RFC3339)
			}
			sqlArgs = append(sqlArgs, until)
			where += fmt.Sprintf(" AND created_at < $%d::timestamptz", len(sqlArgs))
		}
		want := make([]int64, 11)
		dest := make([]any, len(want))
		for i := range want {
			dest[i] = &want[i]
		}
		const s = "overall_verification_score"
		if err := f.h.Store.SQL().QueryRowContext(t.Context(), `SELECT count(*), count(*) FILTER (WHERE `+s+` < 50),
			count(*) FILTER (WHERE disposable_email), count(*) FILTER (WHERE voip_phone), count(*) FILTER (WHERE vpn_proxy_ip),
			count(*) FILTER (WHERE thin_profile), count(*) FILTER (WHERE footprint_anomaly),
			count(*) FILTER (WHERE `+s+` < 25), count(*) FILTER (WHERE `+s+` >= 25 AND `+s+` < 50),
			count(*) FILTER (WHERE `+s+` >= 50 AND `+s+` < 75), count(*) FILTER (WHERE `+s+` >= 75)
			FROM fraud_verifications WHERE `+where, sqlArgs...).Scan(dest...); err != nil {
			t.Fatal(err)
		}
		o, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", args, nil)
		rb := o.RiskBreakdown
		got := []int64{rb.Verifications, rb.Flagged}
		for _, s := range rb.Signals {
			got = append(got, s.Count)
		}
		for _, b := range rb.ScoreBands {
			got = append(got, b.Count)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("riskBreakdown %v = %v, want %v", w, got, want)
		}
		args["metric"] = "flaggedCandidates"
		o, _ = call[fraudOut](t, f, nil, "getFraudVerificationStats", args, nil)
		if i64(o.Verifications) != want[0] || i64(o.FlaggedVerifications) != want[1] {
			t.Errorf("flaggedCandidates %v = %d of %d, want %d of %d", w, i64(o.FlaggedVerifications), i64(o.Verifications), want[1], want[0])
		}

		// Identity: statuses and failure reasons.
		wantStatus, wantReasons := map[string]int64{}, map[string]int64{}
		rows, err := f.h.Store.SQL().QueryContext(t.Context(), `SELECT status, coalesce(nullif(btrim(failure_reason), ''), '-'), count(*)
			FROM identity_verifications WHERE `+where+` GROUP BY 1, 2`, sqlArgs...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var st, reason string
			var n int64
			if err := rows.Scan(&st, &reason, &n); err != nil {
				t.Fatal(err)
			}
			wantStatus[st] += n
			if st == "FAILED" {
				wantReasons[reason] += n
			}
		}
		rows.Close()
		delete(args, "threshold")
		args["metric"] = "statusBreakdown"
		io, _ := call[idOut](t, f, nil, "getIdentityVerificationStats", args, nil)
		gotStatus := map[string]int64{}
		for _, c := range io.StatusBreakdown {
			if c.Count > 0 {
				gotStatus[c.Status] = c.Count
			}
		}
		if !maps.Equal(gotStatus, wantStatus) {
			t.Errorf("statusBreakdown %v = %v, want %v", w, gotStatus, wantStatus)
		}
		args["metric"] = "failureReasons"
		io, _ = call[idOut](t, f, nil, "getIdentityVerificationStats", args, nil)
		gotReasons := map[string]int64{}
		for _, r := range io.FailureReasons {
			if r.Reason == "(no reason recorded)" {
				r.Reason = "-"
			}
			gotReasons[r.Reason] = r.Count
		}
		if !maps.Equal(gotReasons, wantReasons) || i64(io.TotalFailed) != wantStatus["FAILED"] {
			t.Errorf("failureReasons %v = %v (total %d), want %v", w, gotReasons, i64(io.TotalFailed), wantReasons)
		}
		args["metric"] = "failedDetails"
		io, _ = call[idOut](t, f, nil, "getIdentityVerificationStats", args, nil)
		if i64(io.TotalFailed) != wantStatus["FAILED"] {
			t.Errorf("failedDetails %v total = %d, want %d", w, i64(io.TotalFailed), wantStatus["FAILED"])
		}
	}
}

// TestFlaggedCandidatesSince compares the flagged candidates since a date (flag_last_daily,
// migration 00052, and the source rows of a partial first day or a fraction of a point) with the
// distinct candidates of the flagged rows, for whole and fractional thresholds, windows opening
// at midnight and within a day, before and after rows change; globex's rows in the window never
// count.
func TestFlaggedCandidatesSince(t *testing.T) {
	f := setup(t)
	rows := []struct {
		cand, at       string
		cheat, fraudSc float64
	}{
		{"Clone01", "2026-05-05T09:00:00Z", 90, 10},
		{"Clone01", "2026-05-12T09:00:00Z", 40, 45},
		{"Clone02", "2026-05-11T09:00:00Z", 75, 30},
		{"Clone02", "2026-05-15T09:00:00Z", 72.3, 29.9},
		{"Clone03", "2026-05-10T12:00:00Z", 80, 20},
		{"Clone03", "2026-05-10T14:00:00Z", 60, 35.5},
		{"Clone04", "2026-05-20T00:00:00Z", 70.5, 30.25},
		{"Clone04", "2026-05-21T09:00:00Z", 10, 80},
		{"Clone05", "2026-05-09T23:59:59Z", 99, 1},
		{"Clone05", "2026-05-22T09:00:00Z", 70.2, 30.7},
		{"Clone06", "2026-05-10T13:30:00Z", 71, 29},
		{"Clone07", "2026-05-02T09:00:00Z", 100, 100},
		{"Clone07", "2026-05-24T09:00:00Z", 69.99, 0},
		{"Clone08", "2026-05-23T09:00:00Z", 12.25, 12.25},
		{"Clone08", "2026-05-23T09:00:00Z", 70, 12.24},
	}
	for _, r := range rows {
		f.addCompleted(t, r.cand, r.at, "VIDEO", 600, r.cheat)
		f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, created_at) VALUES ($1, $2, $3, $4)`,
			f.acme.ID, f.cand[r.cand], r.fraudSc, ts(r.at))
	}
	// globex: a candidate flagged at every threshold in every window.
	g := f.insertID(t, `INSERT INTO interview_sessions (company_id, candidate_id, job_id, status, medium_type, invited_at, completed_at, created_at)
		VALUES ($1, $2, $3, 'COMPLETED', 'VIDEO', $4, $4, $4) RETURNING id`, f.globex.ID, f.cand["Z"], f.job["G1"], ts("2026-05-21T10:00:00Z"))
	f.exec(t, `INSERT INTO cheating_evaluations (company_id, session_id, cheating_score, created_at) VALUES ($1, $2, 100, $3)`, f.globex.ID, g, ts("2026-05-21T10:00:00Z"))
	f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, created_at) VALUES ($1, $2, 0, $3)`,
		f.globex.ID, f.cand["Z"], ts("2026-05-21T10:00:00Z"))

	db := f.h.Store.SQL()
	check := func(step string) {
		t.Helper()
		for _, since := range []string{"2026-03-01", "2026-05-10", "2026-05-10T13:00:00Z", "2026-05-20T00:00:01Z", "2026-05-25"} {
			for _, thr := range []float64{0, 12.25, 29.9, 30, 30.5, 50, 69.99, 70, 70.5, 100} {
				var fraudWant int64
				if err := db.QueryRowContext(t.Context(), `SELECT count(DISTINCT candidate_id) FROM fraud_verifications
					WHERE company_id = $1 AND overall_verification_score < $2 AND created_at >= $3::timestamptz`, f.acme.ID, thr, since).Scan(&fraudWant); err != nil {
					t.Fatal(err)
				}
				o, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedCandidates", "threshold": thr, "sinceDate": since}, nil)
				if i64(o.FlaggedCandidates) != fraudWant {
					t.Errorf("%s: fraud flaggedCandidates below %v since %s = %d, source %d", step, thr, since, i64(o.FlaggedCandidates), fraudWant)
				}
				f.exec(t, `UPDATE companies SET cheat_threshold = $2 WHERE id = $1`, f.acme.ID, thr)
				var cheatWant int64
				if err := db.QueryRowContext(t.Context(), `SELECT count(DISTINCT candidate_id) FROM cheating_evaluations
					WHERE company_id = $1 AND cheating_score >= $2 AND created_at >= $3::timestamptz`, f.acme.ID, thr, since).Scan(&cheatWant); err != nil {
					t.Fatal(err)
				}
				c, _ := call[cheatOut](t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "flaggedCandidates", "sinceDate": since}, nil)
				if c.Threshold != thr || i64(c.FlaggedCandidates) != cheatWant {
					t.Errorf("%s: cheating flaggedCandidates at %v (tool's threshold %v) since %s = %d, source %d", step, thr, c.Threshold, since,
						i64(c.FlaggedCandidates), cheatWant)
				}
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	check("the inserts")
	// A candidate's last flagged row moves before the window; another row's score drops; one goes.
	f.exec(t, `UPDATE cheating_evaluations SET created_at = '2026-05-01T00:00:00Z' WHERE company_id = $1 AND cheating_score = 72.3`, f.acme.ID)
	f.exec(t, `UPDATE fraud_verifications SET created_at = '2026-05-01T00:00:00Z' WHERE company_id = $1 AND overall_verification_score = 29.9`, f.acme.ID)
	f.exec(t, `UPDATE cheating_evaluations SET cheating_score = 5 WHERE company_id = $1 AND cheating_score = 71`, f.acme.ID)
	f.exec(t, `DELETE FROM fraud_verifications WHERE company_id = $1 AND overall_verification_score = 30.25`, f.acme.ID)
	check("the changes")
}
