package interviewpage

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/recruitd/recruitd/internal/interview"
)

// Screen is what the page shows.
type Screen string

// Screens. Each stage of the core has its own, and the page has three of its own: a link that
// opens nothing, too many requests, and our error.
const (
	ScreenStart      Screen = "start"      // the notice and the consent
	ScreenIdentity   Screen = "identity"   // the job asks for an identity check before the questions
	ScreenQuestion   Screen = "question"   // one question
	ScreenCompleted  Screen = "completed"  // the outro; also when the link is opened again
	ScreenDeclined   Screen = "declined"   // the candidate declined the notice
	ScreenExpired    Screen = "expired"    // not started in time
	ScreenIncomplete Screen = "incomplete" // started, not finished in time
	ScreenCancelled  Screen = "cancelled"  // withdrawn by the company
	ScreenNotReady   Screen = "not-ready"  // the job's interview is not generated (yet)

	ScreenUnknown Screen = "unknown" // a link that opens nothing (the same whether the token exists or not)
	ScreenBusy    Screen = "busy"    // rate limited
	ScreenFailed  Screen = "failed"  // our error, or a form the page did not write
)

var stageScreens = map[interview.Stage]Screen{
	interview.StageConsent:    ScreenStart,
	interview.StageIdentity:   ScreenIdentity,
	interview.StageQuestion:   ScreenQuestion,
	interview.StageNotReady:   ScreenNotReady,
	interview.StageCompleted:  ScreenCompleted,
	interview.StageDeclined:   ScreenDeclined,
	interview.StageExpired:    ScreenExpired,
	interview.StageIncomplete: ScreenIncomplete,
	interview.StageCancelled:  ScreenCancelled,
}

// MinutesPerQuestion and the fixed minutes are the page's estimate of an interview's length.
const (
	MinutesPerQuestion = 2
	minutesAround      = 2
)

// View is the page's model of one screen of a session, built from the core's prompt.
type View struct {
	Screen           Screen
	CompanyName      string
	JobTitle         string
	Questions        int
	EstimatedMinutes int
	Monitored        bool
	// ExpiresAt is the deadline; zero when the session has none.
	ExpiresAt time.Time
	// Intro is shown above the first question; Outro on the completed screen.
	Intro, Outro string
	// Turn is the question awaiting an answer (ScreenQuestion).
	Turn *interview.Question
	// Ended: the interview takes nothing more (the page's script forgets the link's drafts).
	Ended bool
}

// NewView is the screen of prompt p.
func NewView(p *interview.Prompt) *View {
	sc, ok := stageScreens[p.Stage]
	if !ok {
		sc = ScreenCancelled
	}
	return &View{
		Screen: sc, CompanyName: p.CompanyName, JobTitle: p.JobTitle,
		Questions: p.Questions, EstimatedMinutes: p.Questions*MinutesPerQuestion + minutesAround,
		Monitored: p.Monitored, ExpiresAt: p.ExpiresAt, Intro: p.Intro, Outro: p.Outro,
		Turn: p.Question, Ended: p.Stage.Ended(),
	}
}

// draftKey names a link's drafts in the browser's storage: a digest of the token, so the
// storage never holds the credential itself.
func draftKey(token string) string {
	sum := sha256.Sum256([]byte("recruitd interview draft\x00" + token))
	return hex.EncodeToString(sum[:12])
}

// deadlineLayout is how the page writes the deadline without the script: in UTC, named.
const deadlineLayout = "Monday 2 January 2006, 15:04 UTC"
