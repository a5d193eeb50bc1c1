package interviewtools_test

import (
	"fmt"
	"testing"
)

// TestScoreHistograms checks the flagged counts that read the score histograms of migration
// 00047 against counts over the source rows, with thresholds that fall inside a whole score
// point (so the fraction of a point comes from the rows) and on one, in windows with partial
// days; then it proves the company-wide counts come from the histograms: a row added to a
// histogram behind the triggers' back shows in the answers (the source rows alone would not).
func TestScoreHistograms(t *testing.T) {
	f := setup(t)
	// Evaluations and fraud checks around the points 70, 71 and 49, 50, on 2026-05-10..12.
	for i, r := range []struct {
		cand, at string
		score    float64
	}{
		{"Clone01", "2026-05-10T09:00:00Z", 70.49},
		{"Clone02", "2026-05-10T11:00:00Z", 70.5},
		{"Clone03", "2026-05-11T00:00:00Z", 70.51},
		{"Clone04", "2026-05-11T12:00:00Z", 71},
		{"Clone05", "2026-05-11T23:59:59Z", 49.99},
		{"Clone06", "2026-05-12T08:00:00Z", 49.5},
		{"Clone07", "2026-05-12T13:00:00Z", 49.49},
		{"Clone08", "2026-05-12T20:00:00Z", 50},
	} {
		f.addCompleted(t, r.cand, r.at, "VIDEO", 600, r.score)
		f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, disposable_email, voip_phone,
			vpn_proxy_ip, thin_profile, footprint_anomaly, created_at) VALUES ($1, $2, $3, $4, false, false, false, false, $5)`,
			f.acme.ID, f.cand[r.cand], r.score, i%2 == 0, ts(r.at))
	}
	windows := [][2]string{{"", ""}, {"2026-05-10T10:00:00Z", "2026-05-12T12:00:00Z"}, {"2026-05-11", "2026-05-11"}, {"2026-05-11T06:00:00Z", ""}}
	args := func(w [2]string, kv ...any) map[string]any {
		a := map[string]any{}
		if w[0] != "" {
			a["sinceDate"] = w[0]
		}
		if w[1] != "" {
			a["untilDate"] = w[1]
		}
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	in := func(w [2]string) string {
		s := ""
		if w[0] != "" {
			s += fmt.Sprintf(" AND created_at >= '%s'::timestamptz", w[0])
		}
		if w[1] != "" {
			until := w[1]
			if len(until) == len("2006-01-02") {
				until = ts(until+"T00:00:00Z").AddDate(0, 0, 1).Format("2006-01-02T15:04:05Z")
			}
			s += fmt.Sprintf(" AND created_at < '%s'::timestamptz", until)
		}
		return s
	}
	count := func(q string) int64 {
		t.Helper()
		var n int64
		if err := f.h.Store.SQL().QueryRowContext(t.Context(), q, f.acme.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(what string) {
		t.Helper()
		for _, thr := range []float64{70, 70.5, 71, 49.5, 50, 0, 100} {
			f.exec(t, `UPDATE companies SET cheat_threshold = $2 WHERE id = $1`, f.acme.ID, thr)
			for _, w := range windows {
				want := count(fmt.Sprintf(`SELECT count(*) FROM cheating_evaluations WHERE company_id = $1 AND cheating_score >= %g`, thr) + in(w))
				o := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedInterviews", args(w))
				if i64(o.FlaggedInterviews) != want {
					t.Errorf("%s: cheating threshold %g %v flaggedInterviews = %d, source %d", what, thr, w, i64(o.FlaggedInterviews), want)
				}
				o = metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedPercentage", args(w))
				if i64(o.FlaggedInterviews) != want {
					t.Errorf("%s: cheating threshold %g %v flaggedPercentage counts %d flagged, source %d", what, thr, w, i64(o.FlaggedInterviews), want)
				}
				o = metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedDetails", args(w))
				if i64(o.TotalFlagged) != want {
					t.Errorf("%s: cheating threshold %g %v totalFlagged = %d, source %d", what, thr, w, i64(o.TotalFlagged), want)
				}
				wantCands := count(fmt.Sprintf(`SELECT count(DISTINCT candidate_id) FROM cheating_evaluations WHERE company_id = $1 AND cheating_score >= %g`, thr) + in(w))
				o = metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedCandidates", args(w))
				if i64(o.FlaggedCandidates) != wantCands {
					t.Errorf("%s: cheating threshold %g %v flaggedCandidates = %d, source %d", what, thr, w, i64(o.FlaggedCandidates), wantCands)
				}
				wantCands = count(fmt.Sprintf(`SELECT count(DISTINCT candidate_id) FROM fraud_verifications WHERE company_id = $1 AND overall_verification_score < %g`, thr) + in(w))
				fo, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", args(w, "metric", "flaggedCandidates", "threshold", thr), nil)
				if i64(fo.FlaggedCandidates) != wantCands {
					t.Errorf("%s: fraud threshold %g %v flaggedCandidates = %d, source %d", what, thr, w, i64(fo.FlaggedCandidates), wantCands)
				}
				{
					o = metricCall[cheatOut](t, f, "getCheatingDetectionStats", "byJob", args(w))
					var flagged int64
					for _, j := range o.ByJob {
						flagged += j.Flagged
					}
					if flagged != want {
						t.Errorf("%s: cheating threshold %g byJob flags %d, source %d", what, thr, flagged, want)
					}
				}

				want = count(fmt.Sprintf(`SELECT count(*) FROM fraud_verifications WHERE company_id = $1 AND overall_verification_score < %g`, thr) + in(w))
				for _, m := range []string{"riskBreakdown", "flaggedCandidates", "flaggedDetails"} {
					fo, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", args(w, "metric", m, "threshold", thr), nil)
					got := map[string]*int64{"flaggedCandidates": fo.FlaggedVerifications, "flaggedDetails": fo.TotalFlagged}[m]
					if m == "riskBreakdown" {
						got = &fo.RiskBreakdown.Flagged
					}
					if i64(got) != want {
						t.Errorf("%s: fraud threshold %g %v %s flagged = %d, source %d", what, thr, w, m, i64(got), want)
					}
				}
			}
		}
	}
	check("the load")
	f.exec(t, `UPDATE cheating_evaluations SET cheating_score = cheating_score + 0.02 WHERE company_id = $1 AND cheating_score BETWEEN 70 AND 71`, f.acme.ID)
	f.exec(t, `UPDATE fraud_verifications SET overall_verification_score = overall_verification_score - 0.5 WHERE company_id = $1 AND overall_verification_score >= 49.5`, f.acme.ID)
	check("scores moved across the thresholds")
	f.exec(t, `DELETE FROM cheating_evaluations WHERE company_id = $1 AND cheating_score >= 70.5 AND cheating_score < 71`, f.acme.ID)
	f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, disposable_email, voip_phone,
		vpn_proxy_ip, thin_profile, footprint_anomaly, created_at) VALUES ($1, $2, 49.2, false, false, false, false, false, '2026-05-11T10:00:00Z')`,
		f.acme.ID, f.cand["Clone05"])
	check("evaluations deleted and a second check for a candidate")

	// Behind the triggers' back: 1000 evaluations scored 90 and 1000 checks scored 10 on a whole
	// day that no edge reads.
	f.exec(t, `UPDATE companies SET cheat_threshold = 70 WHERE id = $1`, f.acme.ID)
	before := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedInterviews", nil)
	fb, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "riskBreakdown"}, nil)
	f.exec(t, `INSERT INTO evaluation_scores VALUES ($1, 90, '2026-05-11', 1000)`, f.acme.ID)
	f.exec(t, `INSERT INTO job_score_daily_deltas VALUES ($1, $2, '2026-05-11', 90, 1000)`, f.acme.ID, f.job["J3"])
	f.exec(t, `INSERT INTO fraud_scores VALUES ($1, 10, '2026-05-11', 1000)`, f.acme.ID)
	cb := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedCandidates", nil)
	f.exec(t, `INSERT INTO candidate_score_counts VALUES ($1, 'cheating', 95, 1000)
		ON CONFLICT (company_id, kind, score) DO UPDATE SET candidates = candidate_score_counts.candidates + 1000`, f.acme.ID)
	if o := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedCandidates", nil); i64(o.FlaggedCandidates) != i64(cb.FlaggedCandidates)+1000 {
		t.Errorf("flaggedCandidates = %d after 1000 were added to candidate_score_counts, was %d: not read from the rollup", i64(o.FlaggedCandidates), i64(cb.FlaggedCandidates))
	}
	if o := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "flaggedInterviews", nil); i64(o.FlaggedInterviews) != i64(before.FlaggedInterviews)+1000 {
		t.Errorf("flaggedInterviews = %d after 1000 were added to evaluation_scores, was %d: not read from the histogram", i64(o.FlaggedInterviews), i64(before.FlaggedInterviews))
	}
	o := metricCall[cheatOut](t, f, "getCheatingDetectionStats", "byJob", nil)
	var flagged int64
	for _, j := range o.ByJob {
		flagged += j.Flagged
	}
	if flagged != i64(before.FlaggedInterviews)+1000 {
		t.Errorf("byJob flags %d after 1000 were added to job_score_daily, was %d: not read from the rollup", flagged, i64(before.FlaggedInterviews))
	}
	fa, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "riskBreakdown"}, nil)
	if fa.RiskBreakdown.Flagged != fb.RiskBreakdown.Flagged+1000 {
		t.Errorf("fraud flagged = %d after 1000 were added to fraud_scores, was %d: not read from the histogram", fa.RiskBreakdown.Flagged, fb.RiskBreakdown.Flagged)
	}

	// The time-of-day breakdown and completedCandidates by one medium for all time read their
	// rollups too.
	tb, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2026-05-01", "timezone": "UTC"}, nil)
	ib := metricCall[statsOut](t, f, "getInterviewStats", "completedInterviews", map[string]any{"sinceDate": "2026-05-01"})
	f.exec(t, `INSERT INTO completion_slot_totals_deltas VALUES ($1, '2026-05-11T07:15:00Z', 500, 0, 0)`, f.acme.ID)
	if ia := metricCall[statsOut](t, f, "getInterviewStats", "completedInterviews", map[string]any{"sinceDate": "2026-05-01"}); i64(ia.CompletedInterviews) != i64(ib.CompletedInterviews)+500 {
		t.Errorf("completedInterviews = %d after 500 were added to completion_slot_totals, was %d: not read from the rollup",
			i64(ia.CompletedInterviews), i64(ib.CompletedInterviews))
	}
	ta, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2026-05-01", "timezone": "UTC"}, nil)
	if ta.Total != tb.Total+500 || ta.Buckets[7].Count != tb.Buckets[7].Count+500 {
		t.Errorf("time of day = %d (07:00 %d) after 500 were added to completion_slot_totals, was %d (%d): not read from the rollup",
			ta.Total, ta.Buckets[7].Count, tb.Total, tb.Buckets[7].Count)
	}
	video := map[string]any{"mediumType": []string{"VIDEO"}}
	sb := metricCall[statsOut](t, f, "getInterviewStats", "completedCandidates", video)
	f.exec(t, `INSERT INTO media_candidates_deltas VALUES ($1, 'VIDEO', 300)`, f.acme.ID)
	if sa := metricCall[statsOut](t, f, "getInterviewStats", "completedCandidates", video); i64(sa.CompletedCandidates) != i64(sb.CompletedCandidates)+300 {
		t.Errorf("completedCandidates by VIDEO = %d after 300 were added to media_candidates, was %d: not read from the rollup",
			i64(sa.CompletedCandidates), i64(sb.CompletedCandidates))
	}
	since := map[string]any{"sinceDate": "2026-05-01"}
	cb2 := metricCall[statsOut](t, f, "getInterviewStats", "completedCandidates", since)
	f.exec(t, `INSERT INTO journey_last_daily_deltas VALUES ($1, '2026-05-20', 40)`, f.acme.ID)
	if ca := metricCall[statsOut](t, f, "getInterviewStats", "completedCandidates", since); i64(ca.CompletedCandidates) != i64(cb2.CompletedCandidates)+40 {
		t.Errorf("completedCandidates since 2026-05-01 = %d after 40 were added to journey_last_daily, was %d: not read from the rollup",
			i64(ca.CompletedCandidates), i64(cb2.CompletedCandidates))
	}
}
