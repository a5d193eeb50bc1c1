package interview

import (
	"time"

	"github.com/google/uuid"
)

// Stage is where a session stands for the candidate: what it waits for, or how it ended.
type Stage string

// Stages. A surface (the web page, a message thread) turns each into its own screen or text.
const (
	StageConsent  Stage = "consent"   // the notice awaits the candidate's consent
	StageIdentity Stage = "identity"  // the job asks for an identity check before the questions
	StageQuestion Stage = "question"  // a question awaits its answer (Prompt.Question)
	StageNotReady Stage = "not-ready" // the job's interview is not generated (yet)

	StageCompleted  Stage = "completed"  // every question answered
	StageDeclined   Stage = "declined"   // the candidate declined the notice
	StageExpired    Stage = "expired"    // not started in time
	StageIncomplete Stage = "incomplete" // started, not finished in time
	StageCancelled  Stage = "cancelled"  // withdrawn by the company (the session is CANCELLED)
)

// Ended reports whether the interview is over: it takes no consent and no answer any more.
func (s Stage) Ended() bool {
	switch s {
	case StageCompleted, StageDeclined, StageExpired, StageIncomplete, StageCancelled:
		return true
	}
	return false
}

// Prompt is what a session asks of the candidate now, in no surface's terms: the consent, the
// identity check, the answer to a question, or nothing (the interview ended, or cannot start
// yet), with the facts every surface words around it.
type Prompt struct {
	Stage       Stage
	SessionID   uuid.UUID // for logs only; never shown
	CompanyName string
	JobTitle    string // the title the candidate sees (the job's externalJobTitle, else its title)
	// Questions is the number of the plan's questions (the guide's before the consent).
	Questions int
	// Monitored: the company notes how answers are written (pasting, leaving the page, typing
	// pace); a surface that measures it says so before the consent.
	Monitored bool
	// ExpiresAt is the deadline (the invitation's, or the end of the window once started);
	// zero when the session has none.
	ExpiresAt time.Time
	// Intro comes before the first question; Outro closes a completed interview (DefaultOutro
	// when the plan has none).
	Intro, Outro string
	// Question is the question awaiting an answer (StageQuestion only).
	Question *Question
}

// Question is the question the candidate answers now.
type Question struct {
	Seq      int  // the turn: an answer names the question it answers
	First    bool // the interview's first question (the intro comes before it)
	Text     string
	Index    int // the plan's question this is (a follow-up keeps its question's), 1 to Total
	Total    int // the plan's questions
	FollowUp bool
	// Choices are a structured question's answers; nil for an answer in the candidate's words.
	Choices []string
}

// Answered is the number of the plan's questions before this one.
func (q *Question) Answered() int { return q.Index - 1 }
