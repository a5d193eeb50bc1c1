package integrity

import (
	"math"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pagesignal"
	"github.com/recruitd/recruitd/models"
)

// CheatingRules names the rules below; it is stored with every evaluation's evidence, so a later
// change of a rule or weight is told apart from the evaluations made before it. Version 2 adds
// the server's own rules (arrival pace, identical answers), which the browser cannot forge;
// version 3 the text thread's reply pace.
const CheatingRules = "answer-signals/3"

// The rules of one answer's score (docs/integrity-checks.md, "Cheating signals"). Each rule
// gives a strength from 0 to 1; the answer's score is 100 × (1 − Π(1 − weight × strength)).
const (
	// Paste: the share of the answer's characters that were pasted, once at least PasteMinChars
	// were (a pasted name or link is no evidence).
	PasteMinChars = 30
	WeightPaste   = 0.9
	// Away: the share of the answering time the page was hidden or unfocused, counted from
	// AwayMinMs away; away AwayFullShare of the time or more is full strength.
	AwayMinMs     = 5000
	AwayFullShare = 0.5
	WeightAway    = 0.6
	// Pace: typed (not pasted) characters per second of active typing, judged from PaceMinChars
	// typed characters on: PacePlausibleCPS or slower is nothing, PaceImplausibleCPS or faster
	// full strength (fast typists sustain about 8 characters a second), linear in between. Typed
	// text without any typing time is full strength.
	PaceMinChars       = 200
	PacePlausibleCPS   = 12.0
	PaceImplausibleCPS = 20.0
	WeightPace         = 0.8
	// Arrival (the server's figures): the answer's characters per second of the server's time
	// from the question shown (asked_at) to the answer received, from ArrivalMinChars on:
	// ArrivalPlausibleCPS or slower is nothing, ArrivalImplausibleCPS or faster full strength.
	// That time holds the reading and the thinking too, so 10 characters a second over all of it
	// is already beyond a fast typist's 8 while typing.
	ArrivalMinChars       = 100
	ArrivalPlausibleCPS   = 10.0
	ArrivalImplausibleCPS = 20.0
	WeightArrival         = 0.8
	// Thread reply (the server's figures, for an answer taken in a text thread): the answer's
	// characters per second of the server's time from handing the question to the provider to
	// the answer's arrival, from ThreadMinChars on: ThreadPlausibleCPS or slower is nothing,
	// ThreadImplausibleCPS or faster full strength. People type about 3 characters a second on
	// a phone's keyboard and that time holds the reading too, so a long reply within seconds
	// was pasted or written elsewhere. It replaces the arrival rule for that answer.
	ThreadMinChars       = 60
	ThreadPlausibleCPS   = 5.0
	ThreadImplausibleCPS = 10.0
	WeightThread         = 0.8
	// Identical (the server's figures): the answer's text, case and white space ignored, is
	// another candidate's answer in the same company (answers of at least 40 characters,
	// store.MinIdenticalChars); full strength.
	WeightIdentical = 0.9
	// WeightAnswer is each answer's share in the session's score: transcript_score =
	// 100 × (1 − Π(1 − WeightAnswer × answer score / 100)) over the answers the page reported
	// on. One fully pasted answer alone gives 63, two give 86.31.
	WeightAnswer = 0.7
)

// Reasons an answer's score is above 0.
const (
	ReasonPaste      = "paste"
	ReasonAway       = "away"
	ReasonFastTyping = "fastTyping"
	ReasonArrival    = "fastArrival"
	ReasonIdentical  = "identicalAnswer"
	ReasonThread     = "fastThreadReply"
)

// Answer is one answered question of a session, with what the page reported for it.
type Answer struct {
	Seq int
	// Signals is nil when the page reported nothing for the answer (an old page, no JavaScript,
	// a lost request): the answer then counts neither for nor against the candidate.
	Signals *pagesignal.Signals
	// AnswerChars is the stored answer's length in characters; 0 takes the page's figure.
	AnswerChars int
	// DurationMs is the server's time from asking to the answer; 0 when unknown.
	DurationMs int64
	// IdenticalTo are the other candidates of the company who gave the same answer.
	IdenticalTo []uuid.UUID
	// Thread is set for an answer taken in the text thread its question was sent in.
	Thread *ThreadReply
}

// ThreadReply is the server's timing of an answer in a text thread.
type ThreadReply struct {
	Channel models.AnswerChannel
	// ReplyMs is the time from handing the question to the provider to the answer's arrival; 0
	// when unknown.
	ReplyMs int64
}

// Components are the strengths (0 to 1) of the rules for one answer: three from the page's
// figures (which the candidate's browser composes), three from the server's.
type Components struct {
	Paste     float64 `json:"paste"`
	Away      float64 `json:"away"`
	Pace      float64 `json:"pace"`
	Arrival   float64 `json:"arrival"`
	Identical float64 `json:"identical"`
	Thread    float64 `json:"thread"`
}

// ThreadMeasure is what the thread rule read: the thread's channel, the reply time and pace.
type ThreadMeasure struct {
	Channel  models.AnswerChannel `json:"channel"`
	ReplyMs  int64                `json:"replyMs"`             // 0 when unknown
	ReplyCPS *float64             `json:"replyCharsPerSecond"` // null when the time is unknown
}

// AnswerMeasure is what an answer's score was computed from. AnswerChars, DurationMs,
// ArrivalCPS and IdenticalTo are the server's; the others are the page's report (zero when the
// page reported nothing).
type AnswerMeasure struct {
	AnswerChars    int      `json:"answerChars"`
	DurationMs     int64    `json:"durationMs"`            // 0 when unknown
	ArrivalCPS     *float64 `json:"arrivalCharsPerSecond"` // null when the duration is unknown
	IdenticalTo    []string `json:"identicalTo"`           // candidate ids`
	PastedChars    int      `json:"pastedChars"`
	PasteEvents    int      `json:"pasteEvents"`
	PastedShare    float64  `json:"pastedShare"`
	AwayMs         int      `json:"awayMs"`
	AwayCount      int      `json:"awayCount"`
	AwayShare      float64  `json:"awayShare"`
	Keystrokes     int      `json:"keystrokes"`
	TypingMs       int      `json:"typingMs"`
	TypedChars     int      `json:"typedChars"`
	CharsPerSecond *float64 `json:"charsPerSecond"` // null without typing time
	// Thread is the text thread's timing; null for an answer on the page.
	Thread     *ThreadMeasure `json:"thread"`
	Components Components     `json:"components"`
}

// AnswerEvidence is one answer's record in the evaluation's evidence. It holds counts, times
// and shares only, never the answer's text.
type AnswerEvidence struct {
	Seq      int            `json:"seq"`
	Reported bool           `json:"reported"` // the page sent signals for the answer
	Measure  *AnswerMeasure `json:"measure,omitempty"`
	Score    *float64       `json:"score"` // 0-100
	Reasons  []string       `json:"reasons"`
}

// CheatingEvidence is stored with the session's evaluation (cheating_evaluations.evidence).
type CheatingEvidence struct {
	Rules    string `json:"rules"`
	Answers  int    `json:"answers"`
	Reported int    `json:"reported"`
	// Thread counts the answers taken in a text thread with the thread's timing.
	Thread int              `json:"thread"`
	Items  []AnswerEvidence `json:"items"`
}

// CheatingResult is a session's evaluation. Only the transcript sub-score is measured by a text
// interview: the video sub-scores (eye and head tracking, voice, more than one person) stay null,
// and the cheating score is the transcript score.
type CheatingResult struct {
	// Evaluated is false when the session has no answer: no evaluation is then stored.
	Evaluated       bool
	CheatingScore   float64
	TranscriptScore float64
	Flagged         bool // CheatingScore >= the company's cheat threshold
	Evidence        CheatingEvidence
}

// ScoreCheating scores a session's answers against the company's cheat threshold. A score is
// evidence for a recruiter, never a reason to stop or refuse the candidate.
func ScoreCheating(answers []Answer, threshold float64) CheatingResult {
	res := CheatingResult{Evidence: CheatingEvidence{Rules: CheatingRules, Answers: len(answers), Items: []AnswerEvidence{}}}
	clean := 1.0
	for _, a := range answers {
		ev := scoreAnswer(a)
		if ev.Reported {
			res.Evidence.Reported++
		}
		if ev.Measure.Thread != nil {
			res.Evidence.Thread++
		}
		clean *= 1 - WeightAnswer*(*ev.Score)/100
		res.Evidence.Items = append(res.Evidence.Items, ev)
	}
	if len(answers) == 0 {
		return res
	}
	res.Evaluated = true
	res.TranscriptScore = round(100*(1-clean), 2)
	res.CheatingScore = res.TranscriptScore
	res.Flagged = res.CheatingScore >= threshold
	return res
}

func scoreAnswer(a Answer) AnswerEvidence {
	ev := AnswerEvidence{Seq: a.Seq, Reasons: []string{}}
	s := a.Signals
	ev.Reported = s != nil
	if s == nil {
		s = &pagesignal.Signals{}
	}
	chars := a.AnswerChars
	if chars <= 0 {
		chars = s.AnswerChars
	}
	m := &AnswerMeasure{AnswerChars: chars, DurationMs: max(a.DurationMs, 0), IdenticalTo: []string{}, PastedChars: s.PastedChars,
		PasteEvents: s.PasteEvents, AwayMs: s.AwayMs(), AwayCount: s.AwayCount(), Keystrokes: s.Keystrokes, TypingMs: s.TypingMs}

	// The server's rules.
	if a.Thread != nil {
		m.Thread = &ThreadMeasure{Channel: a.Thread.Channel, ReplyMs: max(a.Thread.ReplyMs, 0)}
		if m.Thread.ReplyMs > 0 {
			cps := float64(chars) * 1000 / float64(m.Thread.ReplyMs)
			m.Thread.ReplyCPS = &cps
			if chars >= ThreadMinChars {
				m.Components.Thread = math.Min(1, math.Max(0, (cps-ThreadPlausibleCPS)/(ThreadImplausibleCPS-ThreadPlausibleCPS)))
			}
		}
	}
	if m.DurationMs > 0 {
		cps := float64(chars) * 1000 / float64(m.DurationMs)
		m.ArrivalCPS = &cps
		if chars >= ArrivalMinChars && (m.Thread == nil || m.Thread.ReplyCPS == nil) {
			m.Components.Arrival = math.Min(1, math.Max(0, (cps-ArrivalPlausibleCPS)/(ArrivalImplausibleCPS-ArrivalPlausibleCPS)))
		}
	}
	for _, id := range a.IdenticalTo {
		m.IdenticalTo = append(m.IdenticalTo, id.String())
	}
	if len(m.IdenticalTo) > 0 {
		m.Components.Identical = 1
	}

	// The page's rules.
	if ev.Reported {
		if chars > 0 {
			m.PastedShare = math.Min(1, float64(s.PastedChars)/float64(chars))
			if s.PastedChars >= PasteMinChars {
				m.Components.Paste = m.PastedShare
			}
		}
		if span := max(m.DurationMs, int64(m.AwayMs)); span > 0 {
			m.AwayShare = float64(m.AwayMs) / float64(span)
		}
		if m.AwayMs >= AwayMinMs {
			m.Components.Away = math.Min(1, m.AwayShare/AwayFullShare)
		}
		m.TypedChars = max(chars-s.PastedChars, 0)
		if s.TypingMs > 0 {
			cps := float64(m.TypedChars) * 1000 / float64(s.TypingMs)
			m.CharsPerSecond = &cps
		}
		if m.TypedChars >= PaceMinChars {
			if m.CharsPerSecond == nil {
				m.Components.Pace = 1
			} else {
				m.Components.Pace = math.Min(1, math.Max(0, (*m.CharsPerSecond-PacePlausibleCPS)/(PaceImplausibleCPS-PacePlausibleCPS)))
			}
		}
	}

	c := m.Components
	score := round(100*(1-(1-WeightPaste*c.Paste)*(1-WeightAway*c.Away)*(1-WeightPace*c.Pace)*(1-WeightArrival*c.Arrival)*
		(1-WeightIdentical*c.Identical)*(1-WeightThread*c.Thread)), 2)
	for _, r := range []struct {
		on     bool
		reason string
	}{{c.Paste > 0, ReasonPaste}, {c.Away > 0, ReasonAway}, {c.Pace > 0, ReasonFastTyping}, {c.Arrival > 0, ReasonArrival},
		{c.Identical > 0, ReasonIdentical}, {c.Thread > 0, ReasonThread}} {
		if r.on {
			ev.Reasons = append(ev.Reasons, r.reason)
		}
	}
	m.PastedShare, m.AwayShare = round(m.PastedShare, 4), round(m.AwayShare, 4)
	m.Components = Components{round(c.Paste, 4), round(c.Away, 4), round(c.Pace, 4), round(c.Arrival, 4), round(c.Identical, 4), round(c.Thread, 4)}
	ps := []*float64{m.CharsPerSecond, m.ArrivalCPS}
	if m.Thread != nil {
		ps = append(ps, m.Thread.ReplyCPS)
	}
	for _, p := range ps {
		if p != nil {
			*p = round(*p, 2)
		}
	}
	ev.Measure, ev.Score = m, &score
	return ev
}

// round rounds x to the given number of decimals (half away from zero).
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}
