package integrity

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pagesignal"
	"github.com/recruitd/recruitd/models"
)

// Answers of the table tests: what the page reports and the server knows.
var (
	typed = Answer{Seq: 1, AnswerChars: 410, DurationMs: 90_000,
		Signals: &pagesignal.Signals{BlurMs: 1200, BlurCount: 1, Keystrokes: 430, TypingMs: 52_000, AnswerChars: 410}}
	pasted = Answer{Seq: 2, AnswerChars: 480, DurationMs: 60_000,
		Signals: &pagesignal.Signals{PastedChars: 480, PasteEvents: 1, AnswerChars: 480}}
	pastedAway = Answer{Seq: 3, AnswerChars: 492, DurationMs: 60_000,
		Signals: &pagesignal.Signals{PastedChars: 480, PasteEvents: 1, HiddenMs: 42_000, HiddenCount: 2, BlurMs: 45_000, BlurCount: 3,
			Keystrokes: 12, TypingMs: 3100, AnswerChars: 492}}
	smallPaste = Answer{Seq: 4, AnswerChars: 300, DurationMs: 120_000,
		Signals: &pagesignal.Signals{PastedChars: 25, PasteEvents: 1, Keystrokes: 290, TypingMs: 60_000, AnswerChars: 300}}
	awayFifth = Answer{Seq: 5, AnswerChars: 150, DurationMs: 100_000,
		Signals: &pagesignal.Signals{HiddenMs: 20_000, HiddenCount: 1, BlurMs: 18_000, BlurCount: 1, Keystrokes: 160, TypingMs: 40_000, AnswerChars: 150}}
	fast = Answer{Seq: 6, AnswerChars: 600, DurationMs: 80_000,
		Signals: &pagesignal.Signals{Keystrokes: 600, TypingMs: 37_500, AnswerChars: 600}}
	veryFast = Answer{Seq: 7, AnswerChars: 1000, DurationMs: 30_000,
		Signals: &pagesignal.Signals{Keystrokes: 1000, TypingMs: 10_000, AnswerChars: 1000}}
	noKeys = Answer{Seq: 8, AnswerChars: 300, DurationMs: 30_000,
		Signals: &pagesignal.Signals{AnswerChars: 300}}
	awayNoDuration = Answer{Seq: 9, AnswerChars: 100, DurationMs: 0,
		Signals: &pagesignal.Signals{BlurMs: 8000, BlurCount: 2, Keystrokes: 110, TypingMs: 30_000, AnswerChars: 100}}
	pageLength = Answer{Seq: 10, AnswerChars: 0, DurationMs: 60_000,
		Signals: &pagesignal.Signals{PastedChars: 100, PasteEvents: 1, AnswerChars: 200, Keystrokes: 100, TypingMs: 30_000}}
	unreported = Answer{Seq: 11, AnswerChars: 250, DurationMs: 40_000}
)

func ptr[T any](v T) *T { return &v }

func TestScoreAnswer(t *testing.T) {
	tests := []struct {
		name    string
		a       Answer
		score   float64
		reasons []string
		m       AnswerMeasure
	}{
		{"typed, a glance away", typed, 0, []string{},
			AnswerMeasure{AnswerChars: 410, DurationMs: 90_000, AwayMs: 1200, AwayCount: 1, AwayShare: 0.0133, Keystrokes: 430, TypingMs: 52_000,
				TypedChars: 410, CharsPerSecond: ptr(7.88)}},
		{"fully pasted", pasted, 90, []string{"paste"},
			AnswerMeasure{AnswerChars: 480, DurationMs: 60_000, PastedChars: 480, PasteEvents: 1, PastedShare: 1, Components: Components{Paste: 1}}},
		{"pasted and away", pastedAway, 95.12, []string{"paste", "away"},
			AnswerMeasure{AnswerChars: 492, DurationMs: 60_000, PastedChars: 480, PasteEvents: 1, PastedShare: 0.9756, AwayMs: 45_000, AwayCount: 3,
				AwayShare: 0.75, Keystrokes: 12, TypingMs: 3100, TypedChars: 12, CharsPerSecond: ptr(3.87), Components: Components{Paste: 0.9756, Away: 1}}},
		{"a short paste is no evidence", smallPaste, 0, []string{},
			AnswerMeasure{AnswerChars: 300, DurationMs: 120_000, PastedChars: 25, PasteEvents: 1, PastedShare: 0.0833, Keystrokes: 290, TypingMs: 60_000,
				TypedChars: 275, CharsPerSecond: ptr(4.58)}},
		{"away a fifth of the time", awayFifth, 24, []string{"away"},
			AnswerMeasure{AnswerChars: 150, DurationMs: 100_000, AwayMs: 20_000, AwayCount: 1, AwayShare: 0.2, Keystrokes: 160, TypingMs: 40_000,
				TypedChars: 150, CharsPerSecond: ptr(3.75), Components: Components{Away: 0.4}}},
		{"16 characters a second", fast, 40, []string{"fastTyping"},
			AnswerMeasure{AnswerChars: 600, DurationMs: 80_000, Keystrokes: 600, TypingMs: 37_500, TypedChars: 600, CharsPerSecond: ptr(16.0),
				Components: Components{Pace: 0.5}}},
		{"100 characters a second", veryFast, 96, []string{"fastTyping", "fastArrival"},
			AnswerMeasure{AnswerChars: 1000, DurationMs: 30_000, Keystrokes: 1000, TypingMs: 10_000, TypedChars: 1000, CharsPerSecond: ptr(100.0),
				Components: Components{Pace: 1, Arrival: 1}}},
		{"long text without typing", noKeys, 80, []string{"fastTyping"},
			AnswerMeasure{AnswerChars: 300, DurationMs: 30_000, TypedChars: 300, Components: Components{Pace: 1}}},
		{"away, duration unknown", awayNoDuration, 60, []string{"away"},
			AnswerMeasure{AnswerChars: 100, AwayMs: 8000, AwayCount: 2, AwayShare: 1, Keystrokes: 110, TypingMs: 30_000, TypedChars: 100,
				CharsPerSecond: ptr(3.33), Components: Components{Away: 1}}},
		{"the page's length when the server has none", pageLength, 45, []string{"paste"},
			AnswerMeasure{AnswerChars: 200, DurationMs: 60_000, PastedChars: 100, PasteEvents: 1, PastedShare: 0.5, Keystrokes: 100, TypingMs: 30_000,
				TypedChars: 100, CharsPerSecond: ptr(3.33), Components: Components{Paste: 0.5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := scoreAnswer(tt.a)
			if !ev.Reported || ev.Score == nil || *ev.Score != tt.score || !slices.Equal(ev.Reasons, tt.reasons) {
				t.Errorf("score %v reasons %v, want %v %v", deref(ev.Score), ev.Reasons, tt.score, tt.reasons)
			}
			got, _ := json.Marshal(ev.Measure)
			// The server's figures of these answers: their arrival pace, and no identical answer.
			tt.m.IdenticalTo = []string{}
			if tt.m.DurationMs > 0 {
				tt.m.ArrivalCPS = ptr(round(float64(tt.m.AnswerChars)*1000/float64(tt.m.DurationMs), 2))
			}
			want, _ := json.Marshal(tt.m)
			if string(got) != string(want) {
				t.Errorf("measure\n got %s\nwant %s", got, want)
			}
		})
	}
	ev := scoreAnswer(unreported)
	if ev.Reported || ev.Score == nil || *ev.Score != 0 || ev.Measure.ArrivalCPS == nil || *ev.Measure.ArrivalCPS != 6.25 || ev.Measure.PastedChars != 0 {
		b, _ := json.Marshal(ev)
		t.Errorf("unreported answer evidence = %s; want the server's figures only", b)
	}
}

// TestServerRules: the rules on the server's own figures apply whatever the page reported, also
// when it reported nothing or forged plausible typing.
func TestServerRules(t *testing.T) {
	other := uuid.New()
	forged := &pagesignal.Signals{Keystrokes: 700, TypingMs: 120_000, AnswerChars: 600}
	tests := []struct {
		name    string
		a       Answer
		score   float64
		reasons []string
	}{
		{"an answer another candidate gave", Answer{Seq: 1, AnswerChars: 300, DurationMs: 120_000, IdenticalTo: []uuid.UUID{other}}, 90,
			[]string{"identicalAnswer"}},
		{"15 characters a second from question to answer", Answer{Seq: 2, AnswerChars: 300, DurationMs: 20_000}, 40, []string{"fastArrival"}},
		{"600 characters in 2 s, with forged typing figures", Answer{Seq: 3, AnswerChars: 600, DurationMs: 2000, Signals: forged}, 80,
			[]string{"fastArrival"}},
		{"at a person's pace", Answer{Seq: 4, AnswerChars: 300, DurationMs: 60_000}, 0, []string{}},
		{"a short answer at once", Answer{Seq: 5, AnswerChars: 90, DurationMs: 1000}, 0, []string{}},
		{"duration unknown", Answer{Seq: 6, AnswerChars: 600}, 0, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := scoreAnswer(tt.a)
			if ev.Score == nil || *ev.Score != tt.score || !slices.Equal(ev.Reasons, tt.reasons) {
				t.Errorf("score %v reasons %v, want %v %v", deref(ev.Score), ev.Reasons, tt.score, tt.reasons)
			}
		})
	}
	if ev := scoreAnswer(tests[0].a); !slices.Equal(ev.Measure.IdenticalTo, []string{other.String()}) {
		t.Errorf("identicalTo = %v", ev.Measure.IdenticalTo)
	}
	r := ScoreCheating([]Answer{tests[0].a, tests[1].a}, 70)
	if !r.Evaluated || r.Evidence.Reported != 0 || r.CheatingScore != 73.36 || !r.Flagged {
		t.Errorf("a session the page reported nothing on = %+v", r)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestScoreCheating(t *testing.T) {
	tenAway := make([]Answer, 10)
	for i := range tenAway {
		tenAway[i] = awayFifth
	}
	tests := []struct {
		name      string
		answers   []Answer
		threshold float64
		evaluated bool
		score     float64
		flagged   bool
		reported  int
	}{
		{"clean answers", []Answer{typed, smallPaste}, 70, true, 0, false, 2},
		{"two pasted answers, away in one", []Answer{pasted, pastedAway, typed, unreported}, 70, true, 87.64, true, 3},
		{"one pasted answer", []Answer{pasted, typed}, 70, true, 63, false, 2},
		{"one pasted answer, threshold 63", []Answer{pasted, typed}, 63, true, 63, true, 2},
		{"two pasted answers", []Answer{pasted, pasted}, 70, true, 86.31, true, 2},
		{"away a fifth of the time in ten answers", tenAway, 70, true, 84.11, true, 10},
		{"nothing reported: the server's rules alone", []Answer{unreported, unreported}, 70, true, 0, false, 0},
		{"no answers", nil, 70, false, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ScoreCheating(tt.answers, tt.threshold)
			if r.Evaluated != tt.evaluated || r.CheatingScore != tt.score || r.TranscriptScore != tt.score || r.Flagged != tt.flagged {
				t.Errorf("= evaluated %v, score %v, transcript %v, flagged %v; want %v, %v, %v", r.Evaluated, r.CheatingScore, r.TranscriptScore,
					r.Flagged, tt.evaluated, tt.score, tt.flagged)
			}
			e := r.Evidence
			if e.Rules != CheatingRules || e.Answers != len(tt.answers) || e.Reported != tt.reported || len(e.Items) != len(tt.answers) {
				t.Errorf("evidence = %+v", e)
			}
		})
	}
}

// TestThreadReply: an answer taken in a text thread is judged by the server's time from handing
// the question to the provider to the answer's arrival against its length: a long reply within
// seconds is flagged, the same length after minutes is not, and the thread's timing replaces the
// arrival rule for the answer.
func TestThreadReply(t *testing.T) {
	sms := func(ms int64) *ThreadReply { return &ThreadReply{Channel: models.AnswerChannelSMS, ReplyMs: ms} }
	fastLong := Answer{Seq: 1, AnswerChars: 420, DurationMs: 6000, Thread: sms(6000)}
	normal := Answer{Seq: 2, AnswerChars: 420, DurationMs: 150_000, Thread: sms(150_000)}
	tests := []struct {
		name    string
		a       Answer
		score   float64
		reasons []string
		cps     any
	}{
		{"420 characters 6 s after the question", fastLong, 80, []string{"fastThreadReply"}, 70.0},
		{"420 characters after two and a half minutes", normal, 0, []string{}, 2.8},
		{"7.5 characters a second", Answer{Seq: 3, AnswerChars: 300, DurationMs: 40_000, Thread: sms(40_000)}, 40, []string{"fastThreadReply"}, 7.5},
		{"a short reply at once", Answer{Seq: 4, AnswerChars: 50, DurationMs: 2000, Thread: sms(2000)}, 0, []string{}, 25.0},
		// The thread's timing replaces the arrival rule: a question asked long before it was
		// texted is judged from the text.
		{"texted 6 s after, asked long before", Answer{Seq: 5, AnswerChars: 420, DurationMs: 600_000, Thread: sms(6000)}, 80,
			[]string{"fastThreadReply"}, 70.0},
		{"sent time unknown: the arrival rule", Answer{Seq: 6, AnswerChars: 420, DurationMs: 6000, Thread: sms(0)}, 80, []string{"fastArrival"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := scoreAnswer(tt.a)
			if ev.Score == nil || *ev.Score != tt.score || !slices.Equal(ev.Reasons, tt.reasons) {
				t.Errorf("score %v reasons %v, want %v %v", deref(ev.Score), ev.Reasons, tt.score, tt.reasons)
			}
			m := ev.Measure.Thread
			if m == nil || m.Channel != models.AnswerChannelSMS || deref(m.ReplyCPS) != tt.cps {
				b, _ := json.Marshal(ev.Measure)
				t.Errorf("thread measure of %s, want channel sms and %v characters a second", b, tt.cps)
			}
		})
	}
	if m := scoreAnswer(typed).Measure; m.Thread != nil || m.Components.Thread != 0 {
		t.Errorf("an answer on the page has a thread measure: %+v", m.Thread)
	}
	r := ScoreCheating([]Answer{fastLong, normal, typed}, 70)
	if r.CheatingScore != 56 || r.Flagged || r.Evidence.Thread != 2 || r.Evidence.Reported != 1 || r.Evidence.Rules != "answer-signals/3" {
		t.Errorf("a session with a fast and a normal text reply = score %v flagged %v, evidence thread %d reported %d rules %s; want 56, false, 2, 1",
			r.CheatingScore, r.Flagged, r.Evidence.Thread, r.Evidence.Reported, r.Evidence.Rules)
	}
	b, _ := json.Marshal(r.Evidence.Items[0])
	if !strings.Contains(string(b), `"thread":{"channel":"sms","replyMs":6000,"replyCharsPerSecond":70}`) {
		t.Errorf("evidence of the fast reply = %s", b)
	}
}
