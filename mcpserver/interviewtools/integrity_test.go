package interviewtools_test

import (
	"slices"
	"testing"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
)

type cheatOut = interviewtools.CheatingStatsOutput
type fraudOut = interviewtools.FraudStatsOutput
type idOut = interviewtools.IdentityStatsOutput

func TestCheatingStats(t *testing.T) {
	f := setup(t)
	cheat := func(args map[string]any, meta map[string]any) cheatOut {
		t.Helper()
		o, _ := call[cheatOut](t, f, nil, "getCheatingDetectionStats", args, meta)
		if o.Threshold != 70 || o.Window.Basis != "cheating_evaluations.created_at" {
			t.Errorf("threshold/basis = %v %s", o.Threshold, o.Window.Basis)
		}
		return o
	}
	// Evaluated S1 85, S2 40, S3 70, S4 88, S9 95, S11 75 → flagged S1 S3 S4 S9 S11 (C1 C3 C1 C4 C5).
	tests := []struct {
		name                  string
		args, meta            map[string]any
		cands, flagged, evald int64
		pct                   float64
	}{
		{"all", nil, nil, 4, 5, 6, 83.3},
		{"since", map[string]any{"sinceDate": "2026-04-01"}, nil, 3, 3, 3, 100},                  // S4 S9 S11
		{"until", map[string]any{"untilDate": "2026-03-06"}, nil, 1, 1, 2, 50},                   // S1 S2
		{"positionId J2", map[string]any{"positionId": f.job["J2"].String()}, nil, 2, 2, 2, 100}, // S3 S4
		{"context J1", nil, map[string]any{jobMeta: f.job["J1"].String()}, 3, 3, 4, 75},          // S1 S2 S9 S11
		{"companyWide", map[string]any{"companyWide": true}, map[string]any{jobMeta: f.job["J1"].String()}, 4, 5, 6, 83.3},
		{"empty", map[string]any{"sinceDate": "2025-01-01", "untilDate": "2025-02-01"}, nil, 0, 0, 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			with := func(metric string) map[string]any {
				a := map[string]any{"metric": metric}
				for k, v := range tt.args {
					a[k] = v
				}
				return a
			}
			if o := cheat(with("flaggedCandidates"), tt.meta); i64(o.FlaggedCandidates) != tt.cands {
				t.Errorf("flaggedCandidates = %d, want %d", i64(o.FlaggedCandidates), tt.cands)
			}
			if o := cheat(with("flaggedInterviews"), tt.meta); i64(o.FlaggedInterviews) != tt.flagged || o.Evaluated != nil {
				t.Errorf("flaggedInterviews = %d (evaluated %d), want %d", i64(o.FlaggedInterviews), i64(o.Evaluated), tt.flagged)
			}
			if o := cheat(with("flaggedPercentage"), tt.meta); f64(o.FlaggedPercentage) != tt.pct || i64(o.Evaluated) != tt.evald || i64(o.FlaggedInterviews) != tt.flagged {
				t.Errorf("flaggedPercentage = %v (%d/%d), want %v (%d/%d)", f64(o.FlaggedPercentage), i64(o.FlaggedInterviews), i64(o.Evaluated), tt.pct, tt.flagged, tt.evald)
			}
		})
	}

	// byJob: J1 4 evaluated, 3 flagged (75%); J2 2/2 (100%). Rate (default) puts J2 first, count J1.
	o, r := call[cheatOut](t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "byJob"}, nil)
	if len(o.ByJob) != 2 || o.ByJob[0].JobTitle != "Sales Associate" || o.ByJob[0].Evaluated != 2 || o.ByJob[0].Flagged != 2 || f64(o.ByJob[0].FlaggedRate) != 100 ||
		o.ByJob[1].JobTitle != "Backend Engineer" || o.ByJob[1].Evaluated != 4 || o.ByJob[1].Flagged != 3 || f64(o.ByJob[1].FlaggedRate) != 75 ||
		o.SortByJobMetric != "rate" || i64(o.Jobs) != 2 || i64(o.Evaluated) != 6 || o.ByJob[0].JobLink != f.h.Env.Links.Job(f.job["J2"]) {
		t.Errorf("byJob = %+v", o)
	}
	contains(t, "byJob text", r.Text, "Sales Associate", "100.0%", "75.0%", "flag rate", "cheating score >= 70")
	o = cheat(map[string]any{"metric": "byJob", "sortByJobMetric": "count"}, nil)
	if len(o.ByJob) != 2 || o.ByJob[0].JobTitle != "Backend Engineer" || o.SortByJobMetric != "count" {
		t.Errorf("byJob count = %+v", o.ByJob)
	}
	o = cheat(map[string]any{"metric": "byJob", "sinceDate": "2026-04-01"}, nil) // J1 S9 S11 2/2, J2 S4 1/1: rate tie → count
	if len(o.ByJob) != 2 || o.ByJob[0].JobTitle != "Backend Engineer" || o.ByJob[0].Flagged != 2 || o.ByJob[1].Flagged != 1 {
		t.Errorf("byJob since = %+v", o.ByJob)
	}

	// flaggedDetails: highest score first, with sub-scores.
	o, r = call[cheatOut](t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails"}, nil)
	var got []string
	for _, d := range o.FlaggedDetails {
		got = append(got, f.sessKeys(d.SessionID)...)
	}
	if !slices.Equal(got, []string{"S9", "S4", "S1", "S11", "S3"}) || i64(o.TotalFlagged) != 5 {
		t.Fatalf("flaggedDetails = %v (%d)", got, i64(o.TotalFlagged))
	}
	d := o.FlaggedDetails[2]
	if d.CandidateName != "John Smith" || d.CheatingScore != 85 || f64(d.SubScores.EyeTracking) != 90 || f64(d.SubScores.HeadTracking) != 80 ||
		f64(d.SubScores.Voice) != 10 || f64(d.SubScores.Transcript) != 70 || f64(d.SubScores.MultiPerson) != 0 || d.JobTitle != "Backend Engineer" ||
		d.EvaluatedAt != "2026-03-02T15:00:00Z" || d.CandidateLink != f.h.Env.Links.Candidate(f.cand["C1"]) || d.SessionLink != f.h.Env.Links.Session(f.sess["S1"]) {
		t.Errorf("S1 detail = %+v", d)
	}
	if o.FlaggedDetails[0].SubScores.EyeTracking != nil || f64(o.FlaggedDetails[0].SubScores.Voice) != 99 {
		t.Errorf("S9 detail = %+v", o.FlaggedDetails[0])
	}
	contains(t, "details text", r.Text, "Alice Johnson", "95", f.h.Env.Links.Session(f.sess["S9"]), "Multi-person")
	notContains(t, "details text", r.Text, "Jane Smithers") // 40: not flagged

	// The company's threshold decides: 86 → S9 S4 only.
	f.exec(t, `UPDATE companies SET cheat_threshold = 86 WHERE id = $1`, f.acme.ID)
	if o := cheat2(t, f, map[string]any{"metric": "flaggedInterviews"}); i64(o.FlaggedInterviews) != 2 || o.Threshold != 86 {
		t.Errorf("threshold 86 = %+v", o)
	}

	// Enum errors and notices.
	toolErr(t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "cheaters"}, "flaggedCandidates", "flaggedInterviews", "flaggedPercentage", "byJob", "flaggedDetails")
	toolErr(t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "byJob", "sortByJobMetric": "name"}, "rate", "count")
	o, r = call[cheatOut](t, f, nil, "getCheatingDetectionStats", map[string]any{"metric": "flaggedInterviews", "sortByJobMetric": "count"}, nil)
	hasNotice(t, "sortByJobMetric ignored", o.Notices, r, "sortByJobMetric applies only to metric byJob")

	// Flags: neither flag → tool error naming both; either flag is enough.
	toolErr(t, f, f.initech, "getCheatingDetectionStats", map[string]any{"metric": "flaggedInterviews"},
		"cheating detection is off", "model_cheat_detection_enabled", "fraud_detection_enabled")
	f.setFlags(t, f.initech, true, false)
	if o, _ := call[cheatOut](t, f, f.initech, "getCheatingDetectionStats", map[string]any{"metric": "flaggedInterviews"}, nil); i64(o.FlaggedInterviews) != 1 {
		t.Errorf("initech fraud flag only = %+v", o)
	}
	f.setFlags(t, f.initech, false, true)
	if o, _ := call[cheatOut](t, f, f.initech, "getCheatingDetectionStats", map[string]any{"metric": "flaggedCandidates"}, nil); i64(o.FlaggedCandidates) != 1 {
		t.Errorf("initech cheat flag only = %+v", o)
	}
}

func cheat2(t *testing.T, f *fixture, args map[string]any) cheatOut {
	t.Helper()
	o, _ := call[cheatOut](t, f, nil, "getCheatingDetectionStats", args, nil)
	return o
}

func TestFraudStats(t *testing.T) {
	f := setup(t)
	fraud := func(args map[string]any) (fraudOut, string) {
		t.Helper()
		o, r := call[fraudOut](t, f, nil, "getFraudVerificationStats", args, nil)
		return o, r.Text
	}
	// F1 C1 30, F2 C2 80, F3 C3 49.5, F4 C4 50, F5 C1 20.
	tests := []struct {
		args                 map[string]any
		cands, flagged, vall int64
	}{
		{map[string]any{}, 2, 3, 5},                          // F1 F3 F5 (C1 C3); 50 is not below 50
		{map[string]any{"threshold": 60}, 3, 4, 5},           // + F4
		{map[string]any{"threshold": 49.5}, 1, 2, 5},         // F1 F5
		{map[string]any{"threshold": 0}, 0, 0, 5},            // nothing is below 0
		{map[string]any{"threshold": 100}, 4, 5, 5},          // everything
		{map[string]any{"sinceDate": "2026-04-01"}, 1, 1, 1}, // F5
		{map[string]any{"untilDate": "2026-03-05"}, 1, 1, 2}, // F1 F2
	}
	for _, tt := range tests {
		args := map[string]any{"metric": "flaggedCandidates"}
		for k, v := range tt.args {
			args[k] = v
		}
		o, _ := fraud(args)
		if i64(o.FlaggedCandidates) != tt.cands || i64(o.FlaggedVerifications) != tt.flagged || i64(o.Verifications) != tt.vall {
			t.Errorf("flaggedCandidates(%v) = %d (%d of %d verifications), want %d (%d of %d)", tt.args, i64(o.FlaggedCandidates),
				i64(o.FlaggedVerifications), i64(o.Verifications), tt.cands, tt.flagged, tt.vall)
		}
	}
	o, text := fraud(map[string]any{"metric": "flaggedCandidates"})
	if o.Threshold != 50 || o.Window.Basis != "fraud_verifications.created_at" {
		t.Errorf("defaults = %+v", o)
	}
	contains(t, "flaggedCandidates text", text, "Flagged candidates:", "2", "overall verification score < 50")

	// riskBreakdown.
	o, text = fraud(map[string]any{"metric": "riskBreakdown"})
	rb := o.RiskBreakdown
	if rb == nil || rb.Verifications != 5 || rb.Flagged != 3 {
		t.Fatalf("riskBreakdown = %+v", rb)
	}
	wantSig := map[string]int64{"disposableEmail": 2, "voipPhone": 2, "vpnProxyIp": 2, "thinProfile": 1, "footprintAnomaly": 1}
	for _, s := range rb.Signals {
		if s.Count != wantSig[s.Signal] {
			t.Errorf("signal %s = %d, want %d", s.Signal, s.Count, wantSig[s.Signal])
		}
	}
	if len(rb.Signals) != 5 || f64(rb.Signals[0].Percent) != 40 {
		t.Errorf("signals = %+v", rb.Signals)
	}
	var bands []int64
	for _, b := range rb.ScoreBands {
		bands = append(bands, b.Count)
	}
	if !slices.Equal(bands, []int64{1, 2, 1, 1}) { // 20 | 30 49.5 | 50 | 80
		t.Errorf("bands = %v", bands)
	}
	contains(t, "riskBreakdown text", text, "Disposable e-mail", "VOIP phone", "VPN/proxy IP", "Thin professional profile", "Digital-footprint anomaly",
		"25-50 (high risk)", "40.0%")
	o, _ = fraud(map[string]any{"metric": "riskBreakdown", "threshold": 90})
	if o.RiskBreakdown.Flagged != 5 {
		t.Errorf("riskBreakdown flagged at 90 = %d", o.RiskBreakdown.Flagged)
	}

	// flaggedDetails: riskiest first.
	o, text = fraud(map[string]any{"metric": "flaggedDetails"})
	if len(o.FlaggedDetails) != 3 || i64(o.TotalFlagged) != 3 || *o.Limit != 20 {
		t.Fatalf("flaggedDetails = %+v", o)
	}
	d0, d1, d2 := o.FlaggedDetails[0], o.FlaggedDetails[1], o.FlaggedDetails[2]
	if d0.Score != 20 || d0.CandidateName != "John Smith" || !slices.Equal(d0.Signals, []string{"disposableEmail", "voipPhone", "vpnProxyIp"}) ||
		*d0.SessionID != f.sess["S4"].String() || *d0.JobTitle != "Sales Associate" || d0.VerifiedAt != "2026-04-09T11:00:00Z" ||
		d1.Score != 30 || d2.Score != 49.5 || d2.SessionID != nil || d2.JobTitle != nil || d2.CandidateName != "Bob Jones" ||
		!slices.Equal(d2.Signals, []string{"voipPhone", "footprintAnomaly"}) || *d0.CandidateEmail != "john.smith@example.com" {
		t.Errorf("details = %+v", o.FlaggedDetails)
	}
	contains(t, "details text", text, "John Smith", "Bob Jones", "VOIP phone, Digital-footprint anomaly", f.h.Env.Links.Candidate(f.cand["C3"]),
		f.h.Env.Links.Session(f.sess["S4"]))
	notContains(t, "details text", text, "Jane Smithers", "Alice Johnson")
	o, _ = fraud(map[string]any{"metric": "flaggedDetails", "limit": 2})
	if len(o.FlaggedDetails) != 2 || i64(o.TotalFlagged) != 3 || len(o.Messages) != 0 {
		t.Errorf("limit 2 = %+v", o)
	}
	ob, r := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails", "limit": 51}, nil)
	if *ob.Limit != 50 {
		t.Errorf("limit 51 = %d", *ob.Limit)
	}
	hasNotice(t, "fraud limit clamp", ob.Notices, r, "limit 51 is above the maximum 50; used 50")
	ob, r = call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "riskBreakdown", "limit": 5}, nil)
	hasNotice(t, "fraud limit ignored", ob.Notices, r, "limit applies only to metric flaggedDetails")

	// Errors.
	toolErr(t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails", "limit": 0}, "limit must be at least 1")
	toolErr(t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedCandidates", "threshold": 101}, "threshold must be between 0 and 100")
	toolErr(t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedCandidates", "threshold": -1}, "threshold must be between 0 and 100")
	toolErr(t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "everything"}, "flaggedCandidates", "riskBreakdown", "flaggedDetails")
	toolErr(t, f, f.initech, "getFraudVerificationStats", map[string]any{"metric": "flaggedCandidates"}, "fraud detection is off", "fraud_detection_enabled")
	f.setFlags(t, f.initech, false, true) // model cheat detection does not enable fraud stats
	toolErr(t, f, f.initech, "getFraudVerificationStats", map[string]any{"metric": "riskBreakdown"}, "fraud_detection_enabled")
	f.setFlags(t, f.initech, true, false)
	if o, _ := call[fraudOut](t, f, f.initech, "getFraudVerificationStats", map[string]any{"metric": "flaggedCandidates"}, nil); i64(o.FlaggedCandidates) != 1 {
		t.Errorf("initech = %+v", o)
	}
}

func TestIdentityStats(t *testing.T) {
	f := setup(t)
	id := func(args map[string]any) (idOut, string) {
		t.Helper()
		o, r := call[idOut](t, f, nil, "getIdentityVerificationStats", args, nil)
		if o.EnabledJobs != 1 || o.Window.Basis != "identity_verifications.created_at" {
			t.Errorf("enabledJobs/basis = %d %s", o.EnabledJobs, o.Window.Basis)
		}
		return o, r.Text
	}
	// I1 VERIFIED, I2 FAILED, I3 PENDING, I4 EXPIRED, I5 FAILED, I6 FAILED, I7 FAILED (no reason).
	o, text := id(map[string]any{"metric": "statusBreakdown"})
	want := map[string]int64{"PENDING": 1, "VERIFIED": 1, "FAILED": 4, "EXPIRED": 1}
	var order []string
	for _, s := range o.StatusBreakdown {
		order = append(order, s.Status)
		if s.Count != want[s.Status] {
			t.Errorf("status %s = %d, want %d", s.Status, s.Count, want[s.Status])
		}
	}
	if !slices.Equal(order, []string{"PENDING", "VERIFIED", "FAILED", "EXPIRED", "SKIPPED"}) || i64(o.Total) != 7 {
		t.Errorf("statusBreakdown = %+v", o.StatusBreakdown)
	}
	contains(t, "statusBreakdown text", text, "FAILED", "57.1%", "Total: 7")
	o, _ = id(map[string]any{"metric": "statusBreakdown", "sinceDate": "2026-04-01"}) // I3 I6
	if o.StatusBreakdown[0].Count != 1 || o.StatusBreakdown[2].Count != 1 || i64(o.Total) != 2 {
		t.Errorf("statusBreakdown since = %+v", o.StatusBreakdown)
	}

	// verificationRate = VERIFIED / (VERIFIED + FAILED + EXPIRED) = 1/6; passRate = 1/5.
	o, text = id(map[string]any{"metric": "verificationRate"})
	v := o.VerificationRate
	if v == nil || v.Verified != 1 || v.Failed != 4 || v.Expired != 1 || v.Pending != 1 || v.Concluded != 6 || f64(v.Rate) != 16.7 || f64(v.PassRate) != 20 {
		t.Errorf("verificationRate = %+v", v)
	}
	contains(t, "verificationRate text", text, "16.7%", "20.0%", "Pending (excluded)")
	o, _ = id(map[string]any{"metric": "verificationRate", "sinceDate": "2026-04-01"}) // I3 pending, I6 failed
	if v := o.VerificationRate; v.Concluded != 1 || f64(v.Rate) != 0 {
		t.Errorf("verificationRate since = %+v", v)
	}
	o, _ = id(map[string]any{"metric": "verificationRate", "sinceDate": "2026-04-02", "untilDate": "2026-04-10"})
	if v := o.VerificationRate; v.Concluded != 0 || v.Rate != nil || v.PassRate != nil {
		t.Errorf("verificationRate empty = %+v", v)
	}

	// failureReasons: face mismatch 2, (no reason recorded) 1, document expired 1.
	o, text = id(map[string]any{"metric": "failureReasons"})
	var reasons []string
	for _, r := range o.FailureReasons {
		reasons = append(reasons, r.Reason)
	}
	if !slices.Equal(reasons, []string{"face mismatch", "(no reason recorded)", "document expired"}) || o.FailureReasons[0].Count != 2 ||
		f64(o.FailureReasons[0].Percent) != 50 || i64(o.TotalFailed) != 4 {
		t.Errorf("failureReasons = %+v", o.FailureReasons)
	}
	contains(t, "failureReasons text", text, "face mismatch", "Failed verifications: 4")

	// failedDetails: newest first.
	o, text = id(map[string]any{"metric": "failedDetails"})
	var who []string
	for _, d := range o.FailedDetails {
		who = append(who, d.CandidateName)
	}
	if !slices.Equal(who, []string{"Carl Mendez", "Alice Johnson", "Jane Smithers", "Bob Jones"}) || i64(o.TotalFailed) != 4 || *o.Limit != 20 {
		t.Errorf("failedDetails = %v", who)
	}
	d := o.FailedDetails[0]
	if *d.FailureReason != "face mismatch" || d.JobTitle != "Backend Engineer" || *d.SessionID != f.sess["S11"].String() || d.StartedAt != "2026-04-12T11:05:00Z" ||
		*d.CompletedAt != "2026-04-12T11:30:00Z" || d.CandidateLink != f.h.Env.Links.Candidate(f.cand["C5"]) || o.FailedDetails[3].SessionID != nil ||
		o.FailedDetails[3].FailureReason != nil {
		t.Errorf("failedDetails = %+v", o.FailedDetails)
	}
	contains(t, "failedDetails text", text, "Carl Mendez", "face mismatch", f.h.Env.Links.Candidate(f.cand["C2"]))
	o, _ = id(map[string]any{"metric": "failedDetails", "limit": 1})
	if len(o.FailedDetails) != 1 || o.FailedDetails[0].CandidateName != "Carl Mendez" || i64(o.TotalFailed) != 4 {
		t.Errorf("limit 1 = %+v", o.FailedDetails)
	}
	ob, r := call[idOut](t, f, nil, "getIdentityVerificationStats", map[string]any{"metric": "failedDetails", "limit": 1000}, nil)
	if *ob.Limit != 100 || len(ob.FailedDetails) != 4 {
		t.Errorf("limit 1000 = %d", *ob.Limit)
	}
	hasNotice(t, "identity limit clamp", ob.Notices, r, "limit 1000 is above the maximum 100; used 100")
	toolErr(t, f, nil, "getIdentityVerificationStats", map[string]any{"metric": "failedDetails", "limit": -3}, "limit must be at least 1")
	toolErr(t, f, nil, "getIdentityVerificationStats", map[string]any{"metric": "rate"}, "statusBreakdown", "verificationRate", "failureReasons", "failedDetails")

	// Flag: no job with enable_identity_verification and no records → tool error; a flagged job without records → zeros.
	toolErr(t, f, f.plain, "getIdentityVerificationStats", map[string]any{"metric": "statusBreakdown"}, "identity verification is not enabled", "enable_identity_verification")
	oi, _ := call[idOut](t, f, f.initech, "getIdentityVerificationStats", map[string]any{"metric": "verificationRate"}, nil)
	if oi.EnabledJobs != 1 || oi.VerificationRate.Concluded != 0 || oi.VerificationRate.Rate != nil {
		t.Errorf("initech = %+v", oi)
	}
	// Past records while no job has the flag any more: answered, with a notice.
	f.exec(t, `UPDATE jobs SET enable_identity_verification = false WHERE company_id = $1`, f.acme.ID)
	oa, r := call[idOut](t, f, nil, "getIdentityVerificationStats", map[string]any{"metric": "statusBreakdown"}, nil)
	if oa.EnabledJobs != 0 || i64(oa.Total) != 7 {
		t.Errorf("flag removed = %+v", oa)
	}
	hasNotice(t, "past verifications", oa.Notices, r, "no job has enable_identity_verification on now")
}
