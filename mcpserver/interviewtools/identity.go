package interviewtools

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

type identityMetric string

const (
	idStatusBreakdown  identityMetric = "statusBreakdown"
	idVerificationRate identityMetric = "verificationRate"
	idFailureReasons   identityMetric = "failureReasons"
	idFailedDetails    identityMetric = "failedDetails"
)

var identityMetrics = []identityMetric{idStatusBreakdown, idVerificationRate, idFailureReasons, idFailedDetails}

// Bounds of getIdentityVerificationStats.
const (
	idDetailsDefault = 20
	idDetailsMax     = 100
	idMaxReasons     = 50
	noReason         = "(no reason recorded)"
)

func registerIdentityStats(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getIdentityVerificationStats",
		Title: "Identity verification (government ID + selfie) statistics",
		Description: "Government-ID plus selfie identity verification of candidates, which runs for jobs with enable_identity_verification. " +
			"Statuses: PENDING (not finished), VERIFIED, FAILED, EXPIRED (not completed in time), SKIPPED (the interview ended without the identity step). " +
			"Not about cheating (getCheatingDetectionStats) nor identity-signal fraud (getFraudVerificationStats). Pick one metric:\n" +
			"- statusBreakdown: verifications per status.\n" +
			"- verificationRate: VERIFIED / concluded verifications (VERIFIED + FAILED + EXPIRED + SKIPPED; PENDING excluded), plus passRate = VERIFIED / (VERIFIED + FAILED), " +
			"which leaves out candidates who never finished.\n" +
			"- failureReasons: FAILED verifications grouped by failure reason, most frequent first.\n" +
			"- failedDetails: the FAILED verifications, newest first, with candidate, job and reason; limit default 20, max 100.\n" +
			"sinceDate/untilDate filter on when the verification was started (ISO dates, untilDate inclusive, UTC; default all time). " +
			"Requires enable_identity_verification on at least one job of the company (or past verifications).",
		InputSchema: toolkit.InputSchema[IdentityStatsInput](map[string][]string{"metric": toolkit.Strings(identityMetrics)}),
	}, identityStats)
}

// IdentityStatsInput are getIdentityVerificationStats' arguments.
type IdentityStatsInput struct {
	Metric string `json:"metric" jsonschema:"the metric: statusBreakdown, verificationRate, failureReasons or failedDetails"`
	toolkit.WindowArg
	Limit *int `json:"limit,omitempty" jsonschema:"failedDetails only: rows to return, default 20, max 100 (larger values are clamped)"`
	toolkit.CompanyArg
}

// IdentityStatusCount is one status of statusBreakdown.
type IdentityStatusCount struct {
	Status  string   `json:"status"`
	Count   int64    `json:"count"`
	Percent *float64 `json:"percent"`
}

// VerificationRate is verificationRate's result.
type VerificationRate struct {
	Verified  int64    `json:"verified"`
	Failed    int64    `json:"failed"`
	Expired   int64    `json:"expired"`
	Pending   int64    `json:"pending"`
	Skipped   int64    `json:"skipped" jsonschema:"the interview ended without the identity step"`
	Concluded int64    `json:"concluded" jsonschema:"VERIFIED + FAILED + EXPIRED + SKIPPED"`
	Rate      *float64 `json:"rate" jsonschema:"VERIFIED / concluded in percent (one decimal); null when nothing concluded"`
	PassRate  *float64 `json:"passRate" jsonschema:"VERIFIED / (VERIFIED + FAILED) in percent; null when none"`
}

// ReasonCount is one failure reason.
type ReasonCount struct {
	Reason  string   `json:"reason"`
	Count   int64    `json:"count"`
	Percent *float64 `json:"percent" jsonschema:"share of FAILED verifications"`
}

// FailedVerification is one FAILED verification.
type FailedVerification struct {
	CandidateID    string  `json:"candidateId"`
	CandidateName  string  `json:"candidateName"`
	CandidateEmail *string `json:"candidateEmail"`
	CandidateLink  string  `json:"candidateLink"`
	JobID          string  `json:"jobId"`
	JobTitle       string  `json:"jobTitle"`
	JobLink        string  `json:"jobLink"`
	SessionID      *string `json:"sessionId"`
	SessionLink    *string `json:"sessionLink"`
	FailureReason  *string `json:"failureReason"`
	StartedAt      string  `json:"startedAt"`
	CompletedAt    *string `json:"completedAt"`
}

// IdentityStatsOutput is getIdentityVerificationStats' structured result.
type IdentityStatsOutput struct {
	Metric           string                `json:"metric"`
	Window           toolkit.WindowOut     `json:"window"`
	EnabledJobs      int64                 `json:"enabledJobs" jsonschema:"jobs of the company with enable_identity_verification"`
	StatusBreakdown  []IdentityStatusCount `json:"statusBreakdown,omitzero"`
	Total            *int64                `json:"total,omitzero" jsonschema:"statusBreakdown: all verifications in the window"`
	VerificationRate *VerificationRate     `json:"verificationRate,omitzero"`
	FailureReasons   []ReasonCount         `json:"failureReasons,omitzero"`
	FailedDetails    []FailedVerification  `json:"failedDetails,omitzero"`
	TotalFailed      *int64                `json:"totalFailed,omitzero" jsonschema:"failureReasons, failedDetails: FAILED verifications in the window"`
	Limit            *int                  `json:"limit,omitzero"`
	toolkit.Notices
}

func identityStats(ctx context.Context, call *toolkit.Call, in IdentityStatsInput) (IdentityStatsOutput, *toolkit.Text, error) {
	var out IdentityStatsOutput
	metric, err := toolkit.OneOf("metric", in.Metric, identityMetrics)
	if err != nil {
		return out, nil, err
	}
	limit := 0
	if metric == idFailedDetails {
		if limit, err = call.Limit("limit", in.Limit, idDetailsDefault, 1, idDetailsMax); err != nil {
			return out, nil, err
		}
	} else if in.Limit != nil {
		call.Notice("limit applies only to metric failedDetails; ignored")
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, 0, nil)
	if err != nil {
		return out, nil, err
	}
	co := call.Company
	db := call.DB
	var enabled int64
	var any bool
	// The enabled jobs from job_counts (migration 00059: a few rows per company, whatever its
	// jobs), not a count of the jobs.
	if err := db.QueryRowContext(ctx, `SELECT
			(SELECT coalesce(sum(jobs), 0)::bigint FROM job_counts WHERE company_id = $1 AND identity AND NOT is_deleted),
			EXISTS (SELECT 1 FROM identity_verifications WHERE company_id = $1)`, co.ID).Scan(&enabled, &any); err != nil {
		return out, nil, err
	}
	if enabled == 0 && !any {
		return out, nil, toolkit.Errorf("identity verification is not enabled for any job of company %s and none was ever run: "+
			"turn on enable_identity_verification on the jobs that should verify candidates' government ID and selfie", co.Name)
	}
	if enabled == 0 {
		call.Notice("no job has enable_identity_verification on now; these are past verifications")
	}
	out = IdentityStatsOutput{Metric: string(metric), Window: w.Out("identity_verifications.created_at"), EnabledJobs: enabled}
	q := toolkit.NewQuery(co.ID)
	q.Window("v.created_at", w)

	t := &toolkit.Text{}
	t.H1("Identity verification: %s", metric)
	t.KV("Window", w.String()+" (by verification start)", "Jobs with ID verification", count(enabled))
	t.Blank()
	switch metric {
	case idStatusBreakdown, idVerificationRate:
		counts := map[string]int64{}
		var total int64
		cq := toolkit.NewQuery(co.ID)
		rows, err := db.QueryContext(ctx, `SELECT status, sum(n)::bigint FROM (`+identityCounts(cq, w, false)+`) x GROUP BY 1`, cq.Args...)
		if err != nil {
			return out, nil, err
		}
		for rows.Next() {
			var st string
			var n int64
			if err := rows.Scan(&st, &n); err != nil {
				rows.Close()
				return out, nil, err
			}
			counts[st], total = n, total+n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return out, nil, err
		}
		if metric == idStatusBreakdown {
			out.StatusBreakdown, out.Total = []IdentityStatusCount{}, &total
			var table [][]string
			for _, st := range models.AllIdentityStatuses() {
				c := IdentityStatusCount{Status: string(st), Count: counts[string(st)], Percent: toolkit.Percent(counts[string(st)], total)}
				out.StatusBreakdown = append(out.StatusBreakdown, c)
				table = append(table, []string{c.Status, count(c.Count), toolkit.Pct(c.Percent)})
			}
			t.Table([]string{"Status", "Verifications", "Share"}, table, "")
			t.Blank()
			t.KV("Total", count(total))
		} else {
			r := &VerificationRate{Verified: counts["VERIFIED"], Failed: counts["FAILED"], Expired: counts["EXPIRED"], Pending: counts["PENDING"],
				Skipped: counts["SKIPPED"]}
			r.Concluded = r.Verified + r.Failed + r.Expired + r.Skipped
			r.Rate, r.PassRate = toolkit.Percent(r.Verified, r.Concluded), toolkit.Percent(r.Verified, r.Verified+r.Failed)
			out.VerificationRate = r
			t.KV("Verification rate", toolkit.Pct(r.Rate)+" (VERIFIED / concluded = VERIFIED + FAILED + EXPIRED + SKIPPED)",
				"Pass rate", toolkit.Pct(r.PassRate)+" (VERIFIED / (VERIFIED + FAILED))",
				"Verified", count(r.Verified), "Failed", count(r.Failed), "Expired", count(r.Expired), "Skipped", count(r.Skipped), "Pending (excluded)", count(r.Pending))
		}
	case idFailureReasons:
		if err := failureReasons(ctx, call, db, w, &out, t); err != nil {
			return out, nil, err
		}
	case idFailedDetails:
		out.Limit = &limit
		if err := failedDetails(ctx, call, db, q, w, limit, &out, t); err != nil {
			return out, nil, err
		}
	}
	return out, t, nil
}

// identityCounts is a statement of the company's identity verifications started in w, as rows
// (status, reason, n): identity_daily for the whole UTC days, the verifications of the partial
// days at the ends. reason is identity_reason(): the trimmed failure reason of a FAILED one, cut
// to 500 characters, ” for none and for the other statuses. failed keeps the FAILED ones only.
func identityCounts(q *toolkit.Query, w toolkit.Window, failed bool) string {
	var only string
	if failed {
		only = " AND status = 'FAILED'"
	}
	return `SELECT * FROM (` + toolkit.SplitUnion(w, toolkit.Day, func(w toolkit.Window) string {
		return `SELECT status, reason, verifications FROM identity_daily WHERE company_id = $1` + only + q.DayRange("day", w)
	}, func(w toolkit.Window) string {
		return `SELECT status, identity_reason(status, failure_reason), count(*) FROM identity_verifications
			WHERE company_id = $1` + only + q.Range("created_at", w) + ` GROUP BY 1, 2`
	}) + `) c(status, reason, n)`
}

func failureReasons(ctx context.Context, call *toolkit.Call, db toolkit.Querier, w toolkit.Window, out *IdentityStatsOutput, t *toolkit.Text) error {
	q := toolkit.NewQuery(call.Company.ID)
	counts := identityCounts(q, w, true)
	none, lim := q.Arg(noReason), q.Arg(idMaxReasons)
	rows, err := db.QueryContext(ctx, `SELECT r.reason, r.n, sum(r.n) OVER (), count(*) OVER () FROM (
			SELECT coalesce(nullif(reason, ''), `+none+`) AS reason, sum(n)::bigint AS n FROM (`+counts+`) x GROUP BY 1) r
		ORDER BY r.n DESC, r.reason LIMIT `+lim, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	out.FailureReasons = []ReasonCount{}
	var total, reasons int64
	var table [][]string
	for rows.Next() {
		var r ReasonCount
		if err := rows.Scan(&r.Reason, &r.Count, &total, &reasons); err != nil {
			return err
		}
		out.FailureReasons = append(out.FailureReasons, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range out.FailureReasons {
		r := &out.FailureReasons[i]
		r.Percent = toolkit.Percent(r.Count, total)
		table = append(table, []string{r.Reason, count(r.Count), toolkit.Pct(r.Percent)})
	}
	if reasons > idMaxReasons {
		call.Notice("%d distinct failure reasons; showing the %d most frequent", reasons, idMaxReasons)
	}
	out.TotalFailed = &total
	t.KV("Failed verifications", count(total))
	t.Blank()
	t.Table([]string{"Failure reason", "Count", "Share"}, table, "No failed verifications in this window.")
	return nil
}

// failedDetails lists the newest failed verifications of q's window w.
func failedDetails(ctx context.Context, call *toolkit.Call, db toolkit.Querier, q *toolkit.Query, w toolkit.Window, limit int, out *IdentityStatsOutput, t *toolkit.Text) error {
	var total int64
	cq := toolkit.NewQuery(call.Company.ID)
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0)::bigint FROM (`+identityCounts(cq, w, true)+`) x`, cq.Args...).Scan(&total); err != nil {
		return err
	}
	lim := q.Arg(limit)
	rows, err := db.QueryContext(ctx, `WITH v AS (
			SELECT v.id, v.candidate_id, v.job_id, v.session_id, v.failure_reason, v.created_at, v.completed_at
			FROM identity_verifications v WHERE v.company_id = $1 AND v.status = 'FAILED'`+q.And()+`
			ORDER BY v.created_at DESC, v.id LIMIT `+lim+`)
		SELECT v.candidate_id, c.first_name, c.last_name, c.email, v.job_id, j.title,
			v.session_id, v.failure_reason, v.created_at, v.completed_at
		FROM v
		JOIN candidates c ON c.company_id = $1 AND c.id = v.candidate_id
		JOIN jobs j ON j.company_id = $1 AND j.id = v.job_id
		ORDER BY v.created_at DESC, v.id`, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	out.FailedDetails = []FailedVerification{}
	var table [][]string
	for rows.Next() {
		var r FailedVerification
		var cid, jid uuid.UUID
		var sid uuid.NullUUID
		var first, last string
		var email, reason sql.NullString
		var started, completed sql.NullTime
		if err := rows.Scan(&cid, &first, &last, &email, &jid, &r.JobTitle, &sid, &reason, &started, &completed); err != nil {
			return err
		}
		r.CandidateID, r.CandidateName, r.CandidateEmail, r.CandidateLink = cid.String(), fullName(first, last), toolkit.NullString(email), call.Env.Links.Candidate(cid)
		r.JobID, r.JobLink = jid.String(), call.Env.Links.Job(jid)
		if sid.Valid {
			r.SessionID, r.SessionLink = ptr(sid.UUID.String()), ptr(call.Env.Links.Session(sid.UUID))
		}
		r.FailureReason = toolkit.NullString(reason)
		r.StartedAt, r.CompletedAt = toolkit.Timestamp(started.Time), toolkit.NullTime(completed)
		out.FailedDetails = append(out.FailedDetails, r)
		table = append(table, []string{r.CandidateName, toolkit.Str(r.CandidateEmail), toolkit.OrDash(r.JobTitle), toolkit.Str(r.FailureReason),
			toolkit.Date(started.Time), r.CandidateLink})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	out.TotalFailed = &total
	t.KV("Failed verifications", count(total), "Listed", fmt.Sprintf("%d (newest first, limit %d)", len(out.FailedDetails), limit))
	t.Blank()
	t.Table([]string{"Candidate", "E-mail", "Job", "Reason", "Started", "Candidate link"}, table, "No failed verifications in this window.")
	return nil
}
