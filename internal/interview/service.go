package interview

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Launcher starts (here: signals) the session's run after a transition commits its start row
// (internal/outbox.Launcher).
type Launcher interface {
	Launch(ctx context.Context, ws *models.WorkflowStart) error
	// Retry sends again, within seconds, a start Launch did not get taken.
	Retry(ctx context.Context, ws *models.WorkflowStart)
}

// Sessions is the interview core: the candidate's side of an interview whatever the surface
// (the web page behind the link, a message thread): what the session asks now (a Prompt), the
// consent, the answers and the follow-ups, the completion and the lifecycle. The transcript is the truth: the current question is
// the transcript's last turn awaiting an answer, and a session whose last answer has no next
// question yet (a process stopped between the two) gets it on its next load. Each transition
// (consent, decline, completion) commits the session's change with a renewed start row of its
// interview run and then launches it, which signals the run (or starts it again after a
// closed run); the reconciler sends what a stopped process did not.
type Sessions struct {
	Store       *store.Store
	Interviewer Interviewer
	Launcher    Launcher
	// Identity runs the identity check of jobs with enable_identity_verification; nil skips it.
	Identity IdentityCheck
	// Signals keeps what the page measured while an answer was written (internal/integrity);
	// nil keeps nothing.
	Signals SignalRecorder
	// Log receives ids and enumerations only; nil discards.
	Log *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// SignalRecorder keeps the page's integrity signals of one answer (the payload is untrusted
// and parsed by the recorder); it does nothing when the company's detection is off.
type SignalRecorder interface {
	RecordAnswerSignals(ctx context.Context, companyID, sessionID uuid.UUID, seq int, payload []byte) (bool, error)
}

// IdentityCheck starts (or finds) the session's identity verification at the provider and
// returns the provider's page to send the candidate to (internal/identity, adapted in httpapi);
// "" when the verification is concluded already.
type IdentityCheck interface {
	Begin(ctx context.Context, companyID, sessionID uuid.UUID, returnURL string) (string, error)
}

// Errors of Sessions. ErrUnknownLink gives no hint whether a token exists.
var (
	ErrUnknownLink = errors.New("this interview link is not valid")
	// ErrAnswerConflict: the answer was for a question that another tab, device or surface
	// answered already; the surface shows the current question.
	ErrAnswerConflict = errors.New("the question was answered already, or is not the current one")
	// ErrInterviewClosed: an answer for a session that is not STARTED (completed, expired,
	// cancelled...); nothing is stored and the surface shows the session's state.
	ErrInterviewClosed = errors.New("this interview takes no more answers")
)

// AnswerError is an answer the core refuses (empty, too long, not text, not a choice); its
// message can be shown and logged (it never quotes the answer).
type AnswerError struct{ Err error }

func (e *AnswerError) Error() string { return e.Err.Error() }
func (e *AnswerError) Unwrap() error { return e.Err }

var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

func (s *Sessions) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Sessions) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Ref names a session for the core: by its link token (the web page, whose credential it is) or
// by company and id (a surface that found the session otherwise: a text thread). Channel is the
// surface an answer through this reference comes from; "" is the web page.
type Ref struct {
	Token     string
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Channel   models.AnswerChannel
}

// ByToken is the session a link token opens.
func ByToken(token string) Ref { return Ref{Token: token} }

// BySession is a company's session.
func BySession(companyID, sessionID uuid.UUID) Ref {
	return Ref{CompanyID: companyID, SessionID: sessionID}
}

// load finds the interview ref names; ErrUnknownLink when none (no hint whether a token exists).
func (s *Sessions) load(ctx context.Context, ref Ref) (*store.Interview, error) {
	var iv *store.Interview
	var err error
	switch {
	case ref.Token != "":
		if !tokenRE.MatchString(ref.Token) {
			return nil, ErrUnknownLink
		}
		iv, err = s.Store.InterviewByToken(ctx, ref.Token)
	case ref.CompanyID != uuid.Nil && ref.SessionID != uuid.Nil:
		iv, err = s.Store.Interview(ctx, ref.CompanyID, ref.SessionID)
	default:
		return nil, ErrUnknownLink
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrUnknownLink
	}
	return iv, err
}

// Open returns what the session asks now. A STARTED session whose last answer has no next
// question yet gets it first (the resume after a process stopped between the two).
func (s *Sessions) Open(ctx context.Context, ref Ref) (*Prompt, error) {
	iv, err := s.load(ctx, ref)
	if err != nil {
		return nil, err
	}
	if iv.Session.Status == models.SessionStatusStarted && pending(iv.Turns) == nil && !s.overdue(iv) {
		if iv, err = s.advance(ctx, iv, ref); err != nil {
			return nil, err
		}
	}
	return s.prompt(ctx, iv)
}

// Consent records that the candidate accepted the notice and starts the interview: the plan is
// fixed from the job's guide, the first question asked, the incomplete window begins. A second
// consent (another tab, another surface) changes nothing, and a session that cannot start
// (not ready, ended) is left as it is: the surface opens the session next to say what follows.
func (s *Sessions) Consent(ctx context.Context, ref Ref) error {
	iv, err := s.load(ctx, ref)
	if err != nil {
		return err
	}
	if iv.Session.Status != models.SessionStatusInvited || s.overdue(iv) {
		return nil
	}
	g, err := s.Store.Guide(ctx, iv.Session.CompanyID, iv.Session.JobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	plan, err := NewPlan(g.Guide, g.Questions)
	if errors.Is(err, ErrNoQuestions) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.now()
	sess := &iv.Session
	first := turnRow(plan.Steps[1], 1)
	signal := s.signal(iv, models.SessionStatusStarted)
	err = s.Store.StartInterview(ctx, store.StartInterviewInput{
		CompanyID: sess.CompanyID, SessionID: sess.ID, At: now,
		ExpiresAt: now.Add(time.Duration(iv.Company.InterviewIncompleteSeconds) * time.Second),
		Plan:      models.InterviewPlan{GuideID: &g.Guide.ID, Steps: models.NewJSON(planSteps(plan))},
		First:     first, Signal: signal,
	})
	if err != nil && !errors.Is(err, store.ErrSessionClosed) {
		return fmt.Errorf("start session %s: %w", sess.ID, err)
	}
	if err == nil {
		s.launch(ctx, sess.ID, &signal)
		s.log().InfoContext(ctx, "interview started", "company", iv.Company.Slug, "session_id", sess.ID)
	}
	return nil
}

// Decline records that the candidate declined the notice: the session ends as DECLINED. A
// session past its notice is left as it is.
func (s *Sessions) Decline(ctx context.Context, ref Ref) error {
	iv, err := s.load(ctx, ref)
	if err != nil {
		return err
	}
	if iv.Session.Status == models.SessionStatusInvited {
		signal := s.signal(iv, models.SessionStatusDeclined)
		err := s.Store.DeclineInterview(ctx, iv.Session.CompanyID, iv.Session.ID, s.now(), signal)
		if err != nil && !errors.Is(err, store.ErrSessionClosed) {
			return fmt.Errorf("decline session %s: %w", iv.Session.ID, err)
		}
		if err == nil {
			s.launch(ctx, iv.Session.ID, &signal)
			s.log().InfoContext(ctx, "interview declined", "company", iv.Company.Slug, "session_id", iv.Session.ID)
		}
	}
	return nil
}

// Answer stores the answer to turn seq and moves the interview on: a follow-up, the next
// question, or the end (the surface opens the session next to say what follows). A repeat of a
// stored answer (a double submit, a redelivered message, the last answer of a session it
// completed) changes nothing but asks the next question if that was not asked yet;
// an answer for a question answered otherwise, or not current, is ErrAnswerConflict; one for a
// session that is not STARTED is ErrInterviewClosed; an answer the question does not take is an
// *AnswerError. Nothing is stored from a refused answer.
//
// signals is the page's report on how the answer was written, kept when the company's cheating
// detection is on; a report that is missing or refused never refuses the answer.
func (s *Sessions) Answer(ctx context.Context, ref Ref, seq int, answer string, signals []byte) error {
	iv, err := s.load(ctx, ref)
	if err != nil {
		return err
	}
	var turn *models.InterviewTurn
	for i := range iv.Turns {
		if iv.Turns[i].Seq == seq {
			turn = &iv.Turns[i]
		}
	}
	if iv.Session.Status == models.SessionStatusCompleted && turn != nil && turn.Answer != nil {
		// The last answer again, after a request that completed the session but whose response
		// was lost (a timeout, a replica gone): a repeat, not a conflict.
		if clean, err := CheckAnswer(stepOf(turn), answer); err == nil && clean == *turn.Answer {
			return nil
		}
	}
	if iv.Session.Status != models.SessionStatusStarted || s.overdue(iv) {
		return ErrInterviewClosed
	}
	if turn == nil {
		return ErrAnswerConflict
	}
	clean, err := CheckAnswer(stepOf(turn), answer)
	if err != nil {
		return &AnswerError{Err: err}
	}
	channel := ref.Channel
	if channel == "" {
		channel = models.AnswerChannelWeb
	}
	repeat, err := s.Store.AnswerTurn(ctx, iv.Session.CompanyID, iv.Session.ID, seq, clean, channel, s.now())
	if err == nil && !repeat && len(signals) > 0 && s.Signals != nil && iv.Company.ModelCheatDetectionEnabled {
		if _, serr := s.Signals.RecordAnswerSignals(ctx, iv.Session.CompanyID, iv.Session.ID, seq, signals); serr != nil {
			s.log().WarnContext(ctx, "answer signals not kept", "session_id", iv.Session.ID, "turn", seq, "err", serr)
		}
	}
	switch {
	case errors.Is(err, store.ErrTurnAnswered), errors.Is(err, store.ErrNotCurrentTurn):
		return ErrAnswerConflict
	case errors.Is(err, store.ErrSessionClosed):
		return ErrInterviewClosed
	case err != nil:
		return err
	}
	// A repeat moves on too when its turn is still the transcript's last: the request that stored
	// the answer may have ended (a timeout, a replica gone) before it asked the next question.
	if repeat && turn.Seq != iv.Turns[len(iv.Turns)-1].Seq {
		return nil
	}
	turn.Answer = &clean
	return s.step(ctx, iv)
}

// VerifyIdentity starts the session's identity check and returns the provider's page, where
// the candidate goes next (and from which the provider sends them back to returnURL); "" when
// there is nothing to verify (the job asks for none, or the check is concluded).
func (s *Sessions) VerifyIdentity(ctx context.Context, ref Ref, returnURL string) (string, error) {
	iv, err := s.load(ctx, ref)
	if err != nil {
		return "", err
	}
	if s.Identity == nil || !iv.Job.EnableIdentityVerification || iv.Session.Status != models.SessionStatusStarted {
		return "", nil
	}
	u, err := s.Identity.Begin(ctx, iv.Session.CompanyID, iv.Session.ID, returnURL)
	if err != nil {
		return "", fmt.Errorf("identity check of session %s: %w", iv.Session.ID, err)
	}
	if u != "" {
		// The run keeps the verification's expiry (a timer): it re-reads the session.
		signal := s.signal(iv, models.SessionStatusStarted)
		s.launch(ctx, iv.Session.ID, &signal)
	}
	return u, nil
}

// overdue reports whether an open session's deadline has passed: its stage is then expired
// or incomplete, and it takes no consent and no answer, also before its run (Temporal) marks
// it so. The answer's statement checks the deadline again (store.AnswerTurn).
func (s *Sessions) overdue(iv *store.Interview) bool {
	return iv.Session.ExpiresAt != nil && !s.now().Before(*iv.Session.ExpiresAt)
}

// advance asks the question after the transcript's last answer, or completes the interview,
// and loads the session again.
func (s *Sessions) advance(ctx context.Context, iv *store.Interview, ref Ref) (*store.Interview, error) {
	if err := s.step(ctx, iv); err != nil {
		return nil, err
	}
	return s.load(ctx, ref)
}

// step asks the question after the transcript's last answer (iv.Turns, the last one answered),
// or completes the interview. It is idempotent: two requests that step together ask one
// question (the turn's seq is unique) and complete once.
func (s *Sessions) step(ctx context.Context, iv *store.Interview) error {
	plan, err := storedPlan(iv.Plan)
	if err != nil {
		return fmt.Errorf("session %s: %w", iv.Session.ID, err)
	}
	next, done := s.next(ctx, plan, iv.Turns)
	sess := &iv.Session
	if done {
		signal := s.signal(iv, models.SessionStatusCompleted)
		err := s.Store.CompleteInterview(ctx, sess.CompanyID, sess.ID, signal)
		if err != nil && !errors.Is(err, store.ErrSessionClosed) {
			return err
		}
		if err == nil {
			s.launch(ctx, sess.ID, &signal)
			s.log().InfoContext(ctx, "interview completed", "company", iv.Company.Slug, "session_id", sess.ID)
		}
		return nil
	}
	next.CompanyID, next.SessionID, next.AskedAt = sess.CompanyID, sess.ID, s.now()
	_, err = s.Store.AskTurn(ctx, next)
	return err
}

// next decides what follows the transcript's last (answered) turn: one follow-up to an eligible
// question that has none, else the plan's next question, else done.
func (s *Sessions) next(ctx context.Context, plan *Plan, turns []models.InterviewTurn) (models.InterviewTurn, bool) {
	if len(turns) == 0 {
		return turnRow(plan.Steps[1], 1), false
	}
	last := turns[len(turns)-1]
	step, ok := plan.Step(last.StepIndex)
	if ok && last.Source != string(SourceFollowUp) && Eligible(step) {
		d := s.Interviewer.FollowUp(ctx, step, deref(last.Answer))
		if d.Ask {
			t := turnRow(step.FollowUp(d.Question), last.Seq+1)
			engine, reason := string(d.Engine), string(d.Reason)
			t.Engine, t.Reason = &engine, &reason
			return t, false
		}
	}
	ns, ok := plan.Step(last.StepIndex + 1)
	if !ok || ns.Kind != KindQuestion {
		return models.InterviewTurn{}, true
	}
	return turnRow(ns, last.Seq+1), false
}

// signal is the renewed start row of the session's interview run, carrying status.
func (s *Sessions) signal(iv *store.Interview, status models.SessionStatus) models.WorkflowStart {
	return kinds.InterviewStart(iv.Company.Slug, iv.Session.CompanyID, iv.Session.ID, iv.Session.JobID, status)
}

// launch sends a committed transition's signal; when Temporal does not take it, the launcher
// sends it again within seconds (outbox.Launcher.Retry), the reconciler if this process ends
// first (kinds.Interview.ResumeRefused), and the run's next timer reads Postgres anyway. The
// signal carries nothing (the run reads the session), so a late one is never out of order.
func (s *Sessions) launch(ctx context.Context, sessionID uuid.UUID, ws *models.WorkflowStart) {
	if s.Launcher == nil {
		return
	}
	if err := s.Launcher.Launch(context.WithoutCancel(ctx), ws); err != nil {
		s.log().WarnContext(ctx, "interview signal not taken; retried", "session_id", sessionID, "err", err)
		s.Launcher.Retry(context.WithoutCancel(ctx), ws)
	}
}

// prompt is what a loaded session asks now.
func (s *Sessions) prompt(ctx context.Context, iv *store.Interview) (*Prompt, error) {
	p := &Prompt{
		SessionID: iv.Session.ID, CompanyName: iv.Company.Name, JobTitle: jobTitle(&iv.Job),
		Monitored: iv.Company.ModelCheatDetectionEnabled,
	}
	if iv.Session.ExpiresAt != nil {
		p.ExpiresAt = *iv.Session.ExpiresAt
	}
	var plan *Plan
	if iv.Plan != nil {
		pl, err := storedPlan(iv.Plan)
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", iv.Session.ID, err)
		}
		plan = pl
		p.Questions = pl.Questions()
		p.Intro, p.Outro = pl.Steps[0].Text, pl.Steps[len(pl.Steps)-1].Text
	}
	switch {
	case iv.Session.Status == models.SessionStatusInvited && s.overdue(iv):
		p.Stage = StageExpired
		return p, nil
	case iv.Session.Status == models.SessionStatusStarted && s.overdue(iv):
		p.Stage = StageIncomplete
		return p, nil
	}
	switch iv.Session.Status {
	case models.SessionStatusInvited:
		p.Stage = StageConsent
		if plan == nil {
			g, err := s.Store.Guide(ctx, iv.Session.CompanyID, iv.Session.JobID)
			switch {
			case errors.Is(err, store.ErrNotFound) || (err == nil && len(g.Questions) == 0):
				p.Stage = StageNotReady
			case err != nil:
				return nil, err
			default:
				p.Questions = len(g.Questions)
			}
		}
	case models.SessionStatusStarted:
		if s.Identity != nil && iv.Job.EnableIdentityVerification {
			_, err := s.Store.LatestIdentityVerification(ctx, iv.Session.CompanyID, iv.Session.ID)
			if errors.Is(err, store.ErrNotFound) {
				p.Stage = StageIdentity
				break
			}
			if err != nil {
				return nil, err
			}
		}
		t := pending(iv.Turns)
		if t == nil || plan == nil {
			return nil, fmt.Errorf("session %s: started without a current question", iv.Session.ID)
		}
		p.Stage = StageQuestion
		p.Question = &Question{Seq: t.Seq, First: t.Seq == 1, Text: t.Question, Index: t.StepIndex, Total: plan.Questions(),
			FollowUp: t.Source == string(SourceFollowUp), Choices: stepOf(t).Choices}
	case models.SessionStatusCompleted:
		p.Stage = StageCompleted
		if p.Outro == "" {
			p.Outro = DefaultOutro
		}
	case models.SessionStatusDeclined:
		p.Stage = StageDeclined
	case models.SessionStatusExpired:
		p.Stage = StageExpired
	case models.SessionStatusIncomplete:
		p.Stage = StageIncomplete
	default:
		p.Stage = StageCancelled
	}
	return p, nil
}

// jobTitle is the title the candidate sees: the job's externalJobTitle, else its title.
func jobTitle(j *models.Job) string {
	if j.ExternalTitle != "" {
		return j.ExternalTitle
	}
	return j.Title
}

// pending is the turn awaiting an answer, nil when there is none.
func pending(turns []models.InterviewTurn) *models.InterviewTurn {
	if n := len(turns); n > 0 && turns[n-1].Answer == nil {
		return &turns[n-1]
	}
	return nil
}

// turnRow is the transcript row that asks step as turn seq.
func turnRow(st Step, seq int) models.InterviewTurn {
	t := models.InterviewTurn{Seq: seq, StepIndex: st.Index, Source: string(st.Source), Question: st.Text, Choices: st.Choices}
	if st.QuestionID != uuid.Nil {
		id := st.QuestionID
		t.QuestionID = &id
	}
	if st.Skill != "" {
		skill := st.Skill
		t.Skill = &skill
	}
	return t
}

// stepOf is the step a transcript row asks, as CheckAnswer and the interviewer take it.
func stepOf(t *models.InterviewTurn) Step {
	st := Step{Index: t.StepIndex, Kind: KindQuestion, Text: t.Question, Source: Source(t.Source), Choices: t.Choices}
	if t.QuestionID != nil {
		st.QuestionID = *t.QuestionID
	}
	if t.Skill != nil {
		st.Skill = *t.Skill
	}
	return st
}

// planSteps is the plan as stored (interview_plans.steps).
func planSteps(p *Plan) []models.PlanStep {
	out := make([]models.PlanStep, len(p.Steps))
	for i, st := range p.Steps {
		ps := models.PlanStep{Kind: string(st.Kind), Text: st.Text, Source: string(st.Source), Skill: st.Skill, Choices: st.Choices}
		if st.QuestionID != uuid.Nil {
			id := st.QuestionID
			ps.QuestionID = &id
		}
		out[i] = ps
	}
	return out
}

// errBadPlan: a stored plan that planSteps did not write.
var errBadPlan = errors.New("stored interview plan is malformed")

// storedPlan reads a stored plan back.
func storedPlan(sp *models.InterviewPlan) (*Plan, error) {
	if sp == nil || len(sp.Steps.V) < 3 {
		return nil, errBadPlan
	}
	n := len(sp.Steps.V)
	p := &Plan{Steps: make([]Step, n)}
	for i, ps := range sp.Steps.V {
		st := Step{Index: i, Total: n - 2, Kind: Kind(ps.Kind), Text: ps.Text, Source: Source(ps.Source), Skill: ps.Skill, Choices: ps.Choices}
		if ps.QuestionID != nil {
			st.QuestionID = *ps.QuestionID
		}
		want := KindQuestion
		switch i {
		case 0:
			want = KindIntro
		case n - 1:
			want = KindOutro
		}
		if st.Kind != want {
			return nil, errBadPlan
		}
		p.Steps[i] = st
	}
	return p, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
