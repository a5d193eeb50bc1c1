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

// verificationOtherMatches bounds the other candidates listed for an ambiguous e-mail or name.
const verificationOtherMatches = 5

func registerCandidateVerification(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getCandidateVerification",
		Title: "One candidate's integrity picture",
		Description: "Full integrity picture of one candidate for one interview session: the cheating evaluation of the session (score, flag against " +
			"the company's cheat threshold, eye/head tracking, voice, transcript and multi-person sub-scores), the fraud verification of the identity " +
			"signals (overall score, high risk below 50, disposable e-mail, VOIP phone, VPN/proxy IP, thin profile, footprint anomaly) and the " +
			"government-ID plus selfie verification (status, failure reason). " +
			"Identify the candidate with one of, in order of precedence: sessionId (most precise: that session), candidateId (their most recent session), " +
			"email (exact, case-insensitive) or name (partial, any word order). When several candidates match an e-mail or name, the one with the most " +
			"recent interview is used and the others are listed with their candidateId, so you can ask again precisely. " +
			"Each block is null when there is no data, with a note saying why: cheating is null without an evaluation row for the session or when cheating " +
			"detection is off (model_cheat_detection_enabled and fraud_detection_enabled both off); fraud is null without a verification or when " +
			"fraud_detection_enabled is off; identity is null when ID verification was not run for the job (job without enable_identity_verification, or no record yet).",
	}, candidateVerification)
}

// CandidateVerificationInput are getCandidateVerification's arguments.
type CandidateVerificationInput struct {
	SessionID   string `json:"sessionId,omitempty" jsonschema:"interview session UUID (most precise; wins over the other arguments)"`
	CandidateID string `json:"candidateId,omitempty" jsonschema:"candidate UUID; their most recent session is used"`
	Email       string `json:"email,omitempty" jsonschema:"the candidate's exact e-mail address (case-insensitive)"`
	Name        string `json:"name,omitempty" jsonschema:"part of the candidate's name; every word must match, in any order and case"`
	toolkit.CompanyArg
}

// VerificationCandidate is the candidate looked up.
type VerificationCandidate struct {
	CandidateID string  `json:"candidateId"`
	Name        string  `json:"name"`
	Email       *string `json:"email"`
	Phone       *string `json:"phone"`
	Link        string  `json:"link"`
}

// VerificationSession is the session the integrity picture is about.
type VerificationSession struct {
	SessionID   string  `json:"sessionId"`
	SessionLink string  `json:"sessionLink"`
	JobID       string  `json:"jobId"`
	JobTitle    string  `json:"jobTitle"`
	JobLink     string  `json:"jobLink"`
	Status      string  `json:"status"`
	MediumType  string  `json:"mediumType"`
	InvitedAt   string  `json:"invitedAt"`
	CompletedAt *string `json:"completedAt"`
}

// OtherMatch is another candidate matching an e-mail or name lookup.
type OtherMatch struct {
	CandidateID string  `json:"candidateId"`
	Name        string  `json:"name"`
	Email       *string `json:"email"`
	Link        string  `json:"link"`
}

// CheatingBlock is the cheating evaluation of the session.
type CheatingBlock struct {
	Score       float64           `json:"score" jsonschema:"cheating score 0-100"`
	Threshold   float64           `json:"threshold" jsonschema:"the company's cheat threshold"`
	Flagged     bool              `json:"flagged" jsonschema:"score >= threshold"`
	SubScores   CheatingScores    `json:"subScores"`
	EvaluatedAt string            `json:"evaluatedAt"`
	Evidence    *CheatingEvidence `json:"evidence" jsonschema:"per answer: pasted characters, time away, typing pace (page) and the server's timing and identical answers; what was not checked"`
}

// FraudBlock is the fraud (identity signal) verification.
type FraudBlock struct {
	Score            float64        `json:"score" jsonschema:"overall verification score 0-100, lower is riskier"`
	HighRisk         bool           `json:"highRisk" jsonschema:"score below 50"`
	DisposableEmail  bool           `json:"disposableEmail"`
	VoipPhone        bool           `json:"voipPhone"`
	VpnProxyIP       bool           `json:"vpnProxyIp"`
	ThinProfile      bool           `json:"thinProfile"`
	FootprintAnomaly bool           `json:"footprintAnomaly"`
	Signals          []string       `json:"signals" jsonschema:"the signals raised"`
	SessionID        *string        `json:"sessionId" jsonschema:"the session the check was made for; null for a candidate-level check"`
	Source           string         `json:"source" jsonschema:"which check this is: thisSession, otherSession (the candidate's latest, made for another session) or candidate (not tied to a session)"`
	VerifiedAt       string         `json:"verifiedAt"`
	Evidence         *FraudEvidence `json:"evidence" jsonschema:"the disposable domain, the phone type, candidates sharing the e-mail or phone, contacts changed between sources, and what was not checked"`
}

// IdentityBlock is the government-ID plus selfie verification.
type IdentityBlock struct {
	Status        string  `json:"status" jsonschema:"PENDING, VERIFIED, FAILED, EXPIRED or SKIPPED (the interview ended without the identity step)"`
	FailureReason *string `json:"failureReason"`
	JobID         string  `json:"jobId"`
	JobTitle      string  `json:"jobTitle"`
	SessionID     *string `json:"sessionId"`
	StartedAt     string  `json:"startedAt"`
	CompletedAt   *string `json:"completedAt"`
}

// CandidateVerificationOutput is getCandidateVerification's structured result.
type CandidateVerificationOutput struct {
	LookupBy     string                `json:"lookupBy" jsonschema:"the argument used: sessionId, candidateId, email or name"`
	Candidate    VerificationCandidate `json:"candidate"`
	Session      *VerificationSession  `json:"session" jsonschema:"null when the candidate has no interview session"`
	OtherMatches []OtherMatch          `json:"otherMatches" jsonschema:"other candidates matching the e-mail or name (up to 5)"`
	MoreMatches  bool                  `json:"moreMatches" jsonschema:"even more candidates matched than listed"`
	Cheating     *CheatingBlock        `json:"cheating"`
	CheatingNote string                `json:"cheatingNote" jsonschema:"why cheating is null, or a one-line summary"`
	Fraud        *FraudBlock           `json:"fraud"`
	FraudNote    string                `json:"fraudNote"`
	Identity     *IdentityBlock        `json:"identity"`
	IdentityNote string                `json:"identityNote"`
	toolkit.Notices
}

type sessionRow struct {
	id, candidateID, jobID uuid.UUID
	jobTitle               string
	jobIDV                 bool
	status, medium         string
	invited, completed     sql.NullTime
}

const sessionSelect = `SELECT s.id, s.candidate_id, s.job_id, j.title, j.enable_identity_verification, s.status, s.medium_type, s.invited_at, s.completed_at
	FROM interview_sessions s JOIN jobs j ON j.company_id = $1 AND j.id = s.job_id
	WHERE s.company_id = $1 AND `

func scanSession(row *sql.Row) (*sessionRow, error) {
	var s sessionRow
	err := row.Scan(&s.id, &s.candidateID, &s.jobID, &s.jobTitle, &s.jobIDV, &s.status, &s.medium, &s.invited, &s.completed)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

func candidateVerification(ctx context.Context, call *toolkit.Call, in CandidateVerificationInput) (CandidateVerificationOutput, *toolkit.Text, error) {
	out := CandidateVerificationOutput{OtherMatches: []OtherMatch{}}
	co := call.Company
	given := map[string]bool{"sessionId": strings.TrimSpace(in.SessionID) != "", "candidateId": strings.TrimSpace(in.CandidateID) != "",
		"email": strings.TrimSpace(in.Email) != "", "name": len(nameTokens(in.Name)) > 0}
	for _, k := range []string{"sessionId", "candidateId", "email", "name"} {
		if given[k] {
			out.LookupBy = k
			break
		}
	}
	if out.LookupBy == "" {
		return out, nil, toolkit.Errorf("give one of sessionId (most precise), candidateId, email (exact) or name (partial)")
	}
	var ignored []string
	for _, k := range []string{"sessionId", "candidateId", "email", "name"} {
		if given[k] && k != out.LookupBy {
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 {
		call.Notice("looked up by %s (it takes precedence); ignored %s", out.LookupBy, strings.Join(ignored, ", "))
	}

	db := call.DB
	var err error
	var sess *sessionRow
	var candidateID uuid.UUID
	switch out.LookupBy {
	case "sessionId":
		id, err := toolkit.ParseID("sessionId", in.SessionID)
		if err != nil {
			return out, nil, err
		}
		if sess, err = scanSession(db.QueryRowContext(ctx, sessionSelect+`s.id = $2`, co.ID, id)); err != nil {
			return out, nil, err
		}
		if sess == nil {
			return out, nil, toolkit.Errorf("no interview session %s in company %s", id, co.Name)
		}
		candidateID = sess.candidateID
	case "candidateId":
		if candidateID, err = toolkit.ParseID("candidateId", in.CandidateID); err != nil {
			return out, nil, err
		}
	default:
		if candidateID, err = matchCandidate(ctx, call, db, in, &out); err != nil {
			return out, nil, err
		}
	}

	var first, last string
	var email, phone sql.NullString
	err = db.QueryRowContext(ctx, `SELECT first_name, last_name, email, phone FROM candidates WHERE company_id = $1 AND id = $2`,
		co.ID, candidateID).Scan(&first, &last, &email, &phone)
	if isNoRows(err) {
		return out, nil, toolkit.Errorf("no candidate %s in company %s", candidateID, co.Name)
	}
	if err != nil {
		return out, nil, err
	}
	out.Candidate = VerificationCandidate{CandidateID: candidateID.String(), Name: fullName(first, last), Email: toolkit.NullString(email),
		Phone: toolkit.NullString(phone), Link: call.Env.Links.Candidate(candidateID)}
	if sess == nil {
		if sess, err = scanSession(db.QueryRowContext(ctx, sessionSelect+`s.candidate_id = $2 ORDER BY s.invited_at DESC, s.created_at DESC, s.id LIMIT 1`,
			co.ID, candidateID)); err != nil {
			return out, nil, err
		}
	}
	if sess != nil {
		out.Session = &VerificationSession{SessionID: sess.id.String(), SessionLink: call.Env.Links.Session(sess.id), JobID: sess.jobID.String(),
			JobTitle: sess.jobTitle, JobLink: call.Env.Links.Job(sess.jobID), Status: sess.status, MediumType: sess.medium,
			InvitedAt: toolkit.Timestamp(sess.invited.Time), CompletedAt: toolkit.NullTime(sess.completed)}
	}
	if err := cheatingBlock(ctx, call, db, sess, &out); err != nil {
		return out, nil, err
	}
	if err := fraudBlock(ctx, call, db, candidateID, sess, &out); err != nil {
		return out, nil, err
	}
	if err := identityBlock(ctx, call, db, candidateID, sess, &out); err != nil {
		return out, nil, err
	}
	return out, verificationText(&out), nil
}

// matchCandidate resolves an e-mail or name lookup to the matching candidate with the most
// recent interview; the other matches go to out.OtherMatches.
func matchCandidate(ctx context.Context, call *toolkit.Call, db toolkit.Querier, in CandidateVerificationInput, out *CandidateVerificationOutput) (uuid.UUID, error) {
	q := toolkit.NewQuery(call.Company.ID)
	what := ""
	if out.LookupBy == "email" {
		whereEmail(q, "c", in.Email)
		what = fmt.Sprintf("e-mail %q (exact match)", strings.TrimSpace(in.Email))
	} else {
		if err := whereName(q, "c", nameTokens(in.Name)); err != nil {
			return uuid.Nil, err
		}
		what = fmt.Sprintf("name %q (every word, any order)", strings.TrimSpace(in.Name))
	}
	lim := q.Arg(verificationOtherMatches + 2)
	rows, err := db.QueryContext(ctx, `SELECT c.id, c.first_name, c.last_name, c.email
		FROM candidates c
		LEFT JOIN LATERAL (SELECT s.invited_at FROM interview_sessions s WHERE s.company_id = $1 AND s.candidate_id = c.id
			ORDER BY s.invited_at DESC LIMIT 1) ls ON true
		WHERE c.company_id = $1`+q.And()+`
		ORDER BY ls.invited_at DESC NULLS LAST, c.updated_at DESC, c.id LIMIT `+lim, q.Args...)
	if err != nil {
		return uuid.Nil, err
	}
	defer rows.Close()
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		var first, last string
		var email sql.NullString
		if err := rows.Scan(&id, &first, &last, &email); err != nil {
			return uuid.Nil, err
		}
		ids = append(ids, id)
		if len(ids) > 1 && len(out.OtherMatches) < verificationOtherMatches {
			out.OtherMatches = append(out.OtherMatches, OtherMatch{CandidateID: id.String(), Name: fullName(first, last), Email: toolkit.NullString(email),
				Link: call.Env.Links.Candidate(id)})
		}
	}
	if err := rows.Err(); err != nil {
		return uuid.Nil, err
	}
	if len(ids) == 0 {
		return uuid.Nil, toolkit.Errorf("no candidate of company %s matches %s", call.Company.Name, what)
	}
	out.MoreMatches = len(ids) > verificationOtherMatches+1
	if len(ids) > 1 {
		call.Notice("%s matches more than one candidate; showing the one with the most recent interview. Ask again with candidateId to pick another", what)
	}
	return ids[0], nil
}

func cheatingBlock(ctx context.Context, call *toolkit.Call, db toolkit.Querier, sess *sessionRow, out *CandidateVerificationOutput) error {
	co := call.Company
	switch {
	case !co.ModelCheatDetectionEnabled && !co.FraudDetectionEnabled:
		out.CheatingNote = "cheating detection is off for this company (model_cheat_detection_enabled and fraud_detection_enabled are both off)"
		return nil
	case sess == nil:
		out.CheatingNote = "the candidate has no interview session"
		return nil
	}
	var b CheatingBlock
	var eye, head, voice, tr, multi sql.NullFloat64
	var at sql.NullTime
	var evidence sql.NullString
	err := db.QueryRowContext(ctx, `SELECT ce.cheating_score, ce.eye_tracking_score, ce.head_tracking_score, ce.voice_score,
			ce.transcript_score, ce.multi_person_score, ce.created_at, ce.evidence
		FROM cheating_evaluations ce WHERE ce.company_id = $1 AND ce.session_id = $2`, co.ID, sess.id).
		Scan(&b.Score, &eye, &head, &voice, &tr, &multi, &at, &evidence)
	if isNoRows(err) {
		out.CheatingNote = "no cheating evaluation exists for this session"
		return nil
	}
	if err != nil {
		return err
	}
	b.Score, b.Threshold = toolkit.Round(b.Score, 2), co.CheatThreshold
	b.Flagged = b.Score >= co.CheatThreshold
	b.SubScores = CheatingScores{toolkit.NullFloat(eye), toolkit.NullFloat(head), toolkit.NullFloat(voice), toolkit.NullFloat(tr), toolkit.NullFloat(multi)}
	b.EvaluatedAt = toolkit.Timestamp(at.Time)
	b.Evidence = cheatingEvidence(call, nullBytes(evidence))
	out.Cheating = &b
	verdict := "not flagged"
	if b.Flagged {
		verdict = "FLAGGED"
	}
	out.CheatingNote = fmt.Sprintf("cheating score %s against threshold %s: %s", toolkit.Num(&b.Score), toolkit.Num(&b.Threshold), verdict)
	return nil
}

func fraudBlock(ctx context.Context, call *toolkit.Call, db toolkit.Querier, candidateID uuid.UUID, sess *sessionRow, out *CandidateVerificationOutput) error {
	co := call.Company
	if !co.FraudDetectionEnabled {
		out.FraudNote = "fraud detection is off for this company (fraud_detection_enabled)"
		return nil
	}
	var sessionArg any
	if sess != nil {
		sessionArg = sess.id
	}
	// The session's own check first, else the candidate's latest.
	var b FraudBlock
	var sid uuid.NullUUID
	var at sql.NullTime
	var signals sql.NullString
	err := db.QueryRowContext(ctx, `SELECT f.overall_verification_score, f.disposable_email, f.voip_phone, f.vpn_proxy_ip,
			f.thin_profile, f.footprint_anomaly, f.session_id, f.created_at, f.signals
		FROM fraud_verifications f WHERE f.company_id = $1 AND f.candidate_id = $2
		ORDER BY f.session_id IS NOT DISTINCT FROM $3::uuid DESC, f.created_at DESC, f.id LIMIT 1`, co.ID, candidateID, sessionArg).
		Scan(&b.Score, &b.DisposableEmail, &b.VoipPhone, &b.VpnProxyIP, &b.ThinProfile, &b.FootprintAnomaly, &sid, &at, &signals)
	if isNoRows(err) {
		out.FraudNote = "no fraud verification exists for this candidate"
		return nil
	}
	if err != nil {
		return err
	}
	b.Score = toolkit.Round(b.Score, 2)
	b.HighRisk = b.Score < fraudHighRiskBelow
	b.Signals = []string{}
	for i, on := range []bool{b.DisposableEmail, b.VoipPhone, b.VpnProxyIP, b.ThinProfile, b.FootprintAnomaly} {
		if on {
			b.Signals = append(b.Signals, fraudSignals[i].key)
		}
	}
	if sid.Valid {
		b.SessionID = ptr(sid.UUID.String())
	}
	b.VerifiedAt = toolkit.Timestamp(at.Time)
	shared, err := sharedContacts(ctx, call, db, []uuid.UUID{candidateID})
	if err != nil {
		return err
	}
	b.Evidence = fraudEvidence(nullBytes(signals), shared[candidateID])
	risk := "not high risk"
	if b.HighRisk {
		risk = "HIGH RISK"
	}
	which := "candidate-level check"
	b.Source = "candidate"
	switch {
	case sid.Valid && sess != nil && sid.UUID == sess.id:
		which, b.Source = "check of this session", "thisSession"
	case sid.Valid:
		which, b.Source = "check of another session "+sid.UUID.String(), "otherSession"
	}
	out.Fraud = &b
	out.FraudNote = fmt.Sprintf("verification score %s/100 (%s; %s), signals: %s", toolkit.Num(&b.Score), risk, which, signalsText(b.Signals))
	return nil
}

func identityBlock(ctx context.Context, call *toolkit.Call, db toolkit.Querier, candidateID uuid.UUID, sess *sessionRow, out *CandidateVerificationOutput) error {
	co := call.Company
	var row *sql.Row
	const sel = `SELECT v.status, v.failure_reason, v.job_id, j.title, v.session_id, v.created_at, v.completed_at
		FROM identity_verifications v JOIN jobs j ON j.company_id = $1 AND j.id = v.job_id
		WHERE v.company_id = $1 AND v.candidate_id = $2`
	if sess != nil {
		// The session's own check, else the candidate's latest check for the session's job.
		row = db.QueryRowContext(ctx, sel+` AND (v.session_id = $3 OR v.job_id = $4)
			ORDER BY v.session_id IS NOT DISTINCT FROM $3 DESC, v.created_at DESC, v.id LIMIT 1`, co.ID, candidateID, sess.id, sess.jobID)
	} else {
		row = db.QueryRowContext(ctx, sel+` ORDER BY v.created_at DESC, v.id LIMIT 1`, co.ID, candidateID)
	}
	var b IdentityBlock
	var reason sql.NullString
	var jid uuid.UUID
	var sid uuid.NullUUID
	var started, completed sql.NullTime
	err := row.Scan(&b.Status, &reason, &jid, &b.JobTitle, &sid, &started, &completed)
	if isNoRows(err) {
		switch {
		case sess == nil:
			out.IdentityNote = "ID verification was not run: the candidate has no interview session and no ID verification record"
		case !sess.jobIDV:
			out.IdentityNote = fmt.Sprintf("ID verification was not run: job %q does not have enable_identity_verification on", sess.jobTitle)
		default:
			out.IdentityNote = fmt.Sprintf("ID verification is enabled for job %q but no verification has been recorded for this candidate yet", sess.jobTitle)
		}
		return nil
	}
	if err != nil {
		return err
	}
	b.FailureReason, b.JobID = toolkit.NullString(reason), jid.String()
	if sid.Valid {
		b.SessionID = ptr(sid.UUID.String())
	}
	b.StartedAt, b.CompletedAt = toolkit.Timestamp(started.Time), toolkit.NullTime(completed)
	out.Identity = &b
	out.IdentityNote = fmt.Sprintf("ID verification %s for job %q", b.Status, b.JobTitle)
	if b.Status == string(models.IdentityStatusSkipped) {
		out.IdentityNote = fmt.Sprintf("ID verification SKIPPED for job %q: the interview ended without the identity step (no verification was started)", b.JobTitle)
	}
	if b.FailureReason != nil {
		out.IdentityNote += ": " + *b.FailureReason
	}
	return nil
}

func verificationText(out *CandidateVerificationOutput) *toolkit.Text {
	t := &toolkit.Text{}
	c := out.Candidate
	t.H1("Integrity picture: %s", c.Name)
	t.KV("Candidate id", c.CandidateID, "E-mail", toolkit.Str(c.Email), "Phone", toolkit.Str(c.Phone), "Link", c.Link, "Looked up by", out.LookupBy)
	if len(out.OtherMatches) > 0 {
		t.Blank()
		more := ""
		if out.MoreMatches {
			more = " (and more; refine the lookup)"
		}
		t.Line("Other matching candidates%s:", more)
		for _, m := range out.OtherMatches {
			t.Line("  - %s <%s> candidateId %s %s", m.Name, toolkit.Str(m.Email), m.CandidateID, m.Link)
		}
	}
	t.H2("Session")
	if s := out.Session; s != nil {
		t.KV("Session", s.SessionID, "Job", s.JobTitle+" "+s.JobLink, "Status", s.Status, "Medium", s.MediumType,
			"Invited", s.InvitedAt, "Completed", toolkit.Str(s.CompletedAt), "Link", s.SessionLink)
	} else {
		t.Line("The candidate has no interview session.")
	}
	t.H2("Cheating during the interview")
	if b := out.Cheating; b != nil {
		sc := b.SubScores
		t.KV("Cheating score", toolkit.Num(&b.Score), "Threshold", toolkit.Num(&b.Threshold), "Flagged", toolkit.Bool(&b.Flagged),
			"Eye tracking", subScore(sc.EyeTracking), "Head tracking", subScore(sc.HeadTracking), "Voice", subScore(sc.Voice),
			"Transcript", subScore(sc.Transcript), "Multi-person", subScore(sc.MultiPerson), "Evaluated", b.EvaluatedAt)
		t.Line("Evidence (rules %s):", b.Evidence.Rules)
		answerEvidenceText(t, b.Evidence)
	} else {
		t.Line("None: %s.", out.CheatingNote)
	}
	t.H2("Fraud (identity signals)")
	if b := out.Fraud; b != nil {
		t.KV("Verification score", toolkit.Num(&b.Score)+"/100", "High risk (< 50)", toolkit.Bool(&b.HighRisk), "Signals", signalsText(b.Signals),
			"Check", map[string]string{"thisSession": "this session's check", "otherSession": "latest check, made for session " + toolkit.Str(b.SessionID),
				"candidate": "candidate-level check"}[b.Source], "Verified", b.VerifiedAt)
		t.Line("Evidence:")
		fraudEvidenceText(t, b.Evidence)
	} else {
		t.Line("None: %s.", out.FraudNote)
	}
	t.H2("Identity verification (government ID + selfie)")
	if b := out.Identity; b != nil {
		t.KV("Status", b.Status, "Failure reason", toolkit.Str(b.FailureReason), "Job", b.JobTitle, "Started", b.StartedAt, "Completed", toolkit.Str(b.CompletedAt))
	} else {
		t.Line("None: %s.", out.IdentityNote)
	}
	return t
}
