package interviewtools

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// Bounds of getCandidateReport.
const (
	reportSessionsDefault = 5
	reportSessionsMax     = 20
	reportMaxCandidates   = 10
	reportMaxNotes        = 10
	// fraudHighRiskBelow is the fixed report threshold of fraudHighRisk.
	fraudHighRiskBelow = 50
)

func registerCandidateReport(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getCandidateReport",
		Title: "Candidate interview report",
		Description: "Looks up candidates by name and/or e-mail and reports their interview sessions: job, status, medium, invite and completion times, " +
			"recruiter decision, recruiter and AI service ratings and reviews, recruiter notes, time from invite to completion, and the integrity signals " +
			"(fraud verification score and high-risk flag, cheating score and flag). " +
			"name is a partial, order-agnostic match (every word must occur in the full name, any case: \"smith john\" finds John Smith); " +
			"email is an exact, case-insensitive match; at least one is required, and when both are given a candidate must match both. " +
			"jobName (part of the job title) and status (session status: INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED, INCOMPLETE, DECLINED) filter the sessions, and then " +
			"only candidates with a matching session are listed. limit is the number of sessions per candidate, newest first (default 5, max 20). " +
			"At most 10 candidates are returned (most recently updated first). Each session lists up to 10 of its recruiter notes, newest first; " +
			"notes not tied to a session are listed per candidate, also up to 10. " +
			"inviteToCompletionSeconds is null unless the session is COMPLETED. fraudHighRisk (score below 50) and fraudVerificationScore come from the " +
			"session's own fraud verification, else the candidate's latest one (fraudCheck says which: thisSession, candidate, otherSession); they are " +
			"null when the company's fraud_detection_enabled is off (fraudCheck off) or the candidate was never verified (fraudCheck none). " +
			"cheatingFlagged (score at or above the company's cheat threshold) and cheatingScore are null when model_cheat_detection_enabled is off " +
			"(cheatingEvaluation off) or the session has no evaluation (cheatingEvaluation notEvaluated).",
	}, candidateReport)
}

// CandidateReportInput are getCandidateReport's arguments.
type CandidateReportInput struct {
	Name    string `json:"name,omitempty" jsonschema:"part of the candidate's name; every word must match, in any order and case"`
	Email   string `json:"email,omitempty" jsonschema:"the candidate's exact e-mail address (case-insensitive)"`
	JobName string `json:"jobName,omitempty" jsonschema:"only sessions for jobs whose title contains this text (case-insensitive)"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"sessions per candidate, newest first; default 5, max 20 (larger values are clamped)"`
	Status  string `json:"status,omitempty" jsonschema:"only sessions in this status: INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED, INCOMPLETE or DECLINED (any case)"`
	toolkit.CompanyArg
}

// Note is a recruiter note.
type Note struct {
	CreatedAt string `json:"createdAt"`
	Body      string `json:"body"`
}

// ReportSession is one interview session of a candidate report.
type ReportSession struct {
	SessionID                 string   `json:"sessionId"`
	SessionLink               string   `json:"sessionLink"`
	JobID                     string   `json:"jobId"`
	JobTitle                  string   `json:"jobTitle"`
	JobLink                   string   `json:"jobLink"`
	Status                    string   `json:"status"`
	MediumType                string   `json:"mediumType"`
	InvitedAt                 string   `json:"invitedAt"`
	CompletedAt               *string  `json:"completedAt"`
	Decision                  string   `json:"decision" jsonschema:"recruiter decision: NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED or HIRED"`
	RecruiterRating           *float64 `json:"recruiterRating"`
	ServiceRating             *float64 `json:"serviceRating" jsonschema:"the AI interviewer's rating"`
	RecruiterReview           *string  `json:"recruiterReview"`
	ServiceReview             *string  `json:"serviceReview" jsonschema:"the AI interviewer's review"`
	Notes                     []Note   `json:"notes" jsonschema:"up to 10 recruiter notes on this session, newest first"`
	InviteToCompletionSeconds *int64   `json:"inviteToCompletionSeconds" jsonschema:"seconds from invitation to completion; null unless COMPLETED"`
	FraudHighRisk             *bool    `json:"fraudHighRisk" jsonschema:"true when the fraud verification score is below 50; null when fraud detection is off or the candidate was never verified (see fraudCheck)"`
	FraudVerificationScore    *float64 `json:"fraudVerificationScore" jsonschema:"0-100, lower is riskier; null when fraud detection is off or the candidate was never verified (see fraudCheck)"`
	FraudCheck                string   `json:"fraudCheck" jsonschema:"which fraud verification the two fraud figures come from: thisSession, candidate (a check tied to no session), otherSession (the candidate's latest check, made for another session), none (detection on, never verified) or off (fraud_detection_enabled is off)"`
	FraudCheckSessionID       *string  `json:"fraudCheckSessionId" jsonschema:"the session the fraud verification was made for (thisSession, otherSession); null otherwise"`
	CheatingFlagged           *bool    `json:"cheatingFlagged" jsonschema:"true when the cheating score is at or above the company's cheat threshold; null when cheating detection is off or the session has no evaluation (see cheatingEvaluation)"`
	CheatingScore             *float64 `json:"cheatingScore" jsonschema:"raw cheating score 0-100; null when cheating detection is off or the session has no evaluation (see cheatingEvaluation)"`
	CheatingEvaluation        string   `json:"cheatingEvaluation" jsonschema:"evaluated, notEvaluated (detection on, the session has no cheating evaluation) or off (model_cheat_detection_enabled is off)"`
}

// Values of ReportSession.FraudCheck and CheatingEvaluation.
const (
	checkThisSession  = "thisSession"
	checkCandidate    = "candidate"
	checkOtherSession = "otherSession"
	checkNone         = "none"
	checkOff          = "off"
	evaluated         = "evaluated"
	notEvaluated      = "notEvaluated"
)

// ReportCandidate is one candidate of a report.
type ReportCandidate struct {
	CandidateID   string          `json:"candidateId"`
	Name          string          `json:"name"`
	Email         *string         `json:"email"`
	Phone         *string         `json:"phone"`
	Title         string          `json:"title"`
	Location      string          `json:"location"`
	Link          string          `json:"link"`
	TotalSessions int64           `json:"totalSessions" jsonschema:"sessions matching the filters; the first limit are listed"`
	Notes         []Note          `json:"notes" jsonschema:"up to 10 recruiter notes not tied to a session, newest first"`
	Sessions      []ReportSession `json:"sessions" jsonschema:"newest first"`
}

// CandidateReportOutput is getCandidateReport's structured result.
type CandidateReportOutput struct {
	Candidates            []ReportCandidate `json:"candidates"`
	MoreCandidates        bool              `json:"moreCandidates" jsonschema:"more than 10 candidates matched; refine name or use email"`
	SessionLimit          int               `json:"sessionLimit"`
	FraudDetectionEnabled bool              `json:"fraudDetectionEnabled"`
	CheatDetectionEnabled bool              `json:"cheatDetectionEnabled" jsonschema:"the company's model_cheat_detection_enabled"`
	CheatThreshold        float64           `json:"cheatThreshold"`
	toolkit.Notices
}

func candidateReport(ctx context.Context, call *toolkit.Call, in CandidateReportInput) (CandidateReportOutput, *toolkit.Text, error) {
	var out CandidateReportOutput
	tokens, email := nameTokens(in.Name), strings.TrimSpace(in.Email)
	if len(tokens) == 0 && email == "" {
		return out, nil, toolkit.Errorf("give name (partial, any word order) or email (exact), or both")
	}
	var status models.SessionStatus
	if in.Status != "" {
		var err error
		if status, err = toolkit.OneOfFold("status", strings.TrimSpace(in.Status), models.AllSessionStatuses()); err != nil {
			return out, nil, err
		}
	}
	limit, err := call.Limit("limit", in.Limit, reportSessionsDefault, 1, reportSessionsMax)
	if err != nil {
		return out, nil, err
	}
	co := call.Company
	out = CandidateReportOutput{Candidates: []ReportCandidate{}, SessionLimit: limit, FraudDetectionEnabled: co.FraudDetectionEnabled,
		CheatDetectionEnabled: co.ModelCheatDetectionEnabled, CheatThreshold: co.CheatThreshold}
	jobName := strings.TrimSpace(in.JobName)
	db := call.DB

	// Candidates.
	q := toolkit.NewQuery(co.ID)
	if err := whereName(q, "c", tokens); err != nil {
		return out, nil, err
	}
	if email != "" {
		whereEmail(q, "c", email)
	}
	if jobName != "" || status != "" {
		q.Where("EXISTS (SELECT 1 FROM interview_sessions s JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id WHERE s.company_id = $1 AND s.candidate_id = c.id%s)",
			sessionFilter(q, jobName, status))
	}
	lim := q.Arg(reportMaxCandidates + 1)
	rows, err := db.QueryContext(ctx, `SELECT c.id, c.first_name, c.last_name, c.email, c.phone, c.title, c.location
		FROM candidates c WHERE c.company_id = $1`+q.And()+`
		ORDER BY c.updated_at DESC, c.id LIMIT `+lim, q.Args...)
	if err != nil {
		return out, nil, err
	}
	defer rows.Close()
	var ids []string
	byID := map[uuid.UUID]*ReportCandidate{}
	for rows.Next() {
		var id uuid.UUID
		var first, last string
		var em, phone sql.NullString
		c := ReportCandidate{Notes: []Note{}, Sessions: []ReportSession{}}
		if err := rows.Scan(&id, &first, &last, &em, &phone, &c.Title, &c.Location); err != nil {
			return out, nil, err
		}
		c.CandidateID, c.Name, c.Email, c.Phone, c.Link = id.String(), fullName(first, last), toolkit.NullString(em), toolkit.NullString(phone), call.Env.Links.Candidate(id)
		out.Candidates = append(out.Candidates, c)
		ids = append(ids, id.String())
	}
	if err := rows.Err(); err != nil {
		return out, nil, err
	}
	rows.Close()
	if len(out.Candidates) > reportMaxCandidates {
		out.Candidates, ids, out.MoreCandidates = out.Candidates[:reportMaxCandidates], ids[:reportMaxCandidates], true
		call.Notice("more than %d candidates match; showing the %d most recently updated. Refine name, add email, or use jobName", reportMaxCandidates, reportMaxCandidates)
	}
	for i := range out.Candidates {
		byID[uuid.MustParse(out.Candidates[i].CandidateID)] = &out.Candidates[i]
	}

	if len(ids) > 0 {
		if err := reportSessions(ctx, call, db, ids, jobName, status, limit, byID); err != nil {
			return out, nil, err
		}
		if err := reportNotes(ctx, call, db, ids, byID); err != nil {
			return out, nil, err
		}
	}
	return out, reportText(call, in, jobName, status, &out), nil
}

// sessionFilter is the SQL of the session filters (sessions alias s, jobs alias j), with a
// leading AND, its arguments added to q.
func sessionFilter(q *toolkit.Query, jobName string, status models.SessionStatus) string {
	var f string
	if jobName != "" {
		f += " AND j.title ILIKE " + q.Arg(toolkit.LikeContains(jobName))
	}
	if status != "" {
		f += " AND s.status = " + q.Arg(string(status))
	}
	return f
}

func reportSessions(ctx context.Context, call *toolkit.Call, db toolkit.Querier, ids []string, jobName string, status models.SessionStatus, limit int, byID map[uuid.UUID]*ReportCandidate) error {
	co := call.Company
	q := toolkit.NewQuery(co.ID)
	idsArg := q.Arg(ids)
	filter := sessionFilter(q, jobName, status)

	// Totals per candidate.
	rows, err := db.QueryContext(ctx, `SELECT s.candidate_id, count(*) FROM interview_sessions s
		JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id
		WHERE s.company_id = $1 AND s.candidate_id = ANY(`+idsArg+`::uuid[])`+filter+` GROUP BY 1`, q.Args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id uuid.UUID
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return err
		}
		if c := byID[id]; c != nil {
			c.TotalSessions = n
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}

	lim := q.Arg(limit)
	rows, err = db.QueryContext(ctx, `SELECT x.* FROM unnest(`+idsArg+`::uuid[]) AS cid(id)
		CROSS JOIN LATERAL (
			SELECT s.id, s.candidate_id, s.job_id, j.title, s.status, s.medium_type, s.invited_at, s.completed_at, s.decision,
				s.recruiter_rating, s.service_rating, s.recruiter_review, s.service_review,
				ce.cheating_score, fv.overall_verification_score, fv.session_id
			FROM interview_sessions s
			JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id
			LEFT JOIN cheating_evaluations ce ON ce.company_id = $1 AND ce.session_id = s.id
			LEFT JOIN LATERAL (
				-- The session's own check, else the candidate's latest (as getCandidateVerification).
				SELECT f.overall_verification_score, f.session_id FROM fraud_verifications f
				WHERE f.company_id = $1 AND f.candidate_id = s.candidate_id
				ORDER BY f.session_id IS NOT DISTINCT FROM s.id DESC, f.created_at DESC, f.id LIMIT 1) fv ON true
			WHERE s.company_id = $1 AND s.candidate_id = cid.id`+filter+`
			ORDER BY s.invited_at DESC, s.created_at DESC, s.id
			LIMIT `+lim+`) x`, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var sid, cid, jid uuid.UUID
		var r ReportSession
		var invited sql.NullTime
		var completed sql.NullTime
		var rr, sr, cheat, fraud sql.NullFloat64
		var rrev, srev sql.NullString
		var fraudSession uuid.NullUUID
		if err := rows.Scan(&sid, &cid, &jid, &r.JobTitle, &r.Status, &r.MediumType, &invited, &completed, &r.Decision,
			&rr, &sr, &rrev, &srev, &cheat, &fraud, &fraudSession); err != nil {
			return err
		}
		r.SessionID, r.SessionLink = sid.String(), call.Env.Links.Session(sid)
		r.JobID, r.JobLink = jid.String(), call.Env.Links.Job(jid)
		r.InvitedAt, r.CompletedAt = toolkit.Timestamp(invited.Time), toolkit.NullTime(completed)
		r.RecruiterRating, r.ServiceRating = toolkit.NullFloat(rr), toolkit.NullFloat(sr)
		r.RecruiterReview, r.ServiceReview = toolkit.NullString(rrev), toolkit.NullString(srev)
		r.Notes = []Note{}
		if r.Status == string(models.SessionStatusCompleted) && completed.Valid && invited.Valid {
			r.InviteToCompletionSeconds = ptr(int64(completed.Time.Sub(invited.Time).Seconds()))
		}
		r.FraudCheck, r.CheatingEvaluation = checkOff, checkOff
		switch {
		case !co.FraudDetectionEnabled:
		case !fraud.Valid:
			r.FraudCheck = checkNone
		default:
			r.FraudVerificationScore = toolkit.NullFloat(fraud)
			r.FraudHighRisk = ptr(fraud.Float64 < fraudHighRiskBelow)
			r.FraudCheck = checkCandidate
			if fraudSession.Valid {
				r.FraudCheck, r.FraudCheckSessionID = checkOtherSession, ptr(fraudSession.UUID.String())
				if fraudSession.UUID == sid {
					r.FraudCheck = checkThisSession
				}
			}
		}
		switch {
		case !co.ModelCheatDetectionEnabled:
		case !cheat.Valid:
			r.CheatingEvaluation = notEvaluated
		default:
			r.CheatingScore = toolkit.NullFloat(cheat)
			r.CheatingFlagged = ptr(cheat.Float64 >= co.CheatThreshold)
			r.CheatingEvaluation = evaluated
		}
		if c := byID[cid]; c != nil {
			c.Sessions = append(c.Sessions, r)
		}
	}
	return rows.Err()
}

func reportNotes(ctx context.Context, call *toolkit.Call, db toolkit.Querier, ids []string, byID map[uuid.UUID]*ReportCandidate) error {
	var sessionIDs []string
	sessions := map[uuid.UUID]*ReportSession{}
	for _, c := range byID {
		for i := range c.Sessions {
			sessionIDs = append(sessionIDs, c.Sessions[i].SessionID)
			sessions[uuid.MustParse(c.Sessions[i].SessionID)] = &c.Sessions[i]
		}
	}
	if sessionIDs == nil {
		sessionIDs = []string{}
	}
	rows, err := db.QueryContext(ctx, `SELECT candidate_id, session_id, created_at, body FROM (
			SELECT n.candidate_id, n.session_id, n.created_at, n.body,
				row_number() OVER (PARTITION BY n.candidate_id, n.session_id ORDER BY n.created_at DESC, n.id) AS rn
			FROM recruiter_notes n
			WHERE n.company_id = $1 AND n.candidate_id = ANY($2::uuid[])
			  AND (n.session_id IS NULL OR n.session_id = ANY($3::uuid[]))) x
		WHERE rn <= $4 ORDER BY candidate_id, session_id, created_at DESC`, call.Company.ID, ids, sessionIDs, reportMaxNotes)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var cid uuid.UUID
		var sid uuid.NullUUID
		var n Note
		var at sql.NullTime
		if err := rows.Scan(&cid, &sid, &at, &n.Body); err != nil {
			return err
		}
		n.CreatedAt = toolkit.Timestamp(at.Time)
		if sid.Valid {
			if s := sessions[sid.UUID]; s != nil {
				s.Notes = append(s.Notes, n)
			}
		} else if c := byID[cid]; c != nil {
			c.Notes = append(c.Notes, n)
		}
	}
	return rows.Err()
}

func reportText(call *toolkit.Call, in CandidateReportInput, jobName string, status models.SessionStatus, out *CandidateReportOutput) *toolkit.Text {
	t := &toolkit.Text{}
	var crit []string
	if in.Name != "" {
		crit = append(crit, fmt.Sprintf("name %q", strings.TrimSpace(in.Name)))
	}
	if in.Email != "" {
		crit = append(crit, fmt.Sprintf("email %q", strings.TrimSpace(in.Email)))
	}
	if jobName != "" {
		crit = append(crit, fmt.Sprintf("job title containing %q", jobName))
	}
	if status != "" {
		crit = append(crit, "session status "+string(status))
	}
	t.H1("Candidate report: %d candidate(s)", len(out.Candidates))
	t.Line("Matched on %s; up to %d sessions per candidate, newest first.", strings.Join(crit, ", "), out.SessionLimit)
	if len(out.Candidates) == 0 {
		t.Blank()
		t.Line("No candidate of this company matches. Names match partially in any word order; e-mails must match exactly.")
		return t
	}
	co := call.Company
	for _, c := range out.Candidates {
		t.H2("%s", c.Name)
		t.KV("Candidate id", c.CandidateID, "E-mail", toolkit.Str(c.Email), "Phone", toolkit.Str(c.Phone), "Title", toolkit.OrDash(c.Title),
			"Location", toolkit.OrDash(c.Location), "Link", c.Link,
			"Sessions", fmt.Sprintf("%d shown of %d", len(c.Sessions), c.TotalSessions))
		if len(c.Notes) > 0 {
			t.Line("General notes (newest first):")
			for _, n := range c.Notes {
				t.Line("  - %s  %s", n.CreatedAt, n.Body)
			}
		}
		for _, s := range c.Sessions {
			t.Blank()
			t.Line("### %s: %s (%s)", toolkit.OrDash(s.JobTitle), s.Status, s.MediumType)
			itc := "n/a (not completed)"
			if s.InviteToCompletionSeconds != nil {
				itc = fmt.Sprintf("%s (%d s)", duration(float64(*s.InviteToCompletionSeconds)), *s.InviteToCompletionSeconds)
			}
			fraud := map[string]string{checkOff: "n/a (fraud detection off)", checkNone: "no verification of this candidate"}[s.FraudCheck]
			if s.FraudVerificationScore != nil {
				which := map[string]string{checkThisSession: "check of this session", checkCandidate: "candidate-level check"}[s.FraudCheck]
				if s.FraudCheck == checkOtherSession {
					which = "the candidate's latest check, made for session " + *s.FraudCheckSessionID
				}
				fraud = fmt.Sprintf("%s/100, high risk: %s (%s)", toolkit.Num(s.FraudVerificationScore), toolkit.Bool(s.FraudHighRisk), which)
			}
			cheat := map[string]string{checkOff: "n/a (cheating detection off)", notEvaluated: "not evaluated"}[s.CheatingEvaluation]
			if s.CheatingScore != nil {
				cheat = fmt.Sprintf("%s (threshold %s), flagged: %s", toolkit.Num(s.CheatingScore), toolkit.Num(&co.CheatThreshold), toolkit.Bool(s.CheatingFlagged))
			}
			t.KV("Session", s.SessionLink, "Job", s.JobLink, "Invited", s.InvitedAt, "Completed", toolkit.Str(s.CompletedAt),
				"Invite to completion", itc, "Decision", s.Decision,
				"Recruiter rating", toolkit.Num(s.RecruiterRating), "Service rating", toolkit.Num(s.ServiceRating),
				"Recruiter review", toolkit.Str(s.RecruiterReview), "Service review", toolkit.Str(s.ServiceReview),
				"Fraud verification", fraud, "Cheating score", cheat)
			if len(s.Notes) > 0 {
				t.Line("Notes (newest first):")
				for _, n := range s.Notes {
					t.Line("  - %s  %s", n.CreatedAt, n.Body)
				}
			}
		}
	}
	return t
}
