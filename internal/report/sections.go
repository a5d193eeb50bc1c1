package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TranscriptTurn is one question of the session's transcript as the report shows it: where it
// came from, and for an answered one the surface that received the answer and when, and the
// integrity signals raised on it. The answer's text is not repeated (the evidence quotes it).
type TranscriptTurn struct {
	Seq      int               `json:"seq"`
	Question string            `json:"question"`
	Source   models.TurnSource `json:"source"`
	Answered bool              `json:"answered"`
	// Channel is web, sms or whatsapp; null for a question not answered.
	Channel    *models.AnswerChannel `json:"channel"`
	AskedAt    time.Time             `json:"askedAt"`
	AnsweredAt *time.Time            `json:"answeredAt"`
	// Signals are the reasons of the answer's cheating score (docs/integrity-checks.md): paste,
	// away, fastTyping, fastArrival, identicalAnswer, fastThreadReply.
	Signals []string `json:"signals"`
}

// Integrity is the session's cheating evaluation as the report shows it: the score against the
// company's threshold and how many answers raised each signal, per surface.
type Integrity struct {
	CheatingScore   float64  `json:"cheatingScore"`
	TranscriptScore *float64 `json:"transcriptScore"`
	CheatThreshold  float64  `json:"cheatThreshold"`
	Flagged         bool     `json:"flagged"`
	// Rules is the version of the rules the evaluation was made with; "" for one made elsewhere.
	Rules string `json:"rules"`
	// Signals counts the answers that raised each reason.
	Signals map[string]int `json:"signals"`
	// Answers counts the answers per channel; FlaggedAnswers those with a reason.
	Answers        map[models.AnswerChannel]int `json:"answers"`
	FlaggedAnswers map[models.AnswerChannel]int `json:"flaggedAnswers"`
}

// storedEvidence is the part of a stored evaluation's evidence (integrity.CheatingEvidence) the report
// reads.
type storedEvidence struct {
	Rules string `json:"rules"`
	Items []struct {
		Seq     int      `json:"seq"`
		Reasons []string `json:"reasons"`
	} `json:"items"`
}

// Read is the stored report of the company's session with its transcript and integrity
// sections, read now from the transcript and the cheating evaluation (the report's answer:
// GET /v1/api/sessions/{sessionId}/report); store.ErrNotFound while it has no report.
// Integrity is nil when the session has no cheating evaluation.
func Read(ctx context.Context, st *store.Store, companyID, sessionID uuid.UUID) (*Report, error) {
	r, err := Load(ctx, st, companyID, sessionID)
	if err != nil {
		return nil, err
	}
	turns, err := st.SessionTranscript(ctx, companyID, sessionID)
	if err != nil {
		return nil, err
	}
	var ev storedEvidence
	c, err := st.SessionCheating(ctx, companyID, sessionID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	case len(c.Evidence) > 0:
		if err := json.Unmarshal(c.Evidence, &ev); err != nil {
			return nil, fmt.Errorf("decode cheating evidence of session %s: %w", sessionID, err)
		}
	}
	reasons := map[int][]string{}
	for _, it := range ev.Items {
		reasons[it.Seq] = it.Reasons
	}
	r.Transcript = make([]TranscriptTurn, 0, len(turns))
	for _, t := range turns {
		tt := TranscriptTurn{Seq: t.Seq, Question: t.Question, Source: models.TurnSource(t.Source), Answered: t.Answer != nil,
			AskedAt: t.AskedAt, AnsweredAt: t.AnsweredAt, Signals: []string{}}
		if tt.Answered {
			ch := models.AnswerChannelWeb
			if t.Channel != nil {
				ch = *t.Channel
			}
			tt.Channel = &ch
			tt.Signals = append(tt.Signals, reasons[t.Seq]...)
		}
		r.Transcript = append(r.Transcript, tt)
	}
	if c != nil {
		in := &Integrity{CheatingScore: c.CheatingScore, TranscriptScore: c.TranscriptScore, CheatThreshold: c.Threshold,
			Flagged: c.CheatingScore >= c.Threshold, Rules: ev.Rules, Signals: map[string]int{},
			Answers: map[models.AnswerChannel]int{}, FlaggedAnswers: map[models.AnswerChannel]int{}}
		for _, t := range r.Transcript {
			if !t.Answered {
				continue
			}
			in.Answers[*t.Channel]++
			if len(t.Signals) > 0 {
				in.FlaggedAnswers[*t.Channel]++
			}
			for _, s := range slices.Compact(slices.Sorted(slices.Values(t.Signals))) {
				in.Signals[s]++
			}
		}
		r.Integrity = in
	}
	return r, nil
}
