package integrity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/integrity/disposable"
	"github.com/recruitd/recruitd/internal/pagesignal"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Service runs the integrity rules for one session or candidate through the store. Each method
// does nothing (Skipped says why) when the company's flag is off.
type Service struct {
	Store *store.Store
	// Domains is the disposable-domain list; nil means the embedded one.
	Domains *disposable.List
}

// Skip reasons of Service's results.
const (
	SkipDetectionOff = "off"        // the company's flag is off
	SkipNoAnswers    = "no answers" // the session has no answered question
)

// SessionEvaluation is what EvaluateSession did.
type SessionEvaluation struct {
	Skipped string // "" when an evaluation was computed and stored
	Result  CheatingResult
	Changed bool // the stored evaluation was written or replaced (false for a repeat)
}

// RecordAnswerSignals parses the page's payload for the answer of the session's turn seq and
// stores it, when the company's model_cheat_detection_enabled is on (else it keeps nothing). The
// payload's refusal is a *pagesignal.Error (safe to show to the page); a repeat for the same
// answer keeps the first report. The candidate's interview goes on whatever this returns: the
// caller logs a failure, it never refuses the answer for it.
func (s *Service) RecordAnswerSignals(ctx context.Context, companyID, sessionID uuid.UUID, seq int, payload []byte) (stored bool, err error) {
	sig, err := pagesignal.Parse(payload)
	if err != nil {
		return false, err
	}
	co, err := s.Store.Company(ctx, companyID)
	if err != nil {
		return false, fmt.Errorf("load company of session %s: %w", sessionID, err)
	}
	if !co.ModelCheatDetectionEnabled {
		return false, nil
	}
	return s.Store.SaveAnswerSignals(ctx, companyID, sessionID, seq, sig)
}

// QuestionSent records that a text thread handed the question of the session's turn seq to the
// provider at at (the first send counts). The thread calls it only for a monitored session
// (interview.View.Monitored: the company's model_cheat_detection_enabled is on); like the page's
// signals, a failure never holds the interview up: the caller logs it.
func (s *Service) QuestionSent(ctx context.Context, companyID, sessionID uuid.UUID, seq int, channel models.AnswerChannel, at time.Time) error {
	if !slices.Contains(models.ThreadChannels(), channel) {
		return fmt.Errorf("question %d of session %s: %q is not a text thread", seq, sessionID, channel)
	}
	return s.Store.SaveThreadQuestionSent(ctx, companyID, sessionID, seq, channel, at)
}

// AnswerReceived records that the answer to the session's turn seq, taken by the thread, arrived
// at at; nothing when the question was not sent in that thread.
func (s *Service) AnswerReceived(ctx context.Context, companyID, sessionID uuid.UUID, seq int, channel models.AnswerChannel, at time.Time) error {
	_, err := s.Store.SaveThreadAnswerReceived(ctx, companyID, sessionID, seq, channel, at)
	return err
}

// EvaluateSession computes the session's cheating evaluation from its answered turns (the
// server's timing, the text thread's reply times and the company's identical answers) and what
// the page reported, and stores
// it (when model_cheat_detection_enabled is on and the session has an answer). Running it again
// with nothing new changes nothing.
func (s *Service) EvaluateSession(ctx context.Context, companyID, sessionID uuid.UUID) (SessionEvaluation, error) {
	var out SessionEvaluation
	co, err := s.Store.Company(ctx, companyID)
	if err != nil {
		return out, fmt.Errorf("load company of session %s: %w", sessionID, err)
	}
	if !co.ModelCheatDetectionEnabled {
		out.Skipped = SkipDetectionOff
		return out, nil
	}
	turns, err := s.Store.AnsweredTurns(ctx, companyID, sessionID)
	if err != nil {
		return out, err
	}
	timings, err := s.Store.ThreadTimings(ctx, companyID, sessionID)
	if err != nil {
		return out, err
	}
	thread := make(map[int]*ThreadReply, len(timings))
	for _, tt := range timings {
		thread[tt.Seq] = &ThreadReply{Channel: tt.Channel, ReplyMs: tt.ReplyMs}
	}
	answers := make([]Answer, len(turns))
	for i, t := range turns {
		answers[i] = Answer{Seq: t.Seq, Signals: t.Signals, AnswerChars: t.AnswerChars, DurationMs: t.DurationMs, IdenticalTo: t.IdenticalTo,
			Thread: thread[t.Seq]}
	}
	out.Result = ScoreCheating(answers, co.CheatThreshold)
	if !out.Result.Evaluated {
		out.Skipped = SkipNoAnswers
		return out, nil
	}
	evidence, err := json.Marshal(out.Result.Evidence)
	if err != nil {
		return out, fmt.Errorf("cheating evidence of session %s: %w", sessionID, err)
	}
	transcript := out.Result.TranscriptScore
	out.Changed, err = s.Store.SaveCheatingEvaluation(ctx, companyID, store.CheatingEvaluationInput{SessionID: sessionID,
		CheatingScore: out.Result.CheatingScore, TranscriptScore: &transcript, Evidence: evidence})
	return out, err
}

// VerifyInput is what the caller of VerifyCandidate knows beyond the store.
type VerifyInput struct {
	// SessionID is the session the check is made for (its invitation, or its completion for
	// the refresh); nil for a check of the candidate alone.
	SessionID *uuid.UUID
	// MobileExpected overrides the default, which is MobileExpected of the session's medium
	// (false without a session); set it when the invitation goes by text message.
	MobileExpected *bool
	// Observed are contacts sources gave beyond those recorded in candidate_contact_sources
	// (which VerifyCandidate reads itself: invitations, partner lookups, HR-suite rows, the ATS
	// sync and the other applications), compared with the stored ones.
	Observed []SourceContact
}

// CandidateVerification is what VerifyCandidate did.
type CandidateVerification struct {
	Skipped   string // "" when a verification was computed and stored
	Result    FraudResult
	ID        uuid.UUID // the fraud_verifications row
	Refreshed bool      // an earlier check of the same candidate and session was updated
}

// VerifyCandidate checks the candidate's contact details and stores the verification for the
// session (when fraud_detection_enabled is on): at invitation, and again after the interview,
// which refreshes the same row.
func (s *Service) VerifyCandidate(ctx context.Context, companyID, candidateID uuid.UUID, in VerifyInput) (CandidateVerification, error) {
	var out CandidateVerification
	co, err := s.Store.Company(ctx, companyID)
	if err != nil {
		return out, fmt.Errorf("load company of candidate %s: %w", candidateID, err)
	}
	if !co.FraudDetectionEnabled {
		out.Skipped = SkipDetectionOff
		return out, nil
	}
	c, err := s.Store.Candidate(ctx, companyID, candidateID)
	if err != nil {
		return out, err
	}
	sources, err := s.Store.ContactSources(ctx, companyID, candidateID)
	if err != nil {
		return out, err
	}
	observed := make([]SourceContact, 0, len(sources)+len(in.Observed))
	for _, src := range sources {
		observed = append(observed, SourceContact{Source: src.Source, Email: src.Email, Phone: src.Phone})
	}
	f := FraudFacts{CompanyID: companyID, Email: orEmpty(c.Email), Phone: orEmpty(c.Phone), Observed: append(observed, in.Observed...)}
	switch {
	case in.MobileExpected != nil:
		f.MobileExpected = *in.MobileExpected
	case in.SessionID != nil:
		sess, err := s.Store.Session(ctx, companyID, *in.SessionID)
		if err != nil {
			return out, err
		}
		f.MobileExpected = MobileExpected(sess.MediumType)
	}
	shared, err := s.Store.SharedContactsOf(ctx, companyID, candidateID, f.Email, f.Phone)
	if err != nil {
		return out, err
	}
	f.SameEmail, f.SamePhone = shared.SameEmail, shared.SamePhone
	if raw, found, err := s.Store.LatestFraudSignals(ctx, companyID, candidateID); err != nil {
		return out, err
	} else if found {
		var prev struct {
			Contact ContactPrints `json:"contact"`
		}
		// Checks made elsewhere (the demo seed's) hold no fingerprints: nothing to compare.
		if json.Unmarshal(raw, &prev) == nil && prev.Contact != (ContactPrints{}) {
			f.Previous = &prev.Contact
		}
	}
	out.Result = ScoreFraud(f, s.Domains)
	signals, err := json.Marshal(out.Result.Signals)
	if err != nil {
		return out, fmt.Errorf("fraud signals of candidate %s: %w", candidateID, err)
	}
	out.ID, out.Refreshed, err = s.Store.SaveFraudVerification(ctx, companyID, store.FraudVerificationInput{CandidateID: candidateID,
		SessionID: in.SessionID, Score: out.Result.Score, DisposableEmail: out.Result.DisposableEmail, VoIPPhone: out.Result.VoIPPhone,
		Signals: signals})
	return out, err
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
