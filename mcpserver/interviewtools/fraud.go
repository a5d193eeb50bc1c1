package interviewtools

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

type fraudMetric string

const (
	fraudFlaggedCandidates fraudMetric = "flaggedCandidates"
	fraudRiskBreakdown     fraudMetric = "riskBreakdown"
	fraudFlaggedDetails    fraudMetric = "flaggedDetails"
)

var fraudMetrics = []fraudMetric{fraudFlaggedCandidates, fraudRiskBreakdown, fraudFlaggedDetails}

// Bounds of getFraudVerificationStats.
const (
	fraudDefaultThreshold = 50
	fraudDetailsDefault   = 20
	fraudDetailsMax       = 50
)

func registerFraudStats(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getFraudVerificationStats",
		Title: "Fraud (identity signal) statistics",
		Description: "Identity-fraud signals from the fraud-signal provider: disposable e-mail addresses, VOIP phone numbers, VPN/proxy IP addresses, " +
			"thin professional profiles and digital-footprint anomalies, summarised in an overall verification score 0-100 (lower is riskier). " +
			"A verification is flagged when its score is below threshold (default 50, allowed 0-100). " +
			"Not about cheating during the interview (getCheatingDetectionStats) nor government-ID checks (getIdentityVerificationStats). Pick one metric:\n" +
			"- flaggedCandidates: distinct candidates with at least one flagged verification in the window (plus totals).\n" +
			"- riskBreakdown: how many verifications carry each signal, and how many fall in each score band (0-25, 25-50, 50-75, 75-100).\n" +
			"- flaggedDetails: the flagged verifications, riskiest first, with candidate, signals and interview; limit default 20, max 50.\n" +
			"sinceDate/untilDate filter on the verification time (ISO dates, untilDate inclusive, UTC; default all time). " +
			"Requires the company flag fraud_detection_enabled.",
		InputSchema: toolkit.InputSchema[FraudStatsInput](map[string][]string{"metric": toolkit.Strings(fraudMetrics)}),
	}, fraudStats)
}

// FraudStatsInput are getFraudVerificationStats' arguments.
type FraudStatsInput struct {
	Metric    string   `json:"metric" jsonschema:"the metric: flaggedCandidates, riskBreakdown or flaggedDetails"`
	Threshold *float64 `json:"threshold,omitempty" jsonschema:"flag verifications whose overall score is below this value; 0-100, default 50"`
	toolkit.WindowArg
	Limit *int `json:"limit,omitempty" jsonschema:"flaggedDetails only: rows to return, default 20, max 50 (larger values are clamped)"`
	toolkit.CompanyArg
}

// SignalCount is how many verifications carry one signal.
type SignalCount struct {
	Signal  string   `json:"signal" jsonschema:"disposableEmail, voipPhone, vpnProxyIp, thinProfile or footprintAnomaly"`
	Label   string   `json:"label"`
	Count   int64    `json:"count"`
	Percent *float64 `json:"percent" jsonschema:"share of all verifications in percent"`
}

// ScoreBand is how many verifications fall in a score range [min, max).
type ScoreBand struct {
	Band    string   `json:"band"`
	Min     float64  `json:"min"`
	Max     float64  `json:"max" jsonschema:"exclusive, except 100 which is included"`
	Count   int64    `json:"count"`
	Percent *float64 `json:"percent"`
}

// RiskBreakdown is riskBreakdown's result.
type RiskBreakdown struct {
	Verifications int64         `json:"verifications"`
	Flagged       int64         `json:"flagged" jsonschema:"verifications below the threshold"`
	Signals       []SignalCount `json:"signals"`
	ScoreBands    []ScoreBand   `json:"scoreBands"`
}

// FraudDetail is one flagged verification.
type FraudDetail struct {
	CandidateID    string         `json:"candidateId"`
	CandidateName  string         `json:"candidateName"`
	CandidateEmail *string        `json:"candidateEmail"`
	CandidateLink  string         `json:"candidateLink"`
	Score          float64        `json:"score" jsonschema:"overall verification score 0-100, lower is riskier"`
	Signals        []string       `json:"signals" jsonschema:"signals raised"`
	SessionID      *string        `json:"sessionId" jsonschema:"the interview session the check belongs to, when any"`
	SessionLink    *string        `json:"sessionLink"`
	JobTitle       *string        `json:"jobTitle"`
	VerifiedAt     string         `json:"verifiedAt"`
	Evidence       *FraudEvidence `json:"evidence" jsonschema:"why: the disposable domain, the phone type, candidates sharing the e-mail or phone, contacts changed between sources, what was not checked"`
}

// FraudStatsOutput is getFraudVerificationStats' structured result.
type FraudStatsOutput struct {
	Metric               string            `json:"metric"`
	Threshold            float64           `json:"threshold"`
	Window               toolkit.WindowOut `json:"window"`
	FlaggedCandidates    *int64            `json:"flaggedCandidates,omitzero"`
	FlaggedVerifications *int64            `json:"flaggedVerifications,omitzero" jsonschema:"flaggedCandidates: verifications below the threshold"`
	Verifications        *int64            `json:"verifications,omitzero" jsonschema:"flaggedCandidates: verifications in the window"`
	RiskBreakdown        *RiskBreakdown    `json:"riskBreakdown,omitzero"`
	FlaggedDetails       []FraudDetail     `json:"flaggedDetails,omitzero"`
	TotalFlagged         *int64            `json:"totalFlagged,omitzero" jsonschema:"flaggedDetails: all flagged verifications"`
	Limit                *int              `json:"limit,omitzero"`
	toolkit.Notices
}

type signal struct{ key, col, label string }

var fraudSignals = []signal{
	{"disposableEmail", "disposable_email", "Disposable e-mail"},
	{"voipPhone", "voip_phone", "VOIP phone"},
	{"vpnProxyIp", "vpn_proxy_ip", "VPN/proxy IP"},
	{"thinProfile", "thin_profile", "Thin professional profile"},
	{"footprintAnomaly", "footprint_anomaly", "Digital-footprint anomaly"},
}

var scoreBands = []ScoreBand{
	{Band: "0-25 (very high risk)", Min: 0, Max: 25},
	{Band: "25-50 (high risk)", Min: 25, Max: 50},
	{Band: "50-75 (moderate risk)", Min: 50, Max: 75},
	{Band: "75-100 (low risk)", Min: 75, Max: 100},
}

func fraudStats(ctx context.Context, call *toolkit.Call, in FraudStatsInput) (FraudStatsOutput, *toolkit.Text, error) {
	var out FraudStatsOutput
	metric, err := toolkit.OneOf("metric", in.Metric, fraudMetrics)
	if err != nil {
		return out, nil, err
	}
	threshold := float64(fraudDefaultThreshold)
	if in.Threshold != nil {
		threshold = *in.Threshold
		if threshold < 0 || threshold > 100 {
			return out, nil, toolkit.Errorf("threshold must be between 0 and 100 (got %s)", toolkit.Num(in.Threshold))
		}
	}
	limit := 0
	if metric == fraudFlaggedDetails {
		if limit, err = call.Limit("limit", in.Limit, fraudDetailsDefault, 1, fraudDetailsMax); err != nil {
			return out, nil, err
		}
	} else if in.Limit != nil {
		call.Notice("limit applies only to metric flaggedDetails; ignored")
	}
	co := call.Company
	if !co.FraudDetectionEnabled {
		return out, nil, toolkit.Errorf("fraud detection is off for company %s: enable fraud_detection_enabled in the company settings to collect "+
			"identity-signal verifications; getCompanyFeatures shows the current flags", co.Name)
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, 0, nil)
	if err != nil {
		return out, nil, err
	}
	out = FraudStatsOutput{Metric: string(metric), Threshold: threshold, Window: w.Out("fraud_verifications.created_at")}
	q := toolkit.NewQuery(co.ID)
	flagged := "f.overall_verification_score < " + q.Arg(threshold) + "::numeric"
	q.Window("f.created_at", w)

	t := &toolkit.Text{}
	t.H1("Fraud verification: %s", metric)
	t.KV("Window", w.String()+" (by verification time)", "Flag rule", fmt.Sprintf("overall verification score < %s", toolkit.Num(&threshold)))
	t.Blank()
	db := call.DB
	switch metric {
	case fraudFlaggedCandidates:
		var fc int64
		// For all time from candidate_scores, since a date from flag_last_daily; in a window with
		// an end the distinct candidates of the flagged rows (a range of the score index). Plain
		// counts for the context.
		stmt, args := `SELECT count(*) FROM (SELECT DISTINCT f.candidate_id FROM fraud_verifications f
			WHERE f.company_id = $1 AND `+flagged+q.And()+`) x`, q.Args
		switch {
		case w.Since == nil && w.Until == nil:
			cq := toolkit.NewQuery(co.ID)
			stmt, args = flaggedCandidates(cq, "fraud", threshold), cq.Args
		case w.Until == nil:
			cq := toolkit.NewQuery(co.ID)
			stmt, args = fraudScores.flaggedCandidatesSince(cq, "fraud", w, threshold), cq.Args
		}
		if err := db.QueryRowContext(ctx, stmt, args...).Scan(&fc); err != nil {
			return out, nil, err
		}
		fv, err := flaggedCount(ctx, db, co.ID, w, threshold)
		if err != nil {
			return out, nil, err
		}
		tot, err := fraudTotals(ctx, db, co.ID, w)
		if err != nil {
			return out, nil, err
		}
		v := tot[0]
		out.FlaggedCandidates, out.FlaggedVerifications, out.Verifications = &fc, &fv, &v
		t.KV("Flagged candidates", count(fc), "Flagged verifications", count(fv), "All verifications", count(v))
		t.Line("(a candidate is flagged when any verification in the window scored below the threshold)")
	case fraudRiskBreakdown:
		rb := &RiskBreakdown{Signals: []SignalCount{}, ScoreBands: []ScoreBand{}}
		if rb.Flagged, err = flaggedCount(ctx, db, co.ID, w, threshold); err != nil {
			return out, nil, err
		}
		tot, err := fraudTotals(ctx, db, co.ID, w)
		if err != nil {
			return out, nil, err
		}
		rb.Verifications = tot[0]
		counts := tot[1:]
		var sigRows, bandRows [][]string
		for i, s := range fraudSignals {
			c := SignalCount{Signal: s.key, Label: s.label, Count: counts[i], Percent: toolkit.Percent(counts[i], rb.Verifications)}
			rb.Signals = append(rb.Signals, c)
			sigRows = append(sigRows, []string{c.Label, count(c.Count), toolkit.Pct(c.Percent)})
		}
		for i, b := range scoreBands {
			b.Count = counts[len(fraudSignals)+i]
			b.Percent = toolkit.Percent(b.Count, rb.Verifications)
			rb.ScoreBands = append(rb.ScoreBands, b)
			bandRows = append(bandRows, []string{b.Band, count(b.Count), toolkit.Pct(b.Percent)})
		}
		out.RiskBreakdown = rb
		t.KV("Verifications", count(rb.Verifications), "Flagged", count(rb.Flagged))
		t.H2("Signals")
		t.Table([]string{"Signal", "Verifications", "Share"}, sigRows, "")
		t.H2("Score bands")
		t.Table([]string{"Score", "Verifications", "Share"}, bandRows, "")
	case fraudFlaggedDetails:
		out.Limit = &limit
		if err := fraudDetails(ctx, call, db, q, flagged, w, threshold, limit, &out, t); err != nil {
			return out, nil, err
		}
	}
	return out, t, nil
}

// flaggedCount counts the company's verifications in w scored below threshold, from fraud_scores
// (see scoreHistogram.flaggedCount).
func flaggedCount(ctx context.Context, db toolkit.Querier, company uuid.UUID, w toolkit.Window, threshold float64) (int64, error) {
	q := toolkit.NewQuery(company)
	var n int64
	err := db.QueryRowContext(ctx, fraudScores.flaggedCount(q, w, threshold), q.Args...).Scan(&n)
	return n, err
}

// fraudTotals counts the company's verifications in w: all of them, then per signal
// (fraudSignals' order), then per score band (scoreBands' order). Whole UTC days come from
// fraud_daily, the partial days at the window's ends from the verifications.
func fraudTotals(ctx context.Context, db toolkit.Querier, company uuid.UUID, w toolkit.Window) ([]int64, error) {
	q := toolkit.NewQuery(company)
	rollupCols, sourceCols := []string{"sum(r.verifications)"}, []string{"count(*)"}
	for _, s := range fraudSignals {
		rollupCols = append(rollupCols, "sum(r."+s.col+")")
		sourceCols = append(sourceCols, "count(*) FILTER (WHERE f."+s.col+")")
	}
	for i, b := range scoreBands {
		// fraud_daily's band_* columns are width_bucket(score, {25, 50, 75}): [min, max), the last up to 100.
		rollupCols = append(rollupCols, fmt.Sprintf("sum(r.band_%g_%g)", b.Min, b.Max))
		cond := fmt.Sprintf("f.overall_verification_score >= %g AND f.overall_verification_score < %g", b.Min, b.Max)
		if i == len(scoreBands)-1 {
			cond = fmt.Sprintf("f.overall_verification_score >= %g", b.Min)
		}
		sourceCols = append(sourceCols, "count(*) FILTER (WHERE "+cond+")")
	}
	union := toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
		return `SELECT ` + strings.Join(rollupCols, ", ") + ` FROM fraud_daily r WHERE r.company_id = $1` + q.DayRange("r.day", w)
	}, func(w toolkit.Window) string {
		return `SELECT ` + strings.Join(sourceCols, ", ") + ` FROM fraud_verifications f WHERE f.company_id = $1` + q.Range("f.created_at", w)
	})
	cols := make([]string, len(sourceCols))
	names := make([]string, len(sourceCols))
	for i := range cols {
		names[i] = fmt.Sprintf("c%d", i)
		cols[i] = fmt.Sprintf("coalesce(sum(c%d), 0)::bigint", i)
	}
	n := make([]int64, len(cols))
	dest := make([]any, len(n))
	for i := range n {
		dest[i] = &n[i]
	}
	err := db.QueryRowContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM (`+union+`) x(`+strings.Join(names, ", ")+`)`, q.Args...).Scan(dest...)
	return n, err
}

func fraudDetails(ctx context.Context, call *toolkit.Call, db toolkit.Querier, q *toolkit.Query, flagged string, w toolkit.Window, threshold float64,
	limit int, out *FraudStatsOutput, t *toolkit.Text) error {
	total, err := flaggedCount(ctx, db, call.Company.ID, w, threshold)
	if err != nil {
		return err
	}
	// The riskiest rows first (an index walk on the score), then their candidates and sessions.
	lim := q.Arg(limit)
	rows, err := db.QueryContext(ctx, `WITH f AS (
			SELECT f.id, f.candidate_id, f.overall_verification_score, f.disposable_email, f.voip_phone, f.vpn_proxy_ip, f.thin_profile,
				f.footprint_anomaly, f.session_id, f.created_at, f.signals
			FROM fraud_verifications f WHERE f.company_id = $1 AND `+flagged+q.And()+`
			ORDER BY f.overall_verification_score, f.created_at DESC, f.id
			LIMIT `+lim+`)
		SELECT f.candidate_id, c.first_name, c.last_name, c.email, f.overall_verification_score,
			f.disposable_email, f.voip_phone, f.vpn_proxy_ip, f.thin_profile, f.footprint_anomaly, f.session_id, j.title, f.created_at, f.signals
		FROM f
		JOIN candidates c ON c.company_id = $1 AND c.id = f.candidate_id
		LEFT JOIN interview_sessions s ON s.company_id = $1 AND s.id = f.session_id
		LEFT JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id
		ORDER BY f.overall_verification_score, f.created_at DESC, f.id`, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	out.FlaggedDetails = []FraudDetail{}
	var evidence [][]byte // each row's stored signals
	var ids []uuid.UUID   // each row's candidate
	var table [][]string
	for rows.Next() {
		var r FraudDetail
		var cid uuid.UUID
		var sid uuid.NullUUID
		var first, last string
		var email, title sql.NullString
		var flags [5]bool
		var at sql.NullTime
		var signals sql.NullString
		if err := rows.Scan(&cid, &first, &last, &email, &r.Score, &flags[0], &flags[1], &flags[2], &flags[3], &flags[4], &sid, &title, &at, &signals); err != nil {
			return err
		}
		evidence, ids = append(evidence, nullBytes(signals)), append(ids, cid)
		r.CandidateID, r.CandidateName, r.CandidateEmail, r.CandidateLink = cid.String(), fullName(first, last), toolkit.NullString(email), call.Env.Links.Candidate(cid)
		r.Score = toolkit.Round(r.Score, 2)
		r.Signals = []string{}
		for i, on := range flags {
			if on {
				r.Signals = append(r.Signals, fraudSignals[i].key)
			}
		}
		if sid.Valid {
			r.SessionID, r.SessionLink = ptr(sid.UUID.String()), ptr(call.Env.Links.Session(sid.UUID))
		}
		r.JobTitle = toolkit.NullString(title)
		r.VerifiedAt = toolkit.Timestamp(at.Time)
		out.FlaggedDetails = append(out.FlaggedDetails, r)
		sess := "—"
		if r.SessionLink != nil {
			sess = *r.SessionLink
		}
		table = append(table, []string{r.CandidateName, toolkit.Str(r.CandidateEmail), toolkit.Num(&r.Score), signalsText(r.Signals),
			toolkit.Str(r.JobTitle), toolkit.Date(at.Time), r.CandidateLink, sess})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	shared, err := sharedContacts(ctx, call, db, ids)
	if err != nil {
		return err
	}
	for i := range out.FlaggedDetails {
		out.FlaggedDetails[i].Evidence = fraudEvidence(evidence[i], shared[ids[i]])
	}
	out.TotalFlagged = &total
	t.KV("Flagged verifications", count(total), "Listed", fmt.Sprintf("%d (riskiest first, limit %d)", len(out.FlaggedDetails), limit))
	t.Blank()
	t.Table([]string{"Candidate", "E-mail", "Score", "Signals", "Job", "Verified", "Candidate link", "Session link"}, table,
		"No flagged verifications in this window.")
	for _, r := range out.FlaggedDetails {
		t.Blank()
		t.Line("Why %s is flagged:", r.CandidateName)
		fraudEvidenceText(t, r.Evidence)
	}
	return nil
}

func signalsText(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	labels := map[string]string{}
	for _, s := range fraudSignals {
		labels[s.key] = s.label
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = labels[k]
	}
	return strings.Join(out, ", ")
}
