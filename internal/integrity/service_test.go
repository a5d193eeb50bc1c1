package integrity_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/internal/pagesignal"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

type world struct {
	t   *testing.T
	h   *tooltest.Harness
	svc *integrity.Service
}

func (w *world) create(v any) {
	w.t.Helper()
	if err := w.h.Store.DB().WithContext(w.t.Context()).Create(v).Error; err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) candidate(co *models.Company, first, email, phone string) *models.Candidate {
	c := &models.Candidate{CompanyID: co.ID, FirstName: first, LastName: "Test", Status: "interviewing"}
	if email != "" {
		c.Email = &email
	}
	if phone != "" {
		c.Phone = &phone
	}
	w.create(c)
	return c
}

// session is an INVITED session of c for job, in medium.
func (w *world) session(c *models.Candidate, job *models.Job, medium models.MediumType) *models.InterviewSession {
	s := &models.InterviewSession{CompanyID: c.CompanyID, CandidateID: c.ID, JobID: job.ID, MediumType: medium,
		InvitedAt: time.Now().UTC().Add(-time.Hour)}
	w.create(s)
	return s
}

// answer adds the answered turn seq of s (answered took after it was asked) and the page's
// payload for it, when one is given.
func (w *world) answer(s *models.InterviewSession, seq int, answer string, took time.Duration, payload string) {
	w.t.Helper()
	asked := time.Now().UTC().Add(-30 * time.Minute)
	w.create(&models.InterviewTurn{CompanyID: s.CompanyID, SessionID: s.ID, Seq: seq, StepIndex: seq, Source: "guide", Question: "Tell us more?",
		AskedAt: asked, Answer: &answer, AnsweredAt: ptr(asked.Add(took))})
	if payload == "" {
		return
	}
	if stored, err := w.svc.RecordAnswerSignals(w.t.Context(), s.CompanyID, s.ID, seq, []byte(payload)); err != nil || !stored {
		w.t.Fatalf("RecordAnswerSignals(%d) = %v, %v", seq, stored, err)
	}
}

func (w *world) complete(s *models.InterviewSession) {
	w.t.Helper()
	now := time.Now().UTC()
	if err := w.h.Store.DB().WithContext(w.t.Context()).Model(s).Updates(map[string]any{"status": models.SessionStatusCompleted,
		"started_at": now.Add(-40 * time.Minute), "completed_at": now}).Error; err != nil {
		w.t.Fatal(err)
	}
}

// TestSignalsReachTheTools drives the rules as the interview will: fraud checks at invitation,
// the page's reports with the answers, the evaluation at completion and the fraud refresh after
// it; then the tools, over the real MCP transport, answer from what was stored. A answers
// by typing; B pastes two answers, leaves the page in one, uses a disposable e-mail domain and
// a landline for a text-message interview; C's page reported nothing.
func TestSignalsReachTheTools(t *testing.T) {
	h := tooltest.New(t, time.Time{}, interviewtools.Register)
	w := &world{t: t, h: h, svc: &integrity.Service{Store: h.Store}}
	ctx := t.Context()
	flags := func(c *models.Company) {
		c.FraudDetectionEnabled, c.ModelCheatDetectionEnabled, c.CheatThreshold = true, true, 70
	}
	acme := h.Company(t, "acme", "Acme", flags)
	globex := h.Company(t, "globex", "Globex", flags)
	job := &models.Job{CompanyID: acme.ID, ExternalID: "J-1", InterviewerID: "acme-J-1", Title: "Welder", Status: models.JobStatusActive, IsOpen: true}
	w.create(job)

	a := w.candidate(acme, "Ada", "ada@gmail.com", "+447400123456")
	b := w.candidate(acme, "Bea", "bea@mailinator.com", "+442079460958")
	c := w.candidate(acme, "Cal", "cal@example.org", "")
	sa, sb, sc := w.session(a, job, models.MediumTypeVideo), w.session(b, job, models.MediumTypeSMS), w.session(c, job, models.MediumTypeVideo)

	// Invitation: the first fraud checks.
	for _, x := range []struct {
		cand    *models.Candidate
		sess    *models.InterviewSession
		score   float64
		raised  []string
		high    bool
		skipped string
	}{
		{a, sa, 100, []string{}, false, ""},
		{b, sb, 25, []string{"disposableEmail", "phoneNotMobile"}, true, ""},
		{c, sc, 100, []string{}, false, ""},
	} {
		v, err := w.svc.VerifyCandidate(ctx, acme.ID, x.cand.ID, integrity.VerifyInput{SessionID: &x.sess.ID})
		if err != nil || v.Skipped != x.skipped || v.Refreshed || v.Result.Score != x.score || v.Result.HighRisk != x.high ||
			!slices.Equal(v.Result.Signals.Raised, x.raised) {
			t.Errorf("invitation check of %s = %+v, %v", x.cand.FirstName, v, err)
		}
	}

	// The interview: the page's reports with the answers.
	typed := func(chars int) string {
		return `{"pastedChars":0,"pasteEvents":0,"hiddenMs":0,"hiddenCount":0,"blurMs":1200,"blurCount":1,"keystrokes":` +
			itoa(chars+20) + `,"typingMs":52000,"answerChars":` + itoa(chars) + `}`
	}
	text := func(n int) string { return strings.Repeat("abcd ", n/5) }
	own := func(n int) string { return strings.Repeat("wxyz ", n/5) } // A's answers are A's own
	w.answer(sa, 1, own(410), 90*time.Second, typed(410))
	w.answer(sa, 2, own(300), 80*time.Second, typed(300))
	w.answer(sb, 1, text(480), 60*time.Second,
		`{"pastedChars":480,"pasteEvents":1,"hiddenMs":0,"hiddenCount":0,"blurMs":0,"blurCount":0,"keystrokes":0,"typingMs":0,"answerChars":480}`)
	w.answer(sb, 2, text(490)+"ab", 60*time.Second,
		`{"pastedChars":480,"pasteEvents":1,"hiddenMs":42000,"hiddenCount":2,"blurMs":45000,"blurCount":3,"keystrokes":12,"typingMs":3100,"answerChars":492}`)
	w.answer(sb, 3, text(410)+"B", 90*time.Second, typed(410))
	w.answer(sc, 1, strings.Repeat("efgh ", 40), 60*time.Second, "")
	// A payload the parser refuses is not stored, and the answer stands.
	var perr *pagesignal.Error
	if _, err := w.svc.RecordAnswerSignals(ctx, acme.ID, sc.ID, 1, []byte(`{"pastedChars":-1}`)); !errors.As(err, &perr) {
		t.Errorf("a refused payload: err = %v, want a *pagesignal.Error", err)
	}
	for _, s := range []*models.InterviewSession{sa, sb, sc} {
		w.complete(s)
	}

	// Completion: the evaluations.
	for _, x := range []struct {
		sess    *models.InterviewSession
		skipped string
		score   float64
		flagged bool
	}{
		{sa, "", 0, false},
		{sb, "", 87.64, true},
		{sc, "", 0, false}, // the page reported nothing: the server's rules alone
	} {
		e, err := w.svc.EvaluateSession(ctx, acme.ID, x.sess.ID)
		if err != nil || e.Skipped != x.skipped || e.Result.CheatingScore != x.score || e.Result.Flagged != x.flagged || e.Changed != (x.skipped == "") {
			t.Errorf("evaluation of %s = %+v, %v", x.sess.ID, e, err)
		}
	}
	if e, err := w.svc.EvaluateSession(ctx, acme.ID, sb.ID); err != nil || e.Changed {
		t.Errorf("evaluating B again = %+v, %v; want nothing changed", e, err)
	}

	// After the interview: A's e-mail changed meanwhile (as a later HR-suite record may change
	// it); the refresh sees it and updates each candidate's row of the session.
	if err := h.Store.DB().WithContext(ctx).Model(a).Update("email", "ada.l@gmail.com").Error; err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		cand  *models.Candidate
		sess  *models.InterviewSession
		score float64
	}{{a, sa, 85}, {b, sb, 25}, {c, sc, 100}} {
		v, err := w.svc.VerifyCandidate(ctx, acme.ID, x.cand.ID, integrity.VerifyInput{SessionID: &x.sess.ID})
		if err != nil || !v.Refreshed || v.Result.Score != x.score {
			t.Errorf("refresh of %s = %+v, %v", x.cand.FirstName, v, err)
		}
	}

	// The tools.
	key := tooltest.KeyCaller(acme)
	var cheat interviewtools.CheatingStatsOutput
	h.OK(t, key, "getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails", "companyWide": true}).Decode(t, &cheat)
	if len(cheat.FlaggedDetails) != 1 {
		t.Fatalf("cheating flaggedDetails = %+v", cheat.FlaggedDetails)
	}
	d := cheat.FlaggedDetails[0]
	sub := d.SubScores
	if d.SessionID != sb.ID.String() || d.CandidateID != b.ID.String() || d.CheatingScore != 87.64 || sub.Transcript == nil || *sub.Transcript != 87.64 ||
		sub.EyeTracking != nil || sub.HeadTracking != nil || sub.Voice != nil || sub.MultiPerson != nil {
		t.Errorf("flagged session = %+v, sub-scores %+v", d, sub)
	}
	h.OK(t, key, "getCheatingDetectionStats", map[string]any{"metric": "flaggedPercentage", "companyWide": true}).Decode(t, &cheat)
	if cheat.Evaluated == nil || *cheat.Evaluated != 3 || cheat.FlaggedPercentage == nil || *cheat.FlaggedPercentage != 33.3 {
		t.Errorf("flaggedPercentage = %+v", cheat)
	}

	var fraud interviewtools.FraudStatsOutput
	h.OK(t, key, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails"}).Decode(t, &fraud)
	if len(fraud.FlaggedDetails) != 1 || fraud.FlaggedDetails[0].CandidateID != b.ID.String() || fraud.FlaggedDetails[0].Score != 25 ||
		!slices.Equal(fraud.FlaggedDetails[0].Signals, []string{"disposableEmail"}) || *fraud.FlaggedDetails[0].SessionID != sb.ID.String() {
		t.Errorf("fraud flaggedDetails = %+v", fraud.FlaggedDetails)
	}
	h.OK(t, key, "getFraudVerificationStats", map[string]any{"metric": "riskBreakdown"}).Decode(t, &fraud)
	rb := fraud.RiskBreakdown
	if rb == nil || rb.Verifications != 3 || rb.Flagged != 1 || rb.Signals[0].Count != 1 || rb.Signals[1].Count != 0 ||
		rb.ScoreBands[0].Count != 0 || rb.ScoreBands[1].Count != 1 || rb.ScoreBands[3].Count != 2 {
		t.Errorf("riskBreakdown = %+v (the refresh must not count twice)", rb)
	}

	var ver interviewtools.CandidateVerificationOutput
	h.OK(t, key, "getCandidateVerification", map[string]any{"sessionId": sb.ID.String()}).Decode(t, &ver)
	if ver.Cheating == nil || !ver.Cheating.Flagged || ver.Cheating.Score != 87.64 || ver.Fraud == nil || !ver.Fraud.HighRisk ||
		ver.Fraud.Score != 25 || ver.Fraud.Source != "thisSession" || !ver.Fraud.DisposableEmail || ver.Identity != nil {
		t.Errorf("B's verification = cheating %+v, fraud %+v, identity %+v", ver.Cheating, ver.Fraud, ver.Identity)
	}
	h.OK(t, key, "getCandidateVerification", map[string]any{"sessionId": sc.ID.String()}).Decode(t, &ver)
	if ver.Cheating == nil || ver.Cheating.Flagged || ver.Cheating.Evidence == nil || ver.Cheating.Evidence.Answers[0].PageReported ||
		ver.Fraud == nil || ver.Fraud.Score != 100 {
		t.Errorf("C's verification = cheating %+v (%s), fraud %+v", ver.Cheating, ver.CheatingNote, ver.Fraud)
	}

	// Another company's key sees none of it.
	other := tooltest.KeyCaller(globex)
	h.OK(t, other, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails"}).Decode(t, &fraud)
	h.OK(t, other, "getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails", "companyWide": true}).Decode(t, &cheat)
	if len(fraud.FlaggedDetails) != 0 || len(cheat.FlaggedDetails) != 0 {
		t.Errorf("globex sees fraud %+v, cheating %+v", fraud.FlaggedDetails, cheat.FlaggedDetails)
	}
	for _, co := range []uuid.UUID{acme.ID, globex.ID} {
		if err := rollup.Check(ctx, h.Store.SQL(), co); err != nil {
			t.Errorf("rollups: %v", err)
		}
	}
}

// TestServiceRespectsTheFlags: with the company's flags off nothing is computed or stored.
func TestServiceRespectsTheFlags(t *testing.T) {
	h := tooltest.New(t, time.Time{}, interviewtools.Register)
	w := &world{t: t, h: h, svc: &integrity.Service{Store: h.Store}}
	ctx := t.Context()
	co := h.Company(t, "plain", "Plain", nil)
	job := &models.Job{CompanyID: co.ID, ExternalID: "J-1", InterviewerID: "plain-J-1", Title: "Welder", Status: models.JobStatusActive, IsOpen: true}
	w.create(job)
	cand := w.candidate(co, "Bea", "bea@mailinator.com", "")
	s := w.session(cand, job, models.MediumTypeVideo)
	w.answer(s, 1, "pasted", time.Minute, "")
	if stored, err := w.svc.RecordAnswerSignals(ctx, co.ID, s.ID, 1, []byte(
		`{"pastedChars":480,"pasteEvents":1,"hiddenMs":0,"hiddenCount":0,"blurMs":0,"blurCount":0,"keystrokes":0,"typingMs":0,"answerChars":480}`)); err != nil || stored {
		t.Errorf("RecordAnswerSignals with cheating detection off = %v, %v; want nothing kept", stored, err)
	}
	if v, err := w.svc.VerifyCandidate(ctx, co.ID, cand.ID, integrity.VerifyInput{SessionID: &s.ID}); err != nil || v.Skipped != integrity.SkipDetectionOff {
		t.Errorf("VerifyCandidate with fraud detection off = %+v, %v", v, err)
	}
	if e, err := w.svc.EvaluateSession(ctx, co.ID, s.ID); err != nil || e.Skipped != integrity.SkipDetectionOff {
		t.Errorf("EvaluateSession with cheating detection off = %+v, %v", e, err)
	}
	var n int64
	if err := h.Store.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM fraud_verifications WHERE company_id = $1)
		+ (SELECT count(*) FROM cheating_evaluations WHERE company_id = $1)
		+ (SELECT count(*) FROM interview_answer_signals WHERE company_id = $1)`, co.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows stored with the flags off, %v", n, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func ptr[T any](v T) *T { return &v }
